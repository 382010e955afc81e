"""What the one-run sandbox (runner.py) and the warm one (zygote.py) do alike around one
process of a run: check what goes in, hand it over in memfds, read its output with a cap
and a deadline, and tell from what the host saw how it ended (the RunResult).
"""

from __future__ import annotations

import os
import re
import selectors
import signal
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import bwrap, cgroups, facts, rlimits
from .limits import Limits, format_bytes, format_seconds
from .result import RunResult

FILE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]{0,99}")
MAX_FILES = 32
CPU_LIMIT_SLACK = 0.1  # seconds: rusage is sampled at ticks; SIGXCPU comes at the soft limit


# --- what goes in ---------------------------------------------------------------------------


def check_inputs(code: object, files: object, limits: Limits) -> dict[str, bytes]:
    """The snippet's files, once `code` and `files` are checked (TypeError, ValueError)."""
    if not isinstance(code, str):
        raise TypeError(f"code must be str, got {type(code).__name__}")
    if files is None:
        return {}
    if not isinstance(files, dict):
        raise TypeError(f"files must be a dict of name -> bytes, got {type(files).__name__}")
    if len(files) > MAX_FILES:
        raise ValueError(f"files: at most {MAX_FILES} files, got {len(files)}")
    total = len(code.encode("utf-8", "surrogateescape"))
    for name, data in files.items():
        if not isinstance(name, str) or not FILE_NAME.fullmatch(name) or name == bwrap.SNIPPET_NAME:
            raise ValueError(f"files: bad file name {name!r}: use a plain name such as 'data.pt' "
                             f"(letters, digits, . _ + -; no folders; not {bwrap.SNIPPET_NAME!r})")
        if not isinstance(data, (bytes, bytearray)):
            raise TypeError(f"files[{name!r}] must be bytes, got {type(data).__name__}")
        total += len(data)
    if total > limits.tmp_bytes // 2:
        raise ValueError(f"files: {format_bytes(total)} in all is more than half the home folder's "
                         f"{format_bytes(limits.tmp_bytes)} (Limits.tmp_bytes)")
    return files


def memfd(name: str, data: bytes) -> int:
    """A memfd holding `data`, positioned at its start (the caller closes it)."""
    fd = os.memfd_create(name)
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


# --- what comes out -------------------------------------------------------------------------


@dataclass
class Collected:
    output: bytes = b""
    truncated: bool = False
    timed_out: bool = False


def read_output(fd: int, cap: int, deadline: float, *,
                control: tuple[socket.socket, Callable[[], object]] | None = None) -> tuple[Collected, bool]:
    """Read a run's output from the pipe `fd` as it comes, keeping at most `cap` bytes,
    until it ends, the cap is passed or `deadline` (time.monotonic) comes; (what was read,
    whether it ended). Without `control` it ends when every writer has closed the pipe.
    With `control`, (a socket, the function that reads its message), as a warm sandbox
    has from its supervisor, it ends when a message arrives there, and a closed pipe only
    means that message is coming."""
    got = Collected()
    buf = bytearray()
    os.set_blocking(fd, False)
    ended = False
    with selectors.DefaultSelector() as sel:
        sel.register(fd, selectors.EVENT_READ, "output")
        if control is not None:
            sel.register(control[0], selectors.EVENT_READ, "control")
        while not ended:
            left = deadline - time.monotonic()
            if left <= 0:
                got.timed_out = True
                break
            for key, _ in sel.select(left):
                if control is not None and key.data == "control":
                    control[1]()
                    ended = True
                    continue
                try:
                    chunk = os.read(fd, 65536)
                except BlockingIOError:
                    continue
                if not chunk:  # every writer is gone
                    if control is None:
                        ended = True
                    else:
                        sel.unregister(fd)
                    continue
                room = cap - len(buf)
                if len(chunk) > room:
                    buf += chunk[:room]
                    got.truncated = True
                    break
                buf += chunk
            if got.truncated:
                break
    got.output = bytes(buf)
    return got, ended


def read_available(fd: int, limit: int = 1 << 16) -> bytes:
    """What the pipe `fd` holds now, up to about `limit` bytes, without waiting."""
    os.set_blocking(fd, False)
    out = b""
    while len(out) < limit:
        try:
            chunk = os.read(fd, 4096)
        except BlockingIOError:
            break
        if not chunk:
            break
        out += chunk
    return out


# --- how it ended ---------------------------------------------------------------------------


