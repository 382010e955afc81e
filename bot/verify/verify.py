"""Verify fixes by running them: the original snippet, then each patched version.

1. Run the original in the sandbox and classify its error to a knowledge entry.
2. For every workaround and dead end of that entry that names a patch, apply the
   patch, run the result and record what happened: `fixed`, `still_fails` (the same
   entry's error), `new_error` (another error, classified), `not_applicable` (the
   patch found nothing to change, with the reason) or `timeout`, with time and peak
   memory against the original run.
3. A fixed version from the asker is run the same way ("user-fixed").

The output is the typed report (bot/verify/report.py: VerifyReport, whose JSON is the
contract of `troubleshoot verify --json` that other tools read), with extra keys for the
answer and the evidence store.
"""

from __future__ import annotations

import difflib
import os
import queue
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable

from bot.kb.loader import current_knowledge
from bot.kb.model import Entry, KnowledgeBase
from bot.sandbox import run_snippet
from bot.verify.classify import Retriever, classify_error
from bot.verify.patches import registry
from bot.verify.patches.base import Failure, PatchResult
from bot.contract import present
from bot.verify.report import (ENDED_EARLY, SUPERVISOR_LOST, ErrorInfo, ExitReason, FixRow, Progress, Status,
                               VerifyReport, as_exit_reason)

Runner = Callable[..., Any]  # run_snippet(code, **options) -> RunResult
OUTPUT_TAIL = 2000  # characters of a fix run's output kept in its row
LIMIT_MESSAGES = {
    ExitReason.MEMORY: "the run went over the sandbox's memory limit",
    ExitReason.OUTPUT_LIMIT: "the run printed more than the sandbox's output cap",
    ExitReason.KILLED: "the run was killed",
}


def default_runner() -> Runner:
    return run_snippet


@dataclass
class Attempt:
    """One row of the report: a workaround or dead end to try, or the asker's fix."""

    workaround: str  # the workaround's or dead end's id in the entry, or "user-fixed"
    kind: str  # "workaround", "dead_end" or "user"
    patch: str | None = None
    title: str | None = None
    leads_to: str | None = None  # for a dead end: the error the knowledge base says it raises, if it says
    code: str | None = None  # the asker's fixed code (kind "user")


def plan_attempts(entry: Entry | None, fixed_code: str | None, lang: str = "en") -> list[Attempt]:
    attempts: list[Attempt] = []
    if entry is not None:
        for w in entry.workarounds:
            if w.patch:
                attempts.append(Attempt(w.id, "workaround", w.patch, w.title.get_text(lang)))
        for d in entry.dead_ends:
            if d.patch:
                attempts.append(Attempt(d.id, "dead_end", d.patch, d.title.get_text(lang), leads_to=d.leads_to))
    if fixed_code is not None:
        attempts.append(Attempt("user-fixed", "user", title="the fixed version you supplied", code=fixed_code))
    return attempts


def _field(result, name: str, default=None):
    return getattr(result, name, default)


def _error_info(error: dict | None, entry_id: str | None) -> ErrorInfo | None:
    if not error:
        return None
    return ErrorInfo(type=error.get("type"), message=error.get("message"), entry_id=entry_id)


def _ended_early(original: Any, result: Any, status: Status) -> bool:
    """Did the patched variant exit where the original raised? A variant that "fixed" the
    error must have run to the snippet's last line; one that failed by sys.exit did what
    the original did not. The original is known to have raised (it reproduced)."""
    ended = _field(result, "ended", None)
    if status == Status.FIXED:
        return ended != "end"
    return status in (Status.STILL_FAILS, Status.NEW_ERROR) and ended == "exit" \
        and _field(original, "ended", None) != "exit"


def _same_entry(kb: KnowledgeBase, a: str | None, b: str | None) -> bool:
    if a is None or b is None:
        return False
    ea, eb = kb.resolve(a), kb.resolve(b)
    return (ea.id if ea else a) == (eb.id if eb else b)


def _change(new: float | None, old: float | None) -> float | None:
    """Relative change in percent, one decimal."""
    if new is None or not old:
        return None
    return round(100.0 * (new - old) / old, 1)


