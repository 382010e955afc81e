"""Text cleaning costs linear time (issue 19): adversarial pastes that cost seconds
with the old patterns (ten thousand unclosed Slack tokens on a line, a side of a box
followed by a long run of blanks, unterminated OSC sequences) are cleaned, where the old
patterns backtracked for seconds to minutes. The time itself (and that doubling the input
does not quadruple it) is measured by bench/clean_linear.py, on every shape here and more;
the bound below only catches a hang."""

from __future__ import annotations

import time

import pytest

from bot.retrieval.clean import MAX_CHARS, clean

SHAPES = {
    "unclosed mentions": "<@U1|x ",
    "unclosed links": "<http://a|b ",
    "unterminated OSC": "\x1b]0;title ",
    "side then blanks": "│" + " " * 59_000 + "x",
    "border then blanks": "╭" + " " * 59_000 + "x",
    "markdown brackets": "[a",
}


def _paste(unit: str, size: int) -> str:
    return (unit * (size // len(unit) + 1))[:size] + "\nRuntimeError: CUDA out of memory"


def _seconds(text: str) -> float:
    started = time.perf_counter()
    clean(text)
    return time.perf_counter() - started


HANG = 60  # seconds: not a speed (bench/clean_linear.py measures that), only a backtracking hang


@pytest.mark.parametrize("name", SHAPES)
def test_adversarial_pastes_are_cleaned(name):
    assert _seconds(_paste(SHAPES[name], MAX_CHARS)) < HANG  # the old patterns: up to 9 s here


def test_a_one_megabyte_paste():
    text = ("  File \"train.py\", line 12, in <module>\n    loss.backward()\n<@U1|x " * 20_000)[:1 << 20]
    cleaned_in = _seconds(text + "\nRuntimeError: Trying to backward through the graph a second time")
    assert cleaned_in < HANG
