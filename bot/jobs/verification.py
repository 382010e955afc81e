"""What both executors need around a verification job: the snippet checks before it is
queued and the description of where it ran. The verification itself is
bot.verify.service.run_verification, the one path every surface uses."""

from __future__ import annotations

import os
import socket
from typing import Any

from bot.jobs.gpus import NO_GPU_NOTE
from bot.sandbox.warm import ZygotePool
from bot.settings import get_settings



def max_snippet_bytes() -> int:
    return get_settings().max_snippet_bytes


def check_snippet(code: object, what: str = "snippet") -> str:
    """Reject what no run could use, before it is queued."""
    if not isinstance(code, str):
        raise ValueError(f"the {what} must be text (str), got {type(code).__name__}")
    if not code.strip():
        raise ValueError(f"the {what} is empty")
    size = len(code.encode("utf-8", "surrogatepass"))
    limit = max_snippet_bytes()
    if size > limit:
        raise ValueError(f"the {what} is {size // 1024} KiB; a repro snippet may be at most "
                         f"{limit // 1024} KiB (TROUBLESHOOT_MAX_SNIPPET_BYTES={limit})")
    return code


def worker_info(gpu: str | None, **extra: Any) -> dict:
    info = {"hostname": socket.gethostname(), "gpu": gpu, "pid": os.getpid()}
    if gpu is None:
        info["note"] = NO_GPU_NOTE
    info.update(extra)
    return info


def start_pool(gpus: list[str | None]) -> ZygotePool | None:
    """The worker's warm sandboxes (TROUBLESHOOT_WARM_POOL per GPU), started in the
    background now so that a job's first run does not wait for `import torch`; None when
    warm sandboxes are off. A zygote the pool hands out serves that one job only."""
    settings = get_settings()
    if not settings.warm_sandbox or settings.warm_pool < 1:
        return None
    pool = ZygotePool(size=settings.warm_pool)
    for gpu in gpus:
        pool.prime(gpu, None)
    return pool
