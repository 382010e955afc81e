"""`troubleshoot verify FILE.py [--fixed FIXED.py] [--queue] [--json]`.

Exit 0 when a fix worked (or the snippet runs without error), 4 when it ran but
nothing was verified (no fix worked, no known entry, a timeout), 1 for a snippet that
cannot be used (unreadable, too large, not UTF-8, not Python), 3 when the sandbox or
the broker cannot be reached, 130 on Ctrl-C (every running sandbox is killed at once).
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from types import FrameType
from typing import TYPE_CHECKING, Any

from bot.cli.common import evidence_recording, note, say_unrecorded
from bot.errors import ConfigurationError, InputError, NothingVerified, Unavailable
from bot.jobs.settings import JobSettings, redact_url
from bot.text.inputs import read_text

from bot.verify.report import ExitReason, Status, VerifyReport

if TYPE_CHECKING:
    from bot.envs import Environment
    from bot.evidence.record import Recording
    from bot.jobs.remote import CeleryExecutor
    from bot.verify.report import Progress

PROG = "troubleshoot verify"


def read_snippet(path: str, what: str) -> str:
    """The snippet's text: bounded (TROUBLESHOOT_MAX_SNIPPET_BYTES), UTF-8, not empty, and
    Python that compiles (a syntax error or another kind of file is said here, before
    anything runs). '-' reads stdin."""
    from bot.settings import get_settings

    cfg = get_settings()
    name = f"{what} {path}" if path != "-" else f"{what} (stdin)"
    text = read_text(path, what=what, limit=cfg.max_snippet_bytes, setting="TROUBLESHOOT_MAX_SNIPPET_BYTES",
                     idle_seconds=cfg.stdin_idle_seconds, advice="cut it down to a minimal repro or raise the limit",
                     name=name, refuse_binary=False).text  # compile() says a NUL byte is not Python
    try:
        compile(text, path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        lineno = getattr(exc, "lineno", None)
        where = f" line {lineno}" if lineno else ""
        message = getattr(exc, "msg", None) or str(exc)
        raise InputError(f"{name}{where}: not Python that runs ({type(exc).__name__}: {message}). verify runs a "
                         f"repro snippet; to ask about an error message use `troubleshoot ask`") from None
    return text


def _verified(report: VerifyReport) -> bool:
    """Something was verified; on several releases (`--torch`), on one of them at least."""
    return any(_release_verified(row) for row in report.versions or [report.as_json()])


def _release_verified(row: dict[str, Any]) -> bool:
    """A fix (not a dead end) fixed the error, or the snippet ran without error, in one
    report's JSON (a matrix's rows are JSON: bot/verify/matrix.py)."""
    if not row.get("reproduced"):
        return row.get("exit_reason") == ExitReason.OK
    return any(fix.get("status") == Status.FIXED and fix.get("kind") != "dead_end" for fix in row.get("fixes") or [])


def stop_unless_verified(report: VerifyReport) -> int:
    """After the report is printed: 0 when something was verified; else NothingVerified (no
    fix worked, nothing to try, a timeout), or Unavailable when the worker or the
    sandbox's supervisor was lost, or the GPU failed. The report said why: nothing more goes to stderr."""
    if report.worker_lost is True or report.supervisor_lost is True or isinstance(report.infrastructure_error, str):
        raise Unavailable("")
    if not _verified(report):
        raise NothingVerified("")
    return 0


def _read_inputs(args: argparse.Namespace) -> tuple[str, str | None]:
    if args.file == "-" and getattr(args, "fixed", None) == "-":
        raise ConfigurationError("stdin ('-') can be the snippet or --fixed, not both")
    code = read_snippet(args.file, "snippet")
    fixed = read_snippet(args.fixed, "--fixed") if getattr(args, "fixed", None) else None
    return code, fixed


class _Interrupts:
    """Ctrl-C while sandboxes run: kill them all at once, ignore further Ctrl-C while
    the runs clean up (cgroups, folders), then stop with KeyboardInterrupt."""

    def __init__(self) -> None:
        self.previous: Any = None
        self.hit = False
        self.killed = 0

    def __enter__(self) -> _Interrupts:
        if threading.current_thread() is threading.main_thread():
            self.previous = signal.signal(signal.SIGINT, self._on_sigint)
        return self

    def _on_sigint(self, _signum: int, _frame: FrameType | None) -> None:
        if self.hit:
            return
        self.hit = True
        from bot.sandbox.runner import cancel_all

        self.killed = cancel_all()
        raise KeyboardInterrupt

    def __exit__(self, *exc: object) -> None:
        if self.previous is not None:
            signal.signal(signal.SIGINT, self.previous)


