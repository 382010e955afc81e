"""Running verifications: in this process (LocalExecutor, the default) or on GPU
workers through Celery and Redis (CeleryExecutor, when REDIS_URL is set). See
base.py for the interface and README.md for running workers."""

from bot.jobs.base import BrokerUnavailable, Executor, Job, JobError, JobFailed, JobTimeout
from bot.jobs.executor import get_executor
from bot.jobs.settings import ConfigError, JobSettings

__all__ = ["BrokerUnavailable", "ConfigError", "Executor", "Job", "JobError", "JobFailed", "JobSettings",
           "JobTimeout", "get_executor"]