class _Verification:
    def __init__(self, code: str, *, fixed_code, runner, progress, parallel, kb, lang, gpus, run_options, retriever):
        self.code = code
        self.fixed_code = fixed_code
        self.runner = runner or default_runner()
        self._progress = progress
        self._progress_lock = threading.Lock()
        self.parallel = parallel
        self.kb = kb
        self.lang = lang
        self.gpus = list(gpus or [])
        self._free_gpus: queue.SimpleQueue = queue.SimpleQueue()
        for gpu in self.gpus:
            self._free_gpus.put(gpu)
        self.run_options = dict(run_options or {})
        self.retriever = retriever

    def run(self, code: str):
        """One sandbox run; with GPUs, on one that no other run of ours is using."""
        options = dict(self.run_options)
        if not self.gpus:
            return self.runner(code, **options)
        gpu = self._free_gpus.get()
        try:
            return self.runner(code, **options, gpu=gpu)
        finally:
            self._free_gpus.put(gpu)

    def progress(self, stage: str, done: int, total: int) -> None:
        """Report progress; calls come from the worker threads one at a time."""
        if self._progress is not None:
            with self._progress_lock:
                self._progress(stage, done, total)

    def classify(self, error: dict | None) -> tuple[str | None, float]:
        if not error:
            return None, 0.0
        return classify_error(error.get("type"), error.get("message"), kb=self.kb, retriever=self.retriever,
                              traceback=error.get("traceback"))

    # --- the whole verification -------------------------------------------------------

    def verify(self) -> VerifyReport:
        self.progress("running original", 0, 1)
        original = self.run(self.code)
        reason = as_exit_reason(_field(original, "exit_reason"))
        error = _field(original, "error")
        env = _field(original, "environment") or {}
        entry_id, confidence = self.classify(error) if reason == ExitReason.ERROR else (None, 0.0)
        entry = self.kb.resolve(entry_id) if entry_id else None
        report = VerifyReport(
            reproduced=reason == ExitReason.ERROR and bool(error),
            exit_reason=reason,
            output=_field(original, "output", ""),
            error=_error_info(error, entry_id) if reason == ExitReason.ERROR else None,
            environment=env,
            fixes=[],
            confidence=confidence,
            output_truncated=bool(_field(original, "output_truncated", False)),
            seconds=_field(original, "wall_seconds"),
            peak_memory_bytes=_field(original, "peak_memory_bytes"),
            peak_gpu_memory_bytes=_field(original, "peak_gpu_memory_bytes"),
            limits=_field(original, "limits"),
            exit_detail=_field(original, "exit_detail"),
            cpu_seconds=_field(original, "cpu_seconds"),
            reads_own_source=bool(_field(original, "reads_own_source", False)),
            snippet_line=(error or {}).get("snippet_line") if reason == ExitReason.ERROR else None,
        )
        if entry is not None:
            report.entry_title = entry.title.get_text(self.lang)
            if entry.diagnosis:
                report.diagnosis = entry.diagnosis.get_text(self.lang)
        if _field(original, "supervisor_lost", False) is True:
            # Not "does not reproduce": the run ended without a word from the supervisor.
            report.supervisor_lost = True
            report.summary = ("the sandbox's supervisor was lost before it reported (" +
                              str(_field(original, "exit_detail", "") or "no detail") +
                              "), so nothing is known about the snippet: it was neither reproduced nor not "
                              "reproduced; run it again")
            self.progress("done", 1, 1)
            return report
        if not report.reproduced:
            report.summary = self._not_reproduced_summary(reason, env)
            self.progress("done", 1, 1)
            return report

        attempts = plan_attempts(entry, self.fixed_code, self.lang)
        report.patches_available = any(a.patch for a in attempts)
        failure = Failure.from_error(error, entry_id=entry_id, run=self.run)
        report.fixes = self._run_attempts(attempts, failure, original, entry_id)
        report.summary = self._summary(report, entry)
        return report

    def _run_attempts(self, attempts: list[Attempt], failure: Failure, original, entry_id) -> list[FixRow]:
        total = 1 + len(attempts)
        done = [1]  # runs finished, for progress only; the rows keep their order below
        count_lock = threading.Lock()
        self.progress("running original", 1, total)

        def job(index: int) -> FixRow:
            attempt = attempts[index]
            label = attempt.patch or attempt.workaround
            self.progress(f"fix {index + 1} of {len(attempts)}: {label}", done[0], total)
            try:
                return self._attempt(attempt, failure, original, entry_id)
            finally:
                with count_lock:
                    done[0] += 1

        if not attempts:
            rows = []
        elif self.parallel and len(attempts) > 1:
            workers = len(self.gpus) if self.gpus else min(len(attempts), os.cpu_count() or 1)
            with ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="verify") as pool:
                rows = list(pool.map(job, range(len(attempts))))
        else:
            rows = [job(i) for i in range(len(attempts))]
        self.progress("done", total, total)
        return rows

    # --- one attempt ----------------------------------------------------------------------

    def _apply(self, attempt: Attempt, failure: Failure) -> PatchResult:
        if attempt.kind == "user":
            return PatchResult.changed(attempt.code, "the asker's fixed version")
        try:
            patch = registry.get(attempt.patch)
        except KeyError:
            return PatchResult.not_applicable(f"no patch named {attempt.patch!r} is registered")
        try:
            return patch.apply(self.code, failure)
        except Exception as exc:  # noqa: BLE001 - a patch bug must not sink the whole verification
            return PatchResult.not_applicable(f"the patch failed on this snippet ({type(exc).__name__}: {exc})")

    def _attempt(self, attempt: Attempt, failure: Failure, original, entry_id) -> FixRow:
        row = FixRow(workaround=attempt.workaround, status=Status.NOT_APPLICABLE, error=None, seconds=None,
                     peak_memory_bytes=None, kind=attempt.kind, patch=attempt.patch, title=attempt.title)
        if attempt.kind == "dead_end":
            row.expected = attempt.leads_to or "not fixed"
        patched = self._apply(attempt, failure)
        if not patched.applicable:
            row.reason = patched.reason
            row.as_expected = None
            return row
        row.note = patched.note
        if attempt.kind != "user":
            row.diff = "".join(difflib.unified_diff(self.code.splitlines(True), patched.code.splitlines(True),
                                                    "snippet.py", f"snippet.py ({attempt.patch})", n=1))
        result = self.run(patched.code)
        reason = as_exit_reason(_field(result, "exit_reason"))
        row.exit_reason = reason
        row.reads_own_source = bool(_field(result, "reads_own_source", False))
        row.seconds = _field(result, "wall_seconds")
        row.peak_memory_bytes = _field(result, "peak_memory_bytes")
        row.peak_gpu_memory_bytes = _field(result, "peak_gpu_memory_bytes")
        row.memory_change = _change(row.peak_memory_bytes, _field(original, "peak_memory_bytes"))
        row.time_change = _change(row.seconds, _field(original, "wall_seconds"))
        output = _field(result, "output", "") or ""
        row.output_tail = output[-OUTPUT_TAIL:]
        if reason == ExitReason.OK:
            row.status = Status.FIXED
        elif reason == ExitReason.TIMEOUT:
            row.status = Status.TIMEOUT
        elif reason == ExitReason.ERROR:
            error = _field(result, "error") or {}
            new_id, new_conf = self.classify(error)
            row.error = _error_info(error, new_id)
            row.new_entry_id = new_id
            if _same_entry(self.kb, new_id, entry_id):
                row.status = Status.STILL_FAILS
            elif new_id is None and entry_id is None and error.get("type") == failure.type \
                    and error.get("message") == failure.message:
                row.status = Status.STILL_FAILS
            else:
                row.status = Status.NEW_ERROR
        else:  # memory, output_limit, killed: the run ended without an exception
            row.status = Status.NEW_ERROR
            row.error = ErrorInfo(type=f"sandbox: {reason}", message=LIMIT_MESSAGES.get(reason, str(reason)),
                                  entry_id=None)
            row.new_entry_id = None
        row.as_expected = self._as_expected(attempt, row)
        if _field(result, "supervisor_lost", False) is True:
            row.held_reason = SUPERVISOR_LOST  # an outcome nobody observed: never evidence
        elif _ended_early(original, result, row.status):
            row.held_reason = ENDED_EARLY
        return row

    def _as_expected(self, attempt: Attempt, row: FixRow) -> bool | None:
        """Does the run agree with the knowledge base (workaround fixes, dead end fails as said)?"""
        if attempt.kind == "workaround":
            return row.status == Status.FIXED
        if attempt.kind == "dead_end":
            if row.status == Status.FIXED:
                return False
            if row.status in (Status.STILL_FAILS, Status.NEW_ERROR):
                # Without `leads_to` the knowledge base only claims that it does not fix it.
                new_id = present(row.new_entry_id)
                return attempt.leads_to is None or _same_entry(self.kb, new_id, attempt.leads_to)
            return None
        return None

    # --- words ------------------------------------------------------------------------------

    def _not_reproduced_summary(self, reason: ExitReason | None, env: dict) -> str:
        torch = env.get("torch") or "this torch"
        if reason == ExitReason.OK:
            return (f"does not reproduce on torch {torch}: the snippet ran without an error "
                    "(a newer torch may have fixed it, or the snippet misses a step of the real code)")
        if reason == ExitReason.TIMEOUT:
            return "the snippet did not finish within the sandbox's time limit, so no error was captured"
        if reason in LIMIT_MESSAGES:
            return f"no error was captured: {LIMIT_MESSAGES[reason]}"
        return f"no error was captured (exit reason: {reason})"

    def _summary(self, report: VerifyReport, entry: Entry | None) -> str:
        err = report.error
        env = report.environment or {}
        head = f"Reproduced {err.type if err else None} on torch {env.get('torch', '?')}"
        if entry is None:
            head += "; it matches no known entry, so there are no patches to try."
        else:
            head += f": {entry.id} (confidence {report.confidence:.2f})."
        parts = [head]
        for row in report.fixes:
            parts.append(describe_fix(row))
        if entry is not None and not report.patches_available:
            diagnosis = report.diagnosis
            parts.append("There is no safe mechanical fix for this error"
                         + (f"; how to find the cause: {diagnosis}" if diagnosis else "."))
        return " ".join(p for p in parts if p)


