"""The outcome of one run, and reading what came out of the sandbox as untrusted data.

Two documents come back from a run (see harness.py):
- the supervisor's report, in a memfd the host made (no file on the host's disk, no
  path anyone can open): the child's wait status, its rusage, the time it took and
  whether it read its own source. Only the supervisor can write there;
- inside it, the child's own account (`child_report`: exit code and the exception it
  raised), which the snippet could have written itself: data, never a verdict.
Both are size-capped and every field is checked for type and clamped before use;
anything else is as good as no report, and the exit reason then comes from what the
host saw alone (its deadline, the cgroup's OOM counter, bwrap's status).
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import asdict, dataclass, field
from typing import Any

from bot.text.jsonin import loads as json_loads

EXIT_REASONS = ("ok", "error", "timeout", "memory", "output_limit", "killed")
MAX_RESULT_BYTES = 1 << 20
MAX_STR = 65536
MAX_FRAMES = 200


@dataclass
class RunResult:
    exit_reason: str
    exit_code: int | None
    signal: int | None
    error: dict[str, Any] | None
    output: str
    output_truncated: bool
    wall_seconds: float
    peak_memory_bytes: int | None
    peak_gpu_memory_bytes: int | None
    environment: dict[str, Any]
    limits: list[str]
    sandbox: dict[str, Any]
    snippet_seconds: float | None = None  # from fork to reaping of the snippet's process (the supervisor's clock)
    notes: list[str] = field(default_factory=list)  # e.g. "no result from the harness"
    exit_detail: str = ""  # how the run ended, in words, from what the host observed
    cpu_seconds: float | None = None  # CPU time of the whole run (cgroup cpuacct), else of the snippet's process tree
    reads_own_source: bool = False  # the snippet's code read its own source: not counted as evidence
    # How the snippet's code ended, by the child's account (ENDINGS; None: no account, e.g.
    # os._exit): "end" ran to its last line, "exit" raised SystemExit, "exception" anything else.
    ended: str | None = None
    # No report came from the sandbox's supervisor (it was killed or crashed, bwrap ended
    # first): nothing is known about the snippet, which is neither "ok" nor "error".
    supervisor_lost: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def read_untrusted_file(dir_fd: int, name: str, max_bytes: int = MAX_RESULT_BYTES) -> bytes | None:
    """Bytes of the regular file `name` in the directory `dir_fd`, or None when it is
    missing, a symlink, not a regular file (FIFO, device, folder) or too large."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY, dir_fd=dir_fd)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > max_bytes:
            return None
        chunks, total = [], 0
        while total <= max_bytes:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > max_bytes:
            return None
        return b"".join(chunks)
    finally:
        os.close(fd)


# What JSON lets a run send that no encoder takes: lone surrogates ("\\ud800" decodes to one)
# and NUL (PostgreSQL's text refuses it). Replaced with U+FFFD at the boundary, so that every
# layer above (the embedder, the store, the terminal) gets text it can encode.
_UNENCODABLE = re.compile("[\ud800-\udfff\x00]")


def _str(v: Any, cap: int = MAX_STR) -> str | None:
    return _UNENCODABLE.sub("\ufffd", v[:cap]) if isinstance(v, str) else None


def _int(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 1 << 62 else None


def _num(v: Any) -> float | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    return float(v) if 0 <= v < 1e9 else None


def _error(v: Any) -> dict[str, Any] | None:
    if not isinstance(v, dict):
        return None
    type_ = _str(v.get("type"), 200)
    if not type_:
        return None
    frames = []
    raw_frames = v.get("frames")
    for f in raw_frames[-MAX_FRAMES:] if isinstance(raw_frames, list) else []:
        if not isinstance(f, dict):
            continue
        frames.append({
            "file": _str(f.get("file"), 1000) or "?",
            "line": _int(f.get("line")),
            "function": _str(f.get("function"), 200) or "?",
            "in_snippet": f.get("in_snippet") is True,
        })
    return {
        "type": type_,
        "message": _str(v.get("message"), 8192) or "",
        "traceback": _str(v.get("traceback")) or "",
        "frames": frames,
        "snippet_line": _int(v.get("snippet_line")),
    }


def _json(data: bytes | str | None) -> Any:
    if not data:
        return None
    try:
        text = data.decode("utf-8") if isinstance(data, (bytes, bytearray)) else data
        return json_loads(text)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None


ENDINGS = frozenset({"end", "exit", "exception"})


def parse_result(data: bytes | str | None) -> dict[str, Any] | None:
    """The child's own account (exit code, exception) with every field checked, or None
    if it is not one. Written by code the snippet controls: data only."""
    raw = _json(data)
    if not isinstance(raw, dict) or _int(raw.get("exit_code")) is None:
        return None
    ended = raw.get("ended")
    return {"exit_code": _int(raw.get("exit_code")), "error": _error(raw.get("error")),
            "ended": ended if ended in ENDINGS else None}


def _status(v: Any) -> dict[str, Any] | None:
    if not isinstance(v, dict):
        return None
    exited, sig = _int(v.get("exited")), _int(v.get("signal"))
    if (exited is None) == (sig is None) or (exited is not None and exited > 255) or (sig is not None and sig > 64):
        return None
    return {"exited": exited, "signal": sig, "core_dumped": v.get("core_dumped") is True}


def parse_supervisor(data: bytes | None) -> dict[str, Any] | None:
    """The supervisor's report (see harness.py), checked; None when missing or malformed."""
    raw = _json(data)
    if not isinstance(raw, dict) or raw.get("supervisor") != 1:
        return None
    status = _status(raw.get("status"))
    if status is None:
        return None
    child = raw.get("child_report")
    return {
        "status": status,
        "snippet_seconds": _num(raw.get("snippet_seconds")),
        "cpu_seconds": _num(raw.get("cpu_seconds")),
        "max_rss_bytes": _int(raw.get("max_rss_bytes")),
        "reads_own_source": raw.get("reads_own_source") is True,
        "child": parse_result(child) if isinstance(child, str) and len(child) <= MAX_RESULT_BYTES else None,
    }


def read_memfd(fd: int, max_bytes: int = MAX_RESULT_BYTES) -> bytes | None:
    """The contents of a memfd the host made and the sandbox wrote, or None when larger
    than `max_bytes`."""
    size = os.fstat(fd).st_size
    if size > max_bytes:
        return None
    return os.pread(fd, size, 0) if size else b""
