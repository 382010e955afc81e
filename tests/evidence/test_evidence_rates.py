"""Fix rates from verified runs and votes (bot/evidence/rates.py): the numbers the Beta
model must give, what counts once, what does not count, and when a workaround is
refuted. Reports are the seed's real verification report, recorded as is or with
some statuses, the torch version or the GPU changed."""

from __future__ import annotations

import json

import pytest

from .conftest import SEED, SEED_ERROR, variant

ENTRY = "pytorch/backward-twice"
RETAIN = "retain-graph-all-but-last"  # prior 0.8 from 1; the seed run fixes it
RECOMPUTE = "recompute-forward"  # prior 0.9 from 1; the seed run fixes it
DETACH = "detach-before-backward"  # a dead end without a prior; the seed run fails with another error
CODE = SEED.read_text()


def approx(value: float):
    return pytest.approx(value, abs=5e-4)  # stats rounds rates to 4 places


def stats(store, evidence_kb):
    from bot.evidence.stats import build_stats
    from bot.kb.loader import check_knowledge

    kb, _ = check_knowledge(evidence_kb[0])
    return build_stats(kb, store)


def item(doc, item_id, entry=ENTRY):
    found = next(e for e in doc["entries"] if e["id"] == entry)
    return next(i for i in found["workarounds"] + found["dead_ends"] if i["id"] == item_id)


def record(store, report, snippet=CODE, **kw):
    from bot.evidence import record_verification

    verification_id = record_verification(report, snippet, store=store, **kw)
    assert verification_id is not None
    return verification_id


def test_priors_stand_until_there_is_evidence(make_store, evidence_kb):
    doc = stats(make_store(), evidence_kb)
    retain = item(doc, RETAIN)
    assert retain["fix_rate"] == 0.8 and retain["source"] == "prior" and retain["runs"] == 0
    assert retain["summary"] is None and retain["evidence"] == 1


def test_verified_runs_update_the_rate_with_the_versions_they_ran_on(make_store, evidence_kb, seed_run):
    store = make_store()
    record(store, seed_run.report)
    doc = stats(store, evidence_kb)
    retain = item(doc, RETAIN)
    # Beta(0.8, 0.2) + one success -> 1.8 / 2
    assert retain["fix_rate"] == approx(0.9) and retain["source"] == "verified"
    assert (retain["runs"], retain["fixed"], retain["failed"]) == (1, 1, 0)
    assert retain["torch"] == ["2.13"] and retain["devices"] == ["cpu"]
    assert retain["summary"] == "fixed 1 of 1 verified run on torch 2.13"
    assert item(doc, RECOMPUTE)["fix_rate"] == approx(0.95)  # Beta(0.9, 0.1) + 1 -> 1.9 / 2

    # Another asker's snippet on torch 2.3 with a GPU, where the patch leaves the same error:
    # held until failures come from 3 askers.
    record(store, variant(seed_run.report, statuses={RETAIN: "still_fails"}, torch="2.3.1+cu121", gpu="NVIDIA A100"),
           CODE + "\n# another asker's repro\n", asker="b")
    retain = item(stats(store, evidence_kb), RETAIN)
    assert retain["fix_rate"] == approx(0.9) and retain["held"] == 1 and retain["askers_failed"] == 1

    # new_error is a failure as well; not_applicable and timeout say nothing about the fix.
    # (Another program, not a comment copy: 3 askers with 2 distinct snippets meet the quorum.)
    record(store, variant(seed_run.report, statuses={RETAIN: "new_error"}), CODE + "\nunused = 3\n", asker="c")
    record(store, variant(seed_run.report, statuses={RETAIN: "still_fails"}), CODE + "\n# third b\n", asker="d")
    record(store, variant(seed_run.report, statuses={RETAIN: "not_applicable"}), CODE + "\n# fourth\n", asker="e")
    record(store, variant(seed_run.report, statuses={RETAIN: "timeout"}), CODE + "\n# fifth\n", asker="f")
    retain = item(stats(store, evidence_kb), RETAIN)
    assert (retain["runs"], retain["fixed"], retain["failed"], retain["not_counted"]) == (4, 1, 3, 2)
    assert retain["held"] == 0 and retain["askers_failed"] == 3
    assert retain["fix_rate"] == approx(1.8 / 5)
    assert retain["torch"] == ["2.3", "2.13"] and retain["devices"] == ["NVIDIA A100", "cpu"]
    assert retain["summary"] == "fixed 1 of 4 verified runs on torch 2.3 to 2.13"


