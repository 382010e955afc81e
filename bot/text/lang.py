"""Language detection by script, good enough for the three languages we answer in.

Hangul means Korean; Han characters without Hangul or kana mean Chinese; anything
else is English. Callers decide which text to look at (the asker's own prose, not
the pasted error: see retrieval.clean).
"""

from __future__ import annotations

import re

from bot.text.scripts import HAN, HANGUL, JAPANESE, KANA, count

# The languages answers, knowledge entries and the bot's own words are written in.
LANGUAGES = ("en", "ko", "zh")

_LATIN_WORD = re.compile(r"[A-Za-z]{2,}")
# Scripts of languages the knowledge base does not serve (kana: Japanese; Han characters
# alone count for Chinese, so Japanese is told apart by its kana).
_OTHER_SCRIPTS = {
    "Japanese": re.compile(f"[{JAPANESE}]"),
    "Arabic": re.compile(r"[\u0600-\u06ff\u0750-\u077f\ufb50-\ufdff\ufe70-\ufeff]"),
    "Hebrew": re.compile(r"[\u0590-\u05ff]"),
    "Cyrillic-script (e.g. Russian)": re.compile(r"[\u0400-\u04ff]"),
    "Greek": re.compile(r"[\u0370-\u03ff]"),
    "Thai": re.compile(r"[\u0e00-\u0e7f]"),
    "Devanagari-script (e.g. Hindi)": re.compile(r"[\u0900-\u097f]"),
}


def script_counts(text: str) -> dict[str, int]:
    return {
        "ko": count(text, HANGUL),
        "zh": count(text, HAN),
        "kana": count(text, KANA),
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


def unserved_language(text: str) -> str | None:
    """The name of the language a document is mostly written in when it is none of
    en/ko/zh (Japanese, Arabic, Russian, ...), else None. Letters of such a script are
    weighed like Hangul and Han characters (about two per English word), and Japanese
    counts its Han characters as well as its kana."""
    counts = script_counts(text)
    served = max(counts["ko"] / 2, counts["zh"] / 2 if not counts["kana"] else 0, counts["latin_words"])
    best_name, best = None, 0.0
    for name, pattern in _OTHER_SCRIPTS.items():
        letters = len(pattern.findall(text))
        if name == "Japanese" and letters:
            letters += counts["zh"]
        score = letters / (2 if name == "Japanese" else 5)  # alphabets: about five letters a word
        if score > best:
            best_name, best = name, score
    return best_name if best_name and best > served else None
