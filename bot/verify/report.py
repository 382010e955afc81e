"""The verification report (`troubleshoot verify --json`): its typed model (VerifyReport,
FixRow), the status of each fix, the progress callback every executor and surface passes
through, and the report's human-readable form (`troubleshoot verify` without --json)."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Callable

from bot.contract import ABSENT, Absent, Document
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


STATUSES = tuple(status.value for status in Status)
EXIT_REASONS = ("ok", "error", "timeout", "memory", "output_limit", "killed")


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
    status: str  # a Status value
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
    exit_reason: str | None | Absent = ABSENT
    reads_own_source: bool | Absent = ABSENT
    peak_gpu_memory_bytes: int | None | Absent = ABSENT
    memory_change: float | None | Absent = ABSENT  # percent against the original run
    time_change: float | None | Absent = ABSENT
    output_tail: str | Absent = ABSENT
    new_entry_id: str | None | Absent = ABSENT  # ended in an error: the entry it was classified as
    as_expected: bool | None | Absent = ABSENT  # does the run agree with the knowledge base?


@dataclass
class VerifyReport(Document):
    """The whole report. The first six keys are the contract every report has (also one
    made for a lost worker or a job over its time, bot/jobs/reports.py); the run's
    measurements follow, then what the answer and the evidence store use, then what the
    executors and the version matrix add (notes, worker_lost, versions, matrix,
    version_summary, job)."""

    reproduced: bool
    exit_reason: str | None  # one of EXIT_REASONS
    output: str
    error: ErrorInfo | None
    environment: dict
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
    versions: list[dict] | Absent = ABSENT  # bot/verify/matrix.py: one row per torch release
    matrix: list[dict] | Absent = ABSENT
    version_summary: str | Absent = ABSENT
    job: dict | Absent = ABSENT  # bot/jobs: the job's id and executor

KINDS = {"workaround": "fix", "dead_end": "dead end", "user": "yours"}
RESULT_WIDTH = 28


def _bytes(n: int | None) -> str:
    return format_bytes(n) if n else "-"


def _seconds(s: float | None) -> str:
    return "-" if s is None else f"{s:.2f} s"


def _short(text: str | None, width: int) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _result(row: dict) -> str:
    status = row["status"]
    if status == "fixed":
        return "runs without error"
    if status == "still_fails":
        return "same error"
    if status == "new_error":
        error = row.get("error") or {}
        return row.get("new_entry_id") or f"{error.get('type')}: {error.get('message')}"
    if status == "timeout":
        return "time limit"
    return "could not apply"


def format_report(report: dict) -> str:
    out: list[str] = []
    env = report.get("environment") or {}
    cuda = env.get("device_name") or ("CUDA available" if env.get("cuda_available") else "no CUDA")
    if env.get("torch") or env.get("python"):
        where = f"torch {env.get('torch') or '?'}, python {env.get('python') or '?'}, {cuda}"
    else:  # a run that was stopped (time limit, killed) before it said where it ran
        where = "environment not known: the run ended before reporting it"
    error = report.get("error")
    timing = f"{_seconds(report.get('seconds'))}, peak memory {_bytes(report.get('peak_memory_bytes'))}"
    if report.get("reproduced") and error:
        out.append(f"Original run: {error['type']} ({timing}; {where})")
        out.extend("  " + line for line in textwrap.wrap(_short(error["message"], 600), 100))
        if error.get("entry_id"):
            title = report.get("entry_title")
            out.append(f"Matched: {error['entry_id']}" + (f" - {title}" if title else "")
                       + f" (confidence {report.get('confidence', 0):.2f})")
        else:
            out.append("Matched: no known entry")
    else:
        out.append(f"Original run: {report.get('exit_reason')} ({timing}; {where})")
        tail = (report.get("output") or "").strip().splitlines()[-10:]
        if tail:
            out.append("Output (last lines):")
            out.extend("  " + _short(line, 160) for line in tail)
    fixes = report.get("fixes") or []
    if fixes:
        out.append("")
        out.append(f"Fixes tried ({len(fixes)}):")
        headers = ("#", "kind", "workaround", "patch", "status", "result", "time", "memory")
        rows = []
        for i, row in enumerate(fixes, 1):
            change = row.get("memory_change")
            rows.append((str(i), KINDS.get(row.get("kind"), row.get("kind") or ""), row["workaround"],
                         row.get("patch") or "-", row["status"], _short(_result(row), RESULT_WIDTH),
                         _seconds(row.get("seconds")), "-" if change is None else f"{change:+.1f}%"))
        widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
        for line in [headers] + rows:
            out.append("  " + "  ".join(cell.ljust(w) for cell, w in zip(line, widths)).rstrip())
        out.append("")
        out.append("What each one changed:")
        for i, row in enumerate(fixes, 1):
            what = row.get("note") if row["status"] != "not_applicable" else f"not applied: {row.get('reason')}"
            out.append(f"  {i}. {_short(what, 300)}")
    if report.get("summary"):
        out.append("")
        out.extend(textwrap.wrap("Summary: " + report["summary"], 100))
    limits = report.get("limits") or []
    if limits:
        out.append("")
        out.append("Sandbox limits: " + "; ".join(limits[:6]) + (f"; and {len(limits) - 6} more (see --json)" if len(limits) > 6 else ""))
    return "\n".join(out)
