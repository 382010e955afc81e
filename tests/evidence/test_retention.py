"""What is stored of people's text, said truthfully (issue 26, item 7), on a real SQLite
store: gap excerpts and 👎 comments are kept with tokens and secrets redacted, for
TROUBLESHOOT_RETENTION_DAYS, after which a sweep (at open_store, and every few hours in
`serve`) deletes them; greetings and other libraries' errors are never gaps."""

from __future__ import annotations

import threading
from datetime import timedelta

import answer_docs
from sqlalchemy import select, update

from bot.evidence.gaps import list_gaps
from bot.evidence.record import record_gap, record_verification
from bot.store.models import CoverageGap, Verification, VoteReason, utcnow

SLACK_TOKEN = "xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOpQrStUvWx"
HF_TOKEN = "hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
UNSURE = answer_docs.document(answer_docs.match("pytorch/cuda-oom", confidence=0.3), answered=False,
                              declined="not-covered")
OLD, NEW = "RuntimeError: the frobnicator broke", "ValueError: the widget is misaligned"


def comment_row(store, answer_id: int) -> VoteReason:
    with store.session() as session:
        return session.scalars(select(VoteReason).where(VoteReason.answer_id == answer_id)).one()


def add_downvote(store, comment: str, user: str = "U1") -> int:
    answer_id = store.add_answer(entry_id="pytorch/cuda-oom", confidence=0.9, language="en", surface="mention",
                                 error_hash="h" * 64)
    store.add_vote_reason(answer_id=answer_id, user_hash=store.user_hash("T1", user), entry_id="pytorch/cuda-oom",
                          workaround_id=None, reason="did-not-work", comment=comment)
    return answer_id


def age(store, model, column, days: float) -> None:
    """Make every row of `model` `days` old."""
    with store.session() as session:
        session.execute(update(model).values({column: utcnow() - timedelta(days=days)}))
        session.commit()


def test_a_token_in_a_downvote_comment_is_stored_redacted(make_store):
    store = make_store("sqlite")
    answer_id = add_downvote(store, f"still OOM; my bot token {SLACK_TOKEN} and {HF_TOKEN} are in the script")
    comment = comment_row(store, answer_id).comment
    assert comment == "still OOM; my bot token [redacted] and [redacted] are in the script"


def test_a_token_in_a_gap_is_stored_redacted_and_the_gap_counts_as_the_same_question(make_store):
    store = make_store("sqlite")
    asked = f"RuntimeError: CUDA driver refused token {SLACK_TOKEN} from the launcher"
    assert record_gap(asked, UNSURE, store=store)
    assert record_gap(asked, UNSURE, store=store)
    [gap] = list_gaps(store, errors_only=False)
    assert gap["example"] == "RuntimeError: CUDA driver refused token [redacted] from the launcher"
    assert gap["count"] == 2
    assert "xoxb" not in gap["example"] and "1234567890" not in gap["example"]


def test_greetings_and_other_libraries_errors_are_no_gaps(make_store):
    store = make_store("sqlite")
    greeting = answer_docs.document(answered=False, declined="no-error")
    other = answer_docs.document(answered=False, declined="other-library")
    assert not record_gap("hi there, thanks for the help!", greeting, store=store)
    assert not record_gap("tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM", other, store=store)
    assert list_gaps(store, errors_only=False) == []
    assert record_gap(OLD, UNSURE, store=store)  # a PyTorch question the knowledge base does not cover
    assert [g["example"] for g in list_gaps(store, errors_only=False)] == [OLD]


def test_the_real_answer_to_a_greeting_is_not_recorded_as_a_gap(use_kb):
    """The scope judge (bot.retrieval.scope) decides "no-error"; record_answer keeps no gap."""
    from bot.answer import answer
    from bot.evidence.db import get_store
    from bot.evidence.record import record_answer

    result = answer("hello! thanks a lot")
    assert result.declined == "no-error"
    store = get_store()
    assert record_answer("hello! thanks a lot", result, store=store) is not None  # the answer row is kept
    assert list_gaps(store, errors_only=False) == []


