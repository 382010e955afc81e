"""Text for a terminal: what a snippet printed or raised (and anything else from outside)
must not drive the terminal that shows it. ESC starts colour changes, screen clears,
title changes and OSC 8 hyperlinks; CR moves back over what was written; C1 controls
(0x80-0x9f, CSI is 0x9b) act like ESC on some terminals; bidi overrides reorder what is
shown. `escape_controls` writes each of them as `\\uXXXX`, visible and harmless; newline
and tab pass. The same escape is valid inside a JSON string (raw control characters can
only be there), so one filter serves text and --json alike.

    escape_controls("a\\x1b[2Jb") -> "a\\\\u001b[2Jb"
    EscapingStream(sys.stdout)   -> a stream whose write() escapes (bot/cli/common.py)

`encodable` is the other half: text that no UTF-8 encoder takes (lone surrogates, from a
JSON "\\ud800" or from argv bytes the locale could not decode) gets U+FFFD in their place.
"""

from __future__ import annotations

import re
from typing import Any

_SURROGATES = re.compile("[\ud800-\udfff]")

_CONTROLS = ([c for c in range(0x20) if c not in (0x09, 0x0A)] + list(range(0x7F, 0xA0))
             + list(range(0x202A, 0x202F)) + list(range(0x2066, 0x206A)) + [0x2028, 0x2029])
_TABLE = {c: f"\\u{c:04x}" for c in _CONTROLS}


def encodable(text: str) -> str:
    """`text` with every lone surrogate replaced by U+FFFD (it encodes as UTF-8 then)."""
    return _SURROGATES.sub("\ufffd", text) if _SURROGATES.search(text) else text


def escape_controls(text: str) -> str:
    return text.translate(_TABLE)


class EscapingStream:
    """Wraps a text stream: every write goes out with its control characters escaped;
    everything else (flush, isatty, fileno, encoding, buffer) is the stream's own."""

    def __init__(self, stream: Any):
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(escape_controls(text))
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    @property
    def wrapped(self) -> Any:
        return self._stream

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)
