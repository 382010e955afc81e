"""`troubleshoot verify FILE.py [--fixed FIXED.py] [--queue] [--json]`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from bot.jobs.base import JobError
from bot.jobs.local import LocalExecutor
from bot.jobs.settings import ConfigError, JobSettings, redact_url
from bot.sandbox import sandbox_available
from bot.text import InputError
from bot.verify.report import format_report

PROG = "troubleshoot verify"


def read_snippet(path: str, what: str) -> str:
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{what} {path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{what} {path}: is a folder, not a Python file") from None
    except OSError as exc:
        raise InputError(f"{what} {path}: cannot read it ({exc.strerror})") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{what} {path}: not UTF-8 text (byte {exc.start}); save it as UTF-8") from None
    if not text.strip():
        raise InputError(f"{what} {path}: the file is empty")
    return text


def _fail(prog: str, message: str) -> int:
    print(f"{prog}: {message}", file=sys.stderr)
    return 2


def verify(args) -> int:
    if getattr(args, "queue", False):
        return verify_queued(args)  # submit through the broker, wait for the report
    try:
        code = read_snippet(args.file, "snippet")
        fixed = read_snippet(args.fixed, "--fixed") if getattr(args, "fixed", None) else None
    except InputError as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 2

    ok, why = sandbox_available()
    if not ok:
        print(f"{PROG}: the sandbox cannot run on this machine: {why}", file=sys.stderr)
        return 2

    progress = None
    if not args.json and sys.stderr.isatty():
        def progress(stage: str, done: int, total: int) -> None:
            print(f"[{done}/{total}] {stage}", file=sys.stderr, flush=True)

    # Here, in this process: the local executor (the one path of bot/verify/service.py,
    # with the job's time budget); --queue sends the same job to a worker.
    try:
        executor = LocalExecutor(JobSettings.from_env())
        report = executor.verify(code, progress, fixed_code=fixed)
    except (ConfigError, JobError, ValueError) as exc:  # ValueError: a snippet over the size limit
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 3 if isinstance(exc, JobError) else 2
    record_cli_verification(args, report, code, surface="cli")
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        print(format_report(report))
    return 0


# --- troubleshoot verify --queue ------------------------------------------------------------------

def verify_queued(args) -> int:
    """Submit FILE.py (and --fixed) through the broker, wait, print the report."""
    prog = "troubleshoot verify --queue"
    try:
        settings = JobSettings.from_env()
    except ConfigError as exc:
        return _fail(prog, str(exc))
    if not settings.redis_url:
        return _fail(prog, "no broker configured: REDIS_URL is not set; point it at the broker a worker listens on "
                           "(e.g. redis://localhost:6379/0), or run without --queue to verify here")
    try:
        code = read_snippet(args.file, "snippet")
        fixed = read_snippet(args.fixed, "--fixed") if getattr(args, "fixed", None) else None
    except InputError as exc:
        return _fail(prog, str(exc))

    from bot.jobs.remote import CeleryExecutor  # lazy: Celery and Redis load only for --queue

    show = not args.json and sys.stderr.isatty()

    def progress(stage: str, done: int, total: int) -> None:
        if show:
            print(f"[{done}/{total}] {stage}", file=sys.stderr, flush=True)

    executor = CeleryExecutor(settings)
    try:
        job = executor.submit(code, progress, fixed_code=fixed)
        if not executor.workers():
            print(f"{prog}: no worker is online: job {job.id} waits in the queue until one starts "
                  f"(`troubleshoot worker` with REDIS_URL={redact_url(settings.redis_url)})", file=sys.stderr,
                  flush=True)
        report = job.result(settings.wait_seconds)
    except JobError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 3
    record_cli_verification(args, report, code, surface="queue")  # here, not on the worker (bot/evidence/record.py)
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        print(format_report(report))
        if report.get("worker_lost"):
            print(report.get("summary", "worker lost"))
    return 1 if report.get("worker_lost") else 0


def record_cli_verification(args, report: dict, snippet: str, surface: str) -> None:
    """`troubleshoot verify` (and --queue): record unless --no-record; say so on stderr
    when it fails."""
    from bot.evidence.record import cli_asker, record_verification  # lazy: SQLAlchemy only when recording

    if getattr(args, "no_record", False):
        return
    try:
        asker = cli_asker()
    except Exception:  # noqa: BLE001 - recording reports its own failure below
        asker = None
    if record_verification(report, snippet, consent=bool(getattr(args, "keep_snippet", False)),
                           surface=surface, asker=asker) is None and not report.get("worker_lost"):
        print("troubleshoot verify: the result was not recorded as evidence (see the log); "
              "--no-record skips recording", file=sys.stderr)