def test_an_askers_runs_count_once_and_their_latest_stands(make_store, evidence_kb, seed_run):
    store = make_store()
    for _ in range(3):
        record(store, seed_run.report)
    retain = item(stats(store, evidence_kb), RETAIN)
    assert (retain["runs"], retain["fixed"], retain["recorded"], retain["superseded"]) == (1, 1, 3, 2)
    record(store, variant(seed_run.report, statuses={RETAIN: "still_fails"}))  # same snippet, same setup
    retain = item(stats(store, evidence_kb), RETAIN)
    # The latest outcome stands: a failure, of one asker only, so held.
    assert (retain["runs"], retain["fixed"], retain["failed"], retain["held"]) == (0, 0, 0, 1)
    # Another torch, another snippet: still the same asker, whose latest run stands (issue 27).
    record(store, variant(seed_run.report, torch="2.4.0"), CODE + "\nunused = 1\n")
    retain = item(stats(store, evidence_kb), RETAIN)
    assert (retain["runs"], retain["fixed"], retain["failed"], retain["held"]) == (1, 1, 0, 0)
    assert retain["torch"] == ["2.4"] and retain["superseded"] == 4


def test_dead_ends_gain_failure_evidence(make_store, evidence_kb, seed_run):
    store = make_store()
    record(store, seed_run.report)
    detach = item(stats(store, evidence_kb), DETACH)
    # No prior: Beta(1, 1); the run failed as the knowledge base says -> 2 / 3.
    assert detach["fail_rate"] == approx(2 / 3) and detach["failed"] == 1
    assert detach["summary"] == "failed in 1 of 1 verified run on torch 2.13"
    # One other asker's "fixed" goes against the knowledge base: held until the quorum.
    record(store, variant(seed_run.report, statuses={DETACH: "fixed"}), CODE + "\nunused = 1\n", asker="b")
    detach = item(stats(store, evidence_kb), DETACH)
    assert detach["fail_rate"] == approx(2 / 3) and (detach["fixed"], detach["failed"], detach["held"]) == (0, 1, 1)


def test_a_workaround_refuted_by_runs_is_shown_as_a_dead_end(make_store, evidence_kb, seed_run, use_kb,
                                                             monkeypatch):
    from bot.answer import answer, set_rate_source

    store = make_store()
    for n in range(3):
        record(store, variant(seed_run.report, statuses={RETAIN: "still_fails"}), CODE + f"\nunused = {n}\n",
               asker=f"asker-{n}")
    retain = item(stats(store, evidence_kb), RETAIN)
    assert retain["fix_rate"] == approx(0.8 / 4) and retain["refuted"] is True
    # A strong prior holds out longer: backward-once (0.9 from 5) after 3 failures is not refuted.
    from bot.evidence.rates import Observations, estimate
    from bot.kb.model import Prior

    assert not estimate(Prior(0.9, 5, ""), Observations(failed=3)).refuted
    assert estimate(Prior(0.9, 5, ""), Observations(failed=11)).refuted

    monkeypatch.setenv("DATABASE_URL", store.engine.url.render_as_string(hide_password=False))
    set_rate_source(None)  # look the source up again: bot.evidence.rates.rate_source()
    try:
        result = answer(SEED_ERROR)
    finally:
        set_rate_source(None)
    best = result.matches[0]
    assert best.id == ENTRY
    assert RETAIN not in [w.id for w in best.workarounds]
    dead = next(d for d in best.dead_ends if d.id == RETAIN)
    assert dead.refuted is True and dead.fail_rate == 1.0  # failed in 3 of 3: measured, no prior in it
    assert dead.evidence_summary == "failed in 3 of 3 verified runs on torch 2.13"


def _answer_json(entry_first: str) -> str:
    """An answer as the bot stores it, listing `entry_first` first for the seed's entry."""
    return json.dumps({"answered": True, "language": "en", "matches": [
        {"id": ENTRY, "confidence": 1.0, "workarounds": [{"id": entry_first}, {"id": RETAIN}], "dead_ends": []}]})


def test_votes_count_for_the_answers_first_workaround_with_a_smaller_weight(make_store, evidence_kb):
    store = make_store()
    answer_id = store.add_answer(entry_id=ENTRY, confidence=1.0, language="en", surface="mention",
                                 error_hash="x" * 64, answer_json=_answer_json("backward-once"))
    for user in ("U1", "U2", "U3", "U4"):
        assert store.vote(answer_id, store.user_hash("T1", user), 1).changed
    once = item(stats(store, evidence_kb), "backward-once")
    # Beta(4.5, 0.5) + 4 votes * 0.25 = one success -> 5.5 / 6
    assert once["fix_rate"] == approx(5.5 / 6) and (once["up"], once["down"]) == (4, 0)
    assert once["source"] == "votes" and once["summary"] == "not verified yet; 👍 4 👎 0 on answers"
    assert item(stats(store, evidence_kb), RETAIN)["up"] == 0  # only the first workaround gets the vote

    # A vote counts once per user; changing it replaces it.
    assert not store.vote(answer_id, store.user_hash("T1", "U1"), 1).changed
    assert store.vote(answer_id, store.user_hash("T1", "U1"), -1).changed
    once = item(stats(store, evidence_kb), "backward-once")
    assert (once["up"], once["down"]) == (3, 1)
    assert once["fix_rate"] == approx((4.5 + 0.75) / (5 + 1))

    # Votes on an answer that was not confident, or that listed no workaround, count for nothing.
    unsure = store.add_answer(entry_id=None, confidence=None, language="en", surface="mention",
                              error_hash="y" * 64, answer_json=json.dumps({"answered": False, "matches": []}))
    store.vote(unsure, store.user_hash("T1", "U9"), -1)
    broken = store.add_answer(entry_id=ENTRY, confidence=1.0, language="en", surface="mention",
                              error_hash="z" * 64, answer_json="{not json")
    store.vote(broken, store.user_hash("T1", "U9"), -1)
    assert item(stats(store, evidence_kb), "backward-once")["down"] == 1


