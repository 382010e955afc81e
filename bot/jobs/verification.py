"""One verification job as both executors run it: bot.verify.verify_snippet on the
given GPU (or the CPU), every sandbox run cut to what is left of the job's budget,
and the report told where it ran (report["environment"]["worker"])."""

from __future__ import annotations

import os
import socket
import threading
import time
from dataclasses import replace
from typing import Any, Callable

from bot.jobs.gpus import NO_GPU_NOTE

Progress = Callable[[str, int, int], None]
MIN_RUN_SECONDS = 1.0  # a run that would get less than this is not started
MAX_SNIPPET_BYTES = 256 * 1024


def check_snippet(code: object, what: str = "snippet") -> str:
    """Reject what no run could use, before it is queued."""
    if not isinstance(code, str):
        raise ValueError(f"the {what} must be text (str), got {type(code).__name__}")
    if not code.strip():
        raise ValueError(f"the {what} is empty")
    size = len(code.encode("utf-8", "surrogatepass"))
    if size > MAX_SNIPPET_BYTES:
        raise ValueError(f"the {what} is {size // 1024} KiB; a repro snippet may be at most "
                         f"{MAX_SNIPPET_BYTES // 1024} KiB")
    return code


def worker_info(gpu: str | None, **extra: Any) -> dict:
    info = {"hostname": socket.gethostname(), "gpu": gpu, "pid": os.getpid()}
    if gpu is None:
        info["note"] = NO_GPU_NOTE
    info.update(extra)
    return info


class BudgetRunner:
    """run_snippet with each run's wall-clock limit cut to the job's remaining budget, so
    that the whole job ends before the task's soft time limit."""

    def __init__(self, deadline: float, runner: Callable[..., Any] | None = None):
        self.deadline = deadline
        self._runner = runner
        self._lock = threading.Lock()
        self.skipped = 0

    def __call__(self, code: str, **options):
        from bot.sandbox import Limits, RunResult, run_snippet

        runner = self._runner or run_snippet
        remaining = self.deadline - time.monotonic()
        if remaining < MIN_RUN_SECONDS:
            with self._lock:
                self.skipped += 1
            # Not run at all: report it as a timeout, and say why in the notes.
            return RunResult(exit_reason="timeout", exit_code=None, signal=None, error=None, output="",
                             output_truncated=False, wall_seconds=0.0, peak_memory_bytes=None,
                             peak_gpu_memory_bytes=None, environment={}, limits=[], sandbox={},
                             notes=["not run: the job's time budget (TROUBLESHOOT_JOB_SECONDS) was spent"])
        limits = options.pop("limits", None) or Limits()
        if limits.wall_seconds > remaining:
            limits = replace(limits, wall_seconds=remaining)
        return runner(code, limits=limits, **options)


def run_verification(code: str, *, fixed_code: str | None = None, gpu: str | None = None,
                     progress: Progress | None = None, job_seconds: float,
                     runner: Callable[..., Any] | None = None, info: dict | None = None, lang: str = "en") -> dict:
    """The `troubleshoot verify --json` report of `code` (and `fixed_code`)."""
    from bot.verify import verify_snippet

    budget = BudgetRunner(time.monotonic() + job_seconds, runner)
    report = verify_snippet(code, fixed_code=fixed_code, runner=budget, progress=progress,
                            gpus=[gpu] if gpu is not None else None, lang=lang)
    env = report.get("environment")
    if not isinstance(env, dict):
        env = report["environment"] = {}
    env["worker"] = info if info is not None else worker_info(gpu)
    if budget.skipped:
        report.setdefault("notes", []).append(
            f"{budget.skipped} run(s) not started: the job's time budget of {job_seconds:g} s was spent")
    return report
