"""Which knowledge entry a captured error is.

The sandbox hands us the exception type and message exactly as PyTorch raised them,
so the entries' signatures (regular expressions over the stable words of the
message, matched as written and after normalisation) decide. Where no signature
matches, a `retriever` (the retrieval engine's classifier, `text -> (id, confidence)`)
can be consulted.
"""

from __future__ import annotations

from typing import Callable

from bot.kb.loader import current_knowledge
from bot.kb.model import Entry, KnowledgeBase
from bot.text.normalize import normalise_message

# Confidence of a signature match: the signatures are written for exactly these
# messages, so a match is strong; it is weaker when the exception type is not one the
# entry lists, or when several entries match.
MATCH = 0.95
TYPE_MISMATCH = 0.75
AMBIGUOUS = 0.6

Retriever = Callable[[str | None, str], "tuple[str | None, float]"]

def error_text(type_: str | None, message: str | None) -> str:
    message = (message or "").strip()
    return f"{type_}: {message}" if type_ else message


def _match_length(entry: Entry, texts: list[str]) -> int:
    best = 0
    for sig in entry.signatures:
        for t in texts:
            m = sig.regex.search(t)
            if m:
                best = max(best, len(m.group(0)))
    return best


def _message_start(traceback: str, message: str) -> int:
    """Where the last exception's own lines (`Type: message`) start in a formatted traceback."""
    cut = len(traceback)
    for _ in range(message.strip().count("\n") + 1):
        cut = traceback.rfind("\n", 0, cut)
    return cut + 1


def _framed_match_length(entry: Entry, traceback: str, message_at: int) -> int:
    """A pattern that needs the frames above the message (torch.load above `No module named
    'models'`) counts when its match reaches into the message, never on frames alone."""
    best = 0
    for sig in entry.signatures:
        m = sig.regex.search(traceback)
        if m and m.end() > message_at:
            best = max(best, len(m.group(0)))
    return best


def classify_error(type_: str | None, message: str | None, *, kb: KnowledgeBase | None = None,
                   retriever: Retriever | None = None, traceback: str | None = None) -> tuple[str | None, float]:
    """(entry id, confidence in [0, 1]) for an exception type and message, and the
    formatted traceback when there is one; (None, 0.0) when nothing matches."""
    text = error_text(type_, message)
    if not text:
        return None, 0.0
    kb = kb or current_knowledge()
    texts = [text, normalise_message(text)]
    framed = (traceback or "").rstrip()
    message_at = _message_start(framed, message or "") if framed else 0
    short_type = (type_ or "").rsplit(".", 1)[-1]  # the sandbox names `_pickle.UnpicklingError`
    hits = []
    for entry in kb.entries.values():
        length = _match_length(entry, texts) if entry.matches(*texts) else 0
        if not length and framed:
            length = _framed_match_length(entry, framed, message_at)
        if length:
            expected = {e.rsplit(".", 1)[-1] for e in entry.exception}
            type_ok = not expected or not short_type or short_type in expected
            # Prefer the type the entry expects, then the most specific (longest) match.
            hits.append((type_ok, length, entry.id))
    if hits:
        hits.sort(reverse=True)
        type_ok, _, entry_id = hits[0]
        confidence = MATCH if type_ok else TYPE_MISMATCH
        if len(hits) > 1:
            confidence = min(confidence, AMBIGUOUS)
        return entry_id, confidence
    if retriever is not None:
        return retriever(type_, message or "")
    return None, 0.0
