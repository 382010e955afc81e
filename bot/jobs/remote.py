"""The Celery executor: submit a verification to the `gpu` queue and wait for its
report, passing on its progress and noticing a worker that died mid-job.

Waiting is polling: every POLL_SECONDS the job's Celery state and its new progress
events (a Redis list the worker appends to, so no stage is missed) are read. While a
job runs, its worker refreshes a heartbeat key; when that key has been gone for a
while and the job still has no result, the worker was killed without a word (the
whole machine or container went away). The job is then stored as lost, so that if
Redis hands its message out again later, no worker runs it a second time.
"""

from __future__ import annotations

import time
import uuid

import redis
from billiard.exceptions import WorkerLostError
from celery import states
from kombu.exceptions import KombuError

from bot.jobs.base import BrokerUnavailable, JobFailed, JobTimeout, Progress
from bot.jobs.reports import over_time_report, worker_lost_report
from bot.jobs.settings import TASK_NAME, JobSettings, env_queue, redact_url
from bot.jobs.state import JobState, client_for
from bot.jobs.verification import check_snippet
from bot.verify.matrix import combine
from bot.verify.report import ReportRecorder, VerifyReport

POLL_SECONDS = 0.1
OUTAGE_GRACE_SECONDS = 5.0  # how long the broker may be unreachable while we wait
HEARTBEAT_MISSING_SECONDS = 2.0  # a running job without a heartbeat for this long is lost
BROKER_ERRORS = (KombuError, redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError)


class NoEnvironment(JobFailed):
    """A torch release that no online worker holds."""

    def __init__(self, missing: list[str], available: list[str]):
        self.missing, self.available = missing, available
        super().__init__(f"no online worker holds torch {', '.join(missing)}; the workers hold: "
                         f"{', '.join(available) or 'no torch environments'} (`troubleshoot envs add VERSION` on a "
                         f"worker, then restart it)")