def _sentence(name: str, status: str, *, memory_change: float | None, new_entry_id: str | None,
              error_type: str | None, error_message: str | None, reason: str | None) -> str:
    if status == Status.FIXED:
        extra = f" ({memory_change:+.1f}% peak memory)" if memory_change is not None else ""
        return f"{name} fixes it{extra}."
    if status == Status.STILL_FAILS:
        return f"{name} does not help: the same error again."
    if status == Status.NEW_ERROR:
        if new_entry_id:
            return f"{name} does not fix it: it raises {new_entry_id} instead."
        message = " ".join(f"{error_type}: {error_message}".split())
        return f"{name} does not fix it: it raises another error instead ({message[:150]})."
    if status == Status.TIMEOUT:
        return f"{name} did not finish within the time limit."
    return f"{name} could not be applied: {reason}."


def describe_fix(row: FixRow) -> str:
    """One sentence per fix row, e.g. "retain-graph fixes it (+2.1% memory)."."""
    name = "Your fixed version" if row.kind == "user" else row.patch or row.workaround
    return _sentence(name, row.status, memory_change=present(row.memory_change),
                     new_entry_id=present(row.new_entry_id), error_type=row.error.type if row.error else None,
                     error_message=row.error.message if row.error else None, reason=present(row.reason))


