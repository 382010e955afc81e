"""Evidence one person cannot move (issue 27), one test per attack: one account's copies
of one snippet, LOGNAME spoofing, three askers passing one snippet around, and a snippet
whose patched variants leave before torch runs. The rule (rates.py): one run per asker
and item, their latest; runs against the knowledge base count only from 3 askers with 2
distinct snippets (comments and whitespace do not make a snippet distinct)."""

from __future__ import annotations

import json

from .conftest import SEED, troubleshoot, variant
from .test_evidence_rates import CODE, DETACH, RECOMPUTE, RETAIN, item, record, stats

# Three programs that differ in more than comments (each is the seed plus one statement).
PROGRAMS = [CODE, CODE + "\nunused = 1\n", CODE + "\nunused = 2\n"]


def test_snippets_that_differ_only_in_comments_or_whitespace_are_one_snippet():
    from bot.evidence.snippets import snippet_shape

    one = snippet_shape(CODE)
    assert snippet_shape(CODE + "\n# a trailing comment\n") == one
    assert snippet_shape(CODE.replace("\n\n", "\n\n\n").replace("    ", "        ")) == one
    assert snippet_shape(PROGRAMS[1]) != one and snippet_shape(PROGRAMS[1]) != snippet_shape(PROGRAMS[2])
    # Not Python at all (a SyntaxError is a snippet too): its tokens without comments.
    assert snippet_shape("x = = 1  # a\nif x:\n  y\n") == snippet_shape("x = = 1\n\nif x:\n        y")
    assert snippet_shape("x = = 1\n") != snippet_shape("x = = 2\n")
    assert len(snippet_shape("(" * 200_000)) == 64  # too deep for the parser: still a hash, no crash


def test_four_comment_copies_from_one_account_move_no_dead_end(make_store, evidence_kb, seed_run):
    """The attack: four copies of the seed that differ in a trailing comment, all with the
    dead end "fixed", from one account. Before: "failed in 0 of 4 verified runs"."""
    store = make_store()
    record(store, seed_run.report, asker="honest")  # the dead end fails, as the knowledge base says
    for n in range(4):
        record(store, variant(seed_run.report, statuses={DETACH: "fixed", RETAIN: "fixed"}),
               CODE + f"\n# copy {n}\n", asker="mallory")
    detach = item(stats(store, evidence_kb), DETACH)
    assert (detach["fixed"], detach["failed"], detach["runs"]) == (0, 1, 1)
    assert detach["held_back"] == {"quorum": 1, "superseded": 3}
    assert detach["summary"] == "failed in 1 of 1 verified run on torch 2.13"
    # Successes are one per asker too: mallory's four "fixed" runs of a workaround are one.
    retain = item(stats(store, evidence_kb), RETAIN)
    assert (retain["fixed"], retain["askers_fixed"], retain["superseded"]) == (2, 2, 3)


def test_three_askers_with_one_snippet_are_held_and_with_two_snippets_count(make_store, evidence_kb, seed_run):
    store = make_store()
    for n in range(3):  # one snippet passed around (comment copies): one experiment
        record(store, variant(seed_run.report, statuses={RETAIN: "still_fails"}), CODE + f"\n# by {n}\n",
               asker=f"asker-{n}")
    retain = item(stats(store, evidence_kb), RETAIN)
    assert retain["failed"] == 0 and retain["held"] == 3 and not retain["refuted"]
    # One of them runs a second, different program: their latest counts, and the quorum is met.
    record(store, variant(seed_run.report, statuses={RETAIN: "still_fails"}), PROGRAMS[1], asker="asker-0")
    retain = item(stats(store, evidence_kb), RETAIN)
    assert (retain["failed"], retain["held"], retain["superseded"]) == (3, 0, 1) and retain["refuted"]
    # The same rule for a dead end, from the other side: "fixed" from 3 askers and 2 programs.
    for n, program in enumerate(PROGRAMS):
        record(store, variant(seed_run.report, statuses={DETACH: "fixed"}), program, asker=f"asker-{n}")
    detach = item(stats(store, evidence_kb), DETACH)
    assert (detach["fixed"], detach["failed"], detach["held"]) == (3, 0, 0)


