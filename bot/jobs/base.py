"""What every executor offers, whichever runs the verification (local.py in this
process, remote.py on GPU workers; executor.py picks one):

    executor = get_executor()            # LocalExecutor, or CeleryExecutor when REDIS_URL is set
    job = executor.submit(code, progress, fixed_code=None, record=None)
    report = job.result(timeout=None)    # a VerifyReport (bot/verify/report.py)
    report = executor.verify(code, progress)  # the same in one call (submit, then wait)

`record`: how the surface keeps the report as evidence (bot.evidence.record.Recording);
the report is saved once, where it is produced (local) or where it comes back (Celery).

`progress(stage, done, total)` gets "queued" first, then verify's stages ("running
original", "fix k of n: ...", "done"). The local executor calls it from its pool
thread; the Celery one from inside `job.result()`, so progress flows while someone
waits for the result.

Failures that are not a report raise a JobError with a sentence for the user:
BrokerUnavailable (the queue cannot be reached), JobTimeout, JobFailed. A worker
that died mid-job is a report (`report.worker_lost is True`), not an exception.
"""

from __future__ import annotations

from typing import Protocol

from bot.errors import Unavailable
from bot.verify.report import Progress, ReportRecorder, VerifyReport


class JobError(Unavailable, RuntimeError):
    """A verification could not produce a report; str(exc) is written for the user."""


class BrokerUnavailable(JobError):
    """The broker (Redis) cannot be reached, at submit time or while waiting."""


class JobTimeout(JobError):
    """No report within the time the caller was willing to wait."""


class JobFailed(JobError):
    """The job raised on the worker (a bug, not a property of the snippet)."""


class Job(Protocol):
    id: str

    def result(self, timeout: float | None = None) -> VerifyReport: ...


class Executor(Protocol):
    """The one executor protocol: every surface (the CLI, the Slack bot) uses it."""

    name: str

    def submit(self, code: str, progress: Progress | None = None, *, fixed_code: str | None = None,
               lang: str = "en", record: ReportRecorder | None = None) -> Job: ...

    def verify(self, code: str, progress: Progress | None = None, *, fixed_code: str | None = None,
               timeout: float | None = None, lang: str = "en",
               record: ReportRecorder | None = None) -> VerifyReport: ...