def describe_row(row: dict) -> str:
    """describe_fix for a row in its JSON form (an answer document's `verification`)."""
    name = "Your fixed version" if row["kind"] == "user" else row.get("patch") or row["workaround"]
    err = row.get("error") or {}
    return _sentence(name, row["status"], memory_change=row.get("memory_change"),
                     new_entry_id=row.get("new_entry_id"), error_type=err.get("type"),
                     error_message=err.get("message"), reason=row.get("reason"))


def verify_snippet(code: str, *, fixed_code: str | None = None, runner: Runner | None = None,
                   progress: Progress | None = None, parallel: bool = True, kb: KnowledgeBase | None = None,
                   lang: str = "en", gpus: list[str] | None = None, run_options: dict | None = None,
                   retriever: Retriever | None = None) -> VerifyReport:
    """Run `code`, classify its error, try every patched workaround and dead end of the
    matched entry (and `fixed_code`), and return the report (see the module docstring).

    `runner(code, **run_options)` runs one snippet (default: bot.sandbox.run_snippet);
    with `gpus`, each run gets `gpu=` one of them that no other run is using, and as
    many runs go at once as there are GPUs; without, up to the CPU count. `progress(stage, done, total)` is
    called as runs start and finish (from worker threads, one call at a time).
    Errors are classified by the entries' signatures; `retriever(type, message)`
    (e.g. the retrieval engine's `Engine.classify`) is asked when none matches."""
    if not isinstance(code, str) or not code.strip():
        raise ValueError("the snippet is empty")
    return _Verification(code, fixed_code=fixed_code, runner=runner, progress=progress, parallel=parallel,
                         kb=kb or current_knowledge(), lang=lang, gpus=gpus, run_options=run_options,
                         retriever=retriever).verify()
