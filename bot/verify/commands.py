"""`troubleshoot verify FILE.py [--fixed FIXED.py] [--queue] [--json]`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

PROG = "troubleshoot verify"


class InputError(Exception):
    pass


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


def verify(args) -> int:
    if getattr(args, "queue", False):
        from bot.jobs.commands import verify_queued  # submit through the broker, wait for the report

        return verify_queued(args)
    try:
        code = read_snippet(args.file, "snippet")
        fixed = read_snippet(args.fixed, "--fixed") if getattr(args, "fixed", None) else None
    except InputError as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 2

    from bot.sandbox import sandbox_available

    ok, why = sandbox_available()
    if not ok:
        print(f"{PROG}: the sandbox cannot run on this machine: {why}", file=sys.stderr)
        return 2

    from bot.jobs.executor import JobError
    from bot.jobs.local import LocalExecutor
    from bot.jobs.settings import ConfigError, JobSettings
    from bot.verify.report import format_report

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
    from bot.evidence.record import record_cli_verification

    record_cli_verification(args, report, code, surface="cli")
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        print(format_report(report))
    return 0
