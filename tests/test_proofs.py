"""Proofs that ship with the knowledge base (knowledge/proofs.json, bot/kb/proofs.py):
what `troubleshoot kb verify --export` proved, shown on a fresh install as proven by the
knowledge base's own repro (never as our runs, never as a percentage), and dropped, with
the entry named, as soon as the entry or its repro changes after its proof."""

from __future__ import annotations

import json
import shutil
from importlib import metadata
from pathlib import Path

import answer_docs
import pytest

from bot.answer.build import PROOF_SOURCE, dead_ends, workarounds
from bot.cli import main
from bot.cli.verify import local_environments
from bot.errors import ConfigurationError
from bot.evidence.display import PriorRates, Rate
from bot.kb import proofs
from bot.kb.loader import check_knowledge
from bot.kb.model import Entry, KnowledgeBase
from bot.pages.data import Snapshot, entry_doc
from bot.pages.html import entry_page
from bot.pages.markdown import entry_markdown
from bot.slack.blocks import answer_message, details_blocks

REPO = Path(__file__).resolve().parent.parent
BT = "pytorch/backward-twice"
FIX = "workaround:retain-graph-all-but-last"
END = "dead_end:detach-before-backward"
PROVEN_EN = "fix proven on torch 2.13.0 and 2.9.1, CPU, by the knowledge base's own repro"


def _rows(entry: Entry, releases: tuple[str, ...], claims: tuple[str, ...] = ("repro", FIX, END)) -> list[dict]:
    return [{"entry": entry.id, "claim": c, "expected": proofs.expected_of(entry, c),
             "patch": getattr(proofs.item_of(entry, c), "patch", None), "torch": v, "build": f"{v}+cpu",
             "device": "cpu", "python": "3.11", "date": "2026-12-04",
             "entry_sha256": proofs.claim_hash(entry, c), "repro_sha256": proofs.repro_hash(entry)}
            for c in claims for v in releases]


@pytest.fixture
def small_kb(tmp_path) -> Path:
    """One entry (backward-twice) and its proofs on two releases, in a knowledge folder of its own."""
    root = tmp_path / "knowledge"
    (root / "entries" / "pytorch").mkdir(parents=True)
    shutil.copy(REPO / "knowledge" / "entries" / "pytorch" / "backward-twice.yml", root / "entries" / "pytorch")
    kb, _problems = check_knowledge(root)
    proofs.write_rows(proofs.proofs_path(root), _rows(kb.entries[BT], ("2.13.0", "2.9.1")))
    return root


def load(root: Path) -> KnowledgeBase:
    return check_knowledge(root)[0]


def edit(root: Path, old: str, new: str) -> None:
    path = root / "entries" / "pytorch" / "backward-twice.yml"
    text = path.read_text(encoding="utf-8")
    assert old in text, f"test setup: {old!r} not in the entry"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


# --- what a fresh install shows -------------------------------------------------------------

def test_a_fresh_install_shows_a_proven_fix_as_proven_not_as_a_team_estimate(small_kb):
    entry = load(small_kb).entries[BT]
    items = {w.id: w for w in workarounds(entry, "en", PriorRates())}  # no evidence store at all
    fix = items["retain-graph-all-but-last"]
    assert fix.rate_text == PROVEN_EN
    assert (fix.rate_kind, fix.rate_source, fix.success_rate, fix.verified) == ("proven", PROOF_SOURCE, None, None)
    assert fix.evidence == entry.workarounds[1].prior.evidence  # the proof is not counted as runs
    assert fix.as_json()["proven"] == {"claim": FIX, "expected": "fixed", "torch": ["2.9.1", "2.13.0"],
                                       "devices": ["cpu"], "date": "2026-12-04"}
    # A fix without a proof keeps saying what it is, and its JSON has no `proven` key.
    other = items["backward-once"]
    assert (other.rate_kind, other.rate_text) == ("estimate", "team estimate, not yet verified")
    assert "proven" not in other.as_json()


def test_the_proof_is_said_in_korean_and_chinese(small_kb):
    entry = load(small_kb).entries[BT]
    ko = {w.id: w for w in workarounds(entry, "ko", PriorRates())}["retain-graph-all-but-last"].rate_text
    zh = {w.id: w for w in workarounds(entry, "zh", PriorRates())}["retain-graph-all-but-last"].rate_text
    assert ko == "지식 베이스의 재현 코드로 torch 2.13.0, 2.9.1(CPU)에서 해결이 증명됨"
    assert zh == "已用知识库自带的复现代码在 torch 2.13.0 和 2.9.1（CPU）上证明有效"


def test_a_proven_dead_end_says_it_was_confirmed(small_kb):
    entry = load(small_kb).entries[BT]
    items = {d.id: d for d in dead_ends(entry, "en", PriorRates())}
    end = items["detach-before-backward"]
    assert (end.rate_kind, end.rate_source, end.fail_rate) == ("proven", PROOF_SOURCE, None)
    assert end.rate_text == "dead end confirmed on torch 2.13.0 and 2.9.1, CPU, by the knowledge base's own repro"
    assert items["retain-graph-everywhere"].rate_kind == "estimate"


