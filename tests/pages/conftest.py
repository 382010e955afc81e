"""Fixtures of the knowledge page tests: a slice of the knowledge base with one entry
made hostile (markup in every kind of text), an evidence store with real recordings,
and the bot's real HTTP server (bolt app + /kb pages) against the fake Slack Web API."""

from __future__ import annotations

import shutil
import sys
import threading
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import answer_docs
import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
SLICE = ("backward-twice", "no-grad-fn", "inplace-modified", "cuda-oom")
HOSTILE = "pytorch/grad-scalar"
# What an attacker (or a careless paste) could put in the YAML; none of it may become markup.
EVIL_TITLE = '<script>alert("title")</script> & <b>bold</b>'
EVIL_PROSE = 'Call <img src=x onerror=alert(1)> then `<b>in code</b>` and [x](javascript:alert(2))'
EVIL_CODE = 'x = "</code></pre><script>alert(3)</script>"\n'
EVIL_SOURCE = '<a href="javascript:alert(4)">docs</a>'
EVIL_EXAMPLE = "RuntimeError: grad can be implicitly created only for scalar outputs <script>alert(5)</script>"


def write_hostile_entry(target_dir: Path) -> None:
    """grad-scalar with markup in its title (all languages), root cause, a workaround's
    code, a source title and an example message; it still passes `kb check`."""
    from bot.text.scripts import join_unspaced

    def unfold(value):  # folded (>-) Chinese text: the loader joins its lines without a space
        if isinstance(value, dict):
            return {k: unfold(v) for k, v in value.items()}
        if isinstance(value, list):
            return [unfold(v) for v in value]
        return join_unspaced(value) if isinstance(value, str) else value

    data = unfold(yaml.safe_load((REPO / "knowledge/entries/pytorch/grad-scalar.yml").read_text(encoding="utf-8")))
    data["title"] = {lang: f"{EVIL_TITLE} {lang}" for lang in ("en", "ko", "zh")}
    data["root_cause"]["en"] = EVIL_PROSE
    data["workarounds"][0]["code"] = EVIL_CODE
    data["sources"][0]["title"] = EVIL_SOURCE
    data["examples"].append(EVIL_EXAMPLE)
    data["related"] = [r for r in data.get("related", []) if r.split("/")[-1] in SLICE]
    text = yaml.safe_dump(data, allow_unicode=True, sort_keys=False, width=1 << 20)
    (target_dir / "grad-scalar.yml").write_text(text, encoding="utf-8")


