"""What every `troubleshoot` command shares: exit codes, diagnostics on stderr (with
-q/-v), and the log file that keeps the traceback of an unexpected error (the user sees
one line and its path). Files and stdin are read by bot/text/inputs.py (bounded).

A command raises one of the failures of bot/errors.py; `bot.cli.main` turns it into its
exit code (its EXIT_OF, the one mapping) and says the message under the command's name
(`args.prog` where a command set one, e.g. "troubleshoot verify --torch").

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
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.evidence.record import Recording

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


def set_verbosity(level: int) -> None:
    global _verbosity
    _verbosity = level


def verbosity() -> int:
    return _verbosity


def note(prog: str, message: str, level: int = 1) -> None:
    """A diagnostic on stderr (never stdout); hidden by -q unless level is 0."""
    if _verbosity >= level:
        print(f"{prog}: {message}", file=sys.stderr, flush=True)


def safe_streams() -> None:
    """Characters the terminal's encoding cannot show are replaced, never a crash
    (PYTHONIOENCODING=ascii, a Windows console redirect), and control characters (ESC,
    CR, OSC 8 links, C1, bidi overrides) are written escaped on stdout and stderr: every
    text surface of the CLI shows what a snippet printed or raised without obeying it
    (bot/text/terminal.py)."""
    from bot.text.terminal import EscapingStream

    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if isinstance(stream, EscapingStream):
            continue
        reconfigure = getattr(stream, "reconfigure", None)  # a replaced stream (tests) may not have it
        if reconfigure is not None:
            try:
                reconfigure(errors="replace")
            except ValueError:
                pass
        setattr(sys, name, EscapingStream(stream))


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


def evidence_recording(surface: str, *, enabled: bool = True, consent: bool = False) -> Recording | None:
    """How a command keeps its runs as evidence (bot.evidence.record.Recording): under this
    machine's user, the snippet's text only with `consent`; None when it records nothing."""
    from bot.evidence.record import Recording, cli_asker

    if not enabled:
        return None
    try:
        asker = cli_asker()
    except Exception:  # noqa: BLE001 - recording reports its own failures (say_unrecorded)
        asker = None
    return Recording(surface, asker, consent=consent)


def say_unrecorded(prog: str, recording: Recording | None, what: str = "") -> None:
    """On stderr, when reports could not be stored (the log says why): `what` names how
    many were lost ("release(s) were"); without it, the one result."""
    if recording is None or not recording.failed:
        return
    if what:
        print(f"{prog}: {recording.failed} {what} not recorded as evidence (see the log); "
              "--no-record skips recording", file=sys.stderr)
    else:
        note(prog, "the result was not recorded as evidence (see the log); --no-record skips recording")
