"""The normalised signature of a question: what two pastes of the same error share.

The signature is the last exception of the paste, normalised the way retrieval does
(paths to basenames, numbers, sizes, shapes, addresses to placeholders); for a paste
without an exception, the whole normalised text. Its sha256 groups questions; a short
excerpt of it, with user identifiers (Slack mentions, e-mail addresses, URLs,
@handles) replaced too, is what the knowledge writers see of a coverage gap.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from bot.retrieval.query import understand
from bot.text import InputError
from bot.text.normalize import normalise_message

EXCERPT_CHARS = 200

_IDENTIFIERS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"<[@#!][^>\s]*>"), "<user>"),  # Slack's <@U123>, <#C123|name>, <!here>
    (re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b"), "<email>"),
    (re.compile(r"\b(?:https?|ftp|file|s3|gs)://\S+", re.IGNORECASE), "<url>"),
    (re.compile(r"(?<![\w<])@[A-Za-z][\w.-]{1,}"), "<user>"),
    (re.compile(r"\b[UW][A-Z0-9]{8,}\b"), "<user>"),  # a bare Slack user id
]


def scrub(text: str) -> str:
    for regex, placeholder in _IDENTIFIERS:
        text = regex.sub(placeholder, text)
    return text


@dataclass(frozen=True)
class QuestionSignature:
    hash: str  # sha256 hex of the normalised signature
    excerpt: str  # at most EXCERPT_CHARS, no user identifiers
    error_type: str | None


def question_hash(text: str) -> str:
    """The question's signature hash, the same on every surface (`troubleshoot ask`, Slack,
    the coverage gaps), so answers group alike; text that cannot be signed is hashed as it is."""
    try:
        return question_signature(text).hash
    except InputError:  # nothing readable to sign: hash what there is
        return hashlib.sha256(normalise_message(text).encode()).hexdigest()


def question_signature(text: str) -> QuestionSignature:
    """Raises bot.text.InputError for text that cannot be read (empty, binary)."""
    query = understand(text)
    # Identifiers go before normalising (which would cut a URL at its slashes) and after.
    normalised = scrub(normalise_message(scrub(query.error_text)))
    excerpt = normalised if len(normalised) <= EXCERPT_CHARS else normalised[:EXCERPT_CHARS - 1].rstrip() + "…"
    return QuestionSignature(hashlib.sha256(normalised.encode("utf-8")).hexdigest(), excerpt, query.error_type)