@pytest.fixture(scope="session")
def pages_kb(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("pages-kb") / "knowledge"
    entries = root / "entries" / "pytorch"
    entries.mkdir(parents=True)
    for name in SLICE:
        shutil.copy(REPO / "knowledge" / "entries" / "pytorch" / f"{name}.yml", entries)
    write_hostile_entry(entries)
    from bot.kb.loader import check_knowledge, errors_only

    kb, problems = check_knowledge(root)
    # The slice's cross-references to entries outside it are errors of their own; the
    # hostile entry must have none.
    hostile = [p for p in errors_only(problems) if p.path.name == "grad-scalar.yml"]
    assert not hostile, "\n".join(map(str, hostile))
    assert len(kb.entries) == len(SLICE) + 1
    return root


def report(entry_id: str, fixes: list[tuple[str, str, str]], *, torch: str = "2.13.0", gpu: str | None = None,
           reproduced: bool = True):
    """A verification report (bot/verify/report.py) with the given fix statuses."""
    from bot.verify.report import ErrorInfo, ExitReason, FixRow, Status, VerifyReport

    env = {"torch": torch, "python": "3.11.9"}
    if gpu:
        env.update(device_name=gpu, cuda_available=True)
    return VerifyReport(
        reproduced=reproduced, exit_reason=ExitReason.ERROR, output="", environment=env,
        error=ErrorInfo(type="RuntimeError", message=None, entry_id=entry_id),
        fixes=[FixRow(workaround=item, status=Status(status), error=None, seconds=None, peak_memory_bytes=None,
                      kind=kind, patch=None, title=None) for kind, item, status in fixes])


@dataclass
class Evidence:
    store: object
    url: str


@pytest.fixture
def evidence(tmp_path, monkeypatch, pages_kb) -> Evidence:
    """A store with: backward-once fixed by three askers on torch 2.13 (CPU) and 2.4 (a GPU),
    recompute-forward failing for one asker (held: too few askers), retain-graph-everywhere
    (a dead end) failing as the entry says, two answers, and one unanswered question with
    markup in it. Recorded by bot.evidence's own recording functions."""
    from bot.evidence import db
    from bot.evidence.record import record_answer, record_verification
    from bot.store import open_store

    url = f"sqlite:///{tmp_path / 'pages.db'}"
    monkeypatch.setenv("DATABASE_URL", url)
    monkeypatch.setenv("TROUBLESHOOT_KNOWLEDGE_DIR", str(pages_kb))
    monkeypatch.setenv("TROUBLESHOOT_RATES_TTL", "0")
    db.forget()
    store = open_store(url)
    bt = "pytorch/backward-twice"
    runs = [
        (report(bt, [("workaround", "backward-once", "fixed"), ("workaround", "recompute-forward", "still_fails"),
                     ("dead_end", "retain-graph-everywhere", "still_fails")]), "asker-a", "snippet one"),
        (report(bt, [("workaround", "backward-once", "fixed")], torch="2.4.1", gpu="NVIDIA H200"), "asker-b",
         "snippet two"),
        (report(bt, [("workaround", "backward-once", "fixed")]), "asker-c", "snippet three"),
    ]
    for rep, asker, snippet in runs:
        assert record_verification(rep, snippet, store=store, asker=asker, surface="cli") is not None
    answered = answer_docs.document(answer_docs.match(bt, confidence=0.93,
                                                      workarounds=[answer_docs.workaround("backward-once")]))
    for _ in range(2):
        assert record_answer("RuntimeError: Trying to backward through the graph a second time", answered,
                             store=store) is not None
    unsure = answer_docs.document(answer_docs.match("pytorch/cuda-oom", confidence=0.2), answered=False,
                                  declined="not-covered")
    record_answer("ValueError: <script>alert(6)</script> frobnicator exploded", unsure, store=store)
    yield Evidence(store, url)
    store.engine.dispose()
    db.forget()


@dataclass
class Served:
    url: str
    ctx: object


@pytest.fixture
def served(evidence):
    """The bot's HTTP server (make_http_server: Slack events, /health and the /kb pages)."""
    sys.path.insert(0, str(REPO / "tests" / "slack"))
    from slack_fake_api import FakeSlack
    from slack_harness import SIGNING_SECRET

    from bot.slack.app import build_app, build_context, make_http_server
    from bot.slack.services.context import SlackSettings

    fake = FakeSlack().start()
    settings = SlackSettings(bot_token=fake.bot_token, signing_secret=SIGNING_SECRET, api_url=fake.api_url)
    ctx = build_context(settings, store=evidence.store, answer_fn=lambda *a, **k: answer_docs.document(answered=False))
    ctx.ready = True
    app = build_app(ctx)
    server = make_http_server(app, ctx, "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, name="pages-http",
                     daemon=True).start()  # a short poll: shutdown() below waits for the loop to look
    yield Served(f"http://127.0.0.1:{server.server_address[1]}", ctx)
    server.shutdown()
    server.server_close()
    ctx.work_pool.shutdown(wait=True)
    ctx.verify_pool.shutdown(wait=True)
    fake.stop()


@dataclass
class Reply:
    status: int
    headers: dict
    body: bytes

    @property
    def text(self) -> str:
        return self.body.decode("utf-8")


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def fetch(url: str, method: str = "GET") -> Reply:
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        with opener.open(urllib.request.Request(url, method=method), timeout=30) as resp:
            return Reply(resp.status, {k.lower(): v for k, v in resp.headers.items()}, resp.read())
    except urllib.error.HTTPError as err:
        return Reply(err.code, {k.lower(): v for k, v in err.headers.items()}, err.read())
