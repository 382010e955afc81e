"""The version matrix: one snippet verified on several torch releases side by side.

Each release runs through the one verification path (service.run_verification with
that release's environment mounted in the sandbox), so each column is a complete
report of its own; `combine` puts them together:

    report = combine([report_on_2_9_1, report_on_2_13_0])
    report.versions == [{"environment": {"torch": "2.9.1", ...}, "reproduced": ...,
                            "error": ..., "fixes": [...]}, ...]

The top level stays the report of the first release asked for (so every reader of a
plain `verify --json` report can read this one), plus "versions" and "matrix" (per
fix, its status on each release) and a summary across releases. The columns are the
releases' reports in their JSON form (the contract's "versions" rows).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable

from bot.contract import Absent
from bot.verify.report import ReportRecorder, Status, VerifyReport
from bot.verify.service import Progress, run_verification

VERSION_KEYS = ("reproduced", "exit_reason", "error", "fixes", "confidence", "summary", "seconds",
                "peak_memory_bytes", "entry_title", "snippet_line", "notes")
SHORT = {Status.FIXED: "fixed", Status.STILL_FAILS: "same error", Status.NEW_ERROR: "other error",
         Status.NOT_APPLICABLE: "n/a", Status.TIMEOUT: "time limit"}
FAILED = (Status.STILL_FAILS, Status.NEW_ERROR, Status.TIMEOUT)


def environment_of(report: dict) -> dict:
    """What a version's column says about where it ran: the host's facts of the run
    (torch read from the mounted folder) and the environment's name."""
    env = report.get("environment") or {}
    named = env.get("torch_env") or {}
    return {"torch": env.get("torch") or named.get("torch"), "version": named.get("version") or env.get("torch"),
            "cuda": env.get("cuda"), "python": env.get("python"), "device": env.get("device_name") or
            ("cpu" if not env.get("gpu") else f"gpu {env.get('gpu')}"), "name": named.get("name"),
            "worker": (env.get("worker") or {}).get("name") or (env.get("worker") or {}).get("hostname")}


def version_row(report: VerifyReport) -> dict:
    data = report.as_json()
    row = {"environment": environment_of(data)}
    for key in VERSION_KEYS:
        if key in data:
            row[key] = data[key]
    return row


def _label(env: dict) -> str:
    return str(env.get("version") or env.get("torch") or "?")


def fix_matrix(rows: list[dict]) -> list[dict]:
    """Per fix (in the order first seen), its status on each release; a fix not tried on
    a release (the error did not reproduce there, or matched another entry) is None."""
    order: list[str] = []
    info: dict[str, dict] = {}
    for row in rows:
        for fix in row.get("fixes") or []:
            key = fix.get("workaround")
            if key not in info:
                order.append(key)
                info[key] = {"workaround": key, "patch": fix.get("patch"), "kind": fix.get("kind"), "status": {}}
    for row in rows:
        label = _label(row["environment"])
        statuses = {f.get("workaround"): f.get("status") for f in row.get("fixes") or []}
        for key in order:
            info[key]["status"][label] = statuses.get(key)
    return [info[k] for k in order]


def _message(error: dict | None) -> str:
    return " ".join(str((error or {}).get("message") or "").split())


