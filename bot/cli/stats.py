"""`troubleshoot stats [--json]`."""

from __future__ import annotations

import argparse
import json

from bot.errors import InputError, Unavailable


def stats(args: argparse.Namespace) -> int:
    from bot.evidence.db import get_store
    from bot.evidence.stats import build_stats, format_stats
    from bot.kb.loader import check_knowledge

    kb, problems = check_knowledge()
    if not kb.entries:
        raise InputError(f"no knowledge entries could be loaded from {kb.root} "
                         f"({len(problems)} problem(s); `troubleshoot kb check` lists them)")
    try:
        store = get_store(create=False)
        doc = build_stats(kb, store)
    except Exception as exc:  # noqa: BLE001 - an unreachable database is said plainly
        from sqlalchemy.engine import make_url

        from bot.store.db import database_url

        where = make_url(database_url()).render_as_string(hide_password=True)
        detail = str(exc).strip().splitlines()[0][:300] if str(exc).strip() else ""
        raise Unavailable(f"cannot read the evidence store at {where} ({type(exc).__name__}: {detail})") from None
    if args.json:
        print(json.dumps(doc, indent=2, ensure_ascii=False))
    else:
        print(format_stats(doc))
    return 0
