"""The answer document (bot/answer/document.py): the `ask --json` contract as a typed model.
Real answers from the real code path read back into the model and give the same JSON,
key for key and in the same order; the model's keys are the documented contract."""

from __future__ import annotations

import json

import pytest

from bot.answer import answer
from bot.answer.document import AnswerDocument, DeadEndItem, Match, Source, WorkaroundItem

# The contract of `troubleshoot ask --json` as the design states it (docs/cli.md repeats it).
DESIGN_ASK = ("answered", "language", "matches", "tier", "choices")
DESIGN_MATCH = ("id", "title", "score", "confidence", "root_cause", "workarounds", "dead_ends", "sources")
# What the answer added since, each documented where it is built (bot/answer/build.py):
ADDED_ASK = ("declined", "notice", "other_library")
ADDED_MATCH = ("page_url",)  # always there (null unless TROUBLESHOOT_PUBLIC_URL is set)
OPTIONAL_MATCH = ("versions_measured",)  # only where `kb verify --torch` measured versions
# Declared extras, never in a pasted error's `ask --json` (bot/answer/document.py):
TIER_ASK = ("evidence",)  # the answer tier only: what backs it (bot/retrieval/tiers.py)
WRAPPER_ASK = ("wrapper", "team_articles")  # a cause answered through its wrapper; the team's own articles
SLACK_ASK = ("question",)  # Slack, a choices answer: what a pick keeps for review
CODE_ASK = ("input", "run", "undefined", "note", "verification", "verified_fixes", "seconds")  # a code question's
SLACK_MATCH = ("diagnosis", "version_notes")  # what the Slack details add (slack/services/enrich.py)

OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 15.77 GiB"
QUESTIONS = [
    OOM,
    "학습 중에 이 오류가 납니다\n" + OOM,
    "训练的时候报这个错，怎么办？\n" + OOM,
    "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!",
    "tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating tensor with shape[256]",
    "thanks, that worked",
    "ValueError: the frobnicator exploded",
]


def test_the_model_keys_are_the_documented_contract():
    assert AnswerDocument.keys() == DESIGN_ASK + ADDED_ASK + TIER_ASK + WRAPPER_ASK + SLACK_ASK + CODE_ASK
    assert AnswerDocument.required_keys() == DESIGN_ASK + ADDED_ASK
    assert Match.keys() == DESIGN_MATCH + ADDED_MATCH + OPTIONAL_MATCH + SLACK_MATCH
    assert Match.required_keys() == DESIGN_MATCH + ADDED_MATCH
    # an article passage adds its excerpt; a team article its provenance (and a thread's solved mark)
    assert Source.required_keys() == ("title", "url")
    assert Source.keys() == ("title", "url", "excerpt", "provenance", "solved")


@pytest.mark.parametrize("lang", [None, "en", "ko", "zh"])
def test_real_answers_round_trip_through_the_model(use_fixture_env, lang):
    declined = set()
    for question in QUESTIONS:
        data = answer(question, lang=lang, top=3).as_json()
        doc = AnswerDocument.from_json(data)
        assert all(isinstance(m, Match) for m in doc.matches)
        assert json.dumps(doc.as_json(), ensure_ascii=False) == json.dumps(data, ensure_ascii=False)
        assert tuple(data) in (AnswerDocument.required_keys(), AnswerDocument.required_keys() + TIER_ASK)
        assert (data["tier"] == "answer") == data["answered"]
        assert ("evidence" in data) >= data["answered"]  # every answer says what backs it
        for match in doc.matches:
            assert all(isinstance(w, WorkaroundItem) for w in match.workarounds)
            assert all(isinstance(d, DeadEndItem) for d in match.dead_ends)
            assert set(match.as_json()) - set(OPTIONAL_MATCH) == set(DESIGN_MATCH + ADDED_MATCH)
        declined.add(data["declined"])
    assert {None, "other-library", "no-error"} <= declined  # every shape of the document was read back


def test_measured_versions_are_in_the_model(use_fixture_env, tmp_path, monkeypatch):
    from bot.verify.versions import VersionTable

    monkeypatch.setenv("TROUBLESHOOT_VAR_DIR", str(tmp_path))
    VersionTable().record("pytorch/cuda-oom", "2.13.0", {"torch": "2.13.0+cpu", "ran": True, "reproduced": True,
                                                         "error_type": "torch.OutOfMemoryError", "message": "CUDA",
                                                         "fixes": {"empty-cache": "fixed"}})
    data = answer(OOM).as_json()
    best = data["matches"][0]
    assert best["versions_measured"][0]["version"] == "2.13.0"
    assert AnswerDocument.from_json(data).as_json() == data


def test_the_model_refuses_keys_outside_the_contract():
    with pytest.raises(ValueError, match="surprise"):
        AnswerDocument.from_json({"answered": False, "language": "en", "matches": [], "surprise": 1})
    with pytest.raises(TypeError):  # a contract key missing
        AnswerDocument.from_json({"answered": False})
