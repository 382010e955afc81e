"""Settings of the job queue, read from the environment, and the time limits derived
from them.

Every time limit comes from one setting, TROUBLESHOOT_JOB_SECONDS: the wall-clock
budget of all sandbox runs of one job (the original snippet, then each fix). The
rest is derived so that a job is never run twice by accident:

    sandbox deadline  <  soft time limit  <  hard time limit  <  visibility timeout
    (each run is cut    (the task stops     (the pool kills    (Redis hands an unacked
     to what is left     and reports)        the process)       message to another
     of the budget)                                              worker only after this)

If the visibility timeout were shorter than the hard limit, Redis would hand a job
that is still running to a second worker. `JobSettings.check()` refuses any other
order, and runs whenever settings are built (so at import of the Celery app).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from itertools import pairwise
from urllib.parse import urlsplit, urlunsplit

from bot.settings import SettingsError, get_settings, settings_from

DEFAULT_JOB_SECONDS = 600.0  # one GPU, the original plus ~8 fixes at the sandbox's 60 s each
DEFAULT_RESULT_EXPIRES = 86400  # a day: long enough to look at, short enough not to pile up
DEFAULT_HEARTBEAT_SECONDS = 15.0
DEFAULT_QUEUE_WAIT_SECONDS = 900.0
QUEUE = "gpu"
TASK_NAME = "troubleshoot.verify"
def env_queue(version: str | None) -> str:
    """The queue of jobs for one torch environment ("gpu.torch-2.9.1"); only workers
    that hold that environment listen on it. No version: the default queue."""
    return f"{QUEUE}.torch-{version}" if version else QUEUE


MAX_STARTS = 2  # a job whose worker dies is started at most twice (one retry), then "worker lost"


class ConfigError(SettingsError):
    """A setting in the environment is malformed or the derived limits are out of order."""


def _grace(job_seconds: float) -> float:
    """Room between two limits: the sandbox tearing a run down, the result being stored."""
    return max(5.0, 0.05 * job_seconds)


def redact_url(url: str | None) -> str:
    """The URL without its password, for messages and logs."""
    if not url:
        return "(not set)"
    try:
        parts = urlsplit(url)
        if parts.password is None:
            return url
        netloc = parts.hostname or ""
        if parts.username:
            netloc = f"{parts.username}:***@{netloc}"
        else:
            netloc = f":***@{netloc}"
        if parts.port:
            netloc += f":{parts.port}"
        return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
    except ValueError:
        return "(unparsable URL)"


@dataclass(frozen=True)
class JobSettings:
    redis_url: str | None
    job_seconds: float = DEFAULT_JOB_SECONDS
    result_expires: int = DEFAULT_RESULT_EXPIRES
    heartbeat_seconds: float = DEFAULT_HEARTBEAT_SECONDS
    queue_wait_seconds: float = DEFAULT_QUEUE_WAIT_SECONDS
    concurrency: int | None = None  # jobs at a time per worker / local pool; None: one per GPU (1 without)
    worker_name: str | None = None

    def __post_init__(self) -> None:
        self.check()

    # --- derived limits -----------------------------------------------------------------

    @property
    def soft_time_limit(self) -> float:
        return self.job_seconds + _grace(self.job_seconds)

    @property
    def time_limit(self) -> float:
        return self.soft_time_limit + _grace(self.job_seconds)

    @property
    def visibility_timeout(self) -> int:
        return int(self.time_limit + max(30.0, 0.25 * self.job_seconds)) + 1

    @property
    def wait_seconds(self) -> float:
        """How long a submitter waits for a report: time in the queue plus the hard limit."""
        return self.queue_wait_seconds + self.time_limit

    def check(self) -> None:
        chain = [("job budget (sandbox deadline)", self.job_seconds), ("soft time limit", self.soft_time_limit),
                 ("hard time limit", self.time_limit), ("visibility timeout", self.visibility_timeout)]
        for (a, va), (b, vb) in pairwise(chain):
            if not va < vb:
                raise ConfigError(f"time limits out of order: {a} ({va:g} s) must be below {b} ({vb:g} s)")
        if self.result_expires <= self.visibility_timeout:
            raise ConfigError(f"TROUBLESHOOT_RESULT_EXPIRES_SECONDS ({self.result_expires}) must be longer than the "
                              f"broker's visibility timeout ({self.visibility_timeout} s), or a redelivered job "
                              "could no longer see that it already ran")

    def describe_limits(self) -> str:
        return (f"job budget {self.job_seconds:g} s < soft limit {self.soft_time_limit:g} s < hard limit "
                f"{self.time_limit:g} s < visibility timeout {self.visibility_timeout} s")

    # --- from the environment ----------------------------------------------------------------

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "JobSettings":
        """From the environment (bot/settings.py declares the variables), or from `env`."""
        try:
            s = get_settings() if env is None else settings_from(env)
        except SettingsError as exc:
            raise ConfigError(str(exc)) from None
        return cls(
            redis_url=s.redis_url or None,
            job_seconds=s.job_seconds,
            result_expires=s.result_expires_seconds,
            heartbeat_seconds=s.job_heartbeat_seconds,
            queue_wait_seconds=s.queue_wait_seconds,
            concurrency=s.worker_concurrency,
            worker_name=s.worker_name or None,
        )
