"""Fixtures of the Slack tests: the fake Slack Web API (slack_fake_api.py), signed
requests (slack_harness.py) and the bot served over a real socket, in this process
(`bot`) or as a `troubleshoot serve --http` subprocess (slack_harness.BotProcess)."""

from __future__ import annotations

import shutil
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

import pytest

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
# The whole base is the retrieval tests' subject; indexing it on every run would cost
# minutes here.
SLACK_TEST_ENTRIES = ("backward-twice", "no-grad-fn", "inplace-modified", "leaf-inplace", "cuda-oom",
                      "device-mismatch", "numpy-requires-grad")


@pytest.fixture(scope="session")
def slack_kb(tmp_path_factory) -> tuple[Path, Path]:
    """Knowledge (a copy of the entries above) and its real search index, built once per
    session: (knowledge dir, index dir)."""
    repo = Path(__file__).resolve().parents[2]
    root = tmp_path_factory.mktemp("slack-kb")
    entries = root / "knowledge" / "entries" / "pytorch"
    entries.mkdir(parents=True)
    for name in SLACK_TEST_ENTRIES:
        shutil.copy(repo / "knowledge" / "entries" / "pytorch" / f"{name}.yml", entries)
    from bot.retrieval.engine import get_embedder
    from bot.retrieval.index import build_index
    from bot.settings import embedder_name

    build_index(root / "knowledge", root / "index", get_embedder(embedder_name()), progress=False,
                log=lambda msg: None)
    return root / "knowledge", root / "index"


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
    threading.Thread(target=server.serve_forever, name="bot-http", daemon=True).start()
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
        running.server.shutdown()
        running.server.server_close()
        running.ctx.work_pool.shutdown(wait=True)
        running.ctx.verify_pool.shutdown(wait=True)


@pytest.fixture
def bot(bot_factory) -> RunningBot:
    return bot_factory()
