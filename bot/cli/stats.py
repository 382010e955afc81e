"""`troubleshoot stats [--json]`."""

from __future__ import annotations

import json
import sys

from sqlalchemy.engine import make_url

from bot.evidence.db import get_store
from bot.evidence.stats import build_stats, format_stats
from bot.kb.loader import check_knowledge
from bot.store.db import database_url

PROG = "troubleshoot stats"


def stats(args) -> int:
    kb, problems = check_knowledge()
    if not kb.entries:
        print(f"{PROG}: no knowledge entries could be loaded from {kb.root} "
              f"({len(problems)} problem(s); `troubleshoot kb check` lists them)", file=sys.stderr)
        return 2
    try:
        store = get_store(create=False)
        doc = build_stats(kb, store)
    except Exception as exc:  # noqa: BLE001 - an unreachable database is said plainly
        where = make_url(database_url()).render_as_string(hide_password=True)
        print(f"{PROG}: cannot read the evidence store at {where} ({type(exc).__name__}: {exc})", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(doc, indent=2, ensure_ascii=False))
    else:
        print(format_stats(doc))
    return 0
