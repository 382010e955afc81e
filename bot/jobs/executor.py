"""The one interface the Slack bot and the CLI use to run a verification, whichever
executor runs it:

    executor = get_executor()            # LocalExecutor, or CeleryExecutor when REDIS_URL is set
    job = executor.submit(code, progress, fixed_code=None)
    report = job.result(timeout=None)    # the `troubleshoot verify --json` report

`progress(stage, done, total)` gets "queued" first, then verify's stages ("running
original", "fix k of n: ...", "done"). The local executor calls it from its pool
thread; the Celery one from inside `job.result()`, so progress flows while someone
waits for the result.

Failures that are not a report raise a JobError with a sentence for the user:
BrokerUnavailable (the queue cannot be reached), JobTimeout, JobFailed. A worker
that died mid-job is a report (`report["worker_lost"] is True`), not an exception.
"""

from __future__ import annotations

from typing import Callable, Protocol

from bot.jobs.settings import JobSettings

Progress = Callable[[str, int, int], None]


class JobError(RuntimeError):
    """A verification could not produce a report; str(exc) is written for the user."""


class BrokerUnavailable(JobError):
    """The broker (Redis) cannot be reached, at submit time or while waiting."""


class JobTimeout(JobError):
    """No report within the time the caller was willing to wait."""


class JobFailed(JobError):
    """The job raised on the worker (a bug, not a property of the snippet)."""


class Job(Protocol):
    id: str

    def result(self, timeout: float | None = None) -> dict: ...


class Executor(Protocol):
    name: str

    def submit(self, code: str, progress: Progress | None = None, *, fixed_code: str | None = None,
               lang: str = "en") -> Job: ...

    def verify(self, code: str, progress: Progress | None = None, *, fixed_code: str | None = None,
               timeout: float | None = None, lang: str = "en") -> dict: ...


def get_executor(settings: JobSettings | None = None) -> Executor:
    """CeleryExecutor when REDIS_URL is set, else LocalExecutor. Connects to nothing
    yet: a broker that is down shows at submit time, as BrokerUnavailable."""
    settings = settings or JobSettings.from_env()
    if settings.redis_url:
        from bot.jobs.remote import CeleryExecutor

        return CeleryExecutor(settings)
    from bot.jobs.local import LocalExecutor

    return LocalExecutor(settings)


class SlackExecutor:
    """Fits bot.slack.services.verification.Executor: `submit(code, progress) -> report`,
    blocking until the report is there. JobError messages are meant for the user."""

    def __init__(self, executor: Executor | None = None):
        self.executor = executor or get_executor()

    def submit(self, code: str, progress: Progress | None = None, *, lang: str = "en",
               fixed_code: str | None = None) -> dict:
        return self.executor.verify(code, progress, fixed_code=fixed_code, lang=lang)
