"""The learning loop: questions askers tied to an entry become examples, after review.

    note_example(store, text, entry_id, lang, source="pick")  # a pick among choices, or a 👍
    pending(store) -> [{"key", "entry_id", "text", "language", "count", "source", ...}]
    accept(store, key, kb_root) -> Path   # the example is in the entry file, `kb check` passed
    reject(store, key)                    # never proposed again (until the retention sweep)

What is kept is the error line of the question (its last exception, normalised: paths,
numbers and user names replaced) or, for a question in words, its cleaned text, with
secrets redacted: never the whole paste. Nothing reaches the knowledge base without
`troubleshoot kb learn accept`; accepted examples are indexed like the entry's own
(bot/retrieval/chunks.py), so a message nearly word for word one of them is answered
(bot/retrieval/tiers.py: the "example" evidence).
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import select

from bot.kb.loader import load_entry_file, load_knowledge
from bot.logs import redact
from bot.retrieval.query import understand
from bot.store import Store
from bot.store.models import PendingExample, utcnow
from bot.text.files import write_text_atomic
from bot.text.normalize import error_type_of, normalise_for_search

MAX_TEXT = 1000
KEY_CHARS = 12
SOURCES = ("pick", "upvote")


class LearnError(ValueError):
    """A key that names no pending example, or an entry file the example cannot go into."""


def example_text(text: str) -> str:
    """What an example keeps of a question: its last exception as `Type: message`, or the
    asker's words for a question without one; normalised and redacted."""
    query = understand(text)
    last = query.parsed.last
    if last is not None and query.error_text:
        kept = f"{last.type}: {query.error_text}" if last.type and not query.error_text.startswith(last.type) \
            else query.error_text
    else:
        kept = query.cleaned.text
    kept = normalise_for_search(redact(" ".join(kept.split())))
    return kept[:MAX_TEXT]


def _key(entry_id: str, text: str) -> str:
    return hashlib.sha256(f"{entry_id}\n{text}".encode("utf-8")).hexdigest()


def note_example(store: Store, text: str, entry_id: str, language: str | None, *, source: str = "pick") -> str | None:
    """Count one more time an asker tied this question to this entry. Returns the key, or
    None when there is nothing to keep (an empty text) or it was rejected before."""
    if source not in SOURCES:
        raise ValueError(f"unknown source {source!r}; use one of {', '.join(SOURCES)}")
    kept = example_text(text)
    if not kept.strip():
        return None
    key = _key(entry_id, kept)
    with store.session() as session:
        row = session.get(PendingExample, key)
        if row is not None and row.status == "rejected":
            return None
        if row is None:
            session.add(PendingExample(key=key, entry_id=entry_id[:128], text=kept, language=(language or "")[:8]
                                       or None, source=source, count=1, status="pending"))
        else:
            row.count += 1
            row.source = source
            row.last_seen = utcnow()
        session.commit()
    return key


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def pending(store: Store) -> list[dict[str, Any]]:
    """Pending examples, by entry, the most often seen first."""
    with store.session() as session:
        rows = session.scalars(select(PendingExample).where(PendingExample.status == "pending")).all()
    rows = sorted(rows, key=lambda r: (r.entry_id, -r.count, r.text))
    return [{"key": r.key[:KEY_CHARS], "entry_id": r.entry_id, "text": r.text, "language": r.language,
             "count": r.count, "source": r.source, "first_seen": _iso(r.first_seen), "last_seen": _iso(r.last_seen)}
            for r in rows]


def _find(store: Store, key: str) -> PendingExample:
    key = key.strip().lower()
    if len(key) < 6:
        raise LearnError(f"{key!r} is too short to name an example: give at least 6 characters of its key "
                         "(`troubleshoot kb learn` lists them)")
    with store.session() as session:
        found = [r for r in session.scalars(select(PendingExample).where(PendingExample.status == "pending"))
                 if r.key.startswith(key)]
    if not found:
        raise LearnError(f"no pending example has a key starting with {key!r} (`troubleshoot kb learn` lists them)")
    if len(found) > 1:
        raise LearnError(f"{key!r} is the start of {len(found)} examples' keys: give more characters")
    return found[0]


def reject(store: Store, key: str) -> dict[str, Any]:
    row = _find(store, key)
    with store.session() as session:
        kept = session.get(PendingExample, row.key)
        if kept is not None:
            kept.status = "rejected"
            session.commit()
    return {"key": row.key[:KEY_CHARS], "entry_id": row.entry_id, "text": row.text}


def accept(store: Store, key: str, kb_root: Path) -> dict[str, Any]:
    """Add the example to its entry's file (a new item at the end of `examples:`), check
    the file as `kb check` does, and drop it from the pending list. The file is left as
    it was when the check fails or the entry is gone."""
    row = _find(store, key)
    kb = load_knowledge(kb_root)
    entry = kb.resolve(row.entry_id)
    if entry is None:
        raise LearnError(f"entry {row.entry_id!r} is no longer in {kb_root}: reject this example instead")
    if row.text in entry.examples:
        with store.session() as session:
            session.delete(session.get(PendingExample, row.key))
            session.commit()
        return {"key": row.key[:KEY_CHARS], "entry_id": entry.id, "file": str(entry.path), "already": True}
    path = Path(entry.path)
    before = path.read_text(encoding="utf-8")
    # An error line goes to `examples:` (kb check then wants a signature to match it: a
    # new wording to widen a pattern for); words go to `questions:`.
    field_name = "examples" if error_type_of(row.text) else "questions"
    after = with_example(before, row.text, row.count, field_name)
    write_text_atomic(path, after)
    try:
        _check(path, entry.id)
    except LearnError:
        write_text_atomic(path, before)
        raise
    with store.session() as session:
        session.delete(session.get(PendingExample, row.key))
        session.commit()
    return {"key": row.key[:KEY_CHARS], "entry_id": entry.id, "file": str(path), "already": False}


def with_example(source: str, text: str, count: int, field_name: str = "examples") -> str:
    """The entry file's text with one more item at the end of its top-level list
    `field_name` (a new list at the end of the file when it has none). The item is a JSON
    string, which YAML reads as a double-quoted scalar."""
    lines = source.splitlines(keepends=True)
    item = f"  # learned: tied to this entry by askers {count} time(s), accepted in review\n" \
           f"  - {json.dumps(text, ensure_ascii=False)}\n"
    start = next((i for i, line in enumerate(lines) if line.rstrip() == f"{field_name}:"), None)
    if start is None:
        tail = "" if source.endswith("\n") or not source else "\n"
        return source + tail + f"{field_name}:\n" + item
    end = start + 1
    last_item = start
    while end < len(lines):
        line = lines[end]
        if line.strip() and not line[0].isspace() and not line.startswith("#"):
            break  # the next top-level key
        if line.lstrip().startswith("- ") or (line.startswith("    ") and last_item > start):
            last_item = end
        end += 1
    lines.insert(last_item + 1, item)
    return "".join(lines)


def _check(path: Path, entry_id: str) -> None:
    problems: list[Any] = []
    entry = load_entry_file(path, problems)
    errors = [p for p in problems if p.is_error]
    if entry is None or errors:
        first = errors[0] if errors else f"{path}: the entry no longer loads"
        raise LearnError(f"the example would break {entry_id} ({first}); the file is unchanged")
