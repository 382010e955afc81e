"""Coverage gaps as work: the normalised errors askers brought that got no confident
answer, most asked first.

    list_gaps(store, limit=None, errors_only=True) -> [GAP]
    find_gap(store, key) -> GAP | None      key: a rank ("3"), or a signature prefix

    GAP: {"rank", "signature", "key" (the first 12 hex digits), "count", "first_seen",
          "last_seen", "languages" (every language it was asked in), "example" (the
          normalised excerpt: placeholders for paths, numbers, user identifiers),
          "error_type", "is_error", "nearest_entry_id", "nearest_confidence"}

The languages come from the answers recorded under the same signature (every surface
records the question's signature hash with its answer: bot/evidence/record.py and
bot/slack/services/answering.py), and the gap's own last language.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from sqlalchemy import select

from bot.store import Store
from bot.store.models import CoverageGap
from bot.store.models import Answer
from bot.text.normalize import error_type_of

KEY_CHARS = 12
MIN_KEY_CHARS = 6
# What an excerpt that is an error looks like (a question in words or a greeting is not
# work for the knowledge writers): an exception type (error_type_of), or words error messages use.
_ERROR_WORDS = re.compile(r"\b(error|exception|failed|failure|cannot|can't|could not|unable|not supported|"
                          r"not implemented|invalid|expected|mismatch|out of memory|illegal|segmentation fault|"
                          r"assert|unexpected|no module named|does not|doesn't|must be|is not)\b", re.IGNORECASE)


def is_error_text(excerpt: str) -> bool:
    return bool(error_type_of(excerpt) or _ERROR_WORDS.search(excerpt or ""))


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def list_gaps(store: Store, *, limit: int | None = None, errors_only: bool = True) -> list[dict[str, Any]]:
    """The gaps, most asked first (then the most recently asked); `errors_only` leaves
    out questions in words and greetings (an excerpt without an exception type or error
    words)."""

    with store.session() as session:
        rows = list(session.scalars(select(CoverageGap).order_by(CoverageGap.count.desc(),
                                                                 CoverageGap.last_seen.desc(),
                                                                 CoverageGap.signature)))
        signatures = [g.signature for g in rows]
        languages: dict[str, set[str]] = {}
        for start in range(0, len(signatures), 500):
            chunk = signatures[start:start + 500]
            for sig, lang in session.execute(select(Answer.error_hash, Answer.language)
                                             .where(Answer.error_hash.in_(chunk)).distinct()):
                if lang:
                    languages.setdefault(sig, set()).add(lang)
        gaps: list[dict[str, Any]] = []
        for g in rows:
            if errors_only and not is_error_text(g.excerpt):
                continue
            langs = languages.get(g.signature, set()) | ({g.language} if g.language else set())
            gaps.append({
                "rank": len(gaps) + 1, "signature": g.signature, "key": g.signature[:KEY_CHARS],
                "count": g.count, "first_seen": _iso(g.first_seen), "last_seen": _iso(g.last_seen),
                "languages": sorted(langs), "example": g.excerpt, "error_type": error_type_of(g.excerpt),
                "is_error": is_error_text(g.excerpt), "nearest_entry_id": g.nearest_entry_id,
                "nearest_confidence": None if g.nearest_confidence is None else round(g.nearest_confidence, 3)})
            if limit is not None and len(gaps) >= limit:
                break
    return gaps


class GapNotFound(LookupError):
    pass


def find_gap(store: Store, key: str) -> dict[str, Any]:
    """The gap a user names: its rank in `troubleshoot gaps` ("1"), or the start of its
    signature (at least MIN_KEY_CHARS hex digits). Raises GapNotFound, saying why."""
    key = (key or "").strip().lower()
    if key.isdigit() and len(key) < MIN_KEY_CHARS:
        gaps = list_gaps(store)
        rank = int(key)
        if not 1 <= rank <= len(gaps):
            raise GapNotFound(f"there is no gap ranked {rank}: `troubleshoot gaps` lists {len(gaps)}")
        return gaps[rank - 1]
    if not re.fullmatch(r"[0-9a-f]+", key) or len(key) < MIN_KEY_CHARS:
        raise GapNotFound(f"{key!r} names no gap: give its rank from `troubleshoot gaps` (1, 2, ...) or at least "
                          f"{MIN_KEY_CHARS} hex digits of its key")
    found = [g for g in list_gaps(store, errors_only=False) if g["signature"].startswith(key)]
    if not found:
        raise GapNotFound(f"no coverage gap has a key starting with {key!r} (see `troubleshoot gaps --all`)")
    if len(found) > 1:
        raise GapNotFound(f"{key!r} is the start of {len(found)} gaps' keys: give more digits")
    return found[0]


def format_gaps(gaps: list[dict[str, Any]], *, errors_only: bool = True) -> str:
    if not gaps:
        return ("No unanswered errors recorded yet." if errors_only else "No coverage gaps recorded yet.")
    out = [f"Unanswered {'errors' if errors_only else 'questions'}, most asked first "
           f"(`troubleshoot kb draft RANK --dir DIR` writes an entry skeleton for one):"]
    for g in gaps:
        first, last = (g["first_seen"] or "")[:10], (g["last_seen"] or "")[:10]
        when = first if first == last else f"{first} … {last}"
        near = (f"; nearest {g['nearest_entry_id']} ({g['nearest_confidence']:.2f})"
                if g["nearest_entry_id"] and g["nearest_confidence"] is not None else "")
        out.append(f"{g['rank']:4d}. {g['count']:4d}×  {g['key']}  {when}  [{', '.join(g['languages']) or '?'}]{near}")
        out.append(f"        {g['example']}")
    return "\n".join(out)
