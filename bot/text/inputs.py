"""The one bounded reader of what a user hands in: a file, stdin ("-"), or bytes the
caller already holds. `ask`, `verify` and `kb add` read through `read_text`; `eval`
takes the bytes of `read_bounded`.

Every read stops past its limit with an error naming the limit and its setting; nothing
is read whole first. A pipe that sends nothing for `idle_seconds` without ending
(`tail -f`, a forgotten pipe) is an error, not a silent hang. Text is UTF-8 (with or
without a BOM), or, with `detect=True`, also BOM-marked UTF-16 and the legacy encodings
our askers' machines write; binary and empty input are refused. Each refusal is an
`InputProblem` whose message names what was wrong and where.
"""

from __future__ import annotations

import errno
import os
import select
import stat
import sys
from dataclasses import dataclass

from bot.errors import InputError

# InputProblem.problem: what was wrong.
PROBLEMS = ("missing", "folder", "unreadable", "closed", "idle", "too_large", "binary", "not_utf8", "empty")

# Legacy encodings our askers' machines write (Windows code pages of Western Europe,
# Korea, mainland China, Taiwan and Japan, and Cyrillic), tried by the detector only
# after UTF-8 failed.
LEGACY_ENCODINGS = ("cp1252", "cp949", "gb18030", "big5", "cp932", "euc_jp", "cp1251")

_NUL = "the input looks binary (it contains NUL bytes); paste the error text instead"


class InputProblem(InputError):
    """An input the reader refused: `where` names it ("snippet repro.py", "stdin"),
    `problem` is one of PROBLEMS, `reason` is the message without `where`, and
    `os_reason` the system's words for a file that could not be opened or read."""

    def __init__(self, message: str, *, where: str, problem: str, reason: str, os_reason: str = ""):
        super().__init__(message)
        self.where, self.problem, self.reason, self.os_reason = where, problem, reason, os_reason


@dataclass(frozen=True)
class Input:
    data: bytes
    name: str  # what to call it in messages: the path, or "stdin"


@dataclass(frozen=True)
class TextInput:
    text: str
    name: str  # the path, or "stdin"
    encoding: str | None  # the legacy encoding assumed (detect=True); None: UTF-8 or UTF-16


def limit_text(limit: int, setting: str) -> str:
    """`262144` -> "256 KiB (TROUBLESHOOT_MAX_SNIPPET_BYTES=262144)"."""
    if limit >= 1 << 20 and limit % (1 << 20) == 0:
        size = f"{limit >> 20} MiB"
    elif limit >= 1024 and limit % 1024 == 0:
        size = f"{limit >> 10} KiB"
    else:
        size = f"{limit} bytes"
    return f"{size} ({setting}={limit})"


def _where(source: str, what: str) -> str:
    if source == "-":
        return "stdin" if what == "input" else f"{what} (stdin)"
    return f"{what} {source}"


def _refuse(where: str, problem: str, reason: str, *, joined: str = ": ", os_reason: str = "") -> InputProblem:
    return InputProblem(f"{where}{joined}{reason}", where=where, problem=problem, reason=reason, os_reason=os_reason)


def read_bounded(source: str, *, what: str, limit: int, setting: str, idle_seconds: float = 0.0,
                 prompt: str | None = None, advice: str = "raise the limit if it must be read whole") -> Input:
    """The bytes of a file, or of stdin for "-", at most `limit` of them. A terminal on
    stdin gets `prompt` first (and is waited for as long as it takes)."""
    where = _where(source, what)
    if source == "-":
        if sys.stdin is None or sys.stdin.closed:
            raise _refuse(what, "closed", "stdin is closed")
        fd = sys.stdin.fileno()
        tty = os.isatty(fd)
        if tty and prompt:
            print(prompt, file=sys.stderr, flush=True)
        return Input(_read_fd(fd, limit, where=where, setting=setting, idle_seconds=0.0 if tty else idle_seconds,
                              advice=advice), "stdin")
    try:
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
        fd = os.open(source, flags)
    except FileNotFoundError as exc:
        raise _refuse(where, "missing", "no such file", os_reason=exc.strerror or "") from None
    except IsADirectoryError as exc:
        raise _refuse(where, "folder", "is a folder, not a file", os_reason=exc.strerror or "") from None
    except OSError as exc:
        raise _refuse(where, "unreadable", f"cannot read it ({exc.strerror})", os_reason=exc.strerror or "") from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise _refuse(where, "folder", "is a folder, not a file", os_reason=os.strerror(errno.EISDIR))
        # A regular file always ends; a FIFO or a device may not: it gets the idle wait.
        return Input(_read_fd(fd, limit, where=where, setting=setting,
                              idle_seconds=0.0 if stat.S_ISREG(mode) else (idle_seconds or 10.0), advice=advice),
                     source)
    finally:
        os.close(fd)


