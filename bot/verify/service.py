"""The one verification path. Every surface (`troubleshoot verify`, `verify --queue`,
the Slack Verify button, `kb verify`) ends here, whichever executor runs it (the
executors in bot/jobs only decide where and when):

    run_verification(code, fixed_code=None, gpu=None, progress=None, job_seconds=600, record=None)

runs bot.verify.verify_snippet with the same classifier everywhere (the entries'
signatures, then the retrieval engine for an error no signature knows) and every sandbox
run cut to what is left of the job's time budget, and returns the typed report
(VerifyReport; `.as_json()` is the `troubleshoot verify --json` document).

Run and record are one path: `record` is how the surface wants the report kept as
evidence, `bot.evidence.record.Recording(surface, asker, consent, answer_id=None,
store=None)`. verify/ sits below evidence/ in the layer stack, so it cannot import it:
it knows only the `ReportRecorder` protocol (bot/verify/report.py, one method, `save`),
and the surfaces, which sit above evidence/, pass evidence's Recording in. A surface
whose report comes from somewhere else (a Celery worker, which never writes to the
store) hands the same Recording to the executor, which saves the report once it is back
(bot/jobs/remote.py); no surface calls the store's recording itself.
"""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from typing import Any, Callable

from bot.kb.model import KnowledgeBase
from bot.sandbox import Limits, RunResult, run_snippet
from bot.sandbox.warm import WarmRunner, ZygotePool, preload_list
from bot.sandbox.zygote import shared_state_reason
from bot.settings import get_settings
from bot.verify.report import Progress, ReportRecorder, VerifyReport
from bot.verify.verify import verify_snippet

MIN_RUN_SECONDS = 1.0  # a run that would get less than this is not started


def engine_classifier(type_: str | None, message: str) -> tuple[str | None, float]:
    """The retrieval engine's classifier, loaded on first use (it costs seconds to load
    the embedder, paid only for errors no signature recognises)."""
    from bot.retrieval.engine import get_engine  # lazy: torch and the embedder load only when needed

    return get_engine().classify(type_, message)


class BudgetRunner:
    """run_snippet with each run's wall-clock limit cut to the job's remaining budget, so
    that the whole job ends before the task's soft time limit."""

    def __init__(self, deadline: float, runner: Callable[..., Any] | None = None):
        self.deadline = deadline
        self._runner = runner
        self._lock = threading.Lock()
        self.skipped = 0

    def __call__(self, code: str, **options):
        runner = self._runner or run_snippet
        remaining = self.deadline - time.monotonic()
        if remaining < MIN_RUN_SECONDS:
            with self._lock:
                self.skipped += 1
            # Not run at all: report it as a timeout, and say why in the notes.
            return RunResult(exit_reason="timeout", exit_code=None, signal=None, error=None, output="",
                             output_truncated=False, wall_seconds=0.0, peak_memory_bytes=None,
                             peak_gpu_memory_bytes=None, environment={}, limits=[], sandbox={},
                             notes=["not run: the job's time budget (TROUBLESHOOT_JOB_SECONDS) was spent"])
        limits = options.pop("limits", None) or Limits()
        if limits.wall_seconds > remaining:
            limits = replace(limits, wall_seconds=remaining)
        return runner(code, limits=limits, **options)


def run_verification(code: str, *, fixed_code: str | None = None, gpu: str | None = None,
                     progress: Progress | None = None, job_seconds: float | None = None,
                     runner: Callable[..., Any] | None = None, info: dict | None = None, lang: str = "en",
                     kb: KnowledgeBase | None = None, environment=None, pool: ZygotePool | None = None,
                     job: dict[str, Any] | None = None, record: ReportRecorder | None = None) -> VerifyReport:
    """The report of `code` (and `fixed_code`); with `record`, saved as evidence before
    it is returned (see the module docstring).

    `job_seconds`: the budget of all runs (default the TROUBLESHOOT_JOB_SECONDS setting);
    `info`: where it ran (the executor's worker description), kept in
    report.environment["worker"]; `kb`: another knowledge base than the project's;
    `environment`: a torch environment (bot.envs.Environment) whose packages the sandbox
    mounts instead of the worker's own (report.environment["torch_env"] names it);
    `pool`: the worker's warm sandboxes started ahead (bot.sandbox.warm), one taken for
    this job; `job`: the executor's id of the job (report.job, the evidence's report key).
    Without a `runner`, the runs go through a warm sandbox (the setting
    TROUBLESHOOT_WARM_SANDBOX) and fall back to one sandbox per run, with a note."""
    settings = get_settings()
    if job_seconds is None:
        job_seconds = settings.job_seconds
    warm = None
    # Network state and pids are shared or differ between warm siblings: a snippet that
    # uses them gets a sandbox per run (issue 27), and the report says why.
    own_sandboxes = shared_state_reason(code) or shared_state_reason(fixed_code or "")
    if runner is None and settings.warm_sandbox and own_sandboxes is None:
        # One warm sandbox for this job's runs: torch (and the snippet's own heavy
        # imports) load once, and every variant is a fresh child of it.
        warm = WarmRunner(preload=preload_list(code) + preload_list(fixed_code or ""), pool=pool)
    budget = BudgetRunner(time.monotonic() + job_seconds, warm or runner)
    run_options = {"site_packages": environment.site_packages} if environment is not None else None
    try:
        report = verify_snippet(code, fixed_code=fixed_code, runner=budget, progress=progress,
                                gpus=[gpu] if gpu is not None else None, lang=lang, kb=kb,
                                retriever=engine_classifier, run_options=run_options)
    finally:
        if warm is not None:
            warm.close()
    if warm is not None and warm.cold_runs:
        report.add_note(
            f"{warm.cold_runs} run(s) in a sandbox of their own instead of the warm one: {'; '.join(warm.why_cold())}")
    if runner is None and settings.warm_sandbox and own_sandboxes is not None:
        report.add_note(f"every run in a sandbox of its own instead of a warm one: {own_sandboxes}")
    env = report.environment
    if not isinstance(env, dict):
        env = report.environment = {}
    if info is not None:
        env["worker"] = info
    if environment is not None:
        env["torch_env"] = environment.describe()
        if not env.get("torch"):  # a run that never started (budget spent) still names its torch
            env["torch"] = environment.torch
    if budget.skipped:
        report.add_note(f"{budget.skipped} run(s) not started: the job's time budget of {job_seconds:g} s was spent")
    if job is not None:
        report.job = job
    if record is not None:
        record.save(report, code)
    return report