def test_the_sweep_deletes_what_is_older_than_the_retention(make_store, seed_run, monkeypatch):
    store = make_store("sqlite")
    record_gap(OLD, UNSURE, store=store)
    old_vote = add_downvote(store, "did not help at all", user="U1")
    old_run = record_verification(seed_run.report, "import torch\n# shared\n", store=store, consent=True)
    for model, column in ((CoverageGap, "last_seen"), (VoteReason, "created_at"), (Verification, "created_at")):
        age(store, model, column, days=31)
    record_gap(NEW, UNSURE, store=store)
    new_vote = add_downvote(store, "also wrong on 2.3", user="U2")
    new_run = record_verification(seed_run.report, "import torch\n# shared again\n", store=store, consent=True)

    monkeypatch.setenv("TROUBLESHOOT_RETENTION_DAYS", "30")
    assert store.sweep_expired() == {"gaps": 1, "comments": 1, "snippets": 1, "examples": 0}
    assert [g["example"] for g in list_gaps(store, errors_only=False)] == [NEW]
    old_reason, new_reason = comment_row(store, old_vote), comment_row(store, new_vote)
    assert old_reason.comment is None and old_reason.reason == "did-not-work"  # the reason still counts
    assert new_reason.comment == "also wrong on 2.3"
    with store.session() as session:
        runs = {v.id: v for v in session.scalars(select(Verification))}
    assert runs[old_run].snippet is None and len(runs[old_run].snippet_sha256) == 64  # the run stays evidence
    assert runs[new_run].snippet == "import torch\n# shared again\n"
    assert store.sweep_expired() == {"gaps": 0, "comments": 0, "snippets": 0, "examples": 0}


def test_the_sweep_drops_old_pending_examples_and_the_questions_choices_kept(make_store, monkeypatch):
    import json

    from bot.evidence.learn import note_example, pending
    from bot.store.models import Answer, PendingExample

    store = make_store("sqlite")
    note_example(store, "학습하다가 GPU 메모리가 부족해요", "pytorch/cuda-oom", "ko")
    doc = {"answered": False, "language": "ko", "matches": [], "tier": "choices", "choices": [],
           "question": "학습하다가 GPU 메모리가 부족해요"}
    old = store.add_answer(entry_id=None, confidence=0.7, language="ko", surface="mention", error_hash="h",
                           answer_json=json.dumps(doc, ensure_ascii=False))
    age(store, PendingExample, "last_seen", days=31)
    age(store, Answer, "created_at", days=31)
    new = store.add_answer(entry_id=None, confidence=0.7, language="ko", surface="mention", error_hash="h",
                           answer_json=json.dumps(doc, ensure_ascii=False))
    monkeypatch.setenv("TROUBLESHOOT_RETENTION_DAYS", "30")
    assert store.sweep_expired()["examples"] == 2
    assert pending(store) == []
    assert "question" not in json.loads(store.get_answer(old).answer_json)
    assert json.loads(store.get_answer(new).answer_json)["question"] == doc["question"]


def test_zero_days_keeps_everything(make_store, monkeypatch):
    store = make_store("sqlite")
    record_gap(OLD, UNSURE, store=store)
    age(store, CoverageGap, "last_seen", days=3650)
    monkeypatch.setenv("TROUBLESHOOT_RETENTION_DAYS", "0")
    assert store.sweep_expired() == {"gaps": 0, "comments": 0, "snippets": 0, "examples": 0}
    assert len(list_gaps(store, errors_only=False)) == 1


def test_opening_the_store_sweeps(make_store, tmp_path, monkeypatch):
    from bot.store import open_store

    store = make_store("sqlite")
    record_gap(OLD, UNSURE, store=store)
    age(store, CoverageGap, "last_seen", days=91)  # past the default of 90 days
    reopened = open_store(str(store.engine.url))
    try:
        assert list_gaps(reopened, errors_only=False) == []
    finally:
        reopened.engine.dispose()


def test_serve_sweeps_again_while_it_runs(make_store, monkeypatch):
    from bot.cli.serve import start_retention_sweeps

    store = make_store("sqlite")
    swept = threading.Event()
    real = store.sweep_expired

    def sweep_and_tell(*args, **kwargs):
        gone = real(*args, **kwargs)
        if gone["gaps"]:
            swept.set()
        return gone

    monkeypatch.setattr(store, "sweep_expired", sweep_and_tell)
    record_gap(OLD, UNSURE, store=store)
    age(store, CoverageGap, "last_seen", days=91)
    stop = start_retention_sweeps(store, every=0.05)
    try:
        assert swept.wait(60)
    finally:
        stop.set()
    assert list_gaps(store, errors_only=False) == []