def parse_versions(text: str | None) -> list[str]:
    """--torch 2.9.1,2.13.0 -> ["2.9.1", "2.13.0"] (order kept, repeats dropped); a value
    that names no release is a ConfigurationError (an option's value, docs/cli.md)."""
    from bot.envs.store import EnvError, check_version

    out: list[str] = []
    for part in (text or "").split(","):
        if part.strip():
            try:
                version = check_version(part)
            except EnvError as exc:
                raise ConfigurationError(f"--torch: {exc}") from None
            if version not in out:
                out.append(version)
    if not out:
        raise ConfigurationError("--torch: name at least one torch release, e.g. --torch 2.9.1,2.13.0")
    return out


def local_environments(versions: list[str], envs_dir: str | None = None) -> list[Environment]:
    """The environments of `versions` on this machine; ConfigurationError naming those there are.
    A release that is this machine's own torch needs no environment: the sandbox then
    mounts nothing and runs on the worker's torch (bot.envs.HostEnvironment)."""
    from bot.envs import EnvStore, host_environment

    store = EnvStore(envs_dir)
    envs = {v: store.get(v) or host_environment(v) for v in versions}
    missing = [v for v, e in envs.items() if e is None]
    if missing:
        have = ", ".join(store.versions()) or "none"
        raise ConfigurationError(f"--torch: no environment for torch {', '.join(missing)} on this machine (installed: "
                         f"{have}; this machine's own torch is {_own_torch()}); add one with "
                         f"`troubleshoot envs add {missing[0]}`")
    return [env for env in envs.values() if env is not None]


def _own_torch() -> str:
    from bot.envs.store import host_torch

    found = host_torch()
    return found[0] if found else "none"


def verify(args: argparse.Namespace) -> int:
    if getattr(args, "queue", False):
        return verify_queued(args)  # submit through the broker, wait for the report
    if getattr(args, "torch", None):
        return verify_matrix(args)
    code, fixed = _read_inputs(args)

    from bot.sandbox import sandbox_available

    ok, why = sandbox_available()
    if not ok:
        raise Unavailable(f"the sandbox cannot run on this machine: {why}")

    from bot.jobs.local import LocalExecutor
    from bot.verify.report import format_report

    progress = _progress(PROG, args)

    # Here, in this process: the local executor (the one path of bot/verify/service.py,
    # with the job's time budget); --queue sends the same job to a worker. A malformed job
    # setting, a snippet over the size limit and a job that could not run raise the
    # failures of their kind (bot/errors.py).
    recording = cli_recording(args, "cli")
    executor = None
    interrupts = _Interrupts()
    try:
        with interrupts:
            executor = LocalExecutor(JobSettings.from_env(), warm_pool=False)  # one job: no pool
            job = executor.submit(code, progress, fixed_code=fixed, record=recording)
            report = job.result()
    except KeyboardInterrupt:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the clean-up below is not interrupted
        from bot.sandbox.runner import cancel_all

        killed = cancel_all() or interrupts.killed
        if executor is not None:
            executor.shutdown(wait=True)  # each run removes its cgroup and folder
        raise KeyboardInterrupt(f"stopped {killed} running sandbox(es) and cleaned up") from None
    finally:
        if executor is not None:
            executor.shutdown(wait=False)
    say_unrecorded(PROG, recording)
    if args.json:
        print(json.dumps(report.as_json(), indent=2, ensure_ascii=False))
    else:
        print(format_report(report))
    return stop_unless_verified(report)


def _progress(prog: str, args: argparse.Namespace) -> Progress | None:
    """`[n/m] stage` lines on stderr, only on a terminal and without --json."""
    if args.json or not sys.stderr.isatty():
        return None

    def progress(stage: str, done: int, total: int) -> None:
        note(prog, f"[{done}/{total}] {stage}")

    return progress


# --- troubleshoot verify --torch V1,V2 ----------------------------------------------------------

