"""The embedded default: verification jobs on a thread pool in this process.

One job per GPU at a time (each job gets a free GPU from a queue), or one job at a
time on a machine without GPUs; each job itself runs its fixes in parallel (see
bot.verify). The sandbox runs are subprocesses, so threads are enough here.
"""

from __future__ import annotations

import itertools
import queue
import threading
import uuid
import weakref
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout

from bot.jobs.base import JobFailed, JobTimeout, Progress
from bot.jobs.gpus import detect_gpus
from bot.jobs.settings import JobSettings
from bot.jobs.verification import check_snippet, on_healthy_gpu, worker_info
from bot.sandbox.canary import check_gpu
from bot.sandbox.warm import start_pool
from bot.verify.report import ReportRecorder, VerifyReport
from bot.verify.service import run_verification


def _quiet(stage: str, done: int, total: int) -> None:
    pass


class LocalJob:
    def __init__(self, job_id: str, future: Future):
        self.id = job_id
        self._future = future

    def result(self, timeout: float | None = None) -> VerifyReport:
        try:
            return self._future.result(timeout)
        except FutureTimeout:
            raise JobTimeout(f"verification job {self.id} gave no report within {timeout:g} s") from None

    def done(self) -> bool:
        return self._future.done()


class LocalExecutor:
    name = "local"

    def __init__(self, settings: JobSettings | None = None, *, gpus: list[str] | None = None, runner=None,
                 warm_pool: bool = True, canary=check_gpu):
        """`warm_pool`: from the first job on, keep warm sandboxes started ahead of the next
        jobs (a long-lived executor, such as the bot's); a one-shot command turns it off and
        its job starts its own. `canary`: the GPU health check run before each GPU job
        (bot/sandbox/canary.py; tests without a GPU give their own)."""
        self._canary = canary
        self.settings = settings or JobSettings.from_env()
        self.gpus = detect_gpus() if gpus is None else list(gpus)
        slots = self.settings.concurrency or max(1, len(self.gpus))
        self._free_gpus: queue.SimpleQueue = queue.SimpleQueue()
        for gpu in itertools.islice(itertools.cycle(self.gpus), slots if self.gpus else 0):
            self._free_gpus.put(gpu)
        self._pool = ThreadPoolExecutor(max_workers=slots, thread_name_prefix="verify-job")
        self._runner = runner
        self._lock = threading.Lock()
        # Warm sandboxes started ahead of the jobs, from the first job on (none when a
        # runner is given: tests, kb verify); closed by shutdown.
        self._want_warm_pool = runner is None and warm_pool
        self.warm_pool = None

    def submit(self, code: str, progress: Progress | None = None, *, fixed_code: str | None = None,
               lang: str = "en", record: ReportRecorder | None = None) -> LocalJob:
        check_snippet(code)
        if fixed_code is not None:
            check_snippet(fixed_code, "fixed version")
        progress = progress or _quiet
        with self._lock:
            if self._want_warm_pool and self.warm_pool is None:
                self.warm_pool = start_pool(self.gpus or [None])
                if self.warm_pool is not None:  # an executor dropped without shutdown frees its zygotes too
                    weakref.finalize(self, self.warm_pool.close)
        job_id = uuid.uuid4().hex
        progress("queued", 0, 0)
        return LocalJob(job_id, self._pool.submit(self._run, job_id, code, fixed_code, progress, lang, record))

    def verify(self, code: str, progress: Progress | None = None, *, fixed_code: str | None = None,
               timeout: float | None = None, lang: str = "en", record: ReportRecorder | None = None) -> VerifyReport:
        return self.submit(code, progress, fixed_code=fixed_code, lang=lang, record=record).result(timeout)

    def _run(self, job_id: str, code: str, fixed_code: str | None, progress: Progress, lang: str = "en",
             record: ReportRecorder | None = None) -> VerifyReport:
        gpu = self._free_gpus.get() if self.gpus else None
        try:
            info = worker_info(gpu, executor="local")
            job = {"id": job_id, "executor": self.name}
            # On a GPU, its canary first (bot/jobs/verification.py); the report is recorded
            # after that guard, so an infrastructure error is never evidence.
            report = on_healthy_gpu(gpu, info, lambda: run_verification(
                code, fixed_code=fixed_code, gpu=gpu, progress=progress, job_seconds=self.settings.job_seconds,
                runner=self._runner, info=info, lang=lang, pool=self.warm_pool, job=job), canary=self._canary)
            report.job = job
            if record is not None:
                record.save(report, code)
            return report
        except Exception as exc:  # a bug in verification, not in the snippet
            raise JobFailed(f"the verification failed ({type(exc).__name__}: {exc})") from exc
        finally:
            if gpu is not None:
                self._free_gpus.put(gpu)

    def shutdown(self, wait: bool = True) -> None:
        self._pool.shutdown(wait=wait)
        if self.warm_pool is not None:
            self.warm_pool.close()
