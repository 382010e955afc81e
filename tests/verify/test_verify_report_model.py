"""The verify report (bot/verify/report.py): the `verify --json` contract as a typed model.
Reports from the real verification code (with scripted sandbox runs, so that every kind
of row appears) read back into the model and give the same JSON, key for key and in the
same order; the model's keys are the documented contract. tests/verify/test_verify_snippet.py
reads a report of real sandbox runs back the same way."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest

from bot.verify import verify_snippet
from bot.verify.report import ErrorInfo, ExitReason, FixRow, Status, VerifyReport

# The contract of `troubleshoot verify --json` as the design states it (docs/cli.md repeats it).
DESIGN_REPORT = ("reproduced", "exit_reason", "output", "error", "environment", "fixes")
DESIGN_ERROR = ("type", "message", "entry_id")
DESIGN_FIX = ("workaround", "status", "error", "seconds", "peak_memory_bytes")
DESIGN_STATUSES = ("fixed", "still_fails", "new_error", "not_applicable", "timeout")
DESIGN_EXIT_REASONS = ("ok", "error", "timeout", "memory", "output_limit", "killed")

SEED = (Path(__file__).resolve().parent / "data" / "seed000_backward_twice.py").read_text()
FIXED = SEED.replace("loss.backward()\nloss.backward()", "loss.backward(retain_graph=True)\nloss.backward()")
SECOND_BACKWARD = ("Trying to backward through the graph a second time (or directly access saved tensors after "
                   "they have already been freed).")
BT_ERROR = {"type": "RuntimeError", "message": SECOND_BACKWARD, "snippet_line": 22,
            "frames": [{"file": "snippet.py", "line": 22, "function": "<module>", "in_snippet": True}]}


@dataclass
class Run:
    """What a sandbox run reports (the fields verification reads from bot.sandbox.RunResult)."""

    exit_reason: str
    error: dict | None = None
    output: str = "output\n"
    output_truncated: bool = False
    wall_seconds: float = 1.5
    peak_memory_bytes: int | None = 1_000_000
    peak_gpu_memory_bytes: int | None = None
    environment: dict = field(default_factory=lambda: {"torch": "2.13.0", "python": "3.12.3"})
    limits: list = field(default_factory=lambda: ["seccomp filter", "memory 2 GiB"])
    exit_detail: str = "exited with 1"
    cpu_seconds: float | None = 0.4
    reads_own_source: bool = False


def scripted(*outcomes: tuple[str, Run]):
    """A runner that answers by what the code holds (the first marker found), the last by default."""
    def run(code: str, **_options):
        return next((r for marker, r in outcomes if marker in code), outcomes[-1][1])
    return run


SCRIPTS = {
    "fixes, dead ends, a memory limit": scripted(
        ("retain_graph=True", Run("ok", wall_seconds=2.0, peak_memory_bytes=1_100_000)),
        (".detach()", Run("error", {"type": "RuntimeError", "message": "element 0 of tensors does not require "
                                                                        "grad and does not have a grad_fn"})),
        ("no_grad", Run("memory")),
        ("", Run("error", BT_ERROR))),
    "a fix that times out": scripted(("retain_graph=True", Run("timeout")), ("", Run("error", BT_ERROR))),
    "no error": scripted(("", Run("ok"))),
    "killed before it said where": scripted(("", Run("killed", environment={}))),
    "a patch that finds nothing to change": scripted(
        ("", Run("error", dict(BT_ERROR, snippet_line=12, frames=[])))),
}


def _same_json(report: dict, model: VerifyReport) -> bool:
    return json.dumps(model.as_json(), ensure_ascii=False) == json.dumps(report, ensure_ascii=False)


def test_the_model_keys_are_the_documented_contract():
    assert VerifyReport.required_keys() == DESIGN_REPORT
    assert ErrorInfo.keys() == DESIGN_ERROR
    assert FixRow.keys()[:len(DESIGN_FIX)] == DESIGN_FIX
    assert FixRow.required_keys() == DESIGN_FIX + ("kind", "patch", "title")
    assert tuple(Status) == DESIGN_STATUSES and tuple(ExitReason) == DESIGN_EXIT_REASONS


@pytest.mark.parametrize("script", SCRIPTS)
def test_reports_of_the_real_code_round_trip_through_the_model(script):
    statuses = set()
    for fixed in (None, FIXED):
        typed = verify_snippet(SEED, fixed_code=fixed, runner=SCRIPTS[script], parallel=False, lang="ko")
        assert isinstance(typed, VerifyReport)
        report = typed.as_json()
        model = VerifyReport.from_json(json.loads(json.dumps(report)))  # as a worker's report comes back
        assert _same_json(report, model) and model == typed
        assert all(isinstance(row.status, Status) for row in model.fixes)
        assert model.exit_reason is None or isinstance(model.exit_reason, ExitReason)
        assert all(isinstance(row, FixRow) for row in model.fixes)
        assert model.error is None or isinstance(model.error, ErrorInfo)
        for row in report["fixes"]:
            assert tuple(row)[:len(DESIGN_FIX)] == DESIGN_FIX and row["status"] in DESIGN_STATUSES
            statuses.add(row["status"])
        assert report["exit_reason"] in DESIGN_EXIT_REASONS
    if script == "fixes, dead ends, a memory limit":
        assert statuses == {"fixed", "still_fails", "new_error"}
    elif script == "a fix that times out":
        assert "timeout" in statuses
    elif script == "a patch that finds nothing to change":
        assert "not_applicable" in statuses


def test_what_the_executors_and_the_matrix_add_is_in_the_model():
    from bot.jobs.reports import over_time_report, worker_lost_report
    from bot.jobs.settings import JobSettings
    from bot.verify.matrix import combine
    from bot.verify.service import run_verification

    one = run_verification(SEED, runner=SCRIPTS["fixes, dead ends, a memory limit"], info={"hostname": "w1"},
                           job_seconds=600, job={"id": "j1", "executor": "local"})  # what an executor adds
    other = replace(one, environment={"torch": "2.9.1", "torch_env": {"version": "2.9.1", "name": "torch-2.9.1"}})
    matrix = combine([one, other])
    reports = [one, matrix, worker_lost_report("j2", "the worker went away", starts=2),
               over_time_report(JobSettings(redis_url=None), {"hostname": "w1"})]
    for report in reports:
        data = json.loads(json.dumps(report.as_json()))
        assert _same_json(data, VerifyReport.from_json(data))
    assert tuple(one.as_json())[-1] == "job"
    # A matrix combined from the executors' reports: their first one's keys, job included, then the matrix's.
    assert tuple(matrix.as_json())[-4:] == ("job", "versions", "matrix", "version_summary")
    assert reports[1].versions[1]["environment"]["version"] == "2.9.1"
    assert reports[2].exit_reason == ExitReason.KILLED and reports[3].exit_reason == ExitReason.TIMEOUT


def test_the_model_refuses_keys_outside_the_contract():
    report = verify_snippet(SEED, runner=SCRIPTS["no error"], parallel=False).as_json()
    with pytest.raises(ValueError, match="surprise"):
        VerifyReport.from_json(dict(report, surprise=True))
    with pytest.raises(ValueError, match="feedback"):  # an exit reason no run has
        VerifyReport.from_json(dict(report, exit_reason="feedback"))