def verify_matrix(args: argparse.Namespace) -> int:
    """The snippet and every fix on each torch release, here (environments of this machine)."""
    args.prog = f"{PROG} --torch"  # what its errors are said under
    envs = local_environments(parse_versions(args.torch), getattr(args, "envs_dir", None))
    code = read_snippet(args.file, "snippet")
    fixed = read_snippet(args.fixed, "--fixed") if getattr(args, "fixed", None) else None
    from bot.sandbox import sandbox_available

    ok, why = sandbox_available()
    if not ok:
        raise Unavailable(f"the sandbox cannot run on this machine: {why}")
    from bot.jobs.verification import check_snippet, worker_info
    from bot.verify.matrix import format_matrix, run_matrix

    check_snippet(code)
    settings = JobSettings.from_env()
    progress: Progress | None = None
    if not args.json and sys.stderr.isatty():
        def progress(stage: str, done: int, total: int) -> None:
            print(f"[{done}/{total}] {stage}", file=sys.stderr, flush=True)

    recording = cli_recording(args, "cli")  # each release's run is evidence of its own (under its own torch)
    report = run_matrix(code, envs, fixed_code=fixed, progress=progress, job_seconds=settings.job_seconds,
                        info=worker_info(None, executor="local"), record=recording)
    say_unrecorded(PROG, recording, "release(s) were")
    if args.json:
        print(json.dumps(report.as_json(), indent=2, ensure_ascii=False))
    else:
        print(format_matrix(report))
    return stop_unless_verified(report)


# --- troubleshoot verify --queue ------------------------------------------------------------------

def verify_queued(args: argparse.Namespace) -> int:
    """Submit FILE.py (and --fixed) through the broker, wait, print the report."""
    prog = args.prog = "troubleshoot verify --queue"  # what its errors are said under
    settings = JobSettings.from_env()
    if not settings.redis_url:
        raise ConfigurationError("no broker configured: REDIS_URL is not set; point it at the broker a worker "
                                 "listens on (e.g. redis://localhost:6379/0), or run without --queue to verify here")
    args.prog = PROG  # a snippet's problems are said as plain `verify` says them
    code, fixed = _read_inputs(args)
    args.prog = prog

    from bot.jobs.remote import CeleryExecutor

    show = not args.json and sys.stderr.isatty()

    def progress(stage: str, done: int, total: int) -> None:
        if show:
            note(prog, f"[{done}/{total}] {stage}")

    executor = CeleryExecutor(settings)
    if getattr(args, "torch", None):
        return _queued_matrix(args, executor, code, fixed, progress)
    # Recorded here when the report comes back, not on the worker (bot/evidence/record.py).
    recording = cli_recording(args, "queue")
    try:  # a job that could not run raises JobError, an Unavailable
        job = executor.submit(code, progress, fixed_code=fixed, record=recording)
        if not executor.workers():
            note(prog, f"no worker is online: job {job.id} waits in the queue until one starts "
                       f"(`troubleshoot worker` with REDIS_URL={redact_url(settings.redis_url)})")
        report = job.result(settings.wait_seconds)
    except (OSError, TimeoutError) as exc:  # a broker that stopped answering mid-wait
        raise Unavailable(f"the broker at {redact_url(settings.redis_url)} stopped answering "
                          f"({type(exc).__name__}: {exc})") from None
    say_unrecorded(PROG, recording)
    if args.json:
        print(json.dumps(report.as_json(), indent=2, ensure_ascii=False))
    else:
        from bot.verify.report import format_report

        print(format_report(report))
        if report.worker_lost is True:
            print(report.summary or "worker lost")
        elif isinstance(report.infrastructure_error, str):
            print(report.summary)
    return stop_unless_verified(report)


def _queued_matrix(args: argparse.Namespace, executor: CeleryExecutor, code: str, fixed: str | None,
                   progress: Progress) -> int:
    args.prog = "troubleshoot verify --queue --torch"  # what its errors are said under
    from bot.verify.matrix import format_matrix

    # An unknown release is a ConfigurationError; a job that could not run a JobError (Unavailable).
    versions = parse_versions(args.torch)
    recording = cli_recording(args, "queue")
    report = executor.verify_matrix(code, versions, progress, fixed_code=fixed, record=recording)
    say_unrecorded(PROG, recording, "release(s) were")
    print(json.dumps(report.as_json(), indent=2, ensure_ascii=False) if args.json else format_matrix(report))
    return stop_unless_verified(report)


def cli_recording(args: argparse.Namespace, surface: str) -> Recording | None:
    """`troubleshoot verify`'s evidence: none with --no-record, the snippet's text only with --keep-snippet."""
    return evidence_recording(surface, enabled=not getattr(args, "no_record", False),
                              consent=bool(getattr(args, "keep_snippet", False)))
