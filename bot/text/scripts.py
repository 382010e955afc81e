"""Which characters belong to which East Asian script: the one home of these ranges.

Each constant is the body of a regular-expression character class (use it as
f"[{HAN}]"), so that sets combine by concatenation. The Unicode blocks come first;
below them, the sets callers use, each named for what it is for:

    HANGUL              language detection (bot.text.lang): any Hangul letter, lone jamo
                        included, means Korean
    HAN                 language detection; BM25 tokens (bot.retrieval.tokenize)
    KANA, JAPANESE      language detection: kana rule Chinese out; JAPANESE (with the small
                        katakana) names the language a document is in
    EAST_ASIAN_LETTERS  the asker's own words on an error line (bot.retrieval.parse, .query):
                        PyTorch prints none of these letters
    UNSPACED            text written without spaces between words (bot.kb.loader, bot.slack.blocks):
                        a folded line break between two of these characters is dropped
    BREAK_ANYWHERE      the terminal renderer's wrapping (bot.answer.render): a line may break
                        between any two of these (everything from the radicals to the unified
                        ideographs, the compatibility ideographs, fullwidth forms)

Hangul words are kept whole: Korean separates words by spaces, so Hangul is not in
UNSPACED (the spaces between Korean words survive the joining), and the tokenizer takes
a run of HANGUL_SYLLABLES as one word (its bigrams) where it splits HAN text into
characters. The greeting check (bot.retrieval.scope) counts HANGUL_SYLLABLES +
HAN_UNIFIED.
"""

from __future__ import annotations

import re
from functools import lru_cache

# -- Unicode blocks -------------------------------------------------------------------------

HANGUL_SYLLABLES = "\uac00-\ud7a3"  # 가-힣: the precomposed syllables Korean text is written in
HANGUL_JAMO = "\u1100-\u11ff"  # conjoining jamo (decomposed, NFD Korean)
HANGUL_COMPAT_JAMO = "\u3130-\u318f"  # letters standing alone: ㅋㅋ, ㅠㅠ
HAN_UNIFIED = "\u4e00-\u9fff"  # CJK Unified Ideographs: everyday Chinese characters (and hanja, kanji)
HAN_EXT_A = "\u3400-\u4dbf"  # CJK Unified Ideographs Extension A: rare characters
HAN_COMPAT = "\uf900-\ufaff"  # CJK Compatibility Ideographs
CJK_RADICALS = "\u2e80-\u2fff"  # radicals, Kangxi radicals, ideographic description characters
CJK_PUNCTUATION = "\u3000-\u303f"  # 、。「」 and the ideographic space
KANA = "\u3040-\u30ff"  # Hiragana and Katakana
KATAKANA_EXT = "\u31f0-\u31ff"  # small katakana of the Phonetic Extensions
FULLWIDTH = "\uff00-\uffef"  # Halfwidth and Fullwidth Forms: ，：（）ＡＢ１２

# -- What callers use -----------------------------------------------------------------------

HANGUL = HANGUL_SYLLABLES + HANGUL_JAMO + HANGUL_COMPAT_JAMO
HAN = HAN_EXT_A + HAN_UNIFIED
JAPANESE = KANA + KATAKANA_EXT
EAST_ASIAN_LETTERS = HANGUL_SYLLABLES + HANGUL_COMPAT_JAMO + HAN + KANA
UNSPACED = CJK_RADICALS + CJK_PUNCTUATION + KANA + HAN + HAN_COMPAT + FULLWIDTH
# One span from the radicals (U+2E80) to the end of the unified ideographs (U+9FFF): it also
# holds Hangul's compatibility jamo, Bopomofo and the CJK symbols between those blocks.
BREAK_ANYWHERE = CJK_RADICALS[:1] + "-" + HAN_UNIFIED[-1:] + HAN_COMPAT + FULLWIDTH


@lru_cache(maxsize=None)
def _one_of(chars: str) -> re.Pattern[str]:
    return re.compile(f"[{chars}]")


def count(text: str, chars: str) -> int:
    """How many characters of `text` are in the set `chars` (one of the constants above)."""
    return len(_one_of(chars).findall(text))


def has_any(text: str, chars: str) -> bool:
    return _one_of(chars).search(text) is not None


_UNSPACED_GAP = re.compile(f"(?<=[{UNSPACED}])[ \t\n]+(?=[{UNSPACED}])")


def join_unspaced(text: str) -> str:
    """Drop the spaces that YAML's `>-` folding (or a careless edit) leaves between two
    characters of UNSPACED text: "不在 了， 于是" reads "不在了，于是". Spaces between
    Hangul words stay."""
    return _UNSPACED_GAP.sub("", text)
