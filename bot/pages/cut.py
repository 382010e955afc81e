"""Shortening text for the pages: cut at a word, never inside one, and say so with "…".

Chinese (and Japanese) is written without spaces, so a cut may fall between any two of
its characters; Korean and the other scripts break only at a space. A single word longer
than half the room (a path, a long identifier) is cut where the room ends.
"""

from __future__ import annotations

import re

from bot.text.scripts import UNSPACED

ELLIPSIS = "…"
_UNSPACED = re.compile(f"[{UNSPACED}]")


def _breaks_before(text: str, i: int) -> bool:
    """Whether a line may end just before text[i]."""
    before, after = text[i - 1], text[i]
    return after == " " or before == " " or bool(_UNSPACED.match(before) or _UNSPACED.match(after))


def _cut(text: str, room: int) -> str:
    for i in range(room, max(room // 2, 1), -1):
        if _breaks_before(text, i):
            return text[:i].rstrip(" ,;:、，") + ELLIPSIS
    return text[:room] + ELLIPSIS


def at_word(text: str, limit: int) -> str:
    """`text` on one line, at most `limit` characters: cut at a word, with "…"."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    return _cut(text, limit - 1)


def end_at_word(text: str) -> str:
    """Text cut elsewhere (a stored excerpt ending in "…"), its cut moved back to a word."""
    text = " ".join(text.split())
    if not text.endswith(ELLIPSIS) or len(text) < 3:
        return text
    body = text[:-1]
    if body.endswith(" ") or _UNSPACED.match(body[-1]):
        return body.rstrip() + ELLIPSIS  # already at a word
    return _cut(body, len(body) - 1)
