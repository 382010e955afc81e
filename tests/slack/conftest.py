"""Fixtures of the Slack tests: the fake Slack Web API (slack_fake_api.py), signed
requests (slack_harness.py) and the bot served over a real socket, in this process
(`bot`) or as a `troubleshoot serve --http` subprocess (slack_harness.BotProcess)."""

from __future__ import annotations

import sys
import threading
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

sys.path.insert(0, str(Path(__file__).resolve().parent))

from slack_fake_api import FakeSlack  # noqa: E402
from slack_harness import SIGNING_SECRET, SlackSender  # noqa: E402


@pytest.fixture
def fake_slack():
    fake = FakeSlack().start()
    yield fake
    fake.stop()


# The Slack tests answer from a slice of the project's knowledge base: the entry the
# seeds are about, the ones its dead ends lead to, and neighbours with similar words.
@pytest.fixture(scope="session")
def slack_kb(kb_slice) -> tuple[Path, Path]:
    """(knowledge dir, index dir): the shared knowledge slice (tests/conftest.py)."""
    return kb_slice


@pytest.fixture
def answer_index(slack_kb, monkeypatch) -> str:
    """Point this test (and the bot subprocesses it starts) at the Slack tests' knowledge
    and index; the settings go back when the test ends."""
    knowledge_dir, index_dir = slack_kb
    monkeypatch.setenv("TROUBLESHOOT_KNOWLEDGE_DIR", str(knowledge_dir))
    monkeypatch.setenv("TROUBLESHOOT_INDEX_DIR", str(index_dir))
    return str(index_dir)


@dataclass
class RunningBot:
    ctx: object
    app: object
    server: object
    url: str
    sender: SlackSender


def start_bot(fake: FakeSlack, db_url: str, *, executor=None, auto_channels=frozenset(), answer_fn=None) -> RunningBot:
    from bot.slack.app import build_app, build_context, make_http_server
    from bot.slack.services.context import SlackSettings
    from bot.store import open_store

    settings = SlackSettings(bot_token=fake.bot_token, signing_secret=SIGNING_SECRET, api_url=fake.api_url,
                             auto_channels=frozenset(auto_channels))
    ctx = build_context(settings, store=open_store(db_url), executor=executor, answer_fn=answer_fn)
    ctx.ready = True
    app = build_app(ctx)
    server = make_http_server(app, ctx, "127.0.0.1", 0)
    # A short poll: shutdown() at the end of the test waits for the serving loop to look.
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, name="bot-http", daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    return RunningBot(ctx, app, server, url, SlackSender(url))


@pytest.fixture
def bot_factory(fake_slack, answer_index, tmp_path):
    """Start in-process bots against the fake; all share one SQLite store unless told."""
    started = []

    def make(**kw) -> RunningBot:
        db_url = kw.pop("db_url", f"sqlite:///{tmp_path / 'bot.db'}")
        running = start_bot(fake_slack, db_url, **kw)
        started.append(running)
        return running

    yield make
    for running in started:
        running.ctx.work_queue.stop(10)
        running.server.shutdown()
        running.server.server_close()
        running.ctx.work_pool.shutdown(wait=True)
        running.ctx.verify_pool.shutdown(wait=True)


@pytest.fixture
def bot(bot_factory) -> RunningBot:
    return bot_factory()


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request, tmp_path):
    """An empty store database: a SQLite file, and a fresh PostgreSQL database (dropped after)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'store.db'}"
        return
    admin_url = request.getfixturevalue("pg_admin_url").replace("postgresql://", "postgresql+psycopg://", 1)
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    name = f"slack_test_{uuid.uuid4().hex[:10]}"
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    yield f"{admin_url.rsplit('/', 1)[0]}/{name}"
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE "{name}" WITH (FORCE)'))
    admin.dispose()
