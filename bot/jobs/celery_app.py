"""The Celery app: Redis as broker and result backend, the `gpu` queue, and the
settings that make a GPU worker take one job per GPU and never run a job twice by
accident.

`app` is built from the environment at import (so `celery -A bot.jobs.celery_app
inspect ping` works) and the time limits' order is checked then: a bad
TROUBLESHOOT_JOB_SECONDS stops the import with a ConfigError naming it.
Submitters with their own settings (tests, benchmarks) call `make_app(settings)`.
"""

from __future__ import annotations

from celery import Celery

from bot.jobs.backend import PollingRedisBackend
from bot.jobs.settings import QUEUE, TASK_NAME, JobSettings
from bot.jobs.tasks import register
from bot.settings import get_settings


def make_app(settings: JobSettings) -> Celery:
    settings.check()
    timeout = get_settings().redis_timeout_seconds  # a Redis that accepts and never answers: an error
    app = Celery("troubleshoot", set_as_current=False)
    app.backend_cls = PollingRedisBackend  # result_backend below stays the URL it reads
    url = settings.redis_url
    app.conf.update(
        broker_url=url,
        result_backend=url,
        task_serializer="json",
        result_serializer="json",
        accept_content=["json"],
        result_accept_content=["json"],
        task_default_queue=QUEUE,
        task_routes={TASK_NAME: {"queue": QUEUE}},
        # One job per pool process at a time, taken only when the process is free:
        # a long job must not sit behind another on a busy worker while others idle.
        worker_prefetch_multiplier=1,
        worker_disable_prefetch=True,
        # Acknowledge after the job ran, so a job whose whole worker died is handed
        # out again (after the visibility timeout); the start guard in tasks.py keeps
        # that to one retry. A lost pool process is retried once by Celery itself.
        task_acks_late=True,
        task_reject_on_worker_lost=False,
        task_track_started=False,  # the task reports PROGRESS itself, after its start guard (tasks.py)
        task_soft_time_limit=settings.soft_time_limit,
        task_time_limit=settings.time_limit,
        broker_transport_options={
            "visibility_timeout": settings.visibility_timeout,
            "socket_connect_timeout": timeout,
            "socket_timeout": timeout,
        },
        result_backend_transport_options={"visibility_timeout": settings.visibility_timeout,
                                          "socket_connect_timeout": timeout, "socket_timeout": timeout},
        result_expires=settings.result_expires,
        redis_socket_connect_timeout=timeout,
        redis_socket_timeout=timeout,
        # Submitting while Redis is down fails within seconds instead of hanging.
        task_publish_retry_policy={"max_retries": 2, "interval_start": 0.2, "interval_step": 0.5,
                                   "interval_max": 1.0},
        broker_connection_timeout=timeout,
        broker_connection_retry_on_startup=True,
        # A running job keeps going when the broker connection drops; its result is
        # stored once Redis is back.
        worker_cancel_long_running_tasks_on_connection_loss=False,
        worker_send_task_events=False,
        worker_hijack_root_logger=True,
    )
    register(app, settings)
    return app


app = make_app(JobSettings.from_env())
