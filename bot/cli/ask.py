"""`troubleshoot ask`, `troubleshoot eval` and `troubleshoot index build`."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from bot import settings
from bot.answer import answer_result
from bot.answer.render import render_answer
from bot.embed import EmbedderError
from bot.evidence.record import ask_recording_enabled, record_answer
from bot.retrieval.clean import decode_bytes
from bot.retrieval.engine import get_embedder, get_engine
from bot.retrieval.evaluate import EvalFileError, read_eval_file, run_eval
from bot.retrieval.index import IndexProblem
from bot.retrieval.index import build_index as build
from bot.text import InputError

EXIT_USAGE = 2


def _fail(command: str, message: str) -> int:
    print(f"troubleshoot {command}: {message}", file=sys.stderr)
    return EXIT_USAGE


def _known_problems():
    return (InputError, IndexProblem, EmbedderError)


# --- ask ------------------------------------------------------------------------------


def _read_text(arg: str | None) -> str:
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
        text = _read_text(args.text)
        data, _result = answer_result(text, lang=args.lang, top=args.top, retriever=args.retriever)
    except problems as exc:
        return _fail("ask", str(exc))
    if ask_recording_enabled():  # TROUBLESHOOT_RECORD_ASK=0 turns it off
        record_answer(text, data, surface="cli")
    if args.json:
        print(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        print(render_answer(data, top=args.top))
    return 0


# --- eval -----------------------------------------------------------------------------


def evaluate(args) -> int:
    problems = _known_problems()
    try:
        rows = read_eval_file(Path(args.file))
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
    print(f"{args.file}  retriever={args.retriever}  n={m['n']}")
    print(f"  top-1 {m['top1']:.3f}   top-3 {m['top3']:.3f}   MRR {m['mrr']:.3f}   "
          f"latency p50 {m['p50_ms']:.1f} ms  p95 {m['p95_ms']:.1f} ms")
    misses = [(i, r) for i, r in enumerate(report["rows"]) if r["predicted"][:1] != [r["expected"]]]
    if misses:
        print(f"  misses ({len(misses)}):")
        for i, r in misses:
            print(f"    line {rows[i][0]}: expected {r['expected']}, got {', '.join(r['predicted'][:3]) or 'nothing'}")
    return 0


# --- index build ----------------------------------------------------------------------------


def build_index(args) -> int:
    problems = _known_problems()
    try:
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
