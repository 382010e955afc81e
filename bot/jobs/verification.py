"""What both executors need around a verification job: the snippet checks before it is
queued and the description of where it ran. The verification itself is
bot.verify.service.run_verification, the one path every surface uses."""

from __future__ import annotations

import logging
import os
import socket
from typing import Any, Callable

from bot.errors import InputError
from bot.jobs.gpus import NO_GPU_NOTE
from bot.jobs.reports import gpu_unhealthy_report
from bot.sandbox.canary import GpuHealth, check_gpu, looks_like_gpu_fault
from bot.sandbox.gpu import GpuError
from bot.settings import get_settings
from bot.verify.report import VerifyReport

log = logging.getLogger("bot.jobs.worker")



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



def on_healthy_gpu(gpu: str | None, info: dict, verify: Callable[[], VerifyReport], *,
                   canary: Callable[[str], GpuHealth] = check_gpu) -> VerifyReport:
    """`verify()` (the job's run_verification) on `gpu`, guarded: the GPU canary runs
    first, and a GPU that fails it, a GpuError during the job, or a job whose original run
    ended in a GPU fault that the canary then confirms, give an infrastructure report
    (bot.jobs.reports.gpu_unhealthy_report) instead of one about the snippet. Without a
    GPU, just `verify()`."""
    if gpu is None:
        return verify()
    health = canary(gpu)
    info["gpu_canary"] = health.brief()
    if not health.ok:
        log.error("GPU %s failed its canary: %s (the job is reported as an infrastructure error)", gpu, health.why)
        return gpu_unhealthy_report(gpu, health.why, info)
    try:
        report = verify()
    except GpuError as exc:
        log.error("GPU %s could not be given to a run: %s", gpu, exc)
        return gpu_unhealthy_report(gpu, str(exc), info)
    error = report.error
    if looks_like_gpu_fault(f"{error.message if error else ''}\n{report.output or ''}"):
        after = canary(gpu)
        info["gpu_canary_after"] = after.brief()
        if not after.ok:
            log.error("GPU %s failed its canary after a job: %s", gpu, after.why)
            return gpu_unhealthy_report(gpu, after.why, info, after_run=True)
    return report
