"""A skeleton knowledge entry from a coverage gap (`troubleshoot kb draft GAP`).

What the gap gives is filled in: the id (from the message's words), the exception type,
a signature built from the normalised message (its placeholders become wildcards, so it
matches the raw message and the normalised one), the normalised message as the first
example, and where and how often it was asked (in the `draft:` block). Everything a
writer must know is left empty, per language: title, symptoms, root cause, diagnosis,
two workarounds, a dead end, a source, a repro.

A draft never loads: `troubleshoot kb check` reports its `draft:` block and every empty
field, each with what to write, until it is complete and the block is deleted.
"""

from __future__ import annotations

import re

from bot.kb.loader import ID_RE
from bot.text.lang import LANGUAGES
from bot.text.normalize import PLACEHOLDERS, error_type_of

GROUP = "pytorch"
SIGNATURE_CHARS = 120  # of the message: the stable head; long tails vary
_STOP = {"a", "an", "the", "of", "to", "in", "on", "for", "is", "are", "be", "and", "or", "but", "with", "at", "by",
         "it", "its", "this", "that", "was", "were", "has", "have", "not", "no", "as", "from", "got", "expected"}
_PLACEHOLDER_RE = re.compile("|".join(re.escape(p) for p in PLACEHOLDERS + ("<user>", "<url>", "<email>")))


def split_error(example: str) -> tuple[str | None, str]:
    """("RuntimeError", "the message") from "RuntimeError: the message"."""
    error_type = error_type_of(example)
    if error_type:
        return error_type, example.split(":", 1)[1].strip()
    return None, example.strip()


def signature_from(message: str) -> str:
    """A case-insensitive pattern for the message: its stable head, regex characters
    escaped, placeholders (and whatever a raw message has in their place) as wildcards."""
    message = message.rstrip("…").strip()
    if len(message) > SIGNATURE_CHARS:
        cut = message[:SIGNATURE_CHARS]
        message = cut[:cut.rfind(" ")] if " " in cut else cut
    parts = _PLACEHOLDER_RE.split(message)
    pattern = ".+?".join(re.escape(p) for p in parts)
    pattern = pattern.replace(r"\ ", " ")
    pattern = re.sub(r"(?:\.\+\?\s*)+$", "", pattern).strip()  # a trailing wildcard matches anything: drop it
    return pattern or re.escape(message)


def slug_from(message: str, taken: set[str]) -> str:
    words = [w.lower() for w in re.findall(r"[A-Za-z][A-Za-z0-9]+", _PLACEHOLDER_RE.sub(" ", message))]
    words = [w for w in words if w not in _STOP][:5] or ["uncovered-error"]
    base = f"{GROUP}/" + "-".join(words)[:60].strip("-")
    candidate, n = base, 2
    while candidate in taken or not ID_RE.match(candidate):
        if not ID_RE.match(candidate):
            base = candidate = f"{GROUP}/uncovered-error"
            continue
        candidate, n = f"{base}-{n}", n + 1
    return candidate


def _q(text: str) -> str:
    """A YAML double-quoted scalar."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _sq(text: str) -> str:
    """A YAML single-quoted scalar (backslashes stay as they are: right for regexes)."""
    return "'" + text.replace("'", "''") + "'"


def _prose(name: str, indent: str, comment: str) -> list[str]:
    lines = [f"{indent}{name}:  # {comment}"]
    lines += [f'{indent}  {lang}: ""' for lang in LANGUAGES]
    return lines


def draft_entry(gap: dict, taken_ids: set[str]) -> tuple[str, str]:
    """(entry id, YAML text) of the skeleton for `gap` (a bot.evidence.gaps GAP)."""
    example = gap.get("example") or ""
    error_type, message = split_error(example)
    entry_id = slug_from(message, taken_ids)
    near = gap.get("nearest_entry_id")
    out = [
        f"# Draft from a coverage gap: asked {gap.get('count')} time(s), {(gap.get('first_seen') or '')[:10]} to "
        f"{(gap.get('last_seen') or '')[:10]}, in {', '.join(gap.get('languages') or []) or 'unknown languages'}.",
        "# `troubleshoot kb check --dir DIR` lists what is still missing; knowledge/README.md describes each field.",
        "draft:",
        f"  gap: {gap.get('signature')}",
        f"  asked: {gap.get('count')}",
        f"  first_seen: {_q(gap.get('first_seen') or '')}",
        f"  last_seen: {_q(gap.get('last_seen') or '')}",
        f"  languages: [{', '.join(gap.get('languages') or [])}]",
    ]
    if near:
        confidence = gap.get("nearest_confidence")
        out.append(f"  nearest: {_q(near + (f' ({confidence})' if confidence is not None else ''))}  "
                   "# the entry the bot nearly answered with: a variant of it? then add the signature there")
    out += [
        f"id: {entry_id}  # group/name; rename it to say what the error is",
        *_prose("title", "", "one line per language: what went wrong, as the asker would put it"),
    ]
    out.append(f"exception: [{error_type}]" if error_type else
               "exception: []  # the exception type(s) PyTorch raises, e.g. [RuntimeError]")
    out += [
        "signatures:  # regular expressions over the stable words of the message (case-insensitive)",
        f"  - {_sq(signature_from(message))}",
        "examples:  # real messages: replace the placeholders (<num>, <shape>, <path>...) with a real paste's values",
        f"  - {_q(example.rstrip('…'))}",
        *_prose("symptoms", "", "what the asker sees and was doing"),
        *_prose("root_cause", "", "why PyTorch raises it"),
        *_prose("diagnosis", "", "how to find the cause in one's own code"),
        "workarounds:  # at least two; most reliable first",
    ]
    for i in (1, 2):
        out += [
            f"  - id: workaround-{i}  # a slug: what it does",
            *_prose("title", "    ", "what to do, one line"),
            *_prose("explanation", "    ", "why it works and when"),
            '    code: ""  # the fix as code',
            "    prior:  # the team's estimate until runs and votes measure it",
            "      rate:  # 0 to 1",
            "      evidence: 0",
            '      source: ""  # what the estimate rests on (docs, source code, issue threads)',
        ]
    out += [
        "dead_ends:  # at least one: what looks right but fails, and why",
        "  - id: dead-end-1",
        *_prose("title", "    ", "the tempting fix"),
        *_prose("why", "    ", "why it does not fix it"),
        "sources:  # at least one public document or thread",
        '  - title: ""',
        "repro:  # a snippet that raises it (runs_on: cpu, gpu, multi-process, ...); delete if there is none",
        "  runs_on: cpu",
        '  code: ""',
    ]
    return entry_id, "\n".join(out) + "\n"