class _Measured(PriorRates):
    """Our own evidence for one fix: `verified` as the store would give it."""

    def __init__(self, runs: int, fixed: int, up: int = 0, down: int = 0):
        self.verified = {"runs": runs, "fixed": fixed, "failed": runs - fixed, "torch": ["2.13"] if runs else [],
                         "up": up, "down": down, "askers_fixed": 1, "askers_failed": 0, "held": 0}

    def workaround_rate(self, entry_id, workaround):
        if workaround.id != "retain-graph-all-but-last":
            return super().workaround_rate(entry_id, workaround)
        return Rate(0.9, 10, "verified" if self.verified["runs"] else "votes", verified=self.verified)  # type: ignore


def test_our_own_runs_stay_apart_from_the_proof(small_kb):
    entry = load(small_kb).entries[BT]
    fix = {w.id: w for w in workarounds(entry, "en", _Measured(runs=3, fixed=2))}["retain-graph-all-but-last"]
    assert (fix.rate_kind, fix.rate_source, fix.success_rate) == ("measured", "verified", 0.667)
    assert fix.rate_text == f"fixed 2 of 3 verified runs on torch 2.13; {PROVEN_EN}"
    assert fix.verified["runs"] == 3  # the proof's two releases are not runs of ours


def test_a_few_votes_beside_a_proof_stay_votes_without_a_percentage(small_kb):
    entry = load(small_kb).entries[BT]
    fix = {w.id: w for w in workarounds(entry, "en", _Measured(runs=0, fixed=0, up=1, down=1))}[
        "retain-graph-all-but-last"]
    assert (fix.rate_kind, fix.success_rate) == ("proven", None)
    assert fix.rate_text == f"{PROVEN_EN}; 👍 1 👎 1 on answers"


def test_pages_and_slack_show_the_proof(small_kb):
    kb = load(small_kb)
    entry = kb.entries[BT]
    doc = entry_doc(entry, Snapshot(), kb)
    fix = next(w for w in doc["workarounds"] if w["id"] == "retain-graph-all-but-last")
    assert fix["rate_kind"] == "proven" and fix["measured"] is None and fix["rate_text"]["en"] == PROVEN_EN
    assert "torch 2.13.0, 2.9.1" in fix["rate_text"]["ko"] and "2.13.0 和 2.9.1" in fix["rate_text"]["zh"]
    assert PROVEN_EN in entry_markdown(doc, "en", _Links())
    page = entry_page(doc, "en", _Links())
    assert PROVEN_EN.replace("'", "&#39;") in page and 'class="badge proven"' in page
    assert "dead end confirmed on torch 2.13.0 and 2.9.1" in page

    answer = answer_docs.document(answer_docs.match(
        BT, workarounds=workarounds(entry, "en", PriorRates()), dead_ends=dead_ends(entry, "en", PriorRates())))
    message = json.dumps(answer_message(answer, answer_id=1).payload(), ensure_ascii=False)
    details = json.dumps([b.to_dict() for b in details_blocks(answer)], ensure_ascii=False)
    assert "team estimate, not yet verified" in message  # its best fix (recompute-forward) has no proof here
    assert f"_({PROVEN_EN})_" in details and "dead end confirmed on torch 2.13.0 and 2.9.1" in details


class _Links:
    def entry(self, entry_id, lang, fmt="html"):
        return f"{entry_id}.{fmt}"

    def __getattr__(self, name):
        return lambda *args, **kwargs: "#"


# --- a proof that no longer holds ----------------------------------------------------------

def test_an_entry_changed_after_its_proof_loses_that_proof_and_names_the_entry(small_kb):
    edit(small_kb, "    patch: retain-graph\n", "    patch: recompute-forward\n")
    kb = load(small_kb)
    entry = kb.entries[BT]
    assert FIX not in entry.proofs and END in entry.proofs and "repro" in entry.proofs  # only that claim
    said = [s.describe() for s in kb.stale_proofs]
    assert len(said) == 2  # the fix's proof on each release
    assert f"{BT}: the proof of {FIX} on torch 2.13.0 no longer holds (the entry changed after its proof); " \
           f"run `troubleshoot kb verify {BT} --torch 2.13.0 --export`" in said
    fix = {w.id: w for w in workarounds(entry, "en", PriorRates())}["retain-graph-all-but-last"]
    assert (fix.rate_kind, fix.rate_text) == ("estimate", "team estimate, not yet verified")


def test_a_changed_repro_drops_every_proof_of_the_entry(small_kb):
    edit(small_kb, "repro:\n  runs_on: cpu\n  code: |\n", "repro:\n  runs_on: cpu\n  code: |\n    import os\n")
    kb = load(small_kb)
    assert kb.entries[BT].proofs == {}
    assert {s.why for s in kb.stale_proofs} == {"the repro changed after its proof"}


def test_rewording_a_fix_keeps_its_proof(small_kb):
    edit(small_kb, 'title:\n  en: "Backward through the same graph a second time"',
         'title:\n  en: "Backward twice through one graph"')
    kb = load(small_kb)
    assert kb.stale_proofs == [] and FIX in kb.entries[BT].proofs


