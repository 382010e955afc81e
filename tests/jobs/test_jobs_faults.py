"""Faults with real workers and real Redis: a worker killed mid-job (its pool process,
or all of it), the broker stopped before and during a job, a submitter that stops
waiting. None of them may hang the submitter or run a job again and again."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest
import redis
from celery import states

from bot.jobs import BrokerUnavailable, JobTimeout
from bot.jobs.remote import CeleryExecutor
from bot.jobs.settings import QUEUE, TASK_NAME

from .conftest import REPO, TEST_ENV, job_settings, wait_for

LONG = "import time\nprint('started', flush=True)\ntime.sleep(60)\n"


def heartbeat_of(executor: CeleryExecutor, job_id: str, attempt: int) -> dict:
    def beat():
        info = executor.state.heartbeat(job_id)
        return info if info and info.get("attempt") == attempt else None

    return wait_for(beat, 60, f"job {job_id} attempt {attempt} to run")


def test_lost_pool_process_is_retried_once_then_reported(clean_redis, sandbox_ok, start_worker):
    worker = start_worker(clean_redis).wait_ready()
    executor = CeleryExecutor(job_settings(clean_redis))
    events = []
    job = executor.submit(LONG, lambda *e: events.append(e))

    first = heartbeat_of(executor, job.id, 1)
    assert first["pid"] != worker.proc.pid  # a pool process runs the job
    os.kill(first["pid"], signal.SIGKILL)
    second = heartbeat_of(executor, job.id, 2)  # Celery queued it again, a new pool process took it
    assert second["pid"] != first["pid"]
    os.kill(second["pid"], signal.SIGKILL)

    report = job.result(60)
    assert report.worker_lost is True and report.exit_reason == "killed"
    assert report.summary.startswith("worker lost: ") and "SIGKILL" in report.summary
    assert executor.state.starts(job.id) == 2  # one retry, no loop
    assert [e[0] for e in events].count("queued") == 2

    # The worker itself survived and takes the next job.
    after = executor.verify("print('still here')", timeout=60)
    assert after.exit_reason == "ok" and after.environment["worker"]["name"] == worker.name
    assert worker.proc.poll() is None


def test_killed_worker_is_reported_lost_and_a_restarted_worker_takes_new_jobs(clean_redis, sandbox_ok,
                                                                              start_worker):
    first = start_worker(clean_redis).wait_ready()
    executor = CeleryExecutor(job_settings(clean_redis))
    job = executor.submit(LONG)
    heartbeat_of(executor, job.id, 1)
    first.kill_all()  # the machine went away: main process, pool, sandbox

    report = job.result(60)  # not a hang: the heartbeat stops
    assert report.worker_lost is True
    assert first.name in report.summary and "heartbeats" in report.summary

    second = start_worker(clean_redis).wait_ready()
    fresh = executor.verify("print('new worker')", timeout=60)
    assert fresh.exit_reason == "ok" and fresh.environment["worker"]["name"] == second.name

    # Redis hands the lost job's message out again once its visibility timeout is
    # over; send it again now to see what the restarted worker does with it.
    executor.app.send_task(TASK_NAME, args=[LONG], task_id=job.id, queue=QUEUE)
    wait_for(lambda: "not running it again" in second.log, 30, f"the worker to skip the lost job:\n{second.log}")
    assert executor.state.starts(job.id) == 1
    assert executor.app.backend.get_task_meta(job.id, cache=False)["status"] == states.FAILURE


def test_broker_down_at_submit_is_a_clear_error(private_redis, tmp_path):
    url = private_redis.url
    private_redis.stop()
    executor = CeleryExecutor(job_settings(url))
    with pytest.raises(BrokerUnavailable) as err:
        executor.submit("print(1)")
    message = str(err.value)
    assert f"127.0.0.1:{private_redis.port}" in message and "cannot reach the job queue" in message

    snippet = tmp_path / "s.py"
    snippet.write_text("print(1)\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("TROUBLESHOOT_")}
    env.update(TEST_ENV, REDIS_URL=url, PYTHONPATH=str(REPO))
    out = subprocess.run([sys.executable, "-m", "bot.cli", "verify", str(snippet), "--queue"], cwd=REPO, env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 3 and "cannot reach the job queue" in out.stderr, out.stderr
    assert "Traceback" not in out.stderr


def test_broker_down_during_a_job_is_a_clear_error(private_redis, sandbox_ok, start_worker):
    worker = start_worker(private_redis.url).wait_ready()
    executor = CeleryExecutor(job_settings(private_redis.url))
    job = executor.submit(LONG)
    heartbeat_of(executor, job.id, 1)
    private_redis.stop()
    with pytest.raises(BrokerUnavailable) as err:
        job.result(60)
    assert "lost the connection to the job queue" in str(err.value) and job.id in str(err.value)
    worker.kill_all()


def test_a_submitter_that_stops_waiting_leaves_no_job_behind(private_redis):
    executor = CeleryExecutor(job_settings(private_redis.url))  # no worker on this broker
    job = executor.submit("print(1)")
    with pytest.raises(JobTimeout, match="still waiting for a worker"):
        job.result(timeout=1)
    # A worker that takes the message later finds it ended and skips it.
    assert executor.app.backend.get_task_meta(job.id, cache=False)["status"] == states.REVOKED
    assert redis.Redis.from_url(private_redis.url).llen(QUEUE) == 1
