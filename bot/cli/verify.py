"""`troubleshoot verify FILE.py [--fixed FIXED.py] [--queue] [--json]`.

Exit 0 when a fix worked (or the snippet runs without error), 4 when it ran but
nothing was verified (no fix worked, no known entry, a timeout), 1 for a snippet that
cannot be used (unreadable, too large, not UTF-8, not Python), 3 when the sandbox or
the broker cannot be reached, 130 on Ctrl-C (every running sandbox is killed at once).
"""

from __future__ import annotations

import json
import signal
import sys
import threading

from bot.cli.common import (EXIT_INPUT, EXIT_INTERRUPTED, EXIT_NOTHING_VERIFIED, EXIT_SERVICE, EXIT_USAGE, CliError,
                            fail, note, read_bounded)
from bot.jobs.settings import ConfigError, JobSettings, redact_url
from bot.text import InputError
from bot.verify.report import ExitReason, Status, VerifyReport

PROG = "troubleshoot verify"


def read_snippet(path: str, what: str, *, stdin_taken: list | None = None) -> str:
    """The snippet's text: bounded (TROUBLESHOOT_MAX_SNIPPET_BYTES), UTF-8, not empty, and
    Python that compiles (a syntax error or another kind of file is said here, before
    anything runs). '-' reads stdin."""
    from bot.settings import get_settings

    cfg = get_settings()
    try:
        got = read_bounded(path, what=what, limit=cfg.max_snippet_bytes, setting="TROUBLESHOOT_MAX_SNIPPET_BYTES",
                           idle_seconds=cfg.stdin_idle_seconds,
                           advice="cut it down to a minimal repro or raise the limit")
    except CliError as exc:
        raise InputError(str(exc)) from None
    name = f"{what} {path}" if path != "-" else f"{what} (stdin)"
    try:
        text = got.data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{name}: not UTF-8 text (byte {exc.start}); save it as UTF-8") from None
    if not text.strip():
        raise InputError(f"{name}: the file is empty")
    try:
        compile(text, path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        where = f" line {exc.lineno}" if getattr(exc, "lineno", None) else ""
        message = getattr(exc, "msg", None) or str(exc)
        raise InputError(f"{name}{where}: not Python that runs ({type(exc).__name__}: {message}). verify runs a "
                         f"repro snippet; to ask about an error message use `troubleshoot ask`") from None
    return text


def verdict(report: VerifyReport) -> int:
    """0 when something was verified: a fix (not a dead end) fixed the error, or the
    snippet ran without error; 4 otherwise (no fix worked, nothing to try, a timeout)."""
    if report.worker_lost is True:
        return EXIT_SERVICE
    if not report.reproduced:
        return 0 if report.exit_reason == ExitReason.OK else EXIT_NOTHING_VERIFIED
    fixed = [row for row in report.fixes if row.status == Status.FIXED and row.kind != "dead_end"]
    return 0 if fixed else EXIT_NOTHING_VERIFIED


def _read_inputs(args, prog: str) -> tuple[str, str | None]:
    if args.file == "-" and getattr(args, "fixed", None) == "-":
        raise CliError("stdin ('-') can be the snippet or --fixed, not both", EXIT_USAGE)
    try:
        code = read_snippet(args.file, "snippet")
        fixed = read_snippet(args.fixed, "--fixed") if getattr(args, "fixed", None) else None
    except InputError as exc:
        raise CliError(str(exc), EXIT_INPUT) from None
    return code, fixed


class _Interrupts:
    """Ctrl-C while sandboxes run: kill them all at once, ignore further Ctrl-C while
    the runs clean up (cgroups, folders), then stop with KeyboardInterrupt."""

    def __init__(self):
        self.previous = None
        self.hit = False
        self.killed = 0

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            self.previous = signal.signal(signal.SIGINT, self._on_sigint)
        return self

    def _on_sigint(self, _signum, _frame):
        if self.hit:
            return
        self.hit = True
        from bot.sandbox.runner import cancel_all

        self.killed = cancel_all()
        raise KeyboardInterrupt

    def __exit__(self, *exc):
        if self.previous is not None:
            signal.signal(signal.SIGINT, self.previous)
        return False


def parse_versions(text: str | None) -> list[str]:
    """--torch 2.9.1,2.13.0 -> ["2.9.1", "2.13.0"] (order kept, repeats dropped)."""
    from bot.envs.store import EnvError, check_version

    out: list[str] = []
    for part in (text or "").split(","):
        if part.strip():
            try:
                version = check_version(part)
            except EnvError as exc:
                raise InputError(f"--torch: {exc}") from None
            if version not in out:
                out.append(version)
    if not out:
        raise InputError("--torch: name at least one torch release, e.g. --torch 2.9.1,2.13.0")
    return out


def local_environments(versions: list[str], envs_dir: str | None = None) -> list:
    """The environments of `versions` on this machine; InputError naming those there are."""
    from bot.envs import EnvStore

    store = EnvStore(envs_dir)
    envs = {v: store.get(v) for v in versions}
    missing = [v for v, e in envs.items() if e is None]
    if missing:
        have = ", ".join(store.versions()) or "none"
        raise InputError(f"--torch: no environment for torch {', '.join(missing)} on this machine (installed: "
                         f"{have}); add one with `troubleshoot envs add {missing[0]}`")
    return [envs[v] for v in versions]


def verify(args) -> int:
    if getattr(args, "queue", False):
        return verify_queued(args)  # submit through the broker, wait for the report
    if getattr(args, "torch", None):
        return verify_matrix(args)
    code, fixed = _read_inputs(args, PROG)

    from bot.sandbox import sandbox_available

    ok, why = sandbox_available()
    if not ok:
        return fail(PROG, f"the sandbox cannot run on this machine: {why}", EXIT_SERVICE)

    from bot.jobs.base import JobError
    from bot.jobs.local import LocalExecutor
    from bot.verify.report import format_report

    progress = None
    if not args.json and sys.stderr.isatty():
        def progress(stage: str, done: int, total: int) -> None:
            note(PROG, f"[{done}/{total}] {stage}")

    # Here, in this process: the local executor (the one path of bot/verify/service.py,
    # with the job's time budget); --queue sends the same job to a worker.
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
        print(f"\n{PROG}: interrupted; stopped {killed} running sandbox(es) and cleaned up", file=sys.stderr,
              flush=True)
        return EXIT_INTERRUPTED
    except ConfigError as exc:
        return fail(PROG, str(exc), EXIT_USAGE)
    except ValueError as exc:  # a snippet over the size limit
        return fail(PROG, str(exc), EXIT_INPUT)
    except JobError as exc:
        return fail(PROG, str(exc), EXIT_SERVICE)
    finally:
        if executor is not None:
            executor.shutdown(wait=False)
    say_unrecorded(recording)
    if args.json:
        print(json.dumps(report.as_json(), indent=2, ensure_ascii=False))
    else:
        print(format_report(report))
    return verdict(report)


def _fail(prog: str, message: str, code: int = EXIT_INPUT) -> int:
    return fail(prog, message, code)


# --- troubleshoot verify --torch V1,V2 ----------------------------------------------------------

def verify_matrix(args) -> int:
    """The snippet and every fix on each torch release, here (environments of this machine)."""
    prog = f"{PROG} --torch"
    try:
        versions = parse_versions(args.torch)
        envs = local_environments(versions, getattr(args, "envs_dir", None))
    except InputError as exc:  # an unknown or missing release: configuration (docs/cli.md)
        return _fail(prog, str(exc), EXIT_USAGE)
    try:
        code = read_snippet(args.file, "snippet")
        fixed = read_snippet(args.fixed, "--fixed") if getattr(args, "fixed", None) else None
    except InputError as exc:
        return _fail(prog, str(exc))
    from bot.sandbox import sandbox_available

    ok, why = sandbox_available()
    if not ok:
        return _fail(prog, f"the sandbox cannot run on this machine: {why}")
    from bot.jobs.verification import check_snippet, worker_info
    from bot.verify.matrix import format_matrix, run_matrix

    try:
        check_snippet(code)
        settings = JobSettings.from_env()
    except (ConfigError, ValueError) as exc:
        return _fail(prog, str(exc))
    progress = None
    if not args.json and sys.stderr.isatty():
        def progress(stage: str, done: int, total: int) -> None:
            print(f"[{done}/{total}] {stage}", file=sys.stderr, flush=True)

    recording = cli_recording(args, "cli")  # each release's run is evidence of its own (under its own torch)
    report = run_matrix(code, envs, fixed_code=fixed, progress=progress, job_seconds=settings.job_seconds,
                        info=worker_info(None, executor="local"), record=recording)
    say_unrecorded(recording, "release(s) were")
    if args.json:
        print(json.dumps(report.as_json(), indent=2, ensure_ascii=False))
    else:
        print(format_matrix(report))
    return 0


# --- troubleshoot verify --queue ------------------------------------------------------------------

def verify_queued(args) -> int:
    """Submit FILE.py (and --fixed) through the broker, wait, print the report."""
    prog = "troubleshoot verify --queue"
    try:
        settings = JobSettings.from_env()
    except ConfigError as exc:
        return fail(prog, str(exc), EXIT_USAGE)
    if not settings.redis_url:
        return fail(prog, "no broker configured: REDIS_URL is not set; point it at the broker a worker listens on "
                          "(e.g. redis://localhost:6379/0), or run without --queue to verify here", EXIT_USAGE)
    code, fixed = _read_inputs(args, prog)

    from bot.jobs.base import JobError
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
    try:
        job = executor.submit(code, progress, fixed_code=fixed, record=recording)
        if not executor.workers():
            note(prog, f"no worker is online: job {job.id} waits in the queue until one starts "
                       f"(`troubleshoot worker` with REDIS_URL={redact_url(settings.redis_url)})")
        report = job.result(settings.wait_seconds)
    except JobError as exc:
        return fail(prog, str(exc), EXIT_SERVICE)
    except (OSError, TimeoutError) as exc:  # a broker that stopped answering mid-wait
        return fail(prog, f"the broker at {redact_url(settings.redis_url)} stopped answering "
                          f"({type(exc).__name__}: {exc})", EXIT_SERVICE)
    say_unrecorded(recording)
    if args.json:
        print(json.dumps(report.as_json(), indent=2, ensure_ascii=False))
    else:
        from bot.verify.report import format_report

        print(format_report(report))
        if report.worker_lost is True:
            print(report.summary or "worker lost")
    return verdict(report)


def _queued_matrix(args, executor, code: str, fixed: str | None, progress) -> int:
    prog = "troubleshoot verify --queue --torch"
    from bot.jobs.base import JobError
    from bot.verify.matrix import format_matrix

    try:
        versions = parse_versions(args.torch)
        recording = cli_recording(args, "queue")
        report = executor.verify_matrix(code, versions, progress, fixed_code=fixed, record=recording)
    except InputError as exc:
        return _fail(prog, str(exc))
    except JobError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 3
    say_unrecorded(recording, "release(s) were")
    print(json.dumps(report.as_json(), indent=2, ensure_ascii=False) if args.json else format_matrix(report))
    return 0


def cli_recording(args, surface: str):
    """How `troubleshoot verify` keeps its reports as evidence (bot.evidence.record.Recording):
    under this machine's user, the snippet's text only with --keep-snippet; None with
    --no-record (nothing is recorded)."""
    from bot.evidence.record import Recording, cli_asker

    if getattr(args, "no_record", False):
        return None
    try:
        asker = cli_asker()
    except Exception:  # noqa: BLE001 - recording reports its own failure (say_unrecorded)
        asker = None
    return Recording(surface, asker, consent=bool(getattr(args, "keep_snippet", False)))


def say_unrecorded(recording, what: str = "") -> None:
    """On stderr, when reports could not be stored (the log says why)."""
    if recording is None or not recording.failed:
        return
    if what:
        print(f"troubleshoot verify: {recording.failed} {what} not recorded as evidence (see the log); "
              "--no-record skips recording", file=sys.stderr)
    else:
        note("troubleshoot verify", "the result was not recorded as evidence (see the log); "
                                    "--no-record skips recording")
