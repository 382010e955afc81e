"""`troubleshoot kb check | list | add | verify | export`."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.cli.common import note, say_unrecorded, verbosity
from bot.errors import ConfigurationError, InputError, Unavailable
from bot.kb.loader import check_knowledge, errors_only
from bot.verify.patches import registry

if TYPE_CHECKING:
    from bot.envs import Environment
    from bot.kb.model import Entry, KnowledgeBase
    from bot.verify.kbverify import EntryResult


def check(args: argparse.Namespace) -> int:
    kb, problems = check_knowledge(Path(args.dir) if args.dir else None, patch_names=set(registry.declared_names()))
    for problem in problems:
        print(problem, file=sys.stderr)
    errors = errors_only(problems)
    warnings = len(problems) - len(errors)
    if errors:
        print(f"{len(errors)} problem(s) found in {kb.root}" + (f" (and {warnings} warning(s))" if warnings else ""),
              file=sys.stderr)
        raise InputError("")  # said above
    # Shipped proofs (knowledge/proofs.json) whose entry changed since: answers leave them
    # out; each names the entry to verify again with --export.
    for stale in kb.stale_proofs:
        print(f"warning: proofs.json: {stale.describe()}", file=sys.stderr)
    warnings += len(kb.stale_proofs)
    langs = sorted({lang for e in kb.entries.values() for lang in e.languages})
    proven = sum(1 for e in kb.entries.values() if e.proofs)
    print(f"ok: {len(kb.entries)} entries ({', '.join(langs)}), {len(kb.articles)} articles in {kb.root}; "
          f"{proven} entries carry proofs" + (f"; {warnings} warning(s) above" if warnings else ""))
    return 0


def summarize(kb: KnowledgeBase) -> list[dict[str, Any]]:
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


def list_entries(args: argparse.Namespace) -> int:
    kb, problems = check_knowledge(Path(args.dir) if args.dir else None)
    if errors_only(problems):
        note("troubleshoot kb list", f"warning: {len(errors_only(problems))} problem(s); run `troubleshoot kb check` "
                                     f"(invalid files are left out). First: {errors_only(problems)[0]}")
    rows = summarize(kb)
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return 0
    for row in rows:
        print(f"{row['id']:<40} {'/'.join(row['languages']):<9} {row['workarounds']} fixes  "
              f"{row['dead_ends']} dead ends  {row['articles']} articles  {row['title']}")
    return 0


def add(args: argparse.Namespace) -> int:
    from bot.kb.add import Options, add_inputs
    from bot.settings import get_settings
    from bot.text.inputs import read_bounded

    prog = "troubleshoot kb add"
    if args.files.count("-") > 1:
        raise ConfigurationError("'-' (stdin) may be given once")
    if args.workspace_url and not args.workspace_url.startswith("https://"):
        raise ConfigurationError(f"--workspace-url must be the workspace's https:// address, "
                                 f"not {args.workspace_url!r}")
    kb, problems = check_knowledge(Path(args.dir) if args.dir else None)
    if errors_only(problems):
        note(prog, f"warning: {len(errors_only(problems))} problem(s) in the knowledge base; "
                   "run `troubleshoot kb check`")
    stdin = None
    if "-" in args.files:
        cfg = get_settings()
        stdin = read_bounded("-", what="input", limit=cfg.max_article_bytes, setting="TROUBLESHOOT_MAX_ARTICLE_BYTES",
                             idle_seconds=cfg.stdin_idle_seconds).data
    channels = {c.strip().lstrip("#") for c in args.channels.split(",") if c.strip()} if args.channels else None
    opts = Options(source=args.source, dry_run=args.dry_run, sync=args.sync, channels=channels, names=args.names,
                   workspace_url=args.workspace_url)
    results = add_inputs(args.files, kb, opts, stdin=stdin)
    if args.json:
        print(json.dumps([r.as_json() for r in results], ensure_ascii=False, indent=2))
    else:
        skipped: dict[str, int] = {}
        for r in results:
            if r.status == "rejected":  # diagnostics on stderr; stdout has what was stored
                print(f"{prog}: {r.describe()}", file=sys.stderr)
            elif r.status == "skipped" and ":#" in str(r.source) and verbosity() < 2:
                skipped[r.reason] = skipped.get(r.reason, 0) + 1  # a Slack export's threads: counted
            else:
                print(("(dry run) " if args.dry_run and r.status in ("stored", "replaced", "removed") else "")
                      + r.describe())
        for reason, count in sorted(skipped.items(), key=lambda kv: -kv[1]):
            print(f"skipped {count} thread(s): {reason} (-v lists them)")
    if any(r.status == "rejected" for r in results):
        raise InputError("")  # each rejection is said above
    return 0


def verify(args: argparse.Namespace) -> int:
    """`kb verify [ID...]`: run the entries' repros and check every claim (bot/verify/kbverify.py)."""
    from bot.kb.loader import load_knowledge, KnowledgeError

    try:
        kb = load_knowledge(Path(args.dir) if args.dir else None)
    except KnowledgeError as exc:
        raise InputError(f"the knowledge base has errors; run `troubleshoot kb check` ({exc})") from None
    from bot.evidence.record import Recording
    from bot.verify.kbverify import select_entries, summary, verify_knowledge

    try:
        entries = select_entries(kb, args.ids)
    except KeyError as exc:
        raise ConfigurationError(f"no entry named {exc.args[0]} (see `troubleshoot kb list`)") from None
    if any(e.repro is not None and e.repro.runs_on == "cpu" for e in entries):
        from bot.sandbox import sandbox_available

        ok, why = sandbox_available()
        if not ok:
            raise Unavailable(f"the sandbox cannot run on this machine: {why}")
    if getattr(args, "torch", None):
        return _verify_versions(args, kb, entries)

    def progress(result: EntryResult, done: int, total: int) -> None:
        if not args.json:
            print(_verify_line(result), flush=True)
        elif sys.stderr.isatty():
            print(f"[{done}/{total}] {result.id}", file=sys.stderr, flush=True)

    # Each repro classified as its entry is evidence, under the host's environment (kbverify.py).
    recording = None if args.no_record else Recording("kb verify")
    results = verify_knowledge(kb, entries, progress=progress, record=recording)
    say_unrecorded("troubleshoot kb verify", recording, "result(s) were")
    totals = summary(results)
    if args.export:
        from bot.verify.kbverify import where_ran

        _export(kb, [(e, r, where_ran()) for e, r in zip(entries, results, strict=True)], args.json)
    if args.json:
        print(json.dumps({"entries": [r.as_json() for r in results], "summary": totals}, indent=2, ensure_ascii=False))
    else:
        print(f"{totals['proven']} of {totals['ran']} repros run here proved every claim; "
              f"{totals['failed']} failed; {totals['not_run']} not run here (they need a GPU, several "
              f"processes, Windows or a broken installation); {totals['patch_claims']} patch claims checked, "
              f"{totals['patch_claims_failed']} failed")
    if totals["failed"]:
        raise InputError("")  # the failed claims are in the report
    return 0