def summarize(rows: list[dict], matrix: list[dict]) -> str:
    labels = [_label(r["environment"]) for r in rows]
    repro = [lab for lab, r in zip(labels, rows, strict=True) if r.get("reproduced")]
    not_repro = [lab for lab, r in zip(labels, rows, strict=True) if not r.get("reproduced")]
    parts = []
    if not repro:
        parts.append(f"Does not reproduce on torch {', '.join(labels)}.")
    else:
        errors = {lab: r.get("error") or {} for lab, r in zip(labels, rows, strict=True) if r.get("reproduced")}
        kinds = {(e.get("type"), e.get("entry_id")) for e in errors.values()}
        if len(kinds) == 1:
            etype, entry = next(iter(kinds))
            parts.append(f"Reproduced {etype}" + (f" ({entry})" if entry else "") + f" on torch {', '.join(repro)}"
                         + (f"; not on {', '.join(not_repro)}." if not_repro else "."))
        else:
            parts.append("Reproduced on torch " + "; ".join(
                f"{lab}: {e.get('type')} ({e.get('entry_id') or 'no known entry'})" for lab, e in errors.items())
                + (f"; not on {', '.join(not_repro)}." if not_repro else "."))
        if len({_message(e) for e in errors.values()}) > 1:
            parts.append("The error's wording differs between releases.")
    for fix in matrix:
        held = [lab for lab, st in fix["status"].items() if st == Status.FIXED]
        failed = [lab for lab, st in fix["status"].items() if st in FAILED]
        name = fix.get("patch") or fix["workaround"]
        if held and failed:
            parts.append(f"{name} holds on {', '.join(held)} but not on {', '.join(failed)}.")
        elif held:
            parts.append(f"{name} holds on {', '.join(held)}.")
        elif failed:
            parts.append(f"{name} does not fix it on {', '.join(failed)}.")
    return " ".join(parts)


def combine(reports: list[VerifyReport]) -> VerifyReport:
    """One report from the reports of the same snippet on several releases (in the order
    asked for): the first one's fields, plus versions, matrix and a summary across them."""
    if not reports:
        raise ValueError("no reports to combine")
    rows = [version_row(r) for r in reports]
    matrix = fix_matrix(rows)
    return replace(reports[0], versions=rows, matrix=matrix, version_summary=summarize(rows, matrix))


def run_matrix(code: str, environments: list, *, fixed_code: str | None = None, gpu: str | None = None,
               progress: Progress | None = None, job_seconds: float | None = None,
               runner: Callable[..., Any] | None = None, info: dict | None = None, lang: str = "en",
               kb=None, record: ReportRecorder | None = None) -> VerifyReport:
    """Verify `code` (and `fixed_code`) on each environment in turn (each with the job's
    whole time budget) and combine the reports. With `record`, each release's report is
    evidence of its own (under its own torch)."""
    reports = []
    for env in environments:
        def step(stage: str, done: int, total: int, _v=env.version) -> None:
            if progress is not None:
                progress(f"torch {_v}: {stage}", done, total)

        reports.append(run_verification(code, fixed_code=fixed_code, gpu=gpu, progress=step, job_seconds=job_seconds,
                                        runner=runner, info=info, lang=lang, kb=kb, environment=env, record=record))
    return combine(reports)


def format_matrix(report: VerifyReport) -> str:
    """The text form: a table with a row per fix and a column per release."""
    rows = [] if isinstance(report.versions, Absent) else report.versions
    labels = [_label(r["environment"]) for r in rows]
    table: list[tuple[str, ...]] = []
    header = ("", *[f"torch {lab}" for lab in labels])
    orig = []
    for r in rows:
        if r.get("reproduced"):
            err = r.get("error") or {}
            entry = f" ({err['entry_id'].split('/')[-1]})" if err.get("entry_id") else ""
            orig.append(f"{err.get('type')}{entry}")
        else:
            orig.append(f"no error ({r.get('exit_reason')})")
    table.append(("original", *orig))
    for fix in [] if isinstance(report.matrix, Absent) else report.matrix:
        name = fix.get("patch") or fix["workaround"]
        if fix.get("kind") == "dead_end":
            name += " (dead end)"
        table.append((name, *[SHORT.get(fix["status"].get(lab), "-") if fix["status"].get(lab) else "-"
                              for lab in labels]))
    widths = [max(len(line[i]) for line in [header, *table]) for i in range(len(header))]
    out = ["  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)).rstrip() for line in [header, *table]]
    out.append("")
    for r, lab in zip(rows, labels, strict=True):
        env = r["environment"]
        err = r.get("error") or {}
        where = f"torch {env.get('torch')} ({'CUDA ' + env['cuda'] if env.get('cuda') else 'CPU build'})"
        said = f"{err.get('type')}: {_message(err)[:200]}" if r.get("reproduced") else (r.get("summary") or "")[:200]
        out.append(f"{lab}: {where}: {said}")
    if isinstance(report.version_summary, str) and report.version_summary:
        out.append("")
        out.append("Summary: " + report.version_summary)
    return "\n".join(out)