def test_rate_source_shows_priors_without_a_store_and_evidence_with_one(make_store, seed_run, monkeypatch, tmp_path):
    from bot.evidence import db
    from bot.evidence.rates import EvidenceRates
    from bot.kb.loader import current_knowledge as knowledge

    entry = knowledge().resolve(ENTRY)
    retain = next(w for w in entry.workarounds if w.id == RETAIN)
    monkeypatch.setenv("TROUBLESHOOT_VAR_DIR", str(tmp_path / "nothing-here"))
    monkeypatch.delenv("DATABASE_URL", raising=False)
    db.forget()
    rates = EvidenceRates()
    assert rates.workaround_rate(ENTRY, retain).source == "prior"
    assert not (tmp_path / "nothing-here").exists()  # reading created no database

    store = make_store()
    monkeypatch.setenv("DATABASE_URL", store.engine.url.render_as_string(hide_password=False))
    record(store, seed_run.report)  # recording in this process makes the snapshot stale at once
    rate = rates.workaround_rate(ENTRY, retain)
    assert rate.source == "verified" and rate.rate == approx(0.9) and rate.verified["fixed"] == 1

    # A store that cannot be read means priors, not a failed answer.
    monkeypatch.setenv("DATABASE_URL", "postgresql+psycopg://postgres@127.0.0.1:1/none?connect_timeout=2")
    assert EvidenceRates().workaround_rate(ENTRY, retain).source == "prior"
    db.forget()


def test_a_poisoning_snippet_moves_no_rate(make_store, evidence_kb, seed_run):
    """The attack of issue 11: one hostile snippet, run three times (from the CLI and from
    Slack), fails every patched workaround on purpose and claims another torch each time.
    The environment is the host's now, so the three runs are one setup; and one asker's
    failures are held until others report failures too."""
    store = make_store()
    record(store, seed_run.report, asker="honest")
    before = {i: item(stats(store, evidence_kb), i)["fix_rate"] for i in (RETAIN, RECOMPUTE)}
    hostile = CODE + "\n# if the source changed, fail\n"
    for surface in ("cli", "slack", "queue"):
        record(store, variant(seed_run.report, statuses={RETAIN: "still_fails", RECOMPUTE: "new_error"}), hostile,
               asker="mallory", surface=surface)
    for i in (RETAIN, RECOMPUTE):
        now = item(stats(store, evidence_kb), i)
        assert now["fix_rate"] == before[i], (i, now)
        assert not now["refuted"] and now["held"] == 1 and now["askers_failed"] == 1
    # Mallory's many snippets are still one voice.
    for n in range(5):
        record(store, variant(seed_run.report, statuses={RETAIN: "still_fails"}), hostile + f"# {n}\n", asker="mallory")
    assert item(stats(store, evidence_kb), RETAIN)["fix_rate"] == before[RETAIN]


def test_a_run_that_read_its_own_source_is_not_counted(make_store, evidence_kb, seed_run):
    store = make_store()
    report = variant(seed_run.report, statuses={RETAIN: "still_fails"})
    report.reads_own_source = True  # set by the sandbox's supervisor, not by the snippet
    for n in range(3):
        record(store, report, CODE + f"\n# {n}\n", asker=f"a{n}")
    retain = item(stats(store, evidence_kb), RETAIN)
    assert retain["source"] == "prior" and retain["runs"] == 0 and retain["not_evidence"] == 3
    # A fix row alone can be marked too (the patched run read its source).
    fixed = variant(seed_run.report)
    for row in fixed.fixes:
        row.reads_own_source = row.workaround == RETAIN
    record(store, fixed, CODE + "\n# x\n", asker="b")
    doc = stats(store, evidence_kb)
    assert item(doc, RETAIN)["runs"] == 0 and item(doc, RECOMPUTE)["fixed"] == 1


