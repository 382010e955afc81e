"""What every `troubleshoot` command shares: exit codes, diagnostics on stderr (with
-q/-v), bounded reading of files and stdin, and the log file that keeps the traceback
of an unexpected error (the user sees one line and its path).

Exit codes (docs/cli.md lists them; `troubleshoot --help` repeats them):

    0  answered, verified, done
    1  a problem with the input (a file that cannot be read, empty, too large, binary,
       not Python, malformed lines, knowledge files with errors)
    2  usage or configuration (a bad option or setting, an unknown id, a port in use)
    3  a service or resource is unreachable (database, broker, Slack, sandbox, index folder)
    4  it ran, but nothing was verified (no fix worked, the run timed out)
    5  an internal error (a bug): one line on stderr, the traceback in the log file
    130  interrupted (Ctrl-C)
"""

from __future__ import annotations

import os
import select
import sys
from dataclasses import dataclass
from pathlib import Path

OK = 0
EXIT_INPUT = 1
EXIT_USAGE = 2
EXIT_SERVICE = 3
EXIT_NOTHING_VERIFIED = 4
EXIT_INTERNAL = 5
EXIT_INTERRUPTED = 130

EXIT_CODES = {
    OK: "answered, verified, done",
    EXIT_INPUT: "a problem with the input (unreadable, empty, too large, binary, not Python, malformed)",
    EXIT_USAGE: "usage or configuration (bad option or setting, unknown id, port in use)",
    EXIT_SERVICE: "a service or resource is unreachable (database, broker, Slack, sandbox, index folder)",
    EXIT_NOTHING_VERIFIED: "it ran, but nothing was verified (no fix worked, the run timed out)",
    EXIT_INTERNAL: "internal error (a bug); the traceback is in the log file named on stderr",
    EXIT_INTERRUPTED: "interrupted (Ctrl-C)",
}

# -q: errors only; default: errors, warnings and notes; -v: also progress details.
_verbosity = 1


class CliError(Exception):
    """Stops a command with one line on stderr and an exit code."""

    def __init__(self, message: str, code: int = EXIT_INPUT):
        super().__init__(message)
        self.code = code


def set_verbosity(level: int) -> None:
    global _verbosity
    _verbosity = level


def verbosity() -> int:
    return _verbosity


def note(prog: str, message: str, level: int = 1) -> None:
    """A diagnostic on stderr (never stdout); hidden by -q unless level is 0."""
    if _verbosity >= level:
        print(f"{prog}: {message}", file=sys.stderr, flush=True)


def fail(prog: str, message: str, code: int) -> int:
    print(f"{prog}: {message}", file=sys.stderr, flush=True)
    return code


