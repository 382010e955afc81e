"""Tokens for the lexical (BM25) leg, for English, Korean, Chinese and code alike.

- Latin words and code identifiers: lower-cased; an identifier is kept whole and
  also split into its parts (`retain_graph` -> retain_graph, retain, graph;
  `loss.backward` -> loss.backward, loss, backward; `OutOfMemoryError` ->
  outofmemoryerror, out, of, memory, error). English stop words are dropped.
- Korean: Hangul runs as overlapping character bigrams (a particle glued to a word,
  `메모리가`, still shares `메모`, `모리` with `메모리`), plus single syllables for
  one-syllable words.
- Chinese (Han characters): bigrams and single characters; Chinese has no spaces.
- Placeholders from the normaliser (`<size>`, `<shape>`) stay single tokens.
"""

from __future__ import annotations

import re

from bot.text.scripts import HAN, HANGUL_SYLLABLES

_TOKEN = re.compile(
    r"(?P<placeholder><(?:path|hex|size|shape|ver|dev|num)>)"
    r"|(?P<word>[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)"  # words and dotted identifiers
    rf"|(?P<hangul>[{HANGUL_SYLLABLES}]+)"
    rf"|(?P<han>[{HAN}]+)"
    r"|(?P<number>\d+)"
)
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")

STOP_WORDS = frozenset(
    "a an and are as at be been but by can could did do does for from had has have how i if in into is it its "
    "me my no not of on or our so such that the their then there these they this to was we were what when where "
    "which while who why will with would you your".split()
)


def _parts(word: str) -> list[str]:
    return [p.lower() for dotted in word.split(".") for piece in dotted.split("_") if piece
            for p in _CAMEL.findall(piece)]


def _word_tokens(word: str, out: list[str]) -> None:
    parts = _parts(word)
    if len(parts) > 1:
        out.append(word.lower())  # the whole identifier: `retain_graph`, `loss.backward`
        segments = word.split(".")
        if len(segments) > 1:  # `torch.nn.functional.cross_entropy` also gives `cross_entropy`
            out.extend(seg.lower() for seg in segments if len(_parts(seg)) > 1)
    for part in parts:
        if len(part) > 1 and part not in STOP_WORDS:
            out.append(part)


def tokenize(text: str) -> list[str]:
    out: list[str] = []
    for m in _TOKEN.finditer(text):
        tok, kind = m.group(0), m.lastgroup
        if kind == "placeholder":
            out.append(tok)
        elif kind == "hangul":
            if len(tok) == 1:
                out.append(tok)
            else:
                out.extend(tok[i:i + 2] for i in range(len(tok) - 1))
        elif kind == "han":
            out.extend(tok)
            out.extend(tok[i:i + 2] for i in range(len(tok) - 1))
        elif kind == "number":
            continue  # bare numbers are noise once the normaliser has run
        else:
            _word_tokens(tok, out)
    return out
