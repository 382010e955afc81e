"""`troubleshoot gaps [--json]` and `troubleshoot kb draft GAP [--dir DIR | -o FILE]`."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from bot.errors import ConfigurationError, InputError, Unavailable

if TYPE_CHECKING:
    from bot.store.store import Store


def _store() -> Store | None:
    """The evidence store, or None where nothing was recorded yet; Unavailable when it
    cannot be read."""
    from bot.evidence.db import get_store

    try:
        return get_store(create=False)
    except Exception as exc:  # noqa: BLE001 - an unreachable database is said plainly
        from sqlalchemy.engine import make_url

        from bot.store.db import database_url

        where = make_url(database_url()).render_as_string(hide_password=True)
        raise Unavailable(f"cannot read the evidence store at {where} ({type(exc).__name__}: {exc})") from None


def gaps(args: argparse.Namespace) -> int:
    from bot.evidence.gaps import format_gaps, list_gaps

    if args.limit < 0:
        raise ConfigurationError(f"--limit must be 0 (all) or more, got {args.limit}")
    store = _store()
    errors_only = not args.all
    found = [] if store is None else list_gaps(store, limit=args.limit or None, errors_only=errors_only)
    if args.json:
        print(json.dumps(found, indent=2, ensure_ascii=False))
    else:
        print(format_gaps(found, errors_only=errors_only))
    return 0


def draft(args: argparse.Namespace) -> int:
    from bot.evidence.gaps import GapNotFound, find_gap
    from bot.kb.draft import draft_entry
    from bot.kb.loader import check_knowledge

    store = _store()
    if store is None:
        raise InputError("no coverage gaps recorded yet (no evidence store): `troubleshoot gaps` lists them once "
                         "questions went unanswered")
    try:
        gap = find_gap(store, args.gap)
    except GapNotFound as exc:
        raise InputError(str(exc)) from None
    kb, _problems = check_knowledge()
    taken = set(kb.entries) | set(kb.aliases)
    target_root = Path(args.dir) if args.dir else None
    if target_root is not None and (target_root / "entries").is_dir():
        other, _ = check_knowledge(target_root)
        taken |= set(other.entries) | {p.stem for p in (target_root / "entries").rglob("*.yml")}
    entry_id, text = draft_entry(gap, taken)
    if args.output:
        path = Path(args.output)
    elif target_root is not None:
        path = target_root / "entries" / f"{entry_id}.yml"
    else:
        sys.stdout.write(text)
        return 0
    if path.exists() and not args.force:
        raise InputError(f"{path} exists; --force overwrites it")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write {path} ({exc.strerror})") from None
    check = f"troubleshoot kb check --dir {target_root}" if target_root is not None else "troubleshoot kb check"
    print(f"wrote {path}: a skeleton of {entry_id} for the error asked {gap['count']} time(s): "
          f"{gap['example'][:100]}\n`{check}` lists what to fill in; it fails until the entry is complete "
          f"and its `draft:` block is deleted.")
    return 0


def learn(args: argparse.Namespace) -> int:
    """`troubleshoot kb learn [accept|reject KEY] [--json]`."""
    from bot import settings
    from bot.evidence.learn import LearnError, accept, pending, reject

    if args.action and not args.key:
        raise ConfigurationError(f"`kb learn {args.action}` needs the example's KEY (`troubleshoot kb learn` "
                                 "lists them)")
    if args.key and not args.action:
        raise ConfigurationError("give what to do with it first: `kb learn accept KEY` or `kb learn reject KEY`")
    store = _store()
    if args.action:
        if store is None:
            raise InputError("no examples are recorded yet: there is nothing to accept or reject")
        kb_root = Path(args.dir) if args.dir else settings.knowledge_dir()
        try:
            done = accept(store, args.key, kb_root) if args.action == "accept" else reject(store, args.key)
        except LearnError as exc:
            raise InputError(str(exc)) from None
        if args.json:
            print(json.dumps({"action": args.action, **done}, ensure_ascii=False, indent=2))
        elif args.action == "reject":
            print(f"rejected {done['key']} ({done['entry_id']}): it will not be proposed again")
        elif done.get("already"):
            print(f"{done['entry_id']} already has this example; dropped it from the list")
        else:
            print(f"accepted {done['key']}: added to {done['entry_id']}'s examples in {done['file']} "
                  "(kb check passed; the index picks it up on the next question)")
        return 0
    rows = [] if store is None else pending(store)
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return 0
    if not rows:
        print("No examples are waiting for review.")
        return 0
    current = None
    for row in rows:
        if row["entry_id"] != current:
            current = row["entry_id"]
            print(current)
        seen = f"{row['count']} time" + ("" if row["count"] == 1 else "s")
        print(f"  {row['key']}  seen {seen} ({row['source']}, {row['language'] or '?'}): {row['text'][:160]}")
    print("accept one with `troubleshoot kb learn accept KEY`, drop one with `troubleshoot kb learn reject KEY`")
    return 0
