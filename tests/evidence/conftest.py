"""Fixtures of the evidence tests.

- `seed_run`: ONE real verification of the seed repro (tests/verify/data/
  seed000_backward_twice.py) by `troubleshoot verify --json` in the real sandbox,
  recorded into a store of its own; the other tests reuse its report.
- `evidence_kb`: a slice of the knowledge base (the seed's entry and its neighbours)
  with its real search index, built once and shared with the Slack tests (tests/conftest.py).
- `pg_url`: a private PostgreSQL database (troubleshoot_test_<random>) on the test
  server (tests/probes.py), dropped at the end; skipped with the reason where none answers.
- `make_store`: a fresh store on SQLite or PostgreSQL.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.contract import ABSENT
from bot.verify.report import Status, VerifyReport

REPO = Path(__file__).resolve().parents[2]
SEED = REPO / "tests" / "verify" / "data" / "seed000_backward_twice.py"
SEED_ERROR = ("RuntimeError: Trying to backward through the graph a second time (or directly access saved "
              "tensors after they have already been freed).")


def troubleshoot(*args: str, env: dict, stdin: str | None = None) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL",)}
    full.update(PYTHONPATH=str(REPO), **env)
    return subprocess.run([sys.executable, "-m", "bot.cli", *args], cwd=REPO, env=full, input=stdin,
                          capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="session")
def evidence_kb(kb_slice) -> tuple[Path, Path]:
    """(knowledge dir, index dir): the shared knowledge slice (tests/conftest.py)."""
    return kb_slice


@pytest.fixture
def use_kb(evidence_kb, monkeypatch, tmp_path):
    """This test's settings: the slice, its index and an empty store of its own."""
    from bot.evidence import db

    knowledge, index = evidence_kb
    monkeypatch.setenv("TROUBLESHOOT_KNOWLEDGE_DIR", str(knowledge))
    monkeypatch.setenv("TROUBLESHOOT_INDEX_DIR", str(index))
    monkeypatch.setenv("TROUBLESHOOT_VAR_DIR", str(tmp_path / "var"))
    monkeypatch.delenv("DATABASE_URL", raising=False)
    db.forget()
    yield {"TROUBLESHOOT_KNOWLEDGE_DIR": str(knowledge), "TROUBLESHOOT_INDEX_DIR": str(index),
           "TROUBLESHOOT_VAR_DIR": str(tmp_path / "var")}
    db.forget()


@dataclass
class SeedRun:
    report: VerifyReport  # what `verify --json` printed, read back into its model
    env: dict  # the settings the run used (knowledge slice, index, its own var dir)
    var_dir: Path


@pytest.fixture(scope="session")
def seed_run(evidence_kb, tmp_path_factory) -> SeedRun:
    from bot.sandbox import sandbox_available

    ok, why = sandbox_available()
    if not ok:
        pytest.skip(f"the sandbox cannot run here, so the seed repro cannot be verified: {why}")
    knowledge, index = evidence_kb
    var_dir = tmp_path_factory.mktemp("seed-var")
    env = {"TROUBLESHOOT_KNOWLEDGE_DIR": str(knowledge), "TROUBLESHOOT_INDEX_DIR": str(index),
           "TROUBLESHOOT_VAR_DIR": str(var_dir)}
    proc = troubleshoot("verify", str(SEED), "--json", env=env)
    assert proc.returncode == 0, proc.stderr
    report = VerifyReport.from_json(json.loads(proc.stdout))
    # The tests record this report many times as if from separate runs; its job id would
    # make every copy after the first "the same job's report again" (recorded once).
    assert report.job["executor"] == "local"
    report.job = ABSENT
    return SeedRun(report, env, var_dir)


# --- stores ---------------------------------------------------------------------------------------

@pytest.fixture(scope="session")
def pg_url(pg_admin_url):
    """A private database on the test PostgreSQL (tests/probes.py), dropped afterwards."""
    import psycopg

    admin = psycopg.connect(pg_admin_url, autocommit=True, connect_timeout=3)
    name = f"troubleshoot_test_{secrets.token_hex(6)}"
    with admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    base = pg_admin_url.rsplit("/", 1)[0].replace("postgresql://", "postgresql+psycopg://", 1)
    yield f"{base}/{name}"
    from bot.evidence import db

    db.forget()
    with psycopg.connect(pg_admin_url, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def make_store(tmp_path, request):
    """make_store("sqlite" | "postgresql") -> a Store on an empty database."""
    made = []

    def make(backend: str = "sqlite"):
        from sqlalchemy import create_engine, text

        from bot.store import open_store

        if backend == "sqlite":
            url = f"sqlite:///{tmp_path / f'store-{len(made)}.db'}"
        else:
            url = request.getfixturevalue("pg_url")
            engine = create_engine(url)  # empty it: each test starts from nothing
            with engine.begin() as conn:
                conn.execute(text("DROP SCHEMA public CASCADE"))
                conn.execute(text("CREATE SCHEMA public"))
            engine.dispose()
        store = open_store(url)
        made.append(store)
        return store

    yield make
    for store in made:
        store.engine.dispose()


def variant(report: VerifyReport, *, statuses: dict[str, str] | None = None, torch: str | None = None,
            gpu: str | None = None, job: str | None = None) -> VerifyReport:
    """The seed's real report (a copy) with some fix statuses, the torch version or the GPU
    changed: the same shape as any report verification produces."""
    out = VerifyReport.from_json(json.loads(json.dumps(report.as_json())))
    for row in out.fixes:
        if statuses and row.workaround in statuses:
            row.status = Status(statuses[row.workaround])
    if torch:
        out.environment["torch"] = torch
    if gpu:
        out.environment["device_name"] = gpu
        out.environment["cuda_available"] = True
    if job:
        out.job = {"id": job, "executor": "celery"}
    return out


# --- the Slack bot, served in this process against the fake Slack Web API ---------------------------

@dataclass
class SlackBot:
    ctx: object
    server: object
    sender: object
    fake: object
    store: object


@pytest.fixture
def slack_bot(use_kb, tmp_path, monkeypatch):
    """The real bolt app over a real socket, its store a SQLite file that the answers'
    rate source reads as well (DATABASE_URL); Slack's side is tests/slack's fake."""
    import threading

    sys.path.insert(0, str(REPO / "tests" / "slack"))
    from slack_fake_api import FakeSlack
    from slack_harness import SIGNING_SECRET, SlackSender

    from bot.answer import set_rate_source
    from bot.slack.app import build_app, build_context, make_http_server
    from bot.slack.services.context import SlackSettings
    from bot.store import open_store

    url = f"sqlite:///{tmp_path / 'bot.db'}"
    monkeypatch.setenv("DATABASE_URL", url)
    monkeypatch.setenv("TROUBLESHOOT_RATES_TTL", "0")  # every answer reads the store: votes show at once
    set_rate_source(None)
    fake = FakeSlack().start()
    settings = SlackSettings(bot_token=fake.bot_token, signing_secret=SIGNING_SECRET, api_url=fake.api_url)
    ctx = build_context(settings, store=open_store(url))
    ctx.ready = True
    app = build_app(ctx)
    server = make_http_server(app, ctx, "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, name="bot-http", daemon=True).start()
    sender = SlackSender(f"http://127.0.0.1:{server.server_address[1]}")
    yield SlackBot(ctx, server, sender, fake, ctx.store)
    server.shutdown()
    server.server_close()
    ctx.work_pool.shutdown(wait=True)
    ctx.verify_pool.shutdown(wait=True)
    fake.stop()
    set_rate_source(None)
