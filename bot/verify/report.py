"""The verification report (`troubleshoot verify --json`): its typed model (VerifyReport,
FixRow), the status of each fix and the exit reason of a run (StrEnums: the JSON carries
their values), the progress callback every executor and surface passes through, the
recorder a surface hands to the one verification path (`ReportRecorder`, see
bot/verify/service.py), and the report's human-readable form (`troubleshoot verify`
without --json)."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Callable, Protocol

from bot.contract import ABSENT, Absent, Document, present
from bot.sandbox.limits import format_bytes

# progress(stage, done, total): "queued", "running original", "fix k of n: ...", "done"
Progress = Callable[[str, int, int], None]


class Status(StrEnum):
    """What one fix did to the error; the report's JSON carries the value."""

    FIXED = "fixed"
    STILL_FAILS = "still_fails"
    NEW_ERROR = "new_error"
    NOT_APPLICABLE = "not_applicable"
    TIMEOUT = "timeout"


class ExitReason(StrEnum):
    """How a run ended (bot.sandbox's exit reasons); the report's JSON carries the value."""

    OK = "ok"
    ERROR = "error"
    TIMEOUT = "timeout"
    MEMORY = "memory"
    OUTPUT_LIMIT = "output_limit"
    KILLED = "killed"


def as_exit_reason(value: ExitReason | str | None) -> ExitReason | None:
    """The enum member of an exit reason read from a run or from JSON (an unknown one raises)."""
    return None if value is None else ExitReason(value)


@dataclass
class ErrorInfo(Document):
    """The error a run raised, and the knowledge entry it was classified as (None: no entry)."""

    type: str | None
    message: str | None
    entry_id: str | None


@dataclass
class FixRow(Document):
    """One row of `fixes`: a workaround or dead end of the matched entry tried on the
    snippet, or the asker's own fixed version. Keys in field order; those left ABSENT
    are not in the JSON (a patch that did not apply has `reason`, one that ran has the
    run's fields)."""

    workaround: str  # the workaround's or dead end's id in the entry, or "user-fixed"
    status: Status
    error: ErrorInfo | None
    seconds: float | None
    peak_memory_bytes: int | None
    kind: str  # "workaround", "dead_end" or "user"
    patch: str | None
    title: str | None
    expected: str | Absent = ABSENT  # a dead end: the error it is said to raise, or "not fixed"
    reason: str | Absent = ABSENT  # not applied: why
    note: str | Absent = ABSENT  # applied: what the patch changed
    diff: str | Absent = ABSENT  # applied (not the asker's own version): the unified diff
    exit_reason: ExitReason | None | Absent = ABSENT
    reads_own_source: bool | Absent = ABSENT
    peak_gpu_memory_bytes: int | None | Absent = ABSENT
    memory_change: float | None | Absent = ABSENT  # percent against the original run
    time_change: float | None | Absent = ABSENT
    output_tail: str | Absent = ABSENT
    new_entry_id: str | None | Absent = ABSENT  # ended in an error: the entry it was classified as
    as_expected: bool | None | Absent = ABSENT  # does the run agree with the knowledge base?

    def __post_init__(self) -> None:
        # from_json (a worker's report, the store) hands over the JSON's strings
        self.status = Status(self.status)
        if not isinstance(self.exit_reason, Absent):
            self.exit_reason = as_exit_reason(self.exit_reason)


@dataclass
class VerifyReport(Document):
    """The whole report. The first six keys are the contract every report has (also one
    made for a lost worker or a job over its time, bot/jobs/reports.py); the run's
    measurements follow, then what the answer and the evidence store use, then what the
    executors and the version matrix add (notes, worker_lost, job, versions, matrix,
    version_summary)."""

    reproduced: bool
    exit_reason: ExitReason | None
    output: str
    error: ErrorInfo | None
    environment: dict[str, Any]
    fixes: list[FixRow] = field(default_factory=list)
    confidence: float | Absent = ABSENT
    output_truncated: bool | Absent = ABSENT
    seconds: float | None | Absent = ABSENT
    peak_memory_bytes: int | None | Absent = ABSENT
    peak_gpu_memory_bytes: int | None | Absent = ABSENT
    limits: list[str] | None | Absent = ABSENT
    exit_detail: str | None | Absent = ABSENT
    cpu_seconds: float | None | Absent = ABSENT
    reads_own_source: bool | Absent = ABSENT
    snippet_line: int | None | Absent = ABSENT
    entry_title: str | Absent = ABSENT
    diagnosis: str | Absent = ABSENT
    patches_available: bool | Absent = ABSENT
    summary: str | Absent = ABSENT
    notes: list[str] | Absent = ABSENT  # bot/verify/service.py: runs the job's budget left out
    worker_lost: bool | Absent = ABSENT  # bot/jobs: the worker died mid-job
    # bot/jobs: the GPU failed its canary (why): the run says nothing about the snippet, and is not evidence
    infrastructure_error: str | Absent = ABSENT
    job: dict[str, Any] | Absent = ABSENT  # bot/jobs: the job's id and executor
    # bot/verify/matrix.py (after `job`: a matrix is combined from the executors' reports)
    versions: list[dict[str, Any]] | Absent = ABSENT  # one row per torch release
    matrix: list[dict[str, Any]] | Absent = ABSENT
    version_summary: str | Absent = ABSENT

    def __post_init__(self) -> None:
        self.exit_reason = as_exit_reason(self.exit_reason)

    def add_note(self, note: str) -> None:
        if isinstance(self.notes, Absent):
            self.notes = []
        self.notes.append(note)


