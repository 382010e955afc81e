"""Timeouts on every service (issue 19): a database, a Redis and a Slack API that accept
connections on 127.0.0.1 and never answer give a clear error (exit 3) instead of hanging,
with the password masked, and a failed service is not tried again on every call. How
long each takes is measured by bench/cli_bounds.py; the bounds here only catch a hang."""

from __future__ import annotations

import pytest

from .conftest import Timer, run_cli

FAST = {"TROUBLESHOOT_DB_TIMEOUT_SECONDS": "2", "TROUBLESHOOT_REDIS_TIMEOUT_SECONDS": "2",
        "TROUBLESHOOT_SLACK_TIMEOUT_SECONDS": "2"}
HANG = 60  # seconds: a service timeout that is not applied hangs for minutes (the database: 131 s)


@pytest.mark.slow  # a CLI process waiting out a 2 s timeout (~4 s)
def test_stats_with_a_database_that_never_answers(blackhole):
    url = f"postgresql+psycopg://troubleshoot:hunter2@127.0.0.1:{blackhole.port}/db"
    with Timer() as t:
        run = run_cli("stats", env={**FAST, "DATABASE_URL": url})
    assert run.returncode == 3, run.stderr
    assert run.stderr.startswith(f"troubleshoot stats: cannot read the evidence store at "
                                 f"postgresql+psycopg://troubleshoot:***@127.0.0.1:{blackhole.port}/db")
    assert "timeout" in run.stderr.lower() and "hunter2" not in run.stderr
    assert blackhole.accepted >= 1
    assert t.seconds < HANG


@pytest.mark.slow  # waits out two connect timeouts (~6 s)
def test_a_failed_database_is_not_tried_again_at_once(blackhole, monkeypatch):
    from sqlalchemy.exc import OperationalError

    from bot import backoff
    from bot.evidence.db import forget, get_store

    monkeypatch.setenv("DATABASE_URL", f"postgresql+psycopg://u:pw@127.0.0.1:{blackhole.port}/db")
    monkeypatch.setenv("TROUBLESHOOT_DB_TIMEOUT_SECONDS", "1")
    backoff.reset()
    forget()
    try:
        with Timer() as first:
            # the connect timeout; a retry inside the same call may already meet the back-off
            with pytest.raises((OperationalError, backoff.ServiceUnavailable), match="(?i)connection ?timeout"):
                get_store(create=False)
        tried = blackhole.accepted
        with pytest.raises(backoff.ServiceUnavailable, match="TROUBLESHOOT_SERVICE_BACKOFF_SECONDS"):
            get_store(create=False)
        assert blackhole.accepted == tried  # no new connection: the second call fails without waiting
        assert first.seconds >= 0.9  # the first one waited for its timeout (1 s)
        monkeypatch.setenv("TROUBLESHOOT_SERVICE_BACKOFF_SECONDS", "0")
        with pytest.raises(OperationalError):  # tried again (a new connect timeout), no back-off error
            get_store(create=False)
    finally:
        backoff.reset()
        forget()


@pytest.mark.slow  # a CLI process waiting out a 2 s timeout (~3 s)
def test_verify_queue_with_a_broker_that_never_answers(blackhole, tmp_path):
    snippet = tmp_path / "repro.py"
    snippet.write_text("print(1)\n")
    with Timer() as t:
        run = run_cli("verify", str(snippet), "--queue", env={**FAST, "REDIS_URL": f"redis://127.0.0.1:{blackhole.port}/0"})
    assert run.returncode == 3, run.stderr
    assert f"cannot reach the job queue at redis://127.0.0.1:{blackhole.port}/0" in run.stderr
    assert "Traceback" not in run.stderr and t.seconds < HANG


def test_worker_with_a_broker_that_never_answers(blackhole):
    with Timer() as t:
        run = run_cli("worker", env={**FAST, "REDIS_URL": f"redis://127.0.0.1:{blackhole.port}/0"})
    assert run.returncode == 3
    assert run.stdout == ""  # no ready banner
    assert run.stderr.startswith(f"troubleshoot worker: cannot reach the broker at redis://127.0.0.1:{blackhole.port}/0")
    assert "TROUBLESHOOT_REDIS_TIMEOUT_SECONDS=2" in run.stderr and t.seconds < HANG


@pytest.mark.slow  # a CLI process waiting out three 2 s timeouts (~3 s)
def test_serve_with_a_slack_api_that_never_answers(blackhole):
    env = {**FAST, "SLACK_BOT_TOKEN": "xoxb-test", "SLACK_SIGNING_SECRET": "s",
           "SLACK_API_URL": f"http://127.0.0.1:{blackhole.port}/api/"}
    with Timer() as t:
        run = run_cli("serve", "--http", "--port", "0", env=env)
    assert run.returncode == 3
    assert (f"troubleshoot serve: cannot reach the Slack API at http://127.0.0.1:{blackhole.port}/api/ "
            f"(TimeoutError; TROUBLESHOOT_SLACK_TIMEOUT_SECONDS=2)") in run.stderr
    assert t.seconds < HANG  # (the client retries a connection error twice: three timeouts)
