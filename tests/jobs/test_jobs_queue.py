"""Verification through Celery and Redis with a real `troubleshoot worker` process:
the seed repro gives the same report as the local executor, progress reaches the
submitter in order, every report says where it ran, results expire."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import redis

from bot.jobs.local import LocalExecutor
from bot.jobs.remote import CeleryExecutor
from bot.verify.report import VerifyReport

from .conftest import REPO, SEED, TEST_ENV, job_settings, wait_for


def outcome(report: VerifyReport) -> dict:
    """What must agree between executors: not timings, hosts or output bytes."""
    return {
        "reproduced": report.reproduced,
        "exit_reason": report.exit_reason,
        "error": report.error,
        "fixes": [(f.workaround, f.status, f.error.entry_id if f.error else None) for f in report.fixes],
    }


@pytest.fixture(scope="module")
def local_seed_report(sandbox_ok):
    events = []
    executor = LocalExecutor(job_settings_without_broker(), gpus=[])
    report = executor.verify(SEED.read_text(), lambda *e: events.append(e), timeout=300)
    executor.shutdown()
    return report, events


def job_settings_without_broker():
    from bot.jobs.settings import JobSettings

    return JobSettings.from_env(dict(TEST_ENV))


def test_local_executor_verifies_the_seed(local_seed_report):
    report, events = local_seed_report
    assert report.reproduced and report.error.entry_id == "pytorch/backward-twice"
    statuses = {f.workaround: f.status for f in report.fixes}
    assert "fixed" in statuses.values() and "new_error" in statuses.values()
    assert report.environment["worker"]["gpu"] is None
    assert "ran on CPU" in report.environment["worker"]["note"]
    assert events[0] == ("queued", 0, 0) and events[-1][0] == "done"


def test_seed_through_the_queue_matches_the_local_report(shared_worker, redis_url, local_seed_report):
    events = []
    executor = CeleryExecutor(job_settings(redis_url))
    queued = executor.verify(SEED.read_text(), lambda *e: events.append(e), timeout=300)
    local, _ = local_seed_report
    assert outcome(queued) == outcome(local)
    worker = queued.environment["worker"]
    assert worker["name"] == shared_worker.name and worker["executor"] == "celery"
    assert worker["gpu"] is None and worker["note"] == "no GPU on this worker: ran on CPU"
    assert queued.job["attempt"] == 1
    # Both ran their variants as children of one warm sandbox (the worker's from its pool).
    assert any(line.startswith("warm sandbox:") for line in queued.limits), queued.limits
    assert any(line.startswith("warm sandbox:") for line in local.limits), local.limits
    # Progress: every stage, in order, reached the submitter.
    stages = [e[0] for e in events]
    assert stages[0] == "queued" and stages[1] == "running original" and stages[-1] == "done", stages
    fixes = [s for s in stages if s.startswith("fix ")]
    assert len(fixes) == len(queued.fixes), stages
    assert all(f" of {len(queued.fixes)}: " in s for s in fixes)


def test_verify_queue_cli_prints_the_report(shared_worker, redis_url, tmp_path):
    """`troubleshoot verify FILE --queue --json` against a running worker."""
    snippet = tmp_path / "snippet.py"
    snippet.write_text("print('ran on a worker')\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("TROUBLESHOOT_")}
    env.update(TEST_ENV, REDIS_URL=redis_url, PYTHONPATH=str(REPO))
    out = subprocess.run([sys.executable, "-m", "bot.cli", "verify", str(snippet), "--queue", "--json"], cwd=REPO,
                         env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    report = VerifyReport.from_json(json.loads(out.stdout))  # the printed JSON is the report's contract
    assert report.exit_reason == "ok" and report.reproduced is False
    assert "ran on a worker" in report.output
    assert report.environment["worker"]["name"] == shared_worker.name
    assert report.environment["worker"]["note"] == "no GPU on this worker: ran on CPU"
    # The worker logged the job's end, without the report: the asker's output stays out of its log.
    log = wait_for(lambda: (text := shared_worker.log) and report.job["id"] in text and text, 30, "the success line")
    assert "succeeded in" in log and "(report not logged)" in log
    assert "ran on a worker" not in log


def test_results_and_job_keys_expire(shared_worker, redis_url):
    settings = job_settings(redis_url)
    executor = CeleryExecutor(settings)
    job = executor.submit("print('hello from the queue')")
    report = job.result(120)
    assert report.exit_reason == "ok" and "hello from the queue" in report.output
    client = redis.Redis.from_url(redis_url)
    for key in (f"celery-task-meta-{job.id}", f"troubleshoot:job:{job.id}:events",
                f"troubleshoot:job:{job.id}:starts"):
        ttl = client.ttl(key)
        assert 0 < ttl <= settings.result_expires, (key, ttl)


def test_bad_snippets_are_refused_at_submit(redis_url):
    executor = CeleryExecutor(job_settings(redis_url))
    with pytest.raises(ValueError, match="empty"):
        executor.submit("   \n")
    with pytest.raises(ValueError, match="at most"):
        executor.submit("x = 1\n" * 100_000)
    with pytest.raises(ValueError, match="must be text"):
        executor.submit(b"print(1)")  # type: ignore[arg-type]


def test_verify_queue_without_redis_url_says_so(tmp_path):
    snippet = tmp_path / "s.py"
    snippet.write_text("print(1)\n")
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    env["PYTHONPATH"] = str(REPO)
    out = subprocess.run([sys.executable, "-m", "bot.cli", "verify", str(snippet), "--queue"], cwd=REPO, env=env,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "REDIS_URL is not set" in out.stderr


def test_the_job_budget_cuts_each_sandbox_run(sandbox_ok):
    """TROUBLESHOOT_JOB_SECONDS bounds the whole job: a run never gets more than what is
    left of it, and a run that would start after it is not started."""
    import time

    from bot.jobs.settings import JobSettings
    from bot.verify.service import BudgetRunner

    executor = LocalExecutor(JobSettings.from_env({"TROUBLESHOOT_JOB_SECONDS": "3"}), gpus=[])
    report = executor.verify("while True:\n    pass\n", timeout=60)
    executor.shutdown()
    assert report.exit_reason == "timeout"
    [wall] = [line for line in report.limits if line.startswith("wall clock ")]
    assert 0 < float(wall.split()[2]) <= 3, wall  # not the sandbox's default 60 s

    spent = BudgetRunner(time.monotonic() - 1)("print('never runs')")
    assert spent.exit_reason == "timeout" and spent.output == ""
    assert "time budget" in spent.notes[0]