def _read_fd(fd: int, limit: int, *, where: str, setting: str, idle_seconds: float, advice: str) -> bytes:
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
                    raise _refuse(where, "idle",
                                  f"nothing arrived for {idle_seconds:g} s and the input did not end "
                                  f"(is it `tail -f` or an open terminal?). Pipe a finished file or text, "
                                  f"or set TROUBLESHOOT_STDIN_IDLE_SECONDS=0 to wait forever")
            try:
                chunk = os.read(fd, min(1 << 16, limit + 1 - size))
            except BlockingIOError:
                if idle_seconds <= 0:
                    select.select([fd], [], [])
                continue
            except OSError as exc:
                raise _refuse(where, "unreadable", f"cannot read it ({exc.strerror})",
                              os_reason=exc.strerror or "") from None
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                raise _too_large(where, limit, setting, advice)
    finally:
        if idle_seconds > 0 and blocking:
            try:
                os.set_blocking(fd, True)
            except OSError:
                pass
    return b"".join(chunks)


def _too_large(where: str, limit: int, setting: str, advice: str) -> InputProblem:
    return _refuse(where, "too_large", f"is larger than the limit of {limit_text(limit, setting)}; {advice}",
                   joined=" ")


def read_text(source: str, *, what: str, limit: int, setting: str, idle_seconds: float = 0.0,
              prompt: str | None = None, advice: str = "raise the limit if it must be read whole",
              data: bytes | None = None, detect: bool = False, name: str | None = None,
              refuse_binary: bool = True, refuse_empty: bool = True) -> TextInput:
    """The text of a file, of stdin ("-"), or of `data` (bytes the caller read; `source`
    then only names it), within `limit` bytes. Messages about the input's reading name
    it as `what` and its path ("snippet repro.py", "snippet (stdin)"; "stdin" when
    `what` is "input"); messages about its content as `name` (default: the same).

    `detect`: besides UTF-8, read BOM-marked UTF-16 and legacy encodings (said in
    `TextInput.encoding`), binary input refused; otherwise UTF-8 only, and NUL bytes
    refused as binary unless `refuse_binary` is False. Empty (blank) input is refused
    unless `refuse_empty` is False."""
    where = _where(source, what)
    if data is None:
        got = read_bounded(source, what=what, limit=limit, setting=setting, idle_seconds=idle_seconds,
                           prompt=prompt, advice=advice)
        data, path = got.data, got.name
    else:
        path = "stdin" if source == "-" else source
        if len(data) > limit:
            raise _too_large(where, limit, setting, advice)
    name = name or where
    encoding: str | None = None
    if detect:
        try:
            text, encoding = decode_bytes_detected(data)
        except InputError as exc:
            raise _refuse(name, "binary", str(exc)) from None
    else:
        if refuse_binary and b"\x00" in data:
            raise _refuse(name, "binary", "binary file (contains NUL bytes)")
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise _refuse(name, "not_utf8", f"not UTF-8 text (byte {exc.start}); save it as UTF-8") from None
    if refuse_empty and not text.strip():
        raise _refuse(name, "empty", "the file is empty")
    return TextInput(text, path, encoding)


# --- decoding -------------------------------------------------------------------------------


def check_binary(text: str) -> None:
    """InputError when decoded text looks binary: NUL characters, or more than 5% control
    or undecodable characters."""
    if "\x00" in text:
        raise InputError(_NUL)
    sample = text[:20_000]
    control = sum(1 for ch in sample if ord(ch) < 32 and ch not in "\n\r\t\x1b\x0c")
    replacement = sample.count("\ufffd")
    if sample and (control + replacement) / len(sample) > 0.05:
        raise InputError("the input looks binary (many control or undecodable characters); "
                         "paste the error text instead")


def decode_bytes_detected(data: bytes) -> tuple[str, str | None]:
    """(text, the legacy encoding assumed or None for UTF-8/UTF-16) from raw bytes
    (stdin, a file, an upload); binary data raises InputError.

    UTF-8 (with or without a BOM) and BOM-marked UTF-16 (PowerShell pipes) are read as
    they are; other bytes go to a charset detector (charset-normalizer) restricted to
    LEGACY_ENCODINGS, so a cp1252, GBK, Big5, Shift-JIS or EUC-KR paste is read, and
    only what no encoding explains is called binary."""
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        try:
            return data.decode("utf-16").lstrip("\ufeff"), None
        except UnicodeDecodeError:
            pass
    if b"\x00" in data[:20_000]:
        raise InputError(_NUL)
    try:
        return data.decode("utf-8-sig"), None
    except UnicodeDecodeError:
        pass
    legacy = _detect_legacy(data)
    if legacy is not None:
        text, encoding = legacy
        try:
            check_binary(text)
            return text, encoding
        except InputError:
            pass
    text = data.decode("utf-8", errors="replace")
    check_binary(text)
    return text, None


def _detect_legacy(data: bytes) -> tuple[str, str] | None:
    try:
        import charset_normalizer  # lazy: only bytes that are not UTF-8 need the detector
    except ImportError:  # pragma: no cover - a dependency (pyproject.toml)
        return None
    best = charset_normalizer.from_bytes(data[:200_000], cp_isolation=list(LEGACY_ENCODINGS)).best()
    if best is None:
        return None
    try:
        return data.decode(best.encoding), best.encoding
    except (UnicodeDecodeError, LookupError):
        return None


def decode_bytes(data: bytes) -> str:
    """Text from raw bytes; see decode_bytes_detected."""
    return decode_bytes_detected(data)[0]
