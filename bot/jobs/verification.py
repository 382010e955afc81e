"""What both executors need around a verification job: the snippet checks before it is
queued and the description of where it ran. The verification itself is
bot.verify.service.run_verification, the one path every surface uses."""

from __future__ import annotations

import os
import socket
from typing import Any

from bot.errors import InputError
from bot.jobs.gpus import NO_GPU_NOTE
from bot.settings import get_settings



def max_snippet_bytes() -> int:
    return get_settings().max_snippet_bytes


def check_snippet(code: object, what: str = "snippet") -> str:
    """Reject what no run could use, before it is queued (InputError, a ValueError)."""
    if not isinstance(code, str):
        raise InputError(f"the {what} must be text (str), got {type(code).__name__}")
    if not code.strip():
        raise InputError(f"the {what} is empty")
    size = len(code.encode("utf-8", "surrogatepass"))
    limit = max_snippet_bytes()
    if size > limit:
        raise InputError(f"the {what} is {size // 1024} KiB; a repro snippet may be at most "
                         f"{limit // 1024} KiB (TROUBLESHOOT_MAX_SNIPPET_BYTES={limit})")
    return code


def worker_info(gpu: str | None, **extra: Any) -> dict:
    info = {"hostname": socket.gethostname(), "gpu": gpu, "pid": os.getpid()}
    if gpu is None:
        info["note"] = NO_GPU_NOTE
    info.update(extra)
    return info

