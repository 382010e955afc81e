"""The commands: after `troubleshoot verify` on the seed repro, `troubleshoot stats` and
the next `troubleshoot ask` for the same error show the new evidence (end to end, in
subprocesses, with a private TROUBLESHOOT_VAR_DIR); `--no-record`; `ask` answers and
coverage gaps recorded, or not with TROUBLESHOOT_RECORD_ASK=0; clear errors."""

from __future__ import annotations

import json

from sqlalchemy import create_engine, text

from .conftest import SEED_ERROR, troubleshoot

ENTRY = "pytorch/backward-twice"


def test_verify_then_stats_and_ask_show_the_new_evidence(seed_run, monkeypatch):
    env = seed_run.env
    stats = troubleshoot("stats", "--json", env=env)
    assert stats.returncode == 0, stats.stderr
    doc = json.loads(stats.stdout)
    assert doc["store"]["backend"] == "sqlite" and doc["store"]["verifications"] == 1
    entry = doc["entries"][0]
    assert entry["id"] == ENTRY and entry["verifications"] == 1 and entry["reproduced"] == 1
    items = {i["id"]: i for i in entry["workarounds"] + entry["dead_ends"]}
    assert items["retain-graph-all-but-last"]["summary"] == "fixed 1 of 1 verified run on torch 2.13"
    assert items["retain-graph-all-but-last"]["fix_rate"] == 0.9
    assert items["recompute-forward"]["fix_rate"] == 0.95
    assert items["no-grad-forward"]["summary"] == "failed in 1 of 1 verified run on torch 2.13"
    assert items["backward-once"]["runs"] == 0 and items["backward-once"]["source"] == "prior"

    text_stats = troubleshoot("stats", env=env)
    assert "100%  recompute-forward: fixed 1 of 1 verified run on torch 2.13" in text_stats.stdout
    assert "   -  backward-once: team estimate, not yet verified" in text_stats.stdout

    ask = troubleshoot("ask", SEED_ERROR, "--json", env=env)
    assert ask.returncode == 0, ask.stderr
    best = json.loads(ask.stdout)["matches"][0]
    assert best["id"] == ENTRY
    # Measured by the verified run, recompute-forward leads (by priors alone it leads the fixes that have a patch).
    first = best["workarounds"][0]
    assert first["id"] == "recompute-forward" and first["success_rate"] == 1.0 and first["rate_kind"] == "measured"
    assert first["rate_source"] == "verified" and first["evidence_summary"] == "fixed 1 of 1 verified run on torch 2.13"
    assert first["verified"] == {"runs": 1, "fixed": 1, "failed": 0, "torch": ["2.13"], "up": 0, "down": 0,
                                 "askers_fixed": 1, "askers_failed": 0, "held": 0}
    dead = {d["id"]: d for d in best["dead_ends"]}
    assert dead["detach-before-backward"]["evidence_summary"] == "failed in 1 of 1 verified run on torch 2.13"

    # The terminal answer says it next to the workaround, in the asker's language too.
    from bot.answer.document import AnswerDocument
    from bot.answer.render import render_answer

    human = render_answer(AnswerDocument.from_json(json.loads(ask.stdout)))
    assert "fixes it 100% (fixed 1 of 1 verified run on torch 2.13)" in human
    assert "team estimate, not yet verified" in human  # the workarounds no run has checked
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("DATABASE_URL", raising=False)
    from bot.answer import answer

    korean = render_answer(answer(SEED_ERROR, lang="ko"))  # in this process: the same store, read here
    assert "해결률 100% (검증 실행 1회 중 1회 해결 (torch 2.13))" in korean
    assert "팀 추정치, 아직 검증되지 않음" in korean

    # The subprocess's ask was recorded as an answer (answer() alone records nothing).
    after = json.loads(troubleshoot("stats", "--json", env=env).stdout)
    assert after["entries"][0]["answers"] == 1 and after["store"]["answers"] == 1


def test_verify_records_by_default_and_not_with_no_record(use_kb, tmp_path):
    # The seed entry's error without torch: classified by its signature, a fast run, and
    # no patch finds a backward() call to change (not_applicable: recorded, not counted).
    snippet = tmp_path / "fails.py"
    snippet.write_text("raise RuntimeError('Trying to backward through the graph a second time')\n")
    # Exit 4: it ran, but no fix was verified (docs/cli.md)
    quiet = troubleshoot("verify", str(snippet), "--json", "--no-record", env=use_kb)
    assert quiet.returncode == 4, quiet.stderr
    assert json.loads(troubleshoot("stats", "--json", env=use_kb).stdout)["store"]["verifications"] == 0
    loud = troubleshoot("verify", str(snippet), "--json", "--keep-snippet", env=use_kb)
    assert loud.returncode == 4, loud.stderr
    engine = create_engine(f"sqlite:///{tmp_path / 'var' / 'troubleshoot.db'}")
    with engine.connect() as conn:
        rows = conn.execute(text("SELECT surface, entry_id, reproduced, error_type, snippet FROM verifications")).all()
        outcomes = conn.execute(text("SELECT DISTINCT status FROM verification_outcomes")).scalars().all()
    engine.dispose()
    assert [tuple(r) for r in rows] == [("cli", ENTRY, True, "RuntimeError", snippet.read_text())]
    assert outcomes == ["not_applicable"]
    doc = json.loads(troubleshoot("stats", "--json", env=use_kb).stdout)
    retain = next(w for w in doc["entries"][0]["workarounds"] if w["id"] == "retain-graph-all-but-last")
    assert (retain["runs"], retain["not_counted"], retain["fix_rate"]) == (0, 1, 0.8)


def test_ask_records_answers_and_coverage_gaps_unless_turned_off(use_kb, capsys, monkeypatch, tmp_path):
    from bot.cli import main

    unknown = "RuntimeError: the flux capacitor of module Foo is out of phase"
    monkeypatch.setenv("TROUBLESHOOT_RECORD_ASK", "0")
    assert main(["ask", unknown, "--json"]) == 0
    assert not (tmp_path / "var" / "troubleshoot.db").exists()
    monkeypatch.delenv("TROUBLESHOOT_RECORD_ASK")
    capsys.readouterr()
    for _ in range(2):
        assert main(["ask", unknown, "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["answered"] is False
    assert main(["ask", SEED_ERROR, "--json"]) == 0
    capsys.readouterr()
    assert main(["stats", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["store"]["answers"] == 3
    [gap] = doc["coverage_gaps"]
    assert gap["count"] == 2 and gap["excerpt"] == "RuntimeError: the flux capacitor of module Foo is out of phase"
    assert main(["stats"]) == 0
    assert "2×  RuntimeError: the flux capacitor" in capsys.readouterr().out


def test_stats_without_a_store_and_with_an_unreachable_one(use_kb, tmp_path, capsys, monkeypatch):
    from bot.cli import main

    assert main(["stats"]) == 0
    assert capsys.readouterr().out.startswith("Evidence store: none yet")
    assert not (tmp_path / "var" / "troubleshoot.db").exists()  # stats creates nothing
    monkeypatch.setenv("DATABASE_URL", "postgresql+psycopg://postgres:hunter2@127.0.0.1:1/none?connect_timeout=2")
    assert main(["stats", "--json"]) == 3  # a service unreachable (docs/cli.md)
    err = capsys.readouterr().err
    assert err.startswith("troubleshoot stats: cannot read the evidence store at postgresql+psycopg://postgres:***@")
    assert "hunter2" not in err
