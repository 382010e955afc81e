"""`troubleshoot kb check | list | add | verify`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from bot.kb.add import add_file
from bot.kb.loader import KnowledgeError, check_knowledge, errors_only, load_knowledge
from bot.sandbox import sandbox_available
from bot.verify.kbverify import host_environment, select_entries, summary, verify_knowledge
from bot.verify.patches import registry


def check(args) -> int:
    kb, problems = check_knowledge(Path(args.dir) if args.dir else None, patch_names=set(registry.names()))
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


def verify(args) -> int:
    """`kb verify [ID...]`: run the entries' repros and check every claim (bot/verify/kbverify.py)."""
    prog = "troubleshoot kb verify"
    try:
        kb = load_knowledge(Path(args.dir) if args.dir else None)
    except KnowledgeError as exc:
        print(f"{prog}: the knowledge base has errors; run `troubleshoot kb check` ({exc})", file=sys.stderr)
        return 2
    try:
        entries = select_entries(kb, args.ids)
    except KeyError as exc:
        print(f"{prog}: no entry named {exc.args[0]} (see `troubleshoot kb list`)", file=sys.stderr)
        return 2
    if any(e.repro is not None and e.repro.runs_on == "cpu" for e in entries):
        ok, why = sandbox_available()
        if not ok:
            print(f"{prog}: the sandbox cannot run on this machine: {why}", file=sys.stderr)
            return 2
    def progress(result, done: int, total: int) -> None:
        if not args.json:
            print(_verify_line(result), flush=True)
        elif sys.stderr.isatty():
            print(f"[{done}/{total}] {result.id}", file=sys.stderr, flush=True)

    results = verify_knowledge(kb, entries, progress=progress)
    if not args.no_record:
        _record(results, host_environment())
    totals = summary(results)
    if args.json:
        print(json.dumps({"entries": [r.as_json() for r in results], "summary": totals}, indent=2, ensure_ascii=False))
    else:
        print(f"{totals['proven']} of {totals['ran']} repros run here proved every claim; "
              f"{totals['failed']} failed; {totals['not_run']} not run here (they need a GPU, several "
              f"processes, Windows or a broken installation); {totals['patch_claims']} patch claims checked, "
              f"{totals['patch_claims_failed']} failed")
    return 1 if totals["failed"] else 0


def _verify_line(result) -> str:
    if not result.ran and not result.failures:
        return f"  skip  {result.id}: {result.note}"
    mark = "FAIL" if result.failures else "ok  "
    fixes = ", ".join(f"{f['workaround']} {f['status']}" for f in result.fixes)
    ends = ", ".join(f"{d['id']} {d['status']}" for d in result.dead_ends)
    detail = "; ".join(p for p in (fixes, ends) if p) or "no patched items"
    line = f"  {mark}  {result.id} ({result.seconds} s): {detail}"
    for failure in result.failures:
        line += f"\n        - {failure}"
    return line


def _record(results, environment: dict) -> None:
    """Each run as evidence under the host's own environment (surface "kb verify"); a
    store failure is said once and loses no result."""
    from bot.evidence.record import record_verification  # lazy: SQLAlchemy only when recording

    failed = 0
    for result in results:
        if result.report is None or not result.matched:
            continue
        report = dict(result.report, environment=environment)
        if record_verification(report, result.code, surface="kb verify") is None:
            failed += 1
    if failed:
        print(f"troubleshoot kb verify: {failed} result(s) were not recorded as evidence (see the log); "
              "--no-record skips recording", file=sys.stderr)

