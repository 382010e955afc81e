"""A warm sandbox (a zygote): one sandbox whose supervisor imports torch (and the
snippet's heavy imports) once, then forks one child per run, so that the variants of a
verification do not each pay an interpreter start and `import torch`.

    with Zygote(limits=Limits()) as zygote:
        zygote.preload(["numpy"])
        result = zygote.run(code)          # a RunResult, as Sandbox.run gives

Each child holds what a one-run sandbox holds, per child:
- its own cgroup (memory, pids, cpu): the child waits for the host's "go" before any
  snippet code runs, and the host moves it into that cgroup first;
- its own deadline and output cap (its own output pipe, read by the host);
- a fresh /tmp, home folder and /dev/shm, and no process of an earlier child: after
  each child the supervisor kills every other process of the pid namespace, empties
  those folders and removes the SysV IPC objects (POSIX message queues are refused by
  seccomp), and reports "clean" before the next child may start;
- its own report, in a memfd the host made for that run alone.
A zygote serves one job and is then closed: nothing is shared between two jobs. The
supervisor never initialises CUDA: a preload that does (or that starts a thread) makes
the zygote unusable (WarmUnavailable), and the caller runs one sandbox per run instead.
"""

from __future__ import annotations

import ast
import json
import os
import selectors
import signal
import socket
import threading
import time
from dataclasses import replace

from . import cgroups, procio, rlimits
from .environment import HOME
from .limits import Limits, format_seconds
from .result import RunResult, parse_supervisor, read_memfd
from .runner import GPU_KILL_SECONDS, Launched, Sandbox, default_sandbox

BASE_PRELOAD = ("torch",)
# Top-level packages whose import a zygote may do for the snippet: installed libraries
# only (never the snippet's own files: the home folder is not on the supervisor's path).
PRELOADABLE = frozenset({"torch", "numpy", "torchvision", "torchaudio", "scipy", "pandas", "PIL", "einops",
                         "sklearn", "transformers", "safetensors"})
CLEAN_DIRS = ((HOME, 0o700), ("/tmp", 0o1777), ("/dev/shm", 0o1777))
CONTROL_SECONDS = 30.0  # the supervisor's own steps (fork, sweep): not the snippet's time
START_SECONDS = 120.0  # starting the sandbox and the base preload
MAX_MESSAGE = 65536
# Limits a child gets from its own cgroup and the host; the others are the sandbox's
# rlimits and tmpfs sizes, fixed when the zygote starts.
PER_CHILD = ("wall_seconds", "output_bytes", "memory_bytes", "max_processes", "cpus")


class WarmUnavailable(RuntimeError):
    """This zygote cannot run the snippet (start failed, unsafe preload, protocol broke):
    run it in a one-run sandbox instead."""


