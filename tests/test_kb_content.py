"""The knowledge base covers every required error class in every language."""

from __future__ import annotations

import json

import pytest

from bot.cli import main
from bot.kb.loader import load_knowledge
from bot.settings import REPO_ROOT as REPO
from bot.text.lang import LANGUAGES


def required_ids() -> list[str]:
    lines = (REPO / "knowledge" / "required-ids.txt").read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def test_required_id_list_has_the_90_taxonomy_classes():
    ids = required_ids()
    assert len(ids) == 90 and len(set(ids)) == 90


def test_every_required_id_has_an_entry():
    kb = load_knowledge()
    missing = [i for i in required_ids() if i not in kb.entries]
    assert not missing, f"no entry for: {missing}"


def test_every_entry_has_fixes_dead_ends_and_all_languages():
    kb = load_knowledge()
    for entry in kb.entries.values():
        assert entry.languages == sorted(LANGUAGES), entry.id
        assert len(entry.workarounds) >= 2 and all(w.code.strip() for w in entry.workarounds), entry.id
        assert len(entry.dead_ends) >= 1, entry.id


@pytest.mark.slow  # classifies every example of every entry (~4 s)
def test_entry_examples_are_not_claimed_by_other_entries():
    """An example message of one entry must not be matched by another entry's signatures,
    or the signature leg could not tell them apart."""
    from bot.text.normalize import normalise_message

    kb = load_knowledge()
    clashes = []
    for entry in kb.entries.values():
        for example in entry.examples:
            for other in kb.entries.values():
                if other.id != entry.id and other.matches(example, normalise_message(example)):
                    clashes.append((entry.id, other.id, example[:80]))
    assert not clashes, clashes


def test_kb_list_json_contract(capsys):
    assert main(["kb", "list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["id"] for r in rows} >= set(required_ids())
    for row in rows:
        assert set(row) == {"id", "title", "languages", "workarounds", "dead_ends", "articles"}
        assert row["languages"] == ["en", "ko", "zh"]
        assert row["workarounds"] >= 2 and row["dead_ends"] >= 1
