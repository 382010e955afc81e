"""bot/text/scripts.py: the East Asian script ranges, and the callers that share them."""

from __future__ import annotations

import re
from itertools import pairwise

import pytest

from bot.retrieval.query import understand
from bot.retrieval.tokenize import tokenize
from bot.slack.blocks import tidy
from bot.text import scripts
from bot.text.lang import detect_language, unserved_language
from bot.text.scripts import (EAST_ASIAN_LETTERS, HAN, HANGUL, JAPANESE, KANA, UNSPACED, count, has_any,
                              join_unspaced)

KO = "메모리가 부족합니다 ㅠㅠ"
ZH = "显存不足，怎么办？"
JA = "CUDAのメモリが足りません"


def ends_of(chars: str) -> list[str]:
    """The first and last character of every range in a character-class body."""
    return [c for low, high in re.findall(r"(.)-(.)", chars) for c in (low, high)]


def test_each_block_is_defined_once():
    blocks = [scripts.HANGUL_SYLLABLES, scripts.HANGUL_JAMO, scripts.HANGUL_COMPAT_JAMO, scripts.HAN_UNIFIED,
              scripts.HAN_EXT_A, scripts.HAN_COMPAT, scripts.CJK_RADICALS, scripts.CJK_PUNCTUATION, scripts.KANA,
              scripts.KATAKANA_EXT, scripts.FULLWIDTH]
    spans = sorted((ord(low), ord(high)) for low, high in (b.split("-") for b in blocks))
    assert all(high < next_low for (_, high), (next_low, _) in pairwise(spans)), "blocks overlap"


def test_korean_text_counts_hangul_letters_only():
    assert count(KO, HANGUL) == 11  # nine syllables and the two ㅠ
    assert count(KO, HAN) == count(KO, KANA) == 0
    assert count("역전파 (逆傳播)", HAN) == 3  # hanja in Korean text count as Han
    assert detect_language(KO) == "ko"


def test_chinese_text_counts_han_and_is_unspaced():
    assert count(ZH, HAN) == 7 and count(ZH, HANGUL) == 0
    assert count(ZH, UNSPACED) == 9  # the full-width comma and question mark as well
    assert detect_language(ZH) == "zh"


def test_japanese_text_counts_kana_and_names_the_language():
    assert count(JA, KANA) == 9 and count(JA, HAN) == 1
    assert count("ㇰㇱ", KANA) == 0 and count("ㇰㇱ", JAPANESE) == 2  # the small katakana extension
    assert unserved_language(JA) == "Japanese"


def test_east_asian_letters_leave_punctuation_and_latin_out():
    for text in (KO, ZH, JA):
        assert has_any(text, EAST_ASIAN_LETTERS)
    assert not has_any("RuntimeError: shape '[2, 3]' is invalid，（）", EAST_ASIAN_LETTERS)


def test_join_unspaced_drops_folded_breaks_in_chinese_and_japanese():
    assert join_unspaced("不在 了， 于是") == "不在了，于是"
    assert join_unspaced("同じ計算グラフで\n二回逆伝播する") == "同じ計算グラフで二回逆伝播する"
    assert join_unspaced("显存 GPU 不足") == "显存 GPU 不足"  # a Latin word keeps its spaces


def test_join_unspaced_keeps_the_spaces_between_hangul_words():
    text = "같은 계산 그래프로\n역전파를 두 번 수행함"
    assert join_unspaced(text) == text
    assert not has_any(text, UNSPACED)


@pytest.mark.parametrize("text", ["对同一个计算图\n第二次执行反向传播", "同じ計算グラフで\n二回逆伝播する", "⺀ ⼈ 丶",
                                  "같은 계산 그래프로\n역전파를 두 번"])
def test_the_loader_and_slack_join_the_same_characters(text):
    # The knowledge loader joins folded lines once; Slack tidies the same text again.
    assert tidy(text) == join_unspaced(text).strip()


def test_tokens_keep_hangul_words_and_split_han():
    assert tokenize("메모리가 부족") == ["메모", "모리", "리가", "부족"]
    assert tokenize("显存") == ["显", "存", "显存"]
    assert tokenize("㐀㐁") == ["㐀", "㐁", "㐀㐁"]  # Extension A is Han as well
    assert tokenize("メモリ ㅠㅠ") == []  # kana and lone jamo give no tokens


@pytest.mark.parametrize("line", ["显存不够用了怎么办", "메모리가 부족한 것 같아요", "メモリが足りません",
                                  *ends_of(EAST_ASIAN_LETTERS)])
def test_an_east_asian_line_after_the_error_is_the_askers(line):
    query = understand(f"RuntimeError: CUDA error: out of memory\n{line}")
    assert query.message == "CUDA error: out of memory"
    assert query.prose == line
