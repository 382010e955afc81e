"""Which executor runs a verification: this process, or GPU workers through the broker."""

from __future__ import annotations

from bot.jobs.base import Executor
from bot.jobs.local import LocalExecutor
from bot.jobs.settings import JobSettings


def get_executor(settings: JobSettings | None = None) -> Executor:
    """CeleryExecutor when REDIS_URL is set, else LocalExecutor. Connects to nothing
    yet: a broker that is down shows at submit time, as BrokerUnavailable."""
    settings = settings or JobSettings.from_env()
    if settings.redis_url:
        from bot.jobs.remote import CeleryExecutor  # lazy: Celery and Redis load only where a broker is set

        return CeleryExecutor(settings)
    return LocalExecutor(settings)
