"""The outcome of one run, and reading the harness's result file as untrusted data.

The result file was written by code the snippet could control. It is opened without
following symlinks, must be a regular file of bounded size, and every field is
checked for type and clamped before it is used; anything else is as good as no
result, and the exit reason then comes from the process status alone.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import asdict, dataclass, field
from typing import Any

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
    snippet_seconds: float | None = None  # the snippet's own run time, as the harness measured it
    notes: list[str] = field(default_factory=list)  # e.g. "no result from the harness"

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


def _str(v: Any, cap: int = MAX_STR) -> str | None:
    return v[:cap] if isinstance(v, str) else None


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


def _environment(v: Any) -> dict[str, Any]:
    v = v if isinstance(v, dict) else {}
    ca = v.get("cuda_available")
    return {
        "python": _str(v.get("python"), 50),
        "torch": _str(v.get("torch"), 100),
        "cuda_available": ca if isinstance(ca, bool) else None,
        "device_name": _str(v.get("device_name"), 200),
    }


def parse_result(data: bytes | None) -> dict[str, Any] | None:
    """The harness result with every field checked, or None if it is not one."""
    if not data:
        return None
    try:
        raw = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    if not isinstance(raw, dict) or _int(raw.get("exit_code")) is None:
        return None
    return {
        "exit_code": _int(raw.get("exit_code")),
        "error": _error(raw.get("error")),
        "snippet_seconds": _num(raw.get("snippet_seconds")),
        "peak_rss_bytes": _int(raw.get("peak_rss_bytes")),
        "peak_gpu_memory_bytes": _int(raw.get("peak_gpu_memory_bytes")),
        "environment": _environment(raw.get("environment")),
    }