class ReportRecorder(Protocol):
    """Records a finished report as evidence (bot.evidence.record.Recording is the one
    the surfaces use; verify/ sits below evidence/ and knows only this protocol)."""

    def save(self, report: VerifyReport, snippet: str) -> int | None: ...


KINDS = {"workaround": "fix", "dead_end": "dead end", "user": "yours"}
RESULT_WIDTH = 28


def _bytes(n: int | None | Absent) -> str:
    return format_bytes(n) if isinstance(n, int) and n else "-"


def _seconds(s: float | None | Absent) -> str:
    return "-" if s is None or isinstance(s, Absent) else f"{s:.2f} s"


def _short(given: str | None | Absent, width: int) -> str:
    text = " ".join(given.split()) if isinstance(given, str) else ""
    return text if len(text) <= width else text[: width - 1] + "…"


def _result(row: FixRow) -> str:
    if row.status == Status.FIXED:
        return "runs without error"
    if row.status == Status.STILL_FAILS:
        return "same error"
    if row.status == Status.NEW_ERROR:
        if isinstance(row.new_entry_id, str) and row.new_entry_id:
            return row.new_entry_id
        error = row.error
        return f"{error.type if error else None}: {error.message if error else None}"
    if row.status == Status.TIMEOUT:
        return "time limit"
    return "could not apply"


def format_report(report: VerifyReport) -> str:
    out: list[str] = []
    env = report.environment or {}
    cuda = env.get("device_name") or ("CUDA available" if env.get("cuda_available") else "no CUDA")
    if env.get("torch") or env.get("python"):
        where = f"torch {env.get('torch') or '?'}, python {env.get('python') or '?'}, {cuda}"
    else:  # a run that was stopped (time limit, killed) before it said where it ran
        where = "environment not known: the run ended before reporting it"
    error = report.error
    timing = f"{_seconds(report.seconds)}, peak memory {_bytes(report.peak_memory_bytes)}"
    if report.reproduced and error:
        out.append(f"Original run: {error.type} ({timing}; {where})")
        out.extend("  " + line for line in textwrap.wrap(_short(error.message, 600), 100))
        if error.entry_id:
            title = report.entry_title
            confidence = 0 if isinstance(report.confidence, Absent) else report.confidence
            out.append(f"Matched: {error.entry_id}" + (f" - {title}" if title else "")
                       + f" (confidence {confidence:.2f})")
        else:
            out.append("Matched: no known entry")
    else:
        out.append(f"Original run: {report.exit_reason} ({timing}; {where})")
        tail = (report.output or "").strip().splitlines()[-10:]
        if tail:
            out.append("Output (last lines):")
            out.extend("  " + _short(line, 160) for line in tail)
    fixes = report.fixes
    if fixes:
        out.append("")
        out.append(f"Fixes tried ({len(fixes)}):")
        headers = ("#", "kind", "workaround", "patch", "status", "result", "time", "memory")
        rows = []
        for i, row in enumerate(fixes, 1):
            change = row.memory_change
            rows.append((str(i), KINDS.get(row.kind, row.kind or ""), row.workaround,
                         row.patch or "-", str(row.status), _short(_result(row), RESULT_WIDTH),
                         _seconds(row.seconds),
                         "-" if change is None or isinstance(change, Absent) else f"{change:+.1f}%"))
        widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
        for line in [headers, *rows]:
            out.append("  " + "  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)).rstrip())
        out.append("")
        out.append("What each one changed:")
        for i, row in enumerate(fixes, 1):
            reason = present(row.reason)
            what = row.note if row.status != Status.NOT_APPLICABLE else f"not applied: {reason}"
            out.append(f"  {i}. {_short(what, 300)}")
    if isinstance(report.summary, str) and report.summary:
        out.append("")
        out.extend(textwrap.wrap("Summary: " + report.summary, 100))
    limits = report.limits if isinstance(report.limits, list) else []
    if limits:
        out.append("")
        out.append("Sandbox limits: " + "; ".join(limits[:6])
                   + (f"; and {len(limits) - 6} more (see --json)" if len(limits) > 6 else ""))
    return "\n".join(out)
