"""One ranking (bot/answer/ranking.py): for the same evidence, every surface shows an
entry's fixes in the same order and turns the same refuted fixes into dead ends: the
answer (`ask --json`), the Slack answer and its details, the page JSON (`/kb/<id>.json`)
and `kb export --format json`.

The evidence is a real store: verified runs recorded by bot.evidence (one fix that three
askers' runs confirm, one that three askers' runs refute, a dead end that fails as its
entry says) and votes on a stored answer. The entry (backward-twice) has scenario-specific
fixes whose scenario the question does not mention: they rank after the general ones."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import answer_docs
import pytest

from bot.verify.report import ErrorInfo, ExitReason, FixRow, Status, VerifyReport

REPO = Path(__file__).resolve().parent.parent
ENTRY = "pytorch/backward-twice"
QUESTION = ("RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors "
            "after they have already been freed).")
CONFIRMED = "backward-once"
REFUTED = "recompute-forward"  # prior 0.9 from 1: three askers' failed runs outweigh it
DEAD_END = "retain-graph-everywhere"
# The order the answer's rule gives this evidence: the confirmed fix (measured outranks a
# patch), the general fix left (an estimate), then the fixes for scenarios the question
# does not mention, by prior.
EXPECTED = [CONFIRMED, "retain-graph-all-but-last", "detach-fake-for-discriminator", "detach-carried-state"]


def _report(fixes: list[tuple[str, str, str]]) -> VerifyReport:
    return VerifyReport(
        reproduced=True, exit_reason=ExitReason.ERROR, output="", environment={"torch": "2.13.0", "python": "3.11.9"},
        error=ErrorInfo(type="RuntimeError", message=None, entry_id=ENTRY),
        fixes=[FixRow(workaround=item, status=Status(status), error=None, seconds=None, peak_memory_bytes=None,
                      kind=kind, patch=None, title=None) for kind, item, status in fixes])


@pytest.fixture
def evidence(kb_slice, tmp_path, monkeypatch):
    """The settings point at the knowledge slice, its index and a store holding the evidence."""
    from bot.answer import set_rate_source
    from bot.evidence import db
    from bot.evidence.record import record_verification
    from bot.retrieval import engine as engine_module
    from bot.store import open_store

    knowledge, index = kb_slice
    url = f"sqlite:///{tmp_path / 'evidence.db'}"
    env = {"TROUBLESHOOT_KNOWLEDGE_DIR": str(knowledge), "TROUBLESHOOT_INDEX_DIR": str(index),
           "TROUBLESHOOT_VAR_DIR": str(tmp_path / "var"), "DATABASE_URL": url, "TROUBLESHOOT_RATES_TTL": "0",
           "TROUBLESHOOT_RECORD_ASK": "0"}
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    db.forget()
    engine_module.reset()
    set_rate_source(None)
    store = open_store(url)
    for n in range(3):
        run = _report([("workaround", CONFIRMED, "fixed"), ("workaround", REFUTED, "still_fails"),
                       ("dead_end", DEAD_END, "still_fails")])
        assert record_verification(run, f"snippet {n}", store=store, asker=f"asker-{n}", surface="cli") is not None
    shown = answer_docs.document(answer_docs.match(ENTRY, workarounds=[answer_docs.workaround(CONFIRMED)]))
    answer_id = store.add_answer(entry_id=ENTRY, confidence=0.95, language="en", surface="mention",
                                 error_hash="e" * 64, answer_json=json.dumps(shown.as_json()))
    for user, vote in (("U1", 1), ("U2", 1), ("U3", -1)):
        store.vote(answer_id, store.user_hash("T1", user), vote)
    yield store, env, knowledge
    set_rate_source(None)
    engine_module.reset()
    store.engine.dispose()
    db.forget()


def _slack_order(answer, entry) -> tuple[list[str], list[str], str]:
    """(workaround ids, dead-end ids, the first message's best fix id) as the Slack
    details and first message show them (by title: Slack shows no ids)."""
    from bot.kb.model import I18n
    from bot.slack.blocks import answer_message, details_blocks, tidy

    def by_title(items: list) -> dict[str, str]:
        return {tidy(i.title.get_text("en") if isinstance(i.title, I18n) else i.title): i.id for i in items}

    fixes = by_title(entry.workarounds)
    dead = {**by_title(entry.dead_ends), **fixes}  # a refuted fix is a dead end under its own title
    texts = [b.to_dict()["text"]["text"] for b in details_blocks(answer) if b.to_dict().get("type") == "section"]
    shown = [fixes[m.group(2)] for text in texts if (m := re.match(r"\*(\d+)\. (.+?)\*", text))]
    dead_ends = [dead[m.group(1)] for text in texts if (m := re.match(r":no_entry: \*(.+?)\*", text))]
    first = json.dumps(answer_message(answer, answer_id=1).payload(), ensure_ascii=False)
    best = next(i for title, i in fixes.items() if f"Best fix: {title}*" in first)
    return shown, dead_ends, best


def test_every_surface_ranks_the_fixes_alike(evidence, tmp_path):
    from bot.answer import answer
    from bot.kb.loader import check_knowledge
    from bot.pages.site import KnowledgePages

    store, env, knowledge = evidence
    kb, _problems = check_knowledge(knowledge)
    entry = kb.entries[ENTRY]

    # The answer (`ask --json` prints its JSON).
    doc = answer(QUESTION)
    best = doc.matches[0]
    assert doc.answered and best.id == ENTRY
    ask = [w.id for w in best.workarounds]
    ask_refuted = [d.id for d in best.dead_ends if d.refuted]
    assert ask == EXPECTED and ask_refuted == [REFUTED]
    assert [d.id for d in best.dead_ends][:2] == [REFUTED, DEAD_END]  # refuted fixes first, then the entry's

    # Slack: the details list every fix in that order, the first message shows the first.
    slack, slack_dead, slack_best = _slack_order(doc, entry)
    assert slack == ask and slack_best == ask[0]
    assert slack_dead == [d.id for d in best.dead_ends]

    # The page JSON, served.
    status, _ctype, body, _extra = KnowledgePages(store=store, knowledge_dir=knowledge).route(
        f"/kb/{ENTRY}.json", "en", {})
    assert status == "200 OK"
    page = json.loads(body)
    assert [w["id"] for w in page["workarounds"]] == ask
    assert [d["id"] for d in page["dead_ends"] if d["refuted"]] == ask_refuted
    assert page["best_fix"]["id"] == CONFIRMED

    # `kb export --format json`, in its own process.
    out = tmp_path / "export"
    full = {k: v for k, v in os.environ.items()}
    full.update(PYTHONPATH=str(REPO), **env)
    proc = subprocess.run([sys.executable, "-m", "bot.cli", "kb", "export", str(out), "--format", "json"],
                          cwd=REPO, env=full, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    exported = json.loads((out / f"{ENTRY}.json").read_text(encoding="utf-8"))
    assert [w["id"] for w in exported["workarounds"]] == ask
    assert [d["id"] for d in exported["dead_ends"] if d["refuted"]] == ask_refuted


def test_rank_fixes_is_the_order_of_the_answer(evidence):
    """The function every surface calls gives the answer's order on its own."""
    from bot.answer import get_rate_source
    from bot.answer.ranking import rank_fixes
    from bot.kb.loader import check_knowledge

    _store, _env, knowledge = evidence
    kb, _problems = check_knowledge(knowledge)
    ranked = rank_fixes(kb.entries[ENTRY], get_rate_source())
    assert [f.workaround.id for f in ranked.workarounds] == EXPECTED
    assert [f.workaround.id for f in ranked.refuted] == [REFUTED]
    assert ranked.workarounds[0].measured == 1.0 and ranked.refuted[0].rate.refuted
    # A question that shows a scenario puts that scenario's fix first (pages pass none).
    gan = rank_fixes(kb.entries[ENTRY], get_rate_source(), asked=QUESTION + "\nd_loss.backward()  # my GAN")
    assert gan.workarounds[0].workaround.id == "detach-fake-for-discriminator"


def test_a_fix_verify_can_test_leads_the_untested_estimates():
    """With no evidence at all, among the general fixes those with a patch (Verify tests
    them) come before the prior-only one, whatever its prior: backward-once (0.9 from 5,
    no patch) used to lead the answer, and Verify could say nothing about it."""
    from bot.answer.ranking import rank_fixes
    from bot.evidence.display import PriorRates
    from bot.kb.loader import check_knowledge

    kb, _problems = check_knowledge(REPO / "knowledge")
    ranked = rank_fixes(kb.entries[ENTRY], PriorRates())
    order = [f.workaround.id for f in ranked.workarounds]
    assert order == ["recompute-forward", "retain-graph-all-but-last", CONFIRMED,
                     "detach-fake-for-discriminator", "detach-carried-state"]
    assert ranked.workarounds[0].workaround.patch and not ranked.workarounds[2].workaround.patch