def safe_streams() -> None:
    """Characters the terminal's encoding cannot show are replaced, never a crash
    (PYTHONIOENCODING=ascii, a Windows console redirect)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="replace")
        except (AttributeError, ValueError):
            pass


def log_path() -> Path:
    from bot import settings

    return settings.var_dir() / "logs" / "cli.log"


def log_traceback(prog: str, exc: BaseException) -> Path | None:
    """Append the traceback to the CLI log; its path, or None when it cannot be written."""
    import traceback
    from datetime import datetime, timezone

    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    stamp = datetime.now(timezone.utc).isoformat(timespec="seconds")
    candidates = []
    try:
        candidates.append(log_path())
    except Exception:  # noqa: BLE001 - a bad setting: fall back to the temp folder
        pass
    import tempfile

    candidates.append(Path(tempfile.gettempdir()) / "troubleshoot-cli.log")
    for path in candidates:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "a", encoding="utf-8", errors="replace") as handle:
                handle.write(f"--- {stamp} {prog} (pid {os.getpid()}, argv {sys.argv[1:]!r})\n{text}\n")
            return path
        except OSError:
            continue
    return None


# --- bounded input ------------------------------------------------------------------------


@dataclass
class Input:
    data: bytes
    name: str  # what to call it in messages: the path, or "stdin"


def _limit_text(limit: int, setting: str) -> str:
    if limit >= 1 << 20 and limit % (1 << 20) == 0:
        size = f"{limit >> 20} MiB"
    elif limit >= 1024 and limit % 1024 == 0:
        size = f"{limit >> 10} KiB"
    else:
        size = f"{limit} bytes"
    return f"{size} ({setting}={limit})"


def read_bounded(source: str, *, what: str, limit: int, setting: str, idle_seconds: float = 0.0,
                 prompt: str | None = None, advice: str = "raise the limit if it must be read whole") -> Input:
    """Read a file, or stdin for "-", stopping past `limit` bytes with an error that
    names the limit and its setting. Stdin that sends nothing for `idle_seconds`
    without ending (`tail -f`, a forgotten pipe) is an error, not a silent hang; a
    terminal gets `prompt` first."""
    if source == "-":
        if sys.stdin is None or sys.stdin.closed:
            raise CliError(f"{what}: stdin is closed", EXIT_INPUT)
        fd = sys.stdin.fileno()
        tty = os.isatty(fd)
        if tty and prompt:
            print(prompt, file=sys.stderr, flush=True)
        data = _read_fd(fd, limit, what="stdin" if what == "input" else f"{what} (stdin)", setting=setting,
                        idle_seconds=0.0 if tty else idle_seconds, advice=advice)
        return Input(data, "stdin")
    path = Path(source)
    try:
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise CliError(f"{what} {source}: no such file", EXIT_INPUT) from None
    except IsADirectoryError:
        raise CliError(f"{what} {source}: is a folder, not a file", EXIT_INPUT) from None
    except OSError as exc:
        raise CliError(f"{what} {source}: cannot read it ({exc.strerror})", EXIT_INPUT) from None
    try:
        import stat

        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise CliError(f"{what} {source}: is a folder, not a file", EXIT_INPUT)
        return Input(_read_fd(fd, limit, what=f"{what} {source}", setting=setting,
                              idle_seconds=0.0 if stat.S_ISREG(mode) else (idle_seconds or 10.0), advice=advice),
                     source)
    finally:
        os.close(fd)


def _read_fd(fd: int, limit: int, *, what: str, setting: str, idle_seconds: float, advice: str) -> bytes:
    chunks: list[bytes] = []
    size = 0
    blocking = os.get_blocking(fd)
    if idle_seconds > 0 and blocking:
        os.set_blocking(fd, False)
    try:
        while True:
            if idle_seconds > 0:
                ready, _, _ = select.select([fd], [], [], idle_seconds)
                if not ready:
                    raise CliError(
                        f"{what}: nothing arrived for {idle_seconds:g} s and the input did not end "
                        f"(is it `tail -f` or an open terminal?). Pipe a finished file or text, "
                        f"or set TROUBLESHOOT_STDIN_IDLE_SECONDS=0 to wait forever", EXIT_INPUT)
            try:
                chunk = os.read(fd, min(1 << 16, limit + 1 - size))
            except BlockingIOError:
                if idle_seconds <= 0:
                    select.select([fd], [], [])
                continue
            except OSError as exc:
                raise CliError(f"{what}: cannot read it ({exc.strerror})", EXIT_INPUT) from None
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                raise CliError(f"{what} is larger than the limit of {_limit_text(limit, setting)}; {advice}",
                               EXIT_INPUT)
    finally:
        if idle_seconds > 0 and blocking:
            try:
                os.set_blocking(fd, True)
            except OSError:
                pass
    return b"".join(chunks)


def decode_text(data: bytes, what: str, prog: str) -> str:
    """Text from bytes: UTF-8, BOM-marked UTF-16, or a detected legacy encoding
    (said on stderr); binary data is an input error."""
    from bot.retrieval.clean import InputError, decode_bytes_detected

    try:
        text, encoding = decode_bytes_detected(data)
    except InputError as exc:
        raise CliError(f"{what}: {exc}", EXIT_INPUT) from None
    if encoding:
        note(prog, f"{what} is not UTF-8; read it as {encoding}")
    return text
