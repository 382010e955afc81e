"""`troubleshoot kb check | list | add`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from bot.kb.loader import check_knowledge, errors_only


def check(args) -> int:
    kb, problems = check_knowledge(Path(args.dir) if args.dir else None)
    for problem in problems:
        print(problem, file=sys.stderr)
    errors = errors_only(problems)
    warnings = len(problems) - len(errors)
    if errors:
        print(f"{len(errors)} problem(s) found in {kb.root}" + (f" (and {warnings} warning(s))" if warnings else ""),
              file=sys.stderr)
        return 1
    langs = sorted({lang for e in kb.entries.values() for lang in e.languages})
    print(f"ok: {len(kb.entries)} entries ({', '.join(langs)}), {len(kb.articles)} articles in {kb.root}"
          + (f"; {warnings} warning(s) above" if warnings else ""))
    return 0


def summarize(kb) -> list[dict]:
    return [
        {
            "id": entry.id,
            "title": entry.title.get_text("en"),
            "languages": entry.languages,
            "workarounds": len(entry.workarounds),
            "dead_ends": len(entry.dead_ends),
            "articles": len(kb.articles_for(entry.id)),
        }
        for entry in sorted(kb.entries.values(), key=lambda e: e.id)
    ]


def list_entries(args) -> int:
    kb, problems = check_knowledge(Path(args.dir) if args.dir else None)
    if errors_only(problems):
        print(f"warning: {len(errors_only(problems))} problem(s); run `troubleshoot kb check` (invalid files are left out)", file=sys.stderr)
    rows = summarize(kb)
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return 0
    for row in rows:
        print(f"{row['id']:<40} {'/'.join(row['languages']):<9} {row['workarounds']} fixes  "
              f"{row['dead_ends']} dead ends  {row['articles']} articles  {row['title']}")
    return 0


def add(args) -> int:
    from bot.kb.add import add_file

    kb, problems = check_knowledge(Path(args.dir) if args.dir else None)
    if errors_only(problems):
        print(f"warning: {len(errors_only(problems))} problem(s) in the knowledge base; run `troubleshoot kb check`", file=sys.stderr)
    results = [add_file(Path(f), kb, source=args.source, dry_run=args.dry_run) for f in args.files]
    if args.json:
        print(json.dumps([{
            "file": str(r.source), "status": r.status, "stored_as": str(r.stored_as) if r.stored_as else None,
            "language": r.language, "entries": r.entries, "evidence": r.evidence, "title": r.title, "reason": r.reason,
        } for r in results], ensure_ascii=False, indent=2))
    else:
        for r in results:
            print(("(dry run) " if args.dry_run and r.status == "stored" else "") + r.describe())
    return 1 if any(r.status == "rejected" for r in results) else 0
