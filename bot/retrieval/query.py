"""Query understanding: from a raw paste to what each retrieval leg looks at.

clean (markup) -> parse (exceptions, frames) -> normalise (placeholders) and the
asker's language, detected from their own words only: a Korean question around an
English traceback is answered in Korean; a bare English traceback in English.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from bot.retrieval.clean import Cleaned, clean
from bot.retrieval.parse import Frame, Parsed, parse
from bot.text.lang import detect_language
from bot.text.normalize import normalise_for_search, normalise_message
from bot.text.scripts import EAST_ASIAN_LETTERS

_CJK_RUN = re.compile(f"[{EAST_ASIAN_LETTERS}][^\\n]*")
# The error text a leg looks at is capped: a huge paste is noise beyond the message.
MAX_ERROR_CHARS = 1500
MAX_PROSE_CHARS = 1500


@dataclass
class Query:
    raw: str
    cleaned: Cleaned
    parsed: Parsed
    error_type: str | None  # type of the last exception ("RuntimeError"), if any
    message: str  # its message as pasted; the whole text when no exception was found
    error_text: str  # "Type: message" as pasted (or the whole text)
    normalised: str  # error_text with placeholders
    search_text: str  # normalised, without PyTorch's generic boilerplate (what BM25 and dense see)
    prose: str  # the asker's own words (no traceback, no error message)
    language: str  # detected from the prose: en, ko or zh
    frames: list[Frame] = field(default_factory=list)
    # The type of an exception that only reports another one, when the paste holds that
    # other one too (`ChildFailedError` after the rank's own traceback): the query is
    # about the cause, and the answer mentions the wrapper.
    wrapper: str | None = None

    @property
    def has_exception(self) -> bool:
        return self.error_type is not None

    @property
    def torch_functions(self) -> list[str]:
        return [f.function for f in self.frames if f.is_torch and f.function]

    def dense_texts(self) -> list[str]:
        """What the dense leg embeds: the normalised error and, apart, the asker's words."""
        texts = [self.search_text[:400]]
        prose = self.prose.strip()
        separate = self.has_exception or bool(self.parsed.error_lines)  # else prose is the whole text
        if separate and len(prose) > 3 and prose not in self.search_text:
            texts.append(prose[:400])
        return texts


def _prose(cleaned: Cleaned, parsed: Parsed) -> str:
    lines = cleaned.text.split("\n")
    own = [line for i, line in enumerate(lines) if i not in parsed.error_lines and line.strip()]
    # Korean or Chinese words on an error line are the asker's (PyTorch prints none).
    for i in sorted(parsed.error_lines):
        if i < len(lines):
            own.extend(m.group(0) for m in _CJK_RUN.finditer(lines[i]))
    return "\n".join(own)


# Exceptions that only say another one happened elsewhere (a worker process, a rank):
# their own message names no cause.
WRAPPERS = ("ChildFailedError",)


def _cause(parsed: Parsed):
    """(the exception the query is about, the wrapper's type or None): the last one, or,
    when the last only wraps another that the paste also holds, that other one."""
    last = parsed.last
    if last is None or (last.short_type or "") not in WRAPPERS:
        return last, None
    earlier = [e for e in parsed.exceptions if e is not last and not (e.type or "").endswith("Warning")
               and (e.short_type or "") not in WRAPPERS and e.type]
    return (earlier[-1], last.type) if earlier else (last, None)


def understand(text: str) -> Query:
    """Raises bot.text.InputError for input that cannot be answered (empty, binary)."""
    cleaned = clean(text)
    parsed = parse(cleaned.text)
    last, wrapper = _cause(parsed)
    prose = _prose(cleaned, parsed)
    if last is not None:
        error_type, message, frames = last.type, last.message, last.frames
        error_text = last.text()
    else:
        error_type, frames = None, []
        message = cleaned.text
        error_text = cleaned.text
    # A very long message (a huge state_dict key list) is cut; its head says what it is.
    error_text = error_text[:MAX_ERROR_CHARS]
    prose = prose[:MAX_PROSE_CHARS] if len(prose) > MAX_PROSE_CHARS else prose
    language = detect_language(prose) if prose.strip() else "en"
    return Query(raw=text, cleaned=cleaned, parsed=parsed, error_type=error_type, message=message,
                 error_text=error_text, normalised=normalise_message(error_text),
                 search_text=normalise_for_search(error_text) or normalise_message(error_text), prose=prose,
                 language=language, frames=frames, wrapper=wrapper)
