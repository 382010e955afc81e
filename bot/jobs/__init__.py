"""Running verifications: in this process (LocalExecutor, the default) or on GPU
workers through Celery and Redis (CeleryExecutor, when REDIS_URL is set). See
executor.py for the interface and README.md for running workers."""

from bot.jobs.executor import (BrokerUnavailable, Executor, Job, JobError, JobFailed, JobTimeout, SlackExecutor,
                               get_executor)
from bot.jobs.settings import ConfigError, JobSettings

__all__ = ["BrokerUnavailable", "ConfigError", "Executor", "Job", "JobError", "JobFailed", "JobSettings",
           "JobTimeout", "SlackExecutor", "get_executor"]
