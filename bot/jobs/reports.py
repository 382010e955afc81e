"""Reports for jobs that ended without a verification: the worker was lost, or the
job went over its time limit. They have the keys of the `troubleshoot verify --json`
report, so the bot and the CLI show them like any other, and say what happened in
`summary`."""

from __future__ import annotations

from bot.jobs.settings import JobSettings
from bot.verify.report import ExitReason, VerifyReport


def _empty(exit_reason: ExitReason, summary: str, worker: dict | None) -> VerifyReport:
    return VerifyReport(reproduced=False, exit_reason=exit_reason, output="", error=None,
                        environment={"worker": worker or {}}, fixes=[], summary=summary)


def worker_lost_report(job_id: str, detail: str, *, worker: dict | None = None,
                       starts: int | None = None) -> VerifyReport:
    tries = f" It was started {starts} time(s) and is not started again." if starts else ""
    report = _empty(ExitReason.KILLED, f"worker lost: {detail.rstrip('.')}.{tries}", worker)
    report.worker_lost = True
    report.job = {"id": job_id, "executor": "celery", "attempt": starts}
    return report


def gpu_unhealthy_report(gpu: str, why: str, worker: dict | None, *, after_run: bool = False) -> VerifyReport:
    """A job on a GPU that failed its canary: an infrastructure error, never the asker's;
    the bot and the CLI show the summary, and nothing of it is recorded as evidence."""
    when = "failed its health check after the run" if after_run else "failed its health check, so nothing was run"
    report = _empty(ExitReason.KILLED, f"not verified: GPU {gpu} of this worker {when} ({why.rstrip('.')}). This "
                                       f"is a fault of the worker, not of the snippet; nothing was recorded.", worker)
    report.infrastructure_error = why
    return report


def over_time_report(settings: JobSettings, worker: dict | None) -> VerifyReport:
    return _empty(ExitReason.TIMEOUT, f"the job went over its time limit ({settings.soft_time_limit:g} s; "
                             f"its sandbox runs had {settings.job_seconds:g} s in all)", worker)
