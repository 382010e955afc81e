"""Signatures that need the frames above a message (the shipped knowledge base, the real parser).

`No module named 'models'` is an unpickled class's missing module only when torch.load is
above it; the same message from `from models import Net` is any missing package."""

from __future__ import annotations

import pytest

from bot.kb.loader import load_knowledge
from bot.retrieval.legs import PRIMARY, signature_leg
from bot.retrieval.query import understand

PICKLED = "pytorch/pickled-model-module-missing"

UNPICKLING = (
    "Traceback (most recent call last):\n"
    '  File "predict.py", line 4, in <module>\n'
    "    model = torch.load('best.pt', weights_only=False)\n"
    '  File "/usr/lib/python3/site-packages/torch/serialization.py", line 1478, in find_class\n'
    "    return super().find_class(mod_name, name)\n"
    "ModuleNotFoundError: No module named 'models'")


@pytest.fixture(scope="module")
def entries():
    return list(load_knowledge().entries.values())


def scores(text: str, entries) -> dict[str, float]:
    return dict(signature_leg(understand(text), entries).ranking)


def test_torch_load_frames_above_the_message_count_as_the_message_itself(entries):
    assert scores(UNPICKLING, entries).get(PICKLED, 0.0) >= PRIMARY


@pytest.mark.parametrize("text", [
    "ModuleNotFoundError: No module named 'models'",
    "Traceback (most recent call last):\n"
    '  File "train.py", line 3, in <module>\n'
    "    from models import Net\n"
    "ModuleNotFoundError: No module named 'models'",
])
def test_a_missing_models_package_without_unpickling_is_not_claimed(entries, text):
    assert PICKLED not in scores(text, entries)


def test_words_around_the_message_are_weaker_context_than_frames(entries):
    text = "I saved the whole model and now torch.load fails:\nModuleNotFoundError: No module named 'models'"
    assert 1.0 <= scores(text, entries)[PICKLED] < PRIMARY


def test_a_pattern_matching_in_the_frames_alone_does_not_count(entries):
    # `torch.load(` in a frame's code is no checkpoint error when the message is another one
    text = ("Traceback (most recent call last):\n"
            '  File "eval.py", line 9, in <module>\n'
            "    state = torch.load(path)\n"
            "KeyError: 'model'")
    assert all(score < PRIMARY for _, score in signature_leg(understand(text), entries).ranking)


def test_a_retyped_exception_type_still_counts_as_the_declared_one(entries):
    leg = signature_leg(understand("RunTimeError: stack expects each tensor to be equal size. but got [3, 4] "
                                   "at entry 0 and [3, 5] at entry 1"), entries)
    assert leg.ranking[0][0] == "pytorch/stack-unequal-size" and leg.ranking[0][1] > PRIMARY + 0.05
    assert "pytorch/stack-unequal-size" not in leg.type_mismatch
