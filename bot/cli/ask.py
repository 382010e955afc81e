"""`troubleshoot ask`, `troubleshoot eval` and `troubleshoot index build`."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.cli.common import evidence_recording, note
from bot.errors import ConfigurationError, Failure, InputError, Unavailable
from bot.text.inputs import read_bounded, read_text

if TYPE_CHECKING:
    from bot.retrieval.engine import Engine
    from bot.verify.code_question import CodeQuestion
    from bot.answer.document import AnswerDocument
    from bot.verify.report import VerifyReport

MAX_PROBLEMS_SHOWN = 5


def _index_failure(exc: Exception) -> Failure:
    """An index of another embedder, or an embedder that cannot load, is configuration;
    an index that cannot be written (or anything else about it) is a resource problem."""
    from bot.embed import EmbedderError
    from bot.retrieval.index import EmbedderMismatch

    if isinstance(exc, (EmbedderMismatch, EmbedderError)):
        return ConfigurationError(str(exc))
    return Unavailable(str(exc))


def _engine(prog: str) -> Engine:
    """The search engine, with its knowledge problems said on stderr (never silently
    dropped) and index problems turned into one line."""
    from bot.embed import EmbedderError
    from bot.retrieval.engine import get_engine
    from bot.retrieval.index import IndexProblem

    try:
        engine = get_engine(log=lambda message: note(prog, message))
    except (IndexProblem, EmbedderError) as exc:
        raise _index_failure(exc) from None
    say_knowledge_problems(prog, engine.problems)
    return engine


def say_knowledge_problems(prog: str, problems: list[Any]) -> None:
    if not problems:
        return
    for problem in problems[:MAX_PROBLEMS_SHOWN]:
        note(prog, f"warning: {problem}")
    more = f" (and {len(problems) - MAX_PROBLEMS_SHOWN} more)" if len(problems) > MAX_PROBLEMS_SHOWN else ""
    note(prog, f"warning: {len(problems)} knowledge problem(s){more}: the files named are left out of answers; "
               "`troubleshoot kb check` lists them all")


# --- ask ------------------------------------------------------------------------------


def read_question(arg: str | None, prog: str = "troubleshoot ask") -> str:
    """The error text: the argument, stdin ("-" or none given on a pipe), or @FILE;
    bounded, decoded (legacy encodings detected), never empty."""
    from bot.settings import get_settings

    cfg = get_settings()
    if arg is not None and arg != "-" and not arg.startswith("@"):
        text = _from_argv(arg)
        if len(text.encode("utf-8", "surrogatepass")) > cfg.max_input_bytes:
            raise InputError(f"the text is larger than the limit of {cfg.max_input_bytes} bytes "
                             f"(TROUBLESHOOT_MAX_INPUT_BYTES)")
    else:
        if arg is None and sys.stdin is not None and not sys.stdin.closed and sys.stdin.isatty():
            raise ConfigurationError("no text given: pass the error as an argument in quotes, pipe it in with `-`, "
                                     "or name a file with @FILE")
        source = "-" if arg in (None, "-") else arg[1:]
        name = "the input" if source == "-" else source
        got = read_text(source, what="input" if source == "-" else "file", limit=cfg.max_input_bytes,
                        setting="TROUBLESHOOT_MAX_INPUT_BYTES", idle_seconds=cfg.stdin_idle_seconds,
                        prompt="Paste the error, then press Ctrl-D (Ctrl-Z Enter on Windows):",
                        advice="keep the part that matters (the last traceback) or raise the limit",
                        detect=True, name=name, refuse_empty=False)
        if got.encoding:
            note(prog, f"{name} is not UTF-8; read it as {got.encoding}")
        text = got.text
    from bot.retrieval.clean import clean

    clean(text)  # empty or binary input is refused here (InputError), before the model loads
    return text


def _from_argv(arg: str) -> str:
    """An argument's text: bytes the locale could not decode arrive as lone surrogates
    (PEP 383); they are decoded as any pasted bytes are (legacy encodings detected),
    else replaced."""
    from bot.text.inputs import decode_bytes
    from bot.text.terminal import encodable

    if encodable(arg) == arg:
        return arg
    try:
        return decode_bytes(os.fsencode(arg))
    except UnicodeEncodeError:  # a surrogate that no byte made (main(argv) from Python)
        return encodable(arg)


def _as_path(arg: str | None) -> Path | None:
    """The argument names a Python file (`troubleshoot ask train.py`): its code is the question."""
    if arg is None or arg == "-" or "\n" in arg or len(arg) > 1024 or not arg.endswith(".py"):
        return None
    try:
        path = Path(arg)
        return path if path.is_file() else None
    except (OSError, ValueError):
        return None


def _code_question(arg: str | None, text: str) -> CodeQuestion | None:
    """The input as a code question, or None: code without error text, or any .py file
    that parses (its comments may quote an error; it is still the asker's program)."""
    from bot.verify.code_question import CodeQuestion, detect_code, is_code, undefined_names

    path = _as_path(arg)
    if path is not None and path.suffix == ".py" and is_code(text):
        return CodeQuestion(code=text, prose="", fenced=False, undefined=undefined_names(text))
    return detect_code(text)


def ask(args: argparse.Namespace) -> int:
    prog = "troubleshoot ask"
    text = read_question("@" + args.text if _as_path(args.text) else args.text, prog)
    question = _code_question(args.text, text)
    if question is not None:
        return ask_code(args, question)
    _engine(prog)  # builds or repairs the index, says knowledge problems
    from bot.answer import answer_result
    from bot.answer.render import render_answer

    data, result = answer_result(text, lang=args.lang, top=args.top, retriever=args.retriever)
    from bot.evidence.record import ask_recording_enabled, record_answer

    if getattr(args, "pick", None):
        data = _picked(text, result, args.pick, data.language)

    if ask_recording_enabled():  # TROUBLESHOOT_RECORD_ASK=0 turns it off
        record_answer(text, data, surface="cli")
    if args.json:
        print(json.dumps(data.as_json(), ensure_ascii=False, indent=2))
    else:
        print(render_answer(data, top=args.top))
    return 0


def _picked(text: str, result: Any, number: int, lang: str) -> AnswerDocument:
    """`ask --pick N`: the answer with choice N of the same message; the pick is kept for
    review (`kb learn`) unless TROUBLESHOOT_RECORD_ASK=0."""
    from bot.answer.build import picked_document
    from bot.evidence.rates import get_rate_source
    from bot.evidence.record import ask_recording_enabled
    from bot.retrieval.engine import get_engine

    try:
        data = picked_document(result, number, get_engine().kb, lang, get_rate_source())
    except ValueError as exc:
        raise InputError(str(exc)) from None
    if ask_recording_enabled() and data.best is not None:
        from bot.evidence.record import record_pick

        record_pick(text, data.best.id, lang, source="pick")
    return data


def ask_code(args: argparse.Namespace, question: CodeQuestion) -> int:
    """Code without error text: run it through the one verification path (the asker's own
    code, in the sandbox) and answer from the error it really raised (`--no-run`: only
    say that it is code)."""
    from bot.answer.code import answer_from_report, not_run_answer
    from bot.answer.render import render_code_answer

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
            raise Unavailable(f"this is Python code without an error message, and the sandbox that would run it "
                              f"cannot run on this machine: {why}. Paste the error it raises, or use --no-run")
        from functools import partial

        from bot.answer import answer
        from bot.evidence.record import ask_recording_enabled
        from bot.jobs.local import LocalExecutor
        from bot.jobs.settings import JobSettings

        show = not args.json and sys.stderr.isatty()
        if not args.json:
            print(f"Python code without an error message ({question.lines} lines): running it in the sandbox…",
                  file=sys.stderr, flush=True)

        def progress(stage: str, done: int, total: int) -> None:
            if show:
                print(f"[{done}/{total}] {stage}", file=sys.stderr, flush=True)

        # A malformed job setting, a snippet over the size limit and a job that could not run
        # raise the failures of their kind (bot/errors.py).
        executor = LocalExecutor(JobSettings.from_env(), warm_pool=False)  # one job: no pool
        try:
            # The run is evidence like `troubleshoot verify`'s (the snippet's sha256 only);
            # TROUBLESHOOT_RECORD_ASK=0 records nothing.
            recording = evidence_recording("cli", enabled=ask_recording_enabled())
            report = executor.verify(question.code, progress, lang=lang, record=recording)
        finally:
            executor.shutdown(wait=False)
        data = answer_from_report(report, question, partial(answer, retriever=args.retriever), lang=lang,
                                  top=args.top)
    data.seconds = round(time.monotonic() - started, 3)
    _record_code_answer(report, question, data)
    if args.json:
        print(json.dumps(data.as_json(), ensure_ascii=False, indent=2))
    else:
        print(render_code_answer(data, top=args.top))
    return 0


def _record_code_answer(report: VerifyReport | None, question: CodeQuestion, data: AnswerDocument) -> None:
    """The answer is recorded under the error the run raised, so an error no entry covers
    becomes a coverage gap like a pasted one. TROUBLESHOOT_RECORD_ASK=0 records nothing."""
    from bot.evidence.record import ask_recording_enabled, record_answer
    from bot.verify.code_question import traceback_text

    if report is None or not ask_recording_enabled():
        return
    if report.reproduced:
        record_answer(traceback_text(report), data, surface="cli")


# --- eval -----------------------------------------------------------------------------


def evaluate(args: argparse.Namespace) -> int:
    from bot.retrieval.evaluate import EvalFileError, read_eval_lines, run_eval
    from bot.settings import get_settings

    prog = "troubleshoot eval"
    cfg = get_settings()
    got = read_bounded(args.file, what="eval file" if args.file != "-" else "input", limit=cfg.max_eval_bytes,
                       setting="TROUBLESHOOT_MAX_EVAL_BYTES", idle_seconds=cfg.stdin_idle_seconds)
    try:
        rows = read_eval_lines(Path(got.name), raw=got.data)
        engine = _engine(prog)
        report = run_eval(engine, rows, retriever=args.retriever, path=got.name)
    except EvalFileError as exc:
        raise InputError(str(exc)) from None
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
        return 0
    m = report["metrics"]
    print(f"{got.name}  retriever={args.retriever}  n={m['n']} ({m['covered']} covered, {m['null']} must not "
          f"be answered)")
    if m["covered"]:
        print(f"  top-1 {m['top1']:.3f}   top-3 {m['top3']:.3f}   MRR {m['mrr']:.3f}   "
              f"latency p50 {m['p50_ms']:.1f} ms  p95 {m['p95_ms']:.1f} ms")
        print(f"  covered answered right {m['covered_right']}/{m['covered']} ({m['covered_right_rate']:.3f})   "
              f"answered wrong {m['covered_wrong']}   declined {m['covered_declined']}")
        print(f"  offered right (the answer, or among the choices) {m['offered_right']}/{m['covered']} "
              f"({m['offered_right_rate']:.3f})")
    if m["null"]:
        print(f"  false answers {m['false_answers']}/{m['null']} ({m['false_answer_rate']:.3f})")
    if not m["covered"]:
        print(f"  latency p50 {m['p50_ms']:.1f} ms  p95 {m['p95_ms']:.1f} ms")
    tiers = m.get("by_tier") or {}
    print("  tiers: " + "   ".join(f"{tier} {t['n']} (right {t['right']}, wrong {t['wrong']}, should have had "
                                   f"nothing {t['null']})" if tier != "decline" else f"decline {t['n']}"
                                   for tier, t in tiers.items()))
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
            predicted = ', '.join(r['predicted'][:3]) or 'nothing'
            if r["expected"] is None:
                print(f"    line {r['line']}: must not be answered, answered {predicted} ({r['confidence']:.2f})")
            else:
                print(f"    line {r['line']}: expected {r['expected']}, got {predicted}")
    return 0


# --- index build ----------------------------------------------------------------------------


def build_index(args: argparse.Namespace) -> int:
    from bot import settings
    from bot.cli.common import verbosity
    from bot.embed import EmbedderError
    from bot.retrieval.index import IndexProblem

    prog = "troubleshoot index build"
    try:
        from bot.retrieval.engine import get_embedder
        from bot.retrieval.index import build_index as build

        embedder = get_embedder()
        # The bar only on a terminal (never into a pipe or a log) and not with -q.
        report = build(settings.knowledge_dir(), settings.index_dir(), embedder, full=args.full,
                       progress=sys.stderr.isatty() and verbosity() >= 1, log=lambda message: note(prog, message))
    except (IndexProblem, EmbedderError) as exc:
        raise _index_failure(exc) from None
    if report.up_to_date:
        print(f"index: up to date in {settings.index_dir()} ({report.chunks} chunks from {report.files} knowledge "
              f"files, {report.index_type}; every index file checked); embedded 0 file(s), "
              f"reused {report.reused_files}")
        return 0
    if report.problems:
        note(prog, f"{len(report.problems)} knowledge problem(s); run `troubleshoot kb check`. First: "
                   f"{report.problems[0]}")
    print(f"index: {report.chunks} chunks from {report.files} knowledge files in {settings.index_dir()} "
          f"({report.index_type}); embedded {len(report.embedded_files)} file(s) "
          f"({report.embedded_chunks} chunks), reused {report.reused_files}; {report.seconds:.1f} s")
    return 0
