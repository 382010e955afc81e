"""`troubleshoot verify --queue`: the report comes back from a real `troubleshoot worker`
over Redis and is recorded once, by the command that receives it; the worker writes
no evidence (it may run where no database can be reached)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid

import pytest
from sqlalchemy import create_engine, text

from .conftest import REPO, troubleshoot

REDIS = os.environ.get("TROUBLESHOOT_TEST_REDIS", "redis://127.0.0.1:6379/14")  # tests/jobs use 15


@pytest.fixture
def broker():
    import redis

    client = redis.Redis.from_url(REDIS, socket_connect_timeout=1)
    try:
        client.ping()
    except Exception as exc:  # noqa: BLE001
        pytest.skip(f"no Redis at {REDIS} ({type(exc).__name__}); .ci/services.sh starts one")
    client.flushdb()
    yield client
    client.flushdb()


def test_a_queued_verification_is_recorded_once_by_the_cli(broker, use_kb, tmp_path):
    from bot.sandbox import sandbox_available

    ok, why = sandbox_available()
    if not ok:
        pytest.skip(f"the sandbox cannot run here, so no worker can take jobs: {why}")
    name = f"evidence-{uuid.uuid4().hex[:8]}@{socket.gethostname()}"
    worker_var = tmp_path / "worker-var"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "DATABASE_URL"))}
    env.update(use_kb, REDIS_URL=REDIS, TROUBLESHOOT_WORKER_NAME=name, TROUBLESHOOT_VAR_DIR=str(worker_var),
               TROUBLESHOOT_JOB_SECONDS="60", PYTHONPATH=str(REPO))
    log = open(tmp_path / "worker.log", "wb")
    worker = subprocess.Popen([sys.executable, "-m", "bot.cli", "worker", "--concurrency", "1"], cwd=REPO, env=env,
                              stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 90
        while broker.get(f"troubleshoot:worker:{name}") is None:
            assert worker.poll() is None and time.monotonic() < deadline, (tmp_path / "worker.log").read_text()
            time.sleep(0.1)
        snippet = tmp_path / "fails.py"
        snippet.write_text("raise RuntimeError('Trying to backward through the graph a second time')\n")
        proc = troubleshoot("verify", str(snippet), "--queue", "--json", env={**use_kb, "REDIS_URL": REDIS})
        assert proc.returncode == 4, proc.stderr  # reproduced, and no fix of a known entry fixed it (docs/cli.md)
        report = json.loads(proc.stdout)
        assert report["environment"]["worker"]["hostname"] and report["job"]["executor"] == "celery"
    finally:
        os.killpg(worker.pid, signal.SIGTERM)
        worker.wait(30)
        log.close()
    engine = create_engine(f"sqlite:///{tmp_path / 'var' / 'troubleshoot.db'}")
    with engine.connect() as conn:
        rows = conn.execute(text("SELECT surface, report_key, entry_id FROM verifications")).all()
    engine.dispose()
    assert [tuple(r) for r in rows] == [("queue", report["job"]["id"], "pytorch/backward-twice")]
    assert not (worker_var / "troubleshoot.db").exists()