def preload_list(code: str) -> list[str]:
    """The snippet's imports that a zygote may preload (see PRELOADABLE), in order."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return []
    names: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.Import):
            found = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found = [node.module]
        else:
            continue
        for name in found:
            if name.split(".")[0] in PRELOADABLE and name not in names:
                names.append(name)
    return names


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(p) for p in f.read().split()]
    except OSError:  # kernels without CONFIG_PROC_CHILDREN: scan for the parent pid
        out = []
        for name in os.listdir("/proc"):
            if name.isdigit() and _status_field(int(name), "PPid") == [pid]:
                out.append(int(name))
        return out


def _status_field(pid: int, key: str) -> list[int] | None:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return [int(v) for v in line.split()[1:]]
    except (OSError, ValueError):
        return None
    return None


class Zygote:
    """One warm sandbox for one job; `run` may be called from several threads (runs go
    one at a time)."""

    def __init__(self, sandbox: Sandbox | None = None, *, limits: Limits | None = None, gpu: str | None = None,
                 site_packages: str | None = None, preload: tuple[str, ...] | list[str] = BASE_PRELOAD,
                 start_seconds: float = START_SECONDS):
        self.sandbox = sandbox or default_sandbox()
        self.limits = limits or Limits()
        self.gpu = gpu
        self.site_packages = site_packages
        self.broken: str | None = None
        self.preloaded: list[str] = []
        self.preload_seconds = 0.0
        self._launch = Launched()
        self._sock: socket.socket | None = None
        self._supervisor: int | None = None
        self._lock = threading.Lock()
        self._tail = b""
        self._drain: threading.Thread | None = None
        try:
            self._start(list(preload), start_seconds)
        except BaseException:
            self.close()
            raise

    # --- start and stop -------------------------------------------------------------------

    def _start(self, preload: list[str], seconds: float) -> None:
        host, inside = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._sock = host
        try:
            self.sandbox.launch(self._launch, limits=self.limits, gpu=self.gpu, site_packages=self.site_packages,
                                file_fds_of={}, pass_fds=(inside.fileno(),),
                                zygote={"zygote": True, "control_fd": inside.fileno(), "preload": preload,
                                        "clean_dirs": [list(d) for d in CLEAN_DIRS]})
        finally:
            inside.close()
        self._drain = threading.Thread(target=self._drain_output, name="zygote-output", daemon=True)
        self._drain.start()
        ready = self._expect("ready", seconds)
        self._take_preload(ready)

    def _drain_output(self) -> None:
        """The supervisor's own output (what the preloads print): kept as a short tail for errors."""
        stream = self._launch.proc.stdout
        try:
            for chunk in iter(lambda: stream.read1(4096), b""):
                self._tail = (self._tail + chunk)[-4000:]
        except (OSError, ValueError):
            pass

    def supervisor_peak_memory(self) -> int | None:
        """Peak memory of the supervisor's cgroup (the preloaded modules), where accounted."""
        cg = self._launch.cg
        return cg.peak_memory() if cg is not None else None

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        self.sandbox.release(self._launch)
        if self._drain is not None:
            self._drain.join(timeout=5)

    def __enter__(self) -> "Zygote":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # --- the control channel --------------------------------------------------------------

    def _fail(self, why: str) -> WarmUnavailable:
        self.broken = why
        tail = self._tail.decode("utf-8", "replace").strip()[-1000:]
        return WarmUnavailable(f"the warm sandbox stopped: {why}" + (f" (its output: {tail})" if tail else ""))

    def _expect(self, key: str, seconds: float) -> dict:
        """The supervisor's next message, which must carry `key`."""
        if self._sock is None:
            raise self._fail("closed")
        with selectors.DefaultSelector() as sel:
            sel.register(self._sock, selectors.EVENT_READ)
            if not sel.select(seconds):
                raise self._fail(f"no {key!r} from the supervisor within {format_seconds(seconds)}")
        try:
            data = self._sock.recv(MAX_MESSAGE)
            message = json.loads(data) if data else None
        except (OSError, ValueError) as e:
            raise self._fail(f"unreadable message from the supervisor ({e})") from e
        if not isinstance(message, dict):
            raise self._fail(f"the supervisor ended (exit status {self._launch.proc.poll()})")
        if key not in message:
            raise self._fail(f"expected {key!r} from the supervisor, got {sorted(message)}")
        return message

    def _take_preload(self, message: dict) -> None:
        info = message.get("ready") or message.get("preloaded")
        if not isinstance(info, dict):
            raise self._fail("a malformed preload report")
        self.preloaded += [n for n in info.get("preloaded", []) if isinstance(n, str) and n not in self.preloaded]
        self.preload_seconds += float(info.get("seconds") or 0.0)
        if info.get("unsafe"):
            raise self._fail(f"forking after the preload is not safe: {info['unsafe']}")

    def preload(self, names: list[str]) -> None:
        """Import more modules in the supervisor (the snippet's); WarmUnavailable when that
        leaves the zygote unsafe to fork."""
        names = [n for n in names if n not in self.preloaded]
        if not names:
            return
        with self._lock:
            if self.broken:
                raise WarmUnavailable(self.broken)
            self._sock.sendmsg([json.dumps({"preload": names}).encode()])
            self._take_preload(self._expect("preloaded", START_SECONDS))

    # --- one run ---------------------------------------------------------------------------

    def fits(self, limits: Limits) -> str | None:
        """Why a run with `limits` cannot use this zygote (None: it can)."""
        if self.broken:
            return self.broken
        fixed = replace(limits, **{name: getattr(self.limits, name) for name in PER_CHILD + ("cpu_seconds",)})
        if fixed != self.limits:
            return "this run's rlimits or tmpfs sizes differ from the warm sandbox's"
        if limits.cpu_seconds > self.limits.cpu_seconds:
            return "this run's CPU time limit is above the warm sandbox's"
        if not self.sandbox.cgroup_backend.version and limits.memory_bytes != self.limits.memory_bytes:
            return "without cgroups, memory is a sandbox-wide rlimit"
        return None

    def run(self, code: str, *, limits: Limits | None = None, files: dict[str, bytes] | None = None) -> RunResult:
        limits = limits or self.limits
        why = self.fits(limits)
        if why:
            raise WarmUnavailable(why)
        files = procio.check_inputs(code, files, limits)
        with self._lock:
            if self.broken:
                raise WarmUnavailable(self.broken)
            return self._run_one(code, limits, files)

    def _supervisor_pid(self) -> int:
        if self._supervisor is None:
            found = _children(self._launch.proc.pid)
            if len(found) != 1:
                raise self._fail(f"cannot find the supervisor's process (bwrap's children: {found})")
            self._supervisor = found[0]
        return self._supervisor

    def _child_pid(self, ns_pid: int) -> int:
        """The host pid of the supervisor's child whose pid in the sandbox is `ns_pid`."""
        for pid in _children(self._supervisor_pid()):
            nspid = _status_field(pid, "NSpid")
            if nspid and nspid[-1] == ns_pid:
                return pid
        raise self._fail(f"the child {ns_pid} is not among the supervisor's children")

    def _run_one(self, code: str, limits: Limits, files: dict[str, bytes]) -> RunResult:
        child_cg, cpu_how = self.sandbox.new_cgroup(limits, gpu=self._launch.gpu_plan is not None)
        out_r, out_w = os.pipe()
        report_fd = os.memfd_create("report")
        sent = [out_w, procio.memfd("snippet", code.encode("utf-8", "surrogateescape")), report_fd]
        sent += [procio.memfd("file", bytes(data)) for data in files.values()]
        host_pid: int | None = None
        try:
            rl = self._child_rlimits(limits)
            cpu = next(r for r in rl if r.name == "RLIMIT_CPU")
            message = {"run": {"files": list(files), "rlimit_cpu": [cpu.soft, cpu.hard]}}
            socket.send_fds(self._sock, [json.dumps(message).encode()], sent)
            for fd in sent:
                if fd != report_fd:
                    os.close(fd)
            sent = []
            ns_pid = self._expect("forked", CONTROL_SECONDS)["forked"]
            if not isinstance(ns_pid, int):
                raise self._fail("a malformed child pid")
            host_pid = self._child_pid(ns_pid)
            if child_cg is not None:
                try:
                    cgroups.move(host_pid, child_cg.procs_files)
                except OSError as e:
                    raise self._fail(f"could not move the child into its cgroup: {e}") from e
            started = time.monotonic()
            self._sock.sendmsg([b'{"go": true}'])
            # The child's output until the supervisor says "done", the deadline or the cap.
            got, done = procio.read_output(out_r, limits.output_bytes, started + limits.wall_seconds,
                                           control=(self._sock, lambda: self._expect("done", CONTROL_SECONDS)))
            if got.truncated or got.timed_out:
                self._kill_child(host_pid, child_cg)
            if not done:
                self._expect("done", CONTROL_SECONDS)
            wall = time.monotonic() - started
            if not got.truncated and not got.timed_out:  # what the child wrote just before it ended
                room = limits.output_bytes - len(got.output)
                rest = procio.read_available(out_r, room + 1) if room > 0 else b""
                got.output += rest[:room]
                got.truncated = len(rest) > room
            report = parse_supervisor(read_memfd(report_fd))
            oom = child_cg.oom_killed() if child_cg is not None else False
            result = procio.run_result(None, got, report, oom, wall, child_cg, self.sandbox.host_facts(self._launch),
                             self._limits_text(limits, child_cg, cpu_how, rl), limits, rl,
                             {**self.sandbox.sandbox_facts(), "warm": True})
            try:
                self._wait_clean()
            except WarmUnavailable:
                pass  # this run's result stands; the next run gets a sandbox of its own
            return result
        finally:
            for fd in sent + [out_r, report_fd]:
                try:
                    os.close(fd)
                except OSError:
                    pass
            if child_cg is not None:
                if not child_cg.kill_all(GPU_KILL_SECONDS if self._launch.gpu_plan else 3.0):
                    self.broken = self.broken or "a child's processes survived SIGKILL"
                try:
                    child_cg.remove()
                except OSError:
                    pass

    def _wait_clean(self) -> None:
        message = self._expect("clean", CONTROL_SECONDS) if not self.broken else None
        if message is not None and not isinstance(message.get("clean"), dict):
            raise self._fail("a malformed sweep report")

    def _kill_child(self, host_pid: int, child_cg: cgroups.CgroupRun | None) -> None:
        """End this run's processes (the supervisor sweeps any that left the child's tree)."""
        if child_cg is not None:
            child_cg.kill_all()
            return
        try:
            os.kill(host_pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def _child_rlimits(self, limits: Limits) -> list[rlimits.RLimit]:
        """The zygote's rlimits, with this child's own CPU time limit (set in the child)."""
        own = {r.name: r for r in rlimits.plan(limits, gpu=self.gpu is not None, memory_by_cgroup=True,
                                                pids_by_cgroup=True)[0]}
        return [own["RLIMIT_CPU"] if r.name == "RLIMIT_CPU" else r for r in self._launch.rl]

    def _limits_text(self, limits: Limits, child_cg: cgroups.CgroupRun | None, cpu_how: str | None,
                     rl: list[rlimits.RLimit]) -> list[str]:
        run = self._launch
        lines = self.sandbox.describe_limits(limits, child_cg, rl, run.rl_notes, run.gpu_plan, cpu_how)
        if child_cg is None:
            lines = [(f"cgroups: none ({self.sandbox.cgroup_backend.reason}); this run's processes are killed by "
                      f"the host (SIGKILL to the child) and by the supervisor's sweep of the pid namespace before "
                      f"the next run; rlimit fallback allowed by TROUBLESHOOT_SANDBOX_RLIMIT_FALLBACK")
                     if line.startswith("cgroups: none") else line for line in lines]
        lines[0] = (f"wall clock {format_seconds(limits.wall_seconds)} for this run alone (host deadline, counted "
                    f"from the child's start; kills this run's processes)")
        lines.insert(1, f"warm sandbox: this run is a child forked from a supervisor that had imported "
                        f"{', '.join(self.preloaded) or 'nothing'} once for this job ({self.preload_seconds:.2f} s); "
                        f"memory and cpu above count this run's own pages and time (pages shared with the "
                        f"supervisor count in its cgroup); before it started, every process of the previous run "
                        f"was killed, /tmp, the home folder and /dev/shm were emptied and SysV IPC objects removed")
        return lines
