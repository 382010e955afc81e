"""`troubleshoot ask`, `troubleshoot eval` and `troubleshoot index build`."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

EXIT_USAGE = 2


def _fail(command: str, message: str) -> int:
    print(f"troubleshoot {command}: {message}", file=sys.stderr)
    return EXIT_USAGE


def _known_problems():
    from bot.embed import EmbedderError
    from bot.retrieval.clean import InputError
    from bot.retrieval.index import IndexProblem

    return (InputError, IndexProblem, EmbedderError)


# --- ask ------------------------------------------------------------------------------


def _read_text(arg: str | None) -> str:
    from bot.retrieval.clean import InputError, decode_bytes

    if arg is not None and arg != "-":
        return arg
    if arg is None and sys.stdin.isatty():
        raise InputError("no text given: pass the error as an argument, or pipe it in with `-`")
    return decode_bytes(sys.stdin.buffer.read())


def ask(args) -> int:
    if args.top < 1:
        return _fail("ask", f"--top must be at least 1, got {args.top}")
    problems = _known_problems()
    try:
        from bot.answer import answer_result
        from bot.answer.render import render_answer

        text = _read_text(args.text)
        data, _result = answer_result(text, lang=args.lang, top=args.top, retriever=args.retriever)
    except problems as exc:
        return _fail("ask", str(exc))
    from bot.evidence.record import ask_recording_enabled, record_answer

    if ask_recording_enabled():  # TROUBLESHOOT_RECORD_ASK=0 turns it off
        record_answer(text, data, surface="cli")
    if args.json:
        print(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        print(render_answer(data, top=args.top))
    return 0


# --- eval -----------------------------------------------------------------------------


def evaluate(args) -> int:
    from bot.retrieval.evaluate import EvalFileError, read_eval_lines, run_eval

    problems = _known_problems()
    try:
        rows = read_eval_lines(Path(args.file))
        from bot.retrieval.engine import get_engine

        engine = get_engine()
        report = run_eval(engine, rows, retriever=args.retriever, path=args.file)
    except EvalFileError as exc:
        return _fail("eval", str(exc))
    except problems as exc:
        return _fail("eval", str(exc))
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
        return 0
    m = report["metrics"]
    print(f"{args.file}  retriever={args.retriever}  n={m['n']} ({m['covered']} covered, {m['null']} must not "
          f"be answered)")
    if m["covered"]:
        print(f"  top-1 {m['top1']:.3f}   top-3 {m['top3']:.3f}   MRR {m['mrr']:.3f}   "
              f"latency p50 {m['p50_ms']:.1f} ms  p95 {m['p95_ms']:.1f} ms")
        print(f"  covered answered right {m['covered_right']}/{m['covered']} ({m['covered_right_rate']:.3f})   "
              f"answered wrong {m['covered_wrong']}   declined {m['covered_declined']}")
    if m["null"]:
        print(f"  false answers {m['false_answers']}/{m['null']} ({m['false_answer_rate']:.3f})")
    if not m["covered"]:
        print(f"  latency p50 {m['p50_ms']:.1f} ms  p95 {m['p95_ms']:.1f} ms")
    for kind, k in (m.get("by_kind") or {}).items():
        parts = []
        if k["covered"]:
            parts.append(f"answered right {k['covered_right']}/{k['covered']}")
        if k["null"]:
            parts.append(f"false answers {k['false_answers']}/{k['null']}")
        print(f"    {kind:<24} " + "   ".join(parts))
    misses = [r for r in report["rows"]
              if (r["expected"] is not None and r["predicted"][:1] != [r["expected"]])
              or (r["expected"] is None and r["answered"])]
    if misses:
        print(f"  misses ({len(misses)}):")
        for r in misses:
            got = ', '.join(r['predicted'][:3]) or 'nothing'
            if r["expected"] is None:
                print(f"    line {r['line']}: must not be answered, answered {got} ({r['confidence']:.2f})")
            else:
                print(f"    line {r['line']}: expected {r['expected']}, got {got}")
    return 0


# --- index build ----------------------------------------------------------------------------


def build_index(args) -> int:
    from bot import settings

    problems = _known_problems()
    try:
        from bot.retrieval.engine import get_embedder
        from bot.retrieval.index import build_index as build

        embedder = get_embedder()
        report = build(settings.knowledge_dir(), settings.index_dir(), embedder, full=args.full, progress=True)
    except problems as exc:
        return _fail("index build", str(exc))
    if report.up_to_date:
        print(f"index: up to date in {settings.index_dir()} ({report.chunks} chunks from {report.files} knowledge "
              f"files, {report.index_type}); embedded 0 file(s), reused {report.reused_files}")
        return 0
    if report.problems:
        print(f"  {len(report.problems)} knowledge problem(s); run `troubleshoot kb check`. First: "
              f"{report.problems[0]}", file=sys.stderr)
    print(f"index: {report.chunks} chunks from {report.files} knowledge files in {settings.index_dir()} "
          f"({report.index_type}); embedded {len(report.embedded_files)} file(s) "
          f"({report.embedded_chunks} chunks), reused {report.reused_files}; {report.seconds:.1f} s")
    return 0
