"""Language detection by script, good enough for the three languages we answer in.

Hangul means Korean; Han characters without Hangul or kana mean Chinese; anything
else is English. Callers decide which text to look at (the asker's own prose, not
the pasted error: see retrieval.clean).
"""

from __future__ import annotations

import re

# The languages answers, knowledge entries and the bot's own words are written in.
LANGUAGES = ("en", "ko", "zh")

_HANGUL = re.compile(r"[\uac00-\ud7a3\u1100-\u11ff\u3130-\u318f]")
_HAN = re.compile(r"[\u4e00-\u9fff\u3400-\u4dbf]")
_KANA = re.compile(r"[\u3040-\u30ff]")
_LATIN_WORD = re.compile(r"[A-Za-z]{2,}")


def script_counts(text: str) -> dict[str, int]:
    return {
        "ko": len(_HANGUL.findall(text)),
        "zh": len(_HAN.findall(text)),
        "kana": len(_KANA.findall(text)),
        "latin_words": len(_LATIN_WORD.findall(text)),
    }


def detect_language(text: str, default: str = "en") -> str:
    """Return `ko`, `zh` or `en` for a piece of prose."""
    counts = script_counts(text)
    # Korean text often carries a few Han characters (hanja); Hangul decides.
    if counts["ko"] >= 2 and counts["ko"] >= counts["zh"] / 4:
        return "ko"
    if counts["zh"] >= 2 and counts["kana"] == 0:
        return "zh"
    if counts["ko"] >= 1:
        return "ko"
    if counts["latin_words"]:
        return "en"
    return default


def dominant_language(text: str, default: str = "en") -> str:
    """The main language of a whole document that mixes prose, code and quotes.

    A Korean blog post quotes English errors and code; an English entry may carry
    a Chinese paragraph. Weigh characters against words: about two Hangul
    syllables or Han characters carry what one English word does.
    """
    counts = script_counts(text)
    scores = {"ko": counts["ko"] / 2, "zh": counts["zh"] / 2 if not counts["kana"] else 0,
              "en": counts["latin_words"]}
    best = max(scores, key=scores.get)
    return best if scores[best] > 0 else default