def _ending(got: Collected, report: dict[str, Any] | None, oom: bool, returncode: int | None, limits: Limits,
            rl: list[rlimits.RLimit], memory_by_rlimit: bool) -> tuple[str, int | None, int | None, str, bool]:
    """(exit_reason, exit_code, signal, exit_detail, error_allowed), from what the host saw:
    its deadline and output cap, the cgroup's OOM counter, and the supervisor's report of
    the real wait status. An exit status is never read as a signal."""
    oom_text = "; the cgroup's OOM killer fired" if oom else ""
    if got.timed_out:
        return "timeout", None, None, f"the host's deadline of {format_seconds(limits.wall_seconds)} passed; " \
                                      f"every process of the run was killed{oom_text}", False
    if got.truncated:
        return "output_limit", None, None, f"the output passed {format_bytes(limits.output_bytes)}; " \
                                           f"every process of the run was killed", False
    if report is None:
        if returncode is None:  # a warm sandbox's child: the supervisor outlives it
            why = "the warm sandbox's supervisor sent none"
        elif returncode < 0:
            why = f"bwrap was killed by {facts.signal_name(-returncode)}"
        else:
            why = f"bwrap exited with status {returncode}"
        if oom:
            return "memory", None, None, f"no report from the supervisor ({why}); the cgroup's OOM killer fired", False
        return "killed", None, None, f"no report from the supervisor ({why})", False
    status = report["status"]
    if status["signal"] is not None:
        sig = status["signal"]
        name = facts.signal_name(sig)
        core = " (core dumped)" if status["core_dumped"] else ""
        if oom and sig == signal.SIGKILL:
            return "memory", None, sig, f"killed by SIGKILL{core}: the cgroup's OOM killer fired", False
        if sig == signal.SIGXCPU:
            cpu_limit = next((r.soft for r in rl if r.name == "RLIMIT_CPU"), None)
            used = report["cpu_seconds"]
            if cpu_limit is not None and used is not None and used + CPU_LIMIT_SLACK >= cpu_limit:
                return "timeout", None, sig, f"killed by SIGXCPU: its CPU time {used:.2f} s reached the " \
                                             f"limit of {cpu_limit} s (RLIMIT_CPU)", False
            used_text = "unknown" if used is None else f"{used:.2f} s"
            return "killed", None, sig, f"killed by SIGXCPU{core} before the CPU limit (CPU time {used_text}, " \
                                        f"limit {cpu_limit} s): not the host's limit", False
        return "killed", None, sig, f"killed by {name} (signal {sig}){core}{oom_text}", False
    code = status["exited"]
    if code == 0:
        return "ok", 0, None, "exited with status 0", True
    if oom:
        return "memory", code, None, f"exited with status {code}; the cgroup's OOM killer fired", True
    child = report["child"]
    error = child["error"] if child and child["exit_code"] == code else None
    if memory_by_rlimit and error and error["type"] == "MemoryError":
        return "memory", code, None, (f"exited with status {code} after a MemoryError (the address-space "
                                      f"rlimit; the run's own account)"), True
    return "error", code, None, f"exited with status {code}", True


def run_result(returncode: int | None, got: Collected, report: dict[str, Any] | None, oom: bool, wall: float,
               cg: cgroups.CgroupRun | None, host_env: dict[str, Any], enforced: list[str], limits: Limits,
               rl: list[rlimits.RLimit], sandbox: dict[str, Any]) -> RunResult:
    """The RunResult of a run: `returncode` is bwrap's (None for a warm sandbox's child),
    `report` the supervisor's parsed report (None when it sent none or a bad one)."""
    memory_by_rlimit = any(r.name == "RLIMIT_AS" for r in rl)
    reason, exit_code, sig, detail, error_allowed = _ending(got, report, oom, returncode, limits, rl, memory_by_rlimit)
    child = report["child"] if report else None
    # The exception is the snippet's own account: kept only when it matches the real exit status.
    error = child["error"] if error_allowed and child and child["exit_code"] == exit_code and exit_code else None
    notes = []
    supervisor_lost = report is None and not (got.timed_out or got.truncated or oom)
    if supervisor_lost:
        notes.append("the sandbox's supervisor was lost before it reported (killed or crashed): nothing is known "
                     "about how the snippet ended")
    elif report is None:
        notes.append("no valid report from the supervisor; the exit reason comes from what the host saw")
    elif child is None and reason in ("ok", "error"):
        notes.append("no valid account from the snippet's process; the exit status is the supervisor's")
    if reason == "error" and error is None:
        notes.append(f"the program exited with status {exit_code} without a Python exception")
    if oom:
        notes.append("the cgroup's OOM killer killed a process of this run")
    reads_own_source = bool(report and report["reads_own_source"])
    if reads_own_source:
        notes.append("the snippet read its own source: this run is not counted as evidence")
    peak = cg.peak_memory() if cg is not None else None
    if peak is None and report is not None:
        peak = report["max_rss_bytes"]
    cpu = cg.cpu_seconds() if cg is not None else None
    if cpu is None and report is not None:
        cpu = report["cpu_seconds"]
    return RunResult(
        exit_reason=reason,
        exit_code=exit_code,
        signal=sig,
        error=error,
        output=got.output.decode("utf-8", "replace"),
        output_truncated=got.truncated,
        wall_seconds=round(wall, 4),
        peak_memory_bytes=peak,
        peak_gpu_memory_bytes=None,  # not measured by the host (no NVML here); the run's word is not taken
        environment=host_env,
        limits=enforced,
        sandbox=sandbox,
        snippet_seconds=round(report["snippet_seconds"], 4) if report and report["snippet_seconds"] is not None
        else None,
        notes=notes,
        exit_detail=detail,
        cpu_seconds=None if cpu is None else round(cpu, 3),
        reads_own_source=reads_own_source,
        ended=child["ended"] if child and child["exit_code"] == exit_code else None,
        supervisor_lost=supervisor_lost,
    )