def test_hostile_snippet_in_the_sandbox_is_flagged(seed_run):
    """The real thing: a snippet that opens its own file is marked by the supervisor."""
    from bot.sandbox import Limits, run_snippet

    r = run_snippet("src = open(__file__).read()\nraise RuntimeError('patched' if 'retain' in src else 'x')\n",
                    limits=Limits(wall_seconds=20))
    assert r.reads_own_source is True and r.exit_reason == "error"
    clean = run_snippet("raise RuntimeError('x')\n", limits=Limits(wall_seconds=20))
    assert clean.reads_own_source is False


def test_a_share_of_votes_needs_five_votes_and_is_never_called_measured(make_store, evidence_kb):
    from bot.evidence.stats import format_stats

    store = make_store()
    answer_id = store.add_answer(entry_id=ENTRY, confidence=1.0, language="en", surface="mention",
                                 error_hash="v" * 64, answer_json=_answer_json("backward-once"))
    store.vote(answer_id, store.user_hash("T1", "U1"), 1)
    store.vote(answer_id, store.user_hash("T1", "U2"), -1)
    doc = stats(store, evidence_kb)
    once = item(doc, "backward-once")
    # One 👍 and one 👎: no "50%", and the votes are said as votes beside the estimate.
    assert once["measured"] is None
    assert once["rate_text"] == "team estimate, not yet verified; 👍 1 👎 1 on answers"
    assert "backward-once: team estimate" in format_stats(doc) and "50%" not in format_stats(doc)

    for user in ("U3", "U4", "U5"):
        store.vote(answer_id, store.user_hash("T1", user), 1)
    from bot.evidence.display import MIN_VOTES

    once = item(stats(store, evidence_kb), "backward-once")
    assert (once["up"], once["down"]) == (4, 1) and MIN_VOTES == 5
    # Five votes give a share, said as votes, never beside "not verified yet".
    assert once["measured"] == approx(0.8)
    assert once["rate_text"] == once["summary"] == "👍 4 👎 1 on answers"
    from bot.evidence.display import measured_rate, rate_text

    all_down = {"runs": 0, "fixed": 0, "failed": 0, "torch": [], "up": 0, "down": 5, "askers_fixed": 0,
                "askers_failed": 0, "held": 0}
    assert measured_rate(all_down) == 0.0 and rate_text(all_down, "zh") == "答案评价 👍 0 👎 5"  # a 0% is a share too


def _old_feedback_row(store, answer_id: int | None, asker: str, item_id: str = "backward-once") -> None:
    """What a 👎 "the fix did not work" left before votes had their own call (issue 23): a
    verification of surface "feedback" (no torch, no snippet) with one failed outcome."""
    import hashlib

    from bot.store.models import Verification, VerificationOutcome

    with store.session() as session:
        row = Verification(report_key=hashlib.sha256(f"feedback:{answer_id}:{asker}".encode()).hexdigest(),
                           surface="feedback", answer_id=answer_id, entry_id=ENTRY, reproduced=True,
                           exit_reason="feedback", snippet_sha256=hashlib.sha256(b"feedback").hexdigest(),
                           asker=asker)
        session.add(row)
        session.flush()
        session.add(VerificationOutcome(verification_id=row.id, entry_id=ENTRY, item_id=item_id, kind="workaround",
                                        status="still_fails"))
        session.commit()


def test_old_feedback_rows_are_votes_and_never_counted_as_runs(make_store, evidence_kb):
    from bot.evidence import record_verification
    from bot.evidence.rates import load_observations
    from bot.verify.report import ErrorInfo, ExitReason, FixRow, Status, VerifyReport

    store = make_store()
    for n in range(3):  # three askers: enough for their failures to count, were they runs
        _old_feedback_row(store, None, f"asker-{n}")
    report = VerifyReport(reproduced=True, exit_reason=ExitReason.ERROR, output="",
                          environment={"torch": "2.13.0", "python": "3.11.9"},
                          error=ErrorInfo(type="RuntimeError", message=None, entry_id=ENTRY),
                          fixes=[FixRow(workaround="backward-once", status=Status.FIXED, error=None, seconds=None,
                                        peak_memory_bytes=None, kind="workaround", patch=None, title=None)])
    assert record_verification(report, "a real snippet", store=store, asker="asker-9", surface="cli")

    obs = load_observations(store)[(ENTRY, "backward-once")]
    assert (obs.fixed, obs.failed, obs.held, obs.recorded) == (1, 0, 0, 1)  # the one real run, nothing else
    doc = stats(store, evidence_kb)
    assert doc["store"]["verifications"] == 1 and doc["store"]["fix_runs"] == 1
    entry = next(e for e in doc["entries"] if e["id"] == ENTRY)
    assert (entry["verifications"], entry["reproduced"]) == (1, 1)
    assert item(doc, "backward-once")["rate_text"] == "fixed 1 of 1 verified run on torch 2.13"
