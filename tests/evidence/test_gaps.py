"""Unanswered errors as work (issue 13, item 6): `troubleshoot gaps` ranks the
normalised unanswered errors by how often they were asked, with first/last seen, every
language and an example; `troubleshoot kb draft GAP` writes a skeleton entry that
`kb check` rejects, field by field, until it is complete."""

from __future__ import annotations

import json
import re

import answer_docs
import pytest
import yaml

from bot.evidence.gaps import GapNotFound, find_gap, list_gaps
from bot.evidence.record import record_answer, record_gap
from bot.kb.draft import draft_entry, signature_from
from bot.kb.loader import check_knowledge

from .conftest import troubleshoot

HALF = "RuntimeError: value cannot be converted to type at::Half without overflow"
DIST = ("ValueError: Expected parameter scale (Tensor of shape (3,)) of distribution Normal(loc: torch.Size([3]), "
        "scale: torch.Size([3])) to satisfy the constraint GreaterThan(lower_bound=0.0), but found invalid values")
NEAREST = answer_docs.match("pytorch/half-not-implemented", "Half not implemented", confidence=0.41)


def ask(store, text: str, lang: str) -> None:
    """What `troubleshoot ask` records for a question without a confident answer (a
    greeting is declined "no-error", which is no gap)."""
    declined = "no-error" if text == "hi" else "not-covered"
    record_answer(text, answer_docs.document(NEAREST, answered=False, language=lang, declined=declined), store=store)


@pytest.fixture
def store(make_store):
    s = make_store("sqlite")
    for text, lang in [(HALF, "en"), (HALF.replace("Half", "Half"), "ko"), (HALF, "en"),
                       (DIST, "zh"), (DIST.replace("(3,)", "(5,)").replace("[3]", "[5]"), "en"),
                       (DIST, "en"), (DIST, "en"), ("hi", "en"), ("hi", "en"), ("hi", "en"), ("hi", "en"),
                       ("hi", "en")]:
        ask(s, text, lang)
    return s


def test_gaps_rank_normalised_errors_by_count_with_languages_and_dates(store):
    gaps = list_gaps(store)
    assert [g["count"] for g in gaps] == [4, 3]  # the greeting is not an error: left out
    dist, half = gaps
    assert dist["error_type"] == "ValueError" and "<shape>" in dist["example"]  # sizes normalised away
    assert dist["languages"] == ["en", "zh"] and half["languages"] == ["en", "ko"]
    assert dist["first_seen"] <= dist["last_seen"] and dist["rank"] == 1 and half["rank"] == 2
    assert dist["nearest_entry_id"] == "pytorch/half-not-implemented" and dist["nearest_confidence"] == 0.41
    assert list_gaps(store, errors_only=False) == gaps  # the greeting was never stored
    assert list_gaps(store, limit=1) == gaps[:1]


def test_a_gap_is_named_by_rank_or_key(store):
    gaps = list_gaps(store)
    assert find_gap(store, "2")["signature"] == gaps[1]["signature"]
    assert find_gap(store, gaps[0]["key"][:8])["signature"] == gaps[0]["signature"]
    for bad, says in [("9", "no gap ranked 9"), ("zz", "names no gap"), ("abc", "at least 6"),
                      ("ffffff", "no coverage gap")]:
        with pytest.raises(GapNotFound, match=says):
            find_gap(store, bad)


def test_an_answered_question_is_no_gap(make_store):
    s = make_store("sqlite")
    assert not record_gap(HALF, answer_docs.document(answer_docs.match("x", confidence=0.9)), store=s)
    assert list_gaps(s) == []


def test_the_draft_signature_matches_the_normalised_and_the_raw_message():
    normalised = ("Expected parameter scale (Tensor of shape <shape>) of distribution Normal(loc: <shape>, scale: "
                  "<shape>) to satisfy the constraint GreaterThan(lower_bound=<num>), but found invalid values")
    pattern = re.compile(signature_from(normalised), re.IGNORECASE)
    assert pattern.search(normalised) and pattern.search(DIST.split(": ", 1)[1])
    assert not pattern.search("Expected parameter loc of distribution Normal to satisfy the constraint Real()")


