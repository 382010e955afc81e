"""`troubleshoot ask`, `troubleshoot eval` and `troubleshoot index build`."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

EXIT_USAGE = 2
PREDICTED = 5  # ids listed per eval row


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


class EvalFileError(ValueError):
    pass


def read_eval_file(path: Path) -> list[tuple[int, str, str]]:
    """(line number, text, expected id) per line; blank lines are skipped."""
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise EvalFileError(f"cannot read {path}: {exc.strerror}") from None
    try:
        content = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        raise EvalFileError(f"{path}:{line}: not UTF-8 text") from None
    rows = []
    for number, line in enumerate(content.splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except ValueError as exc:
            raise EvalFileError(f"{path}:{number}: not a JSON object ({exc})") from None
        if not isinstance(item, dict):
            raise EvalFileError(f"{path}:{number}: expected a JSON object, found {type(item).__name__}")
        text, expected = item.get("text"), item.get("expected")
        if not isinstance(text, str) or not text.strip():
            raise EvalFileError(f"{path}:{number}: \"text\" must be a non-empty string")
        if not isinstance(expected, str) or not expected.strip():
            raise EvalFileError(f"{path}:{number}: \"expected\" must be an entry id (a string)")
        rows.append((number, text, expected.strip()))
    if not rows:
        raise EvalFileError(f"{path}: no evaluation lines")
    return rows


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100
    lo, hi = int(pos), min(int(pos) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def run_eval(engine, rows: list[tuple[int, str, str]], retriever: str = "hybrid", path: str = "",
             fusion_method: str = "scores") -> dict:
    from bot.retrieval.clean import InputError

    resolved = []
    for number, text, expected in rows:
        entry = engine.kb.resolve(expected)
        if entry is None:
            raise EvalFileError(f"{path}:{number}: expected id {expected!r} is not an entry or alias "
                                f"in {engine.kb.root}")
        resolved.append((number, text, entry.id))
    out_rows, times, hits1, hits3, rr = [], [], 0, 0, 0.0
    for number, text, expected in resolved:
        started = time.perf_counter()
        try:
            result = engine.search(text, top=PREDICTED, retriever=retriever, fusion_method=fusion_method)
            predicted = [h.entry_id for h in result.hits]
        except InputError as exc:
            raise EvalFileError(f"{path}:{number}: {exc}") from None
        times.append((time.perf_counter() - started) * 1000)
        if predicted[:1] == [expected]:
            hits1 += 1
        if expected in predicted[:3]:
            hits3 += 1
        if expected in predicted:
            rr += 1.0 / (predicted.index(expected) + 1)
        out_rows.append({"expected": expected, "predicted": predicted})
    n = len(out_rows)
    metrics = {"n": n, "top1": round(hits1 / n, 4), "top3": round(hits3 / n, 4), "mrr": round(rr / n, 4),
               "p50_ms": round(percentile(times, 50), 2), "p95_ms": round(percentile(times, 95), 2)}
    return {"metrics": metrics, "rows": out_rows}


def evaluate(args) -> int:
    problems = _known_problems()
    try:
        rows = read_eval_file(Path(args.file))
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
