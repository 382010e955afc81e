"""Fixtures for the job queue tests: a real Redis (the one on 127.0.0.1:6379, database
15, flushed before and after; or a private redis-server where none listens), private
redis-servers to stop on purpose, and real `troubleshoot worker` processes.

Workers run in their own process group, so a test can SIGKILL one whole (the main
process, its pool processes and their sandboxes), as when a machine goes away.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SHARED_REDIS = "redis://127.0.0.1:6379/15"
SEED = REPO / "tests" / "verify" / "data" / "seed000_backward_twice.py"
# Short enough for tests, long enough for a torch import in the sandbox on 2 cores.
TEST_ENV = {
    "TROUBLESHOOT_JOB_SECONDS": "90",
    "TROUBLESHOOT_JOB_HEARTBEAT_SECONDS": "3",
    "TROUBLESHOOT_RESULT_EXPIRES_SECONDS": "3600",
}
READY_TIMEOUT = 90


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def redis_ping(url: str) -> bool:
    import redis

    try:
        return bool(redis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=2).ping())
    except Exception:  # noqa: BLE001
        return False


class PrivateRedis:
    """A redis-server of our own on a free port, to stop while jobs use it."""

    def __init__(self, workdir: Path):
        exe = shutil.which("redis-server")
        if exe is None:
            pytest.skip("redis-server is not installed (Debian: apt-get install redis-server); "
                        "this test stops a broker of its own")
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc = subprocess.Popen([exe, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                                      "--appendonly", "no", "--dir", str(workdir)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while not redis_ping(self.url):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"private redis-server on port {self.port} did not start")
            time.sleep(0.05)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture
def private_redis(tmp_path):
    server = PrivateRedis(tmp_path)
    yield server
    server.stop()


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory):
    """Database 15 of the Redis on 127.0.0.1:6379, flushed before and after; a private
    redis-server where nothing listens there; skip where neither can be had."""
    import redis

    server = None
    if redis_ping(SHARED_REDIS):
        url = SHARED_REDIS
    elif shutil.which("redis-server"):
        server = PrivateRedis(tmp_path_factory.mktemp("redis"))
        url = server.url
    else:
        pytest.skip("no Redis: nothing answers on 127.0.0.1:6379 and redis-server is not installed "
                    "(.ci/services.sh installs it from Debian's packages)")
    client = redis.Redis.from_url(url)
    client.flushdb()
    yield url
    client.flushdb()
    if server:
        server.stop()


def job_settings(url: str, **overrides):
    from bot.jobs.settings import JobSettings

    env = {**TEST_ENV, "REDIS_URL": url, **{k: str(v) for k, v in overrides.items()}}
    return JobSettings.from_env(env)


class Worker:
    """`troubleshoot worker` as a subprocess in its own process group."""

    def __init__(self, url: str, log_dir: Path, *, concurrency: int = 1, extra_env: dict | None = None):
        self.url = url
        self.name = f"test-{uuid.uuid4().hex[:8]}@{socket.gethostname()}"
        self.log_path = log_dir / f"{self.name.split('@')[0]}.log"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "TROUBLESHOOT_"))}
        if os.environ.get("TROUBLESHOOT_KNOWLEDGE_DIR"):  # the same knowledge as this process's local executor
            env["TROUBLESHOOT_KNOWLEDGE_DIR"] = os.environ["TROUBLESHOOT_KNOWLEDGE_DIR"]
        env.update(TEST_ENV)
        env.update({"REDIS_URL": url, "TROUBLESHOOT_WORKER_NAME": self.name, "PYTHONPATH": str(REPO),
                    "PYTHONUNBUFFERED": "1"})
        env.update(extra_env or {})
        self._log = open(self.log_path, "wb")
        self.proc = subprocess.Popen([sys.executable, "-m", "bot.cli", "worker", "--concurrency", str(concurrency)],
                                     cwd=REPO, env=env, stdout=self._log, stderr=subprocess.STDOUT,
                                     start_new_session=True)

    @property
    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def presence(self) -> dict | None:
        import redis

        raw = redis.Redis.from_url(self.url).get(f"troubleshoot:worker:{self.name}")
        return json.loads(raw) if raw else None

    def wait_ready(self, timeout: float = READY_TIMEOUT) -> "Worker":
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"worker exited with {self.proc.returncode} before it was ready:\n{self.log}")
            if self.presence() is not None:
                return self
            time.sleep(0.1)
        raise AssertionError(f"worker not ready after {timeout} s:\n{self.log}")

    def kill_all(self) -> None:
        """SIGKILL the whole worker: main process, pool processes, sandboxes."""
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.kill_all()
            except ProcessLookupError:
                pass
        try:  # pool processes left behind by a killed main process
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self._log.close()


@pytest.fixture
def clean_redis(redis_url):
    """The shared test database, emptied: no job or worker key of an earlier test."""
    import redis

    redis.Redis.from_url(redis_url).flushdb()
    return redis_url


@pytest.fixture
def start_worker(tmp_path):
    started: list[Worker] = []

    def start(url: str, **kwargs) -> Worker:
        w = Worker(url, tmp_path, **kwargs)
        started.append(w)
        return w

    yield start
    for w in started:
        w.stop()


@pytest.fixture(scope="module")
def shared_worker(redis_url, sandbox_ok, tmp_path_factory):
    """One worker on the shared Redis for the tests of one module that do not break it
    (stopped at the module's end, so that it takes no job meant for another test's worker)."""
    w = Worker(redis_url, tmp_path_factory.mktemp("worker"))
    try:
        yield w.wait_ready()
    finally:
        w.stop()


def wait_for(predicate, timeout: float, what: str, interval: float = 0.1):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")
