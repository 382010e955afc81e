"""Parse a cleaned paste into exceptions and frames.

A paste may hold a full traceback, a chained one ("During handling of the above
exception, another exception occurred:" / "The above exception was the direct cause
of the following exception:"), notebook output, a rich box already unboxed by
`clean`, just the last line, or a question with no error at all. We find every
exception (type and message, the message possibly spanning several lines) and the
frames before it; the LAST exception is the one the asker sees and the one we
answer. Frame formats understood:

    File "/x/train.py", line 12, in <module>          CPython (Linux, macOS, Windows)
    File /x/torch/_tensor.py:487, in Tensor.backward(self)      IPython 8
    /x/torch/tensor.py in backward(self, gradient)    IPython 7 (Colab)
    <ipython-input-3-5c2d> in <module>()              IPython 7 notebook cell
    Cell In[3], line 5                                IPython 8 notebook cell
    /x/train.py:42 in <module>                        rich
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from bot.text.normalize import is_torch_path, normalise_frame_path
from bot.text.scripts import EAST_ASIAN_LETTERS, has_any


@dataclass
class Frame:
    path: str
    line: int | None
    function: str
    code: str = ""

    @property
    def module(self) -> str:
        return normalise_frame_path(self.path)

    @property
    def is_torch(self) -> bool:
        return is_torch_path(self.path)


@dataclass
class ParsedException:
    type: str | None  # "RuntimeError", "torch.OutOfMemoryError"; None for a bare message
    message: str
    frames: list[Frame] = field(default_factory=list)
    start_line: int = 0  # first line of its block (traceback header or the message itself)
    end_line: int = 0  # last line of its message

    @property
    def short_type(self) -> str | None:
        return self.type.rsplit(".", 1)[-1] if self.type else None

    def text(self) -> str:
        return f"{self.type}: {self.message}" if self.type and self.message else (self.type or self.message)


@dataclass
class Parsed:
    exceptions: list[ParsedException]
    chained: bool
    # Line numbers (0-based) that belong to tracebacks or error messages; the rest
    # is the asker's own prose (language detection looks only at that).
    error_lines: set[int]

    @property
    def last(self) -> ParsedException | None:
        """The exception the asker sees: the last one, skipping warnings printed after it."""
        for exc in reversed(self.exceptions):
            if not (exc.type or "").endswith("Warning"):
                return exc
        return self.exceptions[-1] if self.exceptions else None


_TRACEBACK = re.compile(r"^\s*Traceback \(most recent call last\):?\s*$")
_CHAIN = re.compile(r"^\s*(During handling of the above exception, another exception occurred"
                    r"|The above exception was the direct cause of the following exception)\s*:?\s*$")
_FRAME_PY = re.compile(r'^\s*File "(?P<path>[^"]+)", line (?P<line>\d+)(?:, in (?P<func>.+?))?\s*$')
_FRAME_IPY8 = re.compile(r"^\s*File (?P<path>\S.*?):(?P<line>\d+)(?:, in (?P<func>.+?))?\s*$")
_FRAME_CELL = re.compile(r"^\s*(?P<path>Cell In\[\d+\]), line (?P<line>\d+)(?:, in (?P<func>.+?))?\s*$")
_FRAME_IPY7 = re.compile(r"^\s*(?P<path>(?:[A-Za-z]:)?[\\/~.][^\s]*\.py|<ipython-input-[\w-]+>)"
                         r" in (?P<func>[\w.<>]+)(?:\(.*)?\s*$")
_FRAME_RICH = re.compile(r"^\s*(?P<path>(?:[A-Za-z]:)?[\\/~.][^\s:]*\.py):(?P<line>\d+) in (?P<func>[\w.<>]+)\s*$")
_FRAME_PATTERNS = (_FRAME_PY, _FRAME_CELL, _FRAME_IPY8, _FRAME_RICH, _FRAME_IPY7)

# "RuntimeError: msg", "torch.OutOfMemoryError: msg", "torch._C._LinAlgError: msg",
# "KeyboardInterrupt", "_pickle.UnpicklingError: msg", "ValueError". Only names that
# look like exceptions: a prose line "Note: ..." is not one.
_EXC_NAME = (r"(?:[A-Za-z_][\w]*\.)*(?:[A-Z_][\w]*(?:Error|Exception|Warning|Exit|Interrupt|Failure|Failed|Fault)"
             r"|StopIteration|KeyboardInterrupt|SystemExit|Interrupted|ProcessRaisedException)")
_EXC_LINE = re.compile(rf"^\s*(?P<type>{_EXC_NAME})(?::\s?(?P<msg>.*))?\s*$")
# Some errors arrive with their type in the middle: "[rank0]: RuntimeError: ...", "E   RuntimeError: ..." (pytest).
_EXC_PREFIXED = re.compile(rf"^\s*(?:\[rank\d+\]:|E\s+|ERROR:?|\w+ \| )\s*(?P<type>{_EXC_NAME}):\s?(?P<msg>.*)$")
# Inside a traceback, the line after the frames is the exception even when its type
# does not look like one (`_queue.Empty`, `StopIteration`, `torch._dynamo.exc.Unsupported: x`).
_EXC_AFTER_FRAMES = re.compile(r"^(?P<type>[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*)(?::\s?(?P<msg>.*))?\s*$")
_MAX_CONTINUATION = 12


def _frame(line: str) -> Frame | None:
    for regex in _FRAME_PATTERNS:
        m = regex.match(line)
        if m:
            groups = m.groupdict()
            number = groups.get("line")
            function = re.sub(r"\(.*$", "", groups.get("func") or "").strip()
            return Frame(path=groups["path"], line=int(number) if number else None, function=function)
    return None


def _exception(line: str) -> tuple[str, str] | None:
    m = _EXC_LINE.match(line) or _EXC_PREFIXED.match(line)
    if not m:
        return None
    return m.group("type"), (m.group("msg") or "").strip()


def _continues_message(line: str) -> bool:
    """Whether a line after an exception line still belongs to its message."""
    if not line.strip():
        return False
    if _TRACEBACK.match(line) or _CHAIN.match(line) or _frame(line) or _exception(line):
        return False
    # Prose in Korean or Chinese after the paste is the asker, not PyTorch.
    return not has_any(line, EAST_ASIAN_LETTERS)


def parse(text: str) -> Parsed:
    lines = text.split("\n")
    exceptions: list[ParsedException] = []
    error_lines: set[int] = set()
    frames: list[Frame] = []
    block_start: int | None = None
    chained = False
    i = 0
    while i < len(lines):
        line = lines[i]
        if _TRACEBACK.match(line):
            frames, block_start = [], i
            error_lines.add(i)
            i += 1
            continue
        if _CHAIN.match(line):
            chained = True
            error_lines.add(i)
            i += 1
            continue
        frame = _frame(line)
        if frame is not None:
            if block_start is None:
                block_start = i  # a paste that starts in the middle of a traceback
            error_lines.add(i)
            # The next indented line is the frame's source (CPython prints it).
            if i + 1 < len(lines) and lines[i + 1].startswith(" ") and not _frame(lines[i + 1]) \
                    and not _exception(lines[i + 1]):
                frame.code = lines[i + 1].strip()
                error_lines.add(i + 1)
                i += 1
            frames.append(frame)
            i += 1
            continue
        exc = _exception(line)
        if exc is None and frames and not line.startswith((" ", "\t")):
            after = _EXC_AFTER_FRAMES.match(line)
            if after:
                exc = after.group("type"), (after.group("msg") or "").strip()
        if exc is not None:
            exc_type, message = exc
            start = block_start if block_start is not None else i
            error_lines.add(i)
            j = i + 1
            extra = []
            while j < len(lines) and len(extra) < _MAX_CONTINUATION and _continues_message(lines[j]):
                # Source lines of a frame ("    loss.backward()") inside a block with
                # frames belong to the frames, but after the exception line they are message.
                extra.append(lines[j].strip())
                error_lines.add(j)
                j += 1
            if extra and not message:
                message = extra.pop(0)
            full = " ".join([message] + extra).strip() if extra else message
            exceptions.append(ParsedException(exc_type, full, frames, start, j - 1))
            frames, block_start = [], None
            i = j
            continue
        if block_start is not None and line.startswith(" "):
            error_lines.add(i)  # source lines and carets inside a traceback
        i += 1
    return Parsed(exceptions=exceptions, chained=chained or len(exceptions) > 1, error_lines=error_lines)