def _reason(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text[:200]


class CeleryJob:
    def __init__(self, executor: "CeleryExecutor", job_id: str, progress: Progress, *, code: str = "",
                 record: ReportRecorder | None = None):
        self.id = job_id
        self._ex = executor
        self._progress = progress
        self._code = code
        self._record = record  # saved here, once the report is back: the worker never writes evidence
        self._cursor = 0  # progress events already passed on
        self._last_status = states.PENDING
        self._missing_since: float | None = None
        self._last_beat: dict | None = None
        self.workers_online: list[dict] | None = None

    # --- one look at the job -------------------------------------------------------------

    def _poll(self) -> VerifyReport | None:
        """The report when the job has ended, else None (progress passed on)."""
        backend = self._ex.app.backend
        meta = backend.get_task_meta(self.id, cache=False)
        for event in self._ex.state.events_since(self.id, self._cursor):
            self._cursor += 1
            self._progress(event["stage"], event["done"], event["total"])
        status = meta.get("status")
        if status == states.SUCCESS:  # its events were all pushed before the result was stored
            return VerifyReport.from_json(meta["result"])
        if status in states.EXCEPTION_STATES:
            return self._failure(status, meta.get("result"))
        if status == "PROGRESS":
            self._check_heartbeat()
        else:
            self._missing_since = None
        self._last_status = status
        return None

    def _failure(self, status: str, exc) -> VerifyReport:
        name = type(exc).__name__
        if isinstance(exc, WorkerLostError) or name == "WorkerLostError":
            return worker_lost_report(self.id, _reason(exc), worker=self._last_beat, starts=self._starts())
        if name == "TimeLimitExceeded":
            return over_time_report(self._ex.settings, None)
        if status == states.REVOKED:
            raise JobFailed(f"verification job {self.id} was cancelled")
        raise JobFailed(f"verification job {self.id} failed on the worker ({name}: {_reason(exc)})")

    def _starts(self) -> int | None:
        try:
            return self._ex.state.starts(self.id)
        except BROKER_ERRORS:
            return None

    def _check_heartbeat(self) -> None:
        beat = self._ex.state.heartbeat(self.id)
        if beat is not None:
            self._last_beat = beat
            self._missing_since = None
            return
        now = time.monotonic()
        if self._missing_since is None:
            self._missing_since = now
            return
        if now - self._missing_since < max(HEARTBEAT_MISSING_SECONDS, 3 * POLL_SECONDS):
            return
        # Gone: unless the job ended in the meantime, record it as lost for everyone.
        meta = self._ex.app.backend.get_task_meta(self.id, cache=False)
        if meta.get("status") in states.READY_STATES or meta.get("status") == states.RETRY:
            return
        beat = self._last_beat or {}
        who = beat.get("name") or beat.get("hostname") or "its worker"
        self._ex.app.backend.mark_as_failure(self.id, WorkerLostError(
            f"{who} stopped sending heartbeats while running it (killed, or its machine went away)"))

    # --- waiting ----------------------------------------------------------------------------

    def result(self, timeout: float | None = None) -> VerifyReport:
        start = time.monotonic()
        outage_since: float | None = None
        while True:
            try:
                report = self._poll()
                outage_since = None
            except BROKER_ERRORS as exc:
                now = time.monotonic()
                outage_since = outage_since or now
                if now - outage_since >= OUTAGE_GRACE_SECONDS:
                    raise BrokerUnavailable(
                        f"lost the connection to the job queue at {redact_url(self._ex.settings.redis_url)} while "
                        f"waiting for verification job {self.id} ({_reason(exc)}). The job may still finish on its "
                        "worker, but its report cannot be fetched until the queue is back.") from exc
                report = None
            if report is not None:
                if not isinstance(report.job, dict):
                    report.job = {}
                report.job.setdefault("id", self.id)
                if self._record is not None:
                    record, self._record = self._record, None  # a second result() records nothing again
                    record.save(report, self._code)
                return report
            if timeout is not None and time.monotonic() - start >= timeout:
                self._give_up()
                where = "still waiting for a worker" if self._last_status == states.PENDING else "still running"
                raise JobTimeout(f"verification job {self.id} gave no report within {timeout:g} s ({where})")
            time.sleep(POLL_SECONDS)

    def _give_up(self) -> None:
        """Nobody waits for this job any more: a worker that takes it later skips it."""
        try:
            meta = self._ex.app.backend.get_task_meta(self.id, cache=False)
            if meta.get("status") == states.PENDING:
                self._ex.app.backend.mark_as_revoked(self.id, "the submitter stopped waiting")
        except BROKER_ERRORS:
            pass


class CeleryExecutor:
    name = "celery"

    def __init__(self, settings: JobSettings | None = None, app=None):
        self.settings = settings or JobSettings.from_env()
        if not self.settings.redis_url:
            raise ValueError("CeleryExecutor needs REDIS_URL (the broker); without it use LocalExecutor")
        if app is None:
            # lazy: importing celery_app builds its module-level app from the environment
            from bot.jobs.celery_app import make_app

            app = make_app(self.settings)
        self.app = app
        self._state: JobState | None = None

    @property
    def state(self) -> JobState:
        if self._state is None:
            self._state = JobState(client_for(self.settings.redis_url), self.settings.result_expires)
        return self._state

    def _unavailable(self, exc: BaseException) -> BrokerUnavailable:
        return BrokerUnavailable(
            f"cannot reach the job queue at {redact_url(self.settings.redis_url)} ({_reason(exc)}); "
            "fix verification is unavailable until it is back (answers still work)")

    def submit(self, code: str, progress: Progress | None = None, *, fixed_code: str | None = None,
               lang: str = "en", torch: str | None = None, record: ReportRecorder | None = None) -> CeleryJob:
        """`torch`: run on that torch environment: the job goes to its queue, which only
        workers holding it listen on (see `environments`)."""
        check_snippet(code)
        if fixed_code is not None:
            check_snippet(fixed_code, "fixed version")
        job_id = uuid.uuid4().hex
        try:
            kwargs = {"fixed_code": fixed_code, "lang": lang}
            if torch:
                kwargs["torch"] = torch
            self.app.send_task(TASK_NAME, args=[code], kwargs=kwargs, task_id=job_id, queue=env_queue(torch))
        except BROKER_ERRORS as exc:
            raise self._unavailable(exc) from exc
        job = CeleryJob(self, job_id, progress or (lambda *a: None), code=code, record=record)
        job._progress("queued", 0, 0)
        return job

    def verify(self, code: str, progress: Progress | None = None, *, fixed_code: str | None = None,
               timeout: float | None = None, lang: str = "en", record: ReportRecorder | None = None) -> VerifyReport:
        job = self.submit(code, progress, fixed_code=fixed_code, lang=lang, record=record)
        return job.result(self.settings.wait_seconds if timeout is None else timeout)

    def environments(self) -> dict[str, list[str]]:
        """torch release -> the online workers that hold an environment of it."""
        out: dict[str, list[str]] = {}
        for worker in self.workers():
            for env in worker.get("environments") or []:
                version = env.get("version") if isinstance(env, dict) else None
                if version:
                    out.setdefault(str(version), []).append(str(worker.get("name")))
        return out

    def verify_matrix(self, code: str, versions: list[str], progress: Progress | None = None, *,
                      fixed_code: str | None = None, timeout: float | None = None, lang: str = "en",
                      record: ReportRecorder | None = None) -> VerifyReport:
        """The snippet on each torch release, each job on a worker holding that release
        (all submitted at once, so different workers run them side by side); a release no
        online worker holds is refused first, naming those that are held. With `record`,
        each release's report is evidence of its own."""

        held = self.environments()
        missing = [v for v in versions if v not in held]
        if missing:
            raise NoEnvironment(missing, sorted(held))
        progress = progress or (lambda *a: None)
        jobs = []
        for version in versions:
            def step(stage: str, done: int, total: int, _v=version) -> None:
                progress(f"torch {_v}: {stage}", done, total)
            jobs.append(self.submit(code, step, fixed_code=fixed_code, lang=lang, torch=version, record=record))
        wait = self.settings.wait_seconds if timeout is None else timeout
        return combine([job.result(wait) for job in jobs])

    def workers(self) -> list[dict]:
        """The workers that announced themselves in the last half minute."""
        try:
            return self.state.workers()
        except BROKER_ERRORS as exc:
            raise self._unavailable(exc) from exc
