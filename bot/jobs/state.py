"""What the queue keeps about a job and a worker beside Celery's own task state, in
the same Redis database:

    troubleshoot:job:<id>:events   list of progress events, in order (the submitter
                                   reads from where it left off, so no stage is missed)
    troubleshoot:job:<id>:alive    the worker's heartbeat while the job runs (expires:
                                   a worker killed mid-job stops refreshing it)
    troubleshoot:job:<id>:starts   how often the job was started (bounds retries)
    troubleshoot:worker:<name>     a running worker's presence (expires)

Every key expires; the job keys with the results (result_expires).
"""

from __future__ import annotations

import json
import threading
import time

import redis

from bot.settings import get_settings
from bot.text.jsonin import loads as json_loads

PREFIX = "troubleshoot"


def client_for(url: str) -> redis.Redis:
    if url.startswith("redis+socket://"):
        url = "unix://" + url[len("redis+socket://"):]

    timeout = get_settings().redis_timeout_seconds
    return redis.Redis.from_url(url, socket_connect_timeout=timeout, socket_timeout=timeout,
                                health_check_interval=30)


def job_key(job_id: str, what: str) -> str:
    return f"{PREFIX}:job:{job_id}:{what}"


def worker_key(name: str) -> str:
    return f"{PREFIX}:worker:{name}"


class JobState:
    def __init__(self, client: redis.Redis, expires: int):
        self.client = client
        self.expires = int(expires)

    # --- written by the worker ------------------------------------------------------------

    def count_start(self, job_id: str) -> int:
        key = job_key(job_id, "starts")
        pipe = self.client.pipeline()
        pipe.incr(key)
        pipe.expire(key, self.expires)
        return int(pipe.execute()[0])

    def push_event(self, job_id: str, stage: str, done: int, total: int, **extra) -> None:
        key = job_key(job_id, "events")
        event = {"stage": stage, "done": done, "total": total, "time": time.time(), **extra}
        pipe = self.client.pipeline()
        pipe.rpush(key, json.dumps(event))
        pipe.expire(key, self.expires)
        pipe.execute()

    def beat(self, job_id: str, info: dict, ttl: float) -> None:
        self.client.set(job_key(job_id, "alive"), json.dumps(info), px=int(ttl * 1000))

    # --- read by the submitter ------------------------------------------------------------

    def events_since(self, job_id: str, cursor: int) -> list[dict]:
        raw = self.client.lrange(job_key(job_id, "events"), cursor, -1)
        return [json_loads(item) for item in raw]

    def heartbeat(self, job_id: str) -> dict | None:
        raw = self.client.get(job_key(job_id, "alive"))
        return json_loads(raw) if raw else None

    def starts(self, job_id: str) -> int:
        return int(self.client.get(job_key(job_id, "starts")) or 0)

    # --- workers -----------------------------------------------------------------------------

    def announce_worker(self, name: str, info: dict, ttl: float) -> None:
        self.client.set(worker_key(name), json.dumps(info), px=int(ttl * 1000))

    def withdraw_worker(self, name: str) -> None:
        self.client.delete(worker_key(name))

    def workers(self) -> list[dict]:
        keys = list(self.client.scan_iter(match=worker_key("*"), count=100))
        values = self.client.mget(keys) if keys else []
        return [json_loads(v) for v in values if v]


class Repeater:
    """Calls `fn` every `interval` seconds on a daemon thread until stopped. Failures
    (Redis briefly away) are swallowed: the next beat tries again."""

    def __init__(self, fn, interval: float, name: str):
        self._fn = fn
        self._interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name=name, daemon=True)

    def start(self) -> "Repeater":
        self._beat()
        self._thread.start()
        return self

    def _beat(self) -> None:
        try:
            self._fn()
        except Exception:  # noqa: BLE001 - a missed beat is retried on the next one
            pass

    def _loop(self) -> None:
        while not self._stop.wait(self._interval):
            self._beat()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=2)

    def __enter__(self) -> "Repeater":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