def _verify_versions(args: argparse.Namespace, kb: KnowledgeBase, entries: list[Entry]) -> int:
    """`kb verify --torch V1,V2`: every entry on each release; each release's outcome is
    recorded (evidence under that torch, and the entry's version table)."""
    from bot.cli.verify import local_environments, parse_versions
    from bot.evidence.record import Recording
    from bot.verify.kbverify import summary, verify_entry, where_ran
    from bot.verify.versions import VersionTable, new_wordings, row_from

    args.prog = "troubleshoot kb verify --torch"  # what its errors are said under
    envs = local_environments(parse_versions(args.torch), getattr(args, "envs_dir", None))
    table = VersionTable()
    recording = None if args.no_record else Recording("kb verify")
    per_version: dict[str, list[EntryResult]] = {e.version: [] for e in envs}
    proved: list[tuple[Entry, EntryResult, dict[str, Any]]] = []  # for --export
    out = []
    for entry in entries:
        rows: dict[str, dict[str, Any]] = {}
        item: dict[str, Any] = {"id": entry.id, "versions": {}}
        for env in envs:
            result = verify_entry(entry, kb, environment=env, record=recording)
            per_version[env.version].append(result)
            proved.append((entry, result, where_ran(env)))
            if result.ran:
                rows[env.version] = row_from(result, env)
                if not args.no_record:
                    table.record(entry.id, env.version, rows[env.version])
            item["versions"][env.version] = result.as_json() | {"torch": env.torch}
        item["new_wordings"] = new_wordings(entry, rows)
        out.append(item)
        if not args.json:
            print(_versions_line(entry.id, item, envs), flush=True)
        elif sys.stderr.isatty():
            print(f"[{len(out)}/{len(entries)}] {entry.id}", file=sys.stderr, flush=True)
    say_unrecorded("troubleshoot kb verify", recording, "result(s) were")
    totals = {v: summary(rs) for v, rs in per_version.items()}
    if args.export:
        _export(kb, proved, args.json)
    if args.json:
        print(json.dumps({"entries": out, "summary": totals, "table": str(table.path)}, indent=2, ensure_ascii=False))
    else:
        for v, t in totals.items():
            print(f"torch {v}: {t['proven']} of {t['ran']} repros proved every claim; {t['failed']} failed; "
                  f"{t['not_run']} not run here")
        if not args.no_record:
            print(f"version table: {table.path}")
    if any(t["failed"] for t in totals.values()):
        raise InputError("")  # the failed claims are in the report
    return 0


