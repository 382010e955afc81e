"""The Redis result backend, without its pub/sub result consumer.

Celery's Redis backend subscribes to a channel for every task sent, so that
`AsyncResult.get()` can wait on it. We never call get(): the submitter polls the
job's state and progress (remote.py). Left alone, a long-running bot would pile
up one subscription per verification, and a submit while Redis is down would fail
in the result consumer with a RuntimeError instead of a connection error.
"""

from __future__ import annotations

from celery.backends.redis import RedisBackend


class PollingRedisBackend(RedisBackend):
    def __init__(self, *args, url=None, app=None, **kwargs):
        if url is None and app is not None:
            url = app.conf.result_backend
        if url and url.startswith("redis+"):  # redis+socket:// is socket:// to the backend
            url = url[len("redis+"):]
        super().__init__(*args, url=url, app=app, **kwargs)

    def on_task_call(self, producer, task_id):
        """Do not subscribe to the job's result channel (we poll)."""