def test_a_malformed_proofs_file_shows_no_proofs_and_says_why(small_kb):
    proofs.proofs_path(small_kb).write_text('{"proofs": [{"entry": "x"}]}')
    kb = load(small_kb)
    assert kb.entries[BT].proofs == {}
    assert "proofs[0] lacks claim" in kb.stale_proofs[0].describe()


def test_merging_a_second_release_keeps_the_first_releases_rows(small_kb):
    entry = load(small_kb).entries[BT]
    first = _rows(entry, ("2.13.0",))
    second = _rows(entry, ("2.9.1",), claims=("repro", FIX))
    merged = proofs.merge(first, second, replaced={(BT, "2.9.1")}, entries={BT})
    assert [(r["claim"], r["torch"]) for r in merged] == [
        ("repro", "2.9.1"), ("repro", "2.13.0"), (FIX, "2.9.1"), (FIX, "2.13.0"), (END, "2.13.0")]
    # Running 2.13.0 again replaces its rows (a claim that no longer held is gone), keeps 2.9.1's.
    again = proofs.merge(merged, _rows(entry, ("2.13.0",), claims=("repro",)), replaced={(BT, "2.13.0")},
                         entries={BT})
    assert [(r["claim"], r["torch"]) for r in again] == [("repro", "2.9.1"), ("repro", "2.13.0"), (FIX, "2.9.1")]
    assert proofs.merge(again, [], replaced=set(), entries=set()) == []  # an entry that is gone


# --- the committed file (CI) ----------------------------------------------------------------

def test_the_shipped_proofs_match_the_entries_as_they_are_now():
    """Strict: an entry (or repro) edited after its proof fails here, naming the command to run."""
    kb, _problems = check_knowledge(REPO / "knowledge")
    assert not kb.stale_proofs, "\n".join(s.describe() for s in kb.stale_proofs)
    rows = proofs.read_rows(proofs.proofs_path(kb.root))
    keys = [(r["entry"], r["claim"], r["torch"]) for r in rows]
    assert len(keys) == len(set(keys)), "one row per entry, claim and release"
    assert rows == proofs.sort_rows(rows), "rows in the stable order (write them with `kb verify --export`)"
    releases = {r["torch"] for r in rows}
    assert len(releases) >= 2, f"proven on {releases}: run `kb verify --export` on a second release"
    assert kb.entries[BT].proofs, "backward-twice's repro proves its claims on CPU"


# --- this machine's own torch stands for its release -----------------------------------------

HOST = metadata.version("torch")
HOST_RELEASE = HOST.split("+")[0]


def test_the_hosts_own_torch_is_used_for_its_release_without_envs_add(tmp_path):
    [env] = local_environments([HOST_RELEASE], str(tmp_path / "no-envs"))
    assert env.site_packages is None  # the sandbox mounts nothing: the worker's own packages
    assert (env.version, env.torch) == (HOST_RELEASE, HOST)
    assert env.describe()["name"] == "host"
    with pytest.raises(ConfigurationError) as err:
        local_environments(["1.0.0"], str(tmp_path / "no-envs"))
    assert f"this machine's own torch is {HOST}" in str(err.value) and "envs add 1.0.0" in str(err.value)


@pytest.mark.requires_sandbox
def test_kb_verify_export_on_the_hosts_release_writes_its_proofs(kb_dir, tmp_path, capsys):
    path = proofs.proofs_path(kb_dir)
    kb = load(kb_dir)
    other = [r for r in _rows(kb.entries["pytorch/view-stride"], ("2.9.1",), claims=("repro",))]
    proofs.write_rows(path, other)  # a second release's row, from an earlier run
    code = main(["kb", "verify", "--json", "--no-record", "--dir", str(kb_dir), "--envs-dir", str(tmp_path / "none"),
                 "--torch", HOST_RELEASE, "--export", "pytorch/view-stride"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0, out
    rows = proofs.read_rows(path)
    assert {(r["claim"], r["torch"]) for r in rows} == {
        ("repro", "2.9.1"), ("repro", HOST_RELEASE), ("workaround:reshape-instead-of-view", HOST_RELEASE),
        ("workaround:contiguous-before-view", HOST_RELEASE), ("dead_end:clone-before-view", HOST_RELEASE)}
    mine = [r for r in rows if r["torch"] == HOST_RELEASE]
    assert {(r["build"], r["device"]) for r in mine} == {(HOST, "cpu")}
    assert out["entries"][0]["versions"][HOST_RELEASE]["torch"] == HOST


@pytest.mark.requires_sandbox
def test_kb_check_names_an_entry_changed_after_its_proof(kb_dir, capsys):
    edit(kb_dir, "    patch: retain-graph\n", "    patch: recompute-forward\n")
    assert main(["kb", "check", "--dir", str(kb_dir)]) == 0
    err = capsys.readouterr().err
    assert f"warning: proofs.json: {BT}: the proof of {FIX} on torch" in err
    assert f"run `troubleshoot kb verify {BT} --torch" in err