def _export(kb: KnowledgeBase, runs: list[tuple[Entry, EntryResult, dict[str, Any]]], quiet: bool) -> None:
    """`--export`: the claims these runs proved into the knowledge base's proofs file
    (bot/kb/proofs.py), replacing the rows of the same entries and releases and keeping
    every other release's rows. An entry that ran but proved nothing loses its rows of
    that release; an entry not run here (it needs a GPU...) keeps what it had."""
    from datetime import datetime, timezone

    from bot.kb import proofs
    from bot.verify.kbverify import proof_rows

    date = datetime.now(timezone.utc).date().isoformat()
    path = proofs.proofs_path(kb.root)
    try:
        old = proofs.read_rows(path)
    except proofs.ProofsError as exc:
        raise InputError(f"--export: {exc}; fix or remove it first") from None
    new, replaced = [], set()
    for entry, result, where in runs:
        if result.ran:
            replaced.add((entry.id, where["torch"]))
            new.extend(proof_rows(entry, result, where, date))
    rows = proofs.merge(old, new, replaced=replaced, entries=set(kb.entries))
    try:
        proofs.write_rows(path, rows)
    except OSError as exc:
        raise ConfigurationError(f"--export: cannot write {path}: {exc.strerror or exc}") from None
    releases = sorted({w["torch"] for _e, r, w in runs if r.ran}, key=proofs.version_key)
    entries = len({r["entry"] for r in new})
    message = (f"proofs: {len(new)} claim(s) of {entries} entries proven on torch {', '.join(releases) or '-'} "
               f"written to {path} ({len(rows)} rows in all)")
    print(message, file=sys.stderr if quiet else sys.stdout)


def _versions_line(entry_id: str, item: dict[str, Any], envs: list[Environment]) -> str:
    cells = []
    for env in envs:
        r = item["versions"][env.version]
        if not r["ran"]:
            cells.append(f"{env.version}: skip")
            continue
        state = "reproduced" if r["reproduced"] else "no error"
        bad = len(r["failures"])
        cells.append(f"{env.version}: {state}" + (f", {bad} claim(s) failed" if bad else ", claims hold"))
    line = f"  {entry_id}: " + "; ".join(cells)
    for w in item["new_wordings"]:
        matches = "signature matches" if w["signature_matches"] else "NO signature matches"
        line += f"\n        new wording on {w['torch']} ({matches}): {w['example'][:160]}"
    return line


def _verify_line(result: EntryResult) -> str:
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


def export(args: argparse.Namespace) -> int:
    """`kb export DIR [--format html|md|json]`: the knowledge pages as static files (bot/pages/export.py),
    with the evidence the store holds now (none yet: the team's estimates, said as such)."""
    from bot.evidence.db import get_store
    from bot.pages.data import load_snapshot
    from bot.pages.export import FORMATS, export_pages

    prog = "troubleshoot kb export"
    kb, problems = check_knowledge(Path(args.dir) if args.dir else None)
    if not kb.entries:
        raise ConfigurationError(f"no knowledge entries could be loaded from {kb.root} "
                                 f"({len(problems)} problem(s); `troubleshoot kb check` lists them)")
    if errors_only(problems):
        print(f"{prog}: warning: {len(errors_only(problems))} problem(s); invalid files are left out "
              "(`troubleshoot kb check` lists them)", file=sys.stderr)
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise ConfigurationError(f"{out} exists and is not a folder")
    try:
        store = get_store(create=False)
    except Exception as exc:  # noqa: BLE001 - the pages still carry the knowledge
        print(f"{prog}: warning: the evidence store cannot be opened ({type(exc).__name__}); "
              "the pages show the team's estimates only", file=sys.stderr)
        store = None
    snap = load_snapshot(store)
    if snap.error:
        print(f"{prog}: warning: the evidence store could not be read ({snap.error}); "
              "the pages show the team's estimates only", file=sys.stderr)
    try:
        written = export_pages(kb, snap, out, tuple(args.format or FORMATS))
    except OSError as exc:
        raise ConfigurationError(f"cannot write into {out}: {exc.strerror or exc}") from None
    print(f"wrote {len(written)} file(s) for {len(kb.entries)} entries into {out} "
          f"({', '.join(args.format or FORMATS)}); open {out / 'index.html'}" if "html" in (args.format or FORMATS)
          else f"wrote {len(written)} file(s) for {len(kb.entries)} entries into {out}")
    return 0
