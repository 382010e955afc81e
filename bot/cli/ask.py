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


def _as_path(arg: str | None) -> Path | None:
    """The argument names a file (`troubleshoot ask train.py`): read that file."""
    if arg is None or arg == "-" or "\n" in arg or len(arg) > 1024:
        return None
    try:
        path = Path(arg)
        return path if path.is_file() else None
    except (OSError, ValueError):
        return None


def _read_text(arg: str | None) -> str:
    from bot.retrieval.clean import InputError, decode_bytes

    path = _as_path(arg)
    if path is not None:
        try:
            return decode_bytes(path.read_bytes())
        except OSError as exc:
            raise InputError(f"{arg}: cannot read it ({exc.strerror})") from None
    if arg is not None and arg != "-":
        return arg
    if arg is None and sys.stdin.isatty():
        raise InputError("no text given: pass the error as an argument, or pipe it in with `-`")
    return decode_bytes(sys.stdin.buffer.read())


def _code_question(arg: str | None, text: str):
    """The input as a code question, or None: code without error text, or any .py file
    that parses (its comments may quote an error; it is still the asker's program)."""
    from bot.verify.code_question import CodeQuestion, detect_code, is_code, undefined_names

    path = _as_path(arg)
    if path is not None and path.suffix == ".py" and is_code(text):
        return CodeQuestion(code=text, prose="", fenced=False, undefined=undefined_names(text))
    return detect_code(text)


def ask(args) -> int:
    if args.top < 1:
        return _fail("ask", f"--top must be at least 1, got {args.top}")
    problems = _known_problems()
    try:
        from bot.answer import answer_result
        from bot.answer.render import render_answer

        text = _read_text(args.text)
        question = _code_question(args.text, text)
        if question is not None:
            return ask_code(args, question)
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


def ask_code(args, question) -> int:
    """Code without error text: run it through the one verification path (the asker's own
    code, in the sandbox) and answer from the error it really raised (`--no-run`: only
    say that it is code)."""
    from bot.verify.code_question import answer_from_report, not_run_answer, render_code_answer, traceback_text

    lang = args.lang or question.language
    started = time.monotonic()
    report = None
    if getattr(args, "no_run", False):
        data = not_run_answer(question, lang)
    elif not question.runnable:
        data = not_run_answer(question, lang, why="not_runnable")
    else:
        from bot.sandbox import sandbox_available

        ok, why = sandbox_available()
        if not ok:
            return _fail("ask", f"this is Python code without an error message, and the sandbox that would run it "
                                f"cannot run on this machine: {why}. Paste the error it raises, or use --no-run")
        from functools import partial

        from bot.answer import answer
        from bot.jobs.executor import JobError
        from bot.jobs.local import LocalExecutor
        from bot.jobs.settings import ConfigError, JobSettings

        show = not args.json and sys.stderr.isatty()
        if not args.json:
            print(f"Python code without an error message ({question.lines} lines): running it in the sandbox…",
                  file=sys.stderr, flush=True)

        def progress(stage: str, done: int, total: int) -> None:
            if show:
                print(f"[{done}/{total}] {stage}", file=sys.stderr, flush=True)

        try:
            executor = LocalExecutor(JobSettings.from_env())
            try:
                report = executor.verify(question.code, progress, lang=lang)
            finally:
                executor.shutdown(wait=False)
        except (ConfigError, JobError, ValueError) as exc:  # ValueError: a snippet over the size limit
            return _fail("ask", str(exc))
        data = answer_from_report(report, question, partial(answer, retriever=args.retriever), lang=lang,
                                  top=args.top)
    data["seconds"] = round(time.monotonic() - started, 3)
    _record_code_answer(report, question, data)
    if args.json:
        print(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        print(render_code_answer(data, top=args.top))
    return 0


def _record_code_answer(report: dict | None, question, data: dict) -> None:
    """The run is evidence like `troubleshoot verify`'s (the snippet's sha256 only); the
    answer is recorded under the error the run raised, so an error no entry covers
    becomes a coverage gap like a pasted one. TROUBLESHOOT_RECORD_ASK=0 records nothing."""
    from bot.evidence.record import ask_recording_enabled, cli_asker, record_answer, record_verification
    from bot.verify.code_question import traceback_text

    if report is None or not ask_recording_enabled():
        return
    try:
        asker = cli_asker()
    except Exception:  # noqa: BLE001 - recording logs its own failures
        asker = None
    record_verification(report, question.code, surface="cli", asker=asker)
    if report.get("reproduced"):
        record_answer(traceback_text(report), data, surface="cli")


# --- eval -----------------------------------------------------------------------------


def evaluate(args) -> int:
    from bot.retrieval.evaluate import EvalFileError, read_eval_file, run_eval

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