def test_logname_spoofing_is_one_asker(make_store, evidence_kb, seed_run, monkeypatch):
    """The attack: LOGNAME (and USER) set to three names, two copies each, met the quorum
    and refuted both real fixes. The CLI's asker is the uid's OS account."""
    import os
    import pwd

    from bot.evidence.record import cli_asker

    store = make_store()
    askers = set()
    for name in ("alice", "bob", "carol"):
        for key in ("LOGNAME", "USER", "LNAME", "USERNAME"):
            monkeypatch.setenv(key, name)
        askers.add(cli_asker(store))
    assert askers == {store.user_hash("cli", pwd.getpwuid(os.getuid()).pw_name)}
    asker = askers.pop()
    for n, program in enumerate(PROGRAMS * 2):
        record(store, variant(seed_run.report, statuses={RETAIN: "still_fails", RECOMPUTE: "new_error"}),
               program + f"\n# {n}\n", asker=asker)
    doc = stats(store, evidence_kb)
    for item_id in (RETAIN, RECOMPUTE):
        found = item(doc, item_id)
        assert found["source"] == "prior" and not found["refuted"] and found["askers_failed"] == 1, found


def test_the_cli_records_the_uids_account_whatever_logname_says(use_kb, tmp_path):
    """`troubleshoot verify` itself, twice with different LOGNAME/USER: one asker in the store."""
    from sqlalchemy import select

    from bot.evidence import db
    from bot.store.models import Verification

    snippet = tmp_path / "snippet.py"
    snippet.write_text("raise ValueError('not a torch error')\n")
    for name in ("alice", "bob"):
        proc = troubleshoot("verify", str(snippet), "--json", env={**use_kb, "LOGNAME": name, "USER": name})
        assert proc.returncode == 4, proc.stderr  # ran; nothing verified (no entry for this error)
        assert json.loads(proc.stdout)["reproduced"] is True
    store = db.get_store(create=False)
    assert store is not None
    with store.session() as session:
        askers = session.scalars(select(Verification.asker)).all()
    assert len(askers) == 2 and len(set(askers)) == 1


EARLY_EXIT = """import os, sys
# The attack: tell the patched variants from the original by the file's size and leave
# before torch runs (sys.exit or os._exit), so that every fix and dead end "fixes" it.
if os.stat(__file__).st_size != {size}:
    sys.exit(0) if os.getpid() % 2 else os._exit(0)
"""


def _early_exit_snippet() -> str:
    seed = SEED.read_text()
    size = 0
    for _ in range(5):  # the header holds the size of the whole file, itself included
        text = EARLY_EXIT.format(size=size) + seed
        size = len(text.encode())
    assert len((EARLY_EXIT.format(size=size) + seed).encode()) == size
    return EARLY_EXIT.format(size=size) + seed


def test_variants_that_exit_before_torch_are_held_out(make_store, evidence_kb, seed_run, tmp_path):
    """Through the real sandbox: the original raises the seed's error, every applied variant
    exits early. Each such row is held (`ended_early`), no rate moves, `stats` says why."""
    from bot.evidence.stats import format_stats
    from bot.verify.report import ENDED_EARLY, VerifyReport

    path = tmp_path / "early.py"
    path.write_text(_early_exit_snippet())
    proc = troubleshoot("verify", str(path), "--json", "--no-record", env=seed_run.env)
    assert proc.returncode == 0, proc.stderr
    report = VerifyReport.from_json(json.loads(proc.stdout))
    assert report.reproduced is True
    ran = [row for row in report.fixes if row.status.value != "not_applicable"]
    assert ran and all(row.status.value == "fixed" and row.held_reason == ENDED_EARLY for row in ran), \
        [(r.workaround, r.status, r.held_reason) for r in report.fixes]
    from bot.verify.report import format_report

    assert "not counted as evidence: the patched variant exited before the end of the snippet" \
        in format_report(report)
    store = make_store()
    report.job = None
    for n in range(3):
        record(store, report, path.read_text() + f"\nunused = {n}\n", asker=f"asker-{n}")
    doc = stats(store, evidence_kb)
    detach = item(doc, DETACH)
    assert detach["runs"] == 0 and detach["held_back"] == {ENDED_EARLY: 3}
    assert "3 held: the patched variant exited before the end of the snippet" in format_stats(doc)
