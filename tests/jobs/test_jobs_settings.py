"""Settings, derived time limits, executor choice and GPU detection (no Redis needed)."""

from __future__ import annotations

import pytest

from bot.jobs import ConfigError, JobSettings, get_executor
from bot.jobs.gpus import detect_gpus, gpu_for_slot
from bot.jobs.settings import MAX_STARTS, redact_url


@pytest.mark.parametrize("job_seconds", [1, 5, 59.5, 90, 600, 3600, 86400])
def test_time_limits_are_ordered_for_any_budget(job_seconds):
    s = JobSettings(None, job_seconds=job_seconds, result_expires=10 * 86400)
    assert s.job_seconds < s.soft_time_limit < s.time_limit < s.visibility_timeout
    assert s.wait_seconds > s.time_limit


def test_the_celery_app_gets_the_derived_limits():
    from bot.jobs.celery_app import make_app

    s = JobSettings("redis://127.0.0.1:1/0", job_seconds=120)
    app = make_app(s)
    assert app.conf.task_soft_time_limit == s.soft_time_limit
    assert app.conf.task_time_limit == s.time_limit
    assert app.conf.broker_transport_options["visibility_timeout"] == s.visibility_timeout
    assert app.conf.result_expires == s.result_expires
    assert app.conf.worker_prefetch_multiplier == 1 and app.conf.task_acks_late
    task = app.tasks["troubleshoot.verify"]
    assert task.retry_on_worker_lost and task.max_retries == MAX_STARTS - 1 and not task.reject_on_worker_lost


@pytest.mark.parametrize("env, words", [
    ({"TROUBLESHOOT_JOB_SECONDS": "ten"}, ["TROUBLESHOOT_JOB_SECONDS", "not a number"]),
    ({"TROUBLESHOOT_JOB_SECONDS": "0"}, ["TROUBLESHOOT_JOB_SECONDS", "at least"]),
    ({"TROUBLESHOOT_JOB_SECONDS": "inf"}, ["TROUBLESHOOT_JOB_SECONDS"]),
    ({"TROUBLESHOOT_WORKER_CONCURRENCY": "-2"}, ["TROUBLESHOOT_WORKER_CONCURRENCY", "at least 1"]),
    ({"REDIS_URL": "http://example.org/"}, ["REDIS_URL", "not a Redis URL"]),
    ({"TROUBLESHOOT_JOB_SECONDS": "90000", "TROUBLESHOOT_RESULT_EXPIRES_SECONDS": "86400"},
     ["TROUBLESHOOT_RESULT_EXPIRES_SECONDS", "visibility timeout"]),
])
def test_bad_settings_name_the_variable(env, words):
    with pytest.raises(ConfigError) as err:
        JobSettings.from_env(env)
    for word in words:
        assert word in str(err.value)


def test_passwords_stay_out_of_messages():
    assert redact_url("redis://:s3cret@redis:6379/0") == "redis://:***@redis:6379/0"
    assert redact_url("redis://user:s3cret@redis/1") == "redis://user:***@redis/1"
    assert redact_url("redis://redis:6379/0") == "redis://redis:6379/0"


def test_executor_follows_redis_url_without_connecting():
    assert get_executor(JobSettings.from_env({})).name == "local"
    # Nothing listens on port 1: choosing the executor must not need the broker.
    remote = get_executor(JobSettings.from_env({"REDIS_URL": "redis://127.0.0.1:1/0"}))
    assert remote.name == "celery"


def test_gpus_come_from_device_nodes(tmp_path):
    for name in ("nvidia1", "nvidia0", "nvidia10", "nvidiactl", "nvidia-uvm"):
        (tmp_path / name).touch()
    gpus = detect_gpus(str(tmp_path))
    assert gpus == ["0", "1", "10"]
    assert [gpu_for_slot(gpus, k) for k in range(4)] == ["0", "1", "10", "0"]
    assert detect_gpus(str(tmp_path / "empty")) == []
    assert gpu_for_slot([], 0) is None


@pytest.mark.parametrize("env, args, message", [
    ({}, [], "REDIS_URL is not set"),
    ({"REDIS_URL": "redis://127.0.0.1:1/0"}, ["--concurrency", "0"], "--concurrency: must be at least 1"),
    ({"REDIS_URL": "redis://127.0.0.1:1/0", "TROUBLESHOOT_JOB_SECONDS": "soon"}, [], "TROUBLESHOOT_JOB_SECONDS"),
])
@pytest.mark.slow
def test_worker_refuses_bad_settings_with_a_reason(env, args, message):
    import os
    import subprocess
    import sys

    from .conftest import REPO

    full = {k: v for k, v in os.environ.items() if k != "REDIS_URL" and not k.startswith("TROUBLESHOOT_")}
    full.update(env, PYTHONPATH=str(REPO))
    out = subprocess.run([sys.executable, "-m", "bot.cli", "worker", *args], cwd=REPO, env=full,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and message in out.stderr and "Traceback" not in out.stderr, out.stderr


def test_compose_stop_grace_covers_the_hard_limit():
    import yaml

    from .conftest import REPO

    grace = yaml.safe_load((REPO / "docker-compose.yml").read_text())["services"]["gpu-worker"]["stop_grace_period"]
    seconds = int(grace[:-1]) * {"s": 1, "m": 60}[grace[-1]]
    assert seconds >= JobSettings(None).time_limit


def test_celerys_success_line_leaves_the_report_out():
    """The exact record Celery's tracer logs when a task ends, through the worker's filter."""
    import logging

    from celery.app import trace

    from bot.jobs.tasks import NoTaskResult

    record = logging.LogRecord("celery.app.trace", logging.INFO, trace.__file__, 1, trace.LOG_SUCCESS,
                               None, None)
    record.args = {"id": "abc", "name": "verify", "return_value": "{'output': 'Traceback: secret data'}",
                   "runtime": 1.5}
    assert NoTaskResult().filter(record) is True
    line = record.getMessage()
    assert "secret data" not in line and "Traceback" not in line
    assert line.startswith("Task verify[abc] succeeded in 1.5s") and "(report not logged)" in line
    assert any(isinstance(f, NoTaskResult) for f in logging.getLogger("celery.app.trace").filters)