def complete(text: str) -> str:
    """What a knowledge writer does: fill every empty field, delete the draft block."""
    data = yaml.safe_load(text)
    del data["draft"]
    for key in ("title", "symptoms", "root_cause", "diagnosis"):
        data[key] = {lang: f"{key} in {lang}" for lang in ("en", "ko", "zh")}
    for i, w in enumerate(data["workarounds"]):
        w["title"] = w["explanation"] = {lang: f"fix {i} {lang}" for lang in ("en", "ko", "zh")}
        w["code"] = "scale = scale.clamp_min(1e-6)"
        w["prior"] = {"rate": 0.6, "evidence": 1, "source": "the torch.distributions docs on validate_args"}
    d = data["dead_ends"][0]
    d["title"] = d["why"] = {lang: f"dead end {lang}" for lang in ("en", "ko", "zh")}
    data["sources"] = [{"title": "PyTorch docs: torch.distributions", "url": "https://pytorch.org/docs/stable/distributions.html"}]
    data["repro"]["code"] = "import torch\ntorch.distributions.Normal(torch.zeros(3), -torch.ones(3))"
    data["examples"] = [DIST]
    return yaml.safe_dump(data, allow_unicode=True, sort_keys=False)


def test_a_draft_fails_kb_check_with_what_to_write_until_it_is_complete(store, tmp_path):
    gap = list_gaps(store)[0]
    entry_id, text = draft_entry(gap, taken_ids={"pytorch/expected-parameter-scale-tensor-shape"})
    assert entry_id.startswith("pytorch/") and entry_id != "pytorch/expected-parameter-scale-tensor-shape"
    data = yaml.safe_load(text)
    assert data["draft"]["gap"] == gap["signature"] and data["draft"]["asked"] == 4
    assert data["draft"]["languages"] == ["en", "zh"]
    assert data["exception"] == ["ValueError"] and data["examples"][0] == gap["example"]
    assert data["title"] == {"en": "", "ko": "", "zh": ""}
    path = tmp_path / "kb" / "entries" / f"{entry_id}.yml"
    path.parent.mkdir(parents=True)
    path.write_text(text)
    kb, problems = check_knowledge(tmp_path / "kb")
    assert kb.entries == {}
    said = [str(p) for p in problems]
    assert any("a draft made from a coverage gap" in s and "delete the `draft:` block" in s for s in said)
    assert any("title: missing language 'en'" in s for s in said)
    assert any("root_cause: missing language 'zh'" in s for s in said)
    assert any("workarounds[0].prior: missing required field 'rate'" in s for s in said)
    assert any("sources[0].title: expected non-empty text" in s for s in said)
    path.write_text(complete(text))
    kb, problems = check_knowledge(tmp_path / "kb")
    assert [str(p) for p in problems if p.is_error] == [] and list(kb.entries) == [entry_id]
    assert kb.entries[entry_id].matches(DIST.split(": ", 1)[1])


def test_cli_gaps_and_draft(use_kb, tmp_path):
    from bot.evidence.db import get_store

    s = get_store()
    for text, lang in [(HALF, "en"), (HALF, "ko"), (DIST, "zh")]:
        ask(s, text, lang)
    listed = troubleshoot("gaps", env=use_kb)
    assert listed.returncode == 0, listed.stderr
    assert "   1.    2×" in listed.stdout and "at::Half" in listed.stdout and "[en, ko]" in listed.stdout
    doc = json.loads(troubleshoot("gaps", "--json", env=use_kb).stdout)
    assert [g["count"] for g in doc] == [2, 1]
    printed = troubleshoot("kb", "draft", "1", env=use_kb)
    assert printed.returncode == 0 and printed.stdout.startswith("# Draft from a coverage gap")
    out = tmp_path / "half.yml"
    wrote = troubleshoot("kb", "draft", doc[0]["key"], "-o", str(out), env=use_kb)
    assert wrote.returncode == 0 and out.read_text() == printed.stdout
    again = troubleshoot("kb", "draft", "1", "-o", str(out), env=use_kb)
    assert again.returncode == 1 and "--force" in again.stderr  # an input problem (docs/cli.md)
    missing = troubleshoot("kb", "draft", "7", env=use_kb)
    assert missing.returncode == 1 and "no gap ranked 7" in missing.stderr
