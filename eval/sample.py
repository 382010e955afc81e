"""One evaluation line, and the notes that say where its error text came from."""

from __future__ import annotations

KINDS = {"traceback", "line", "truncated", "prose-en", "prose-ko", "prose-zh", "question-ko", "question-zh"}
LANGS = {"en", "ko", "zh"}

RAN = "message ran on torch 2.13 CPU (eval/capture_messages.py); frames and prose written by hand"
RAN_LOG = "output ran on torch 2.13 CPU (eval/capture_messages.py) with paths and script names changed"
QUESTION = "question written by hand; contains no English error text"


def known(version: str) -> str:
    return f"written from the known PyTorch {version} message"


def known_cuda(version: str) -> str:
    return f"written from the known PyTorch {version} message (CUDA only, cannot be raised on this CPU machine)"


def sample(expected: str, kind: str, lang: str, note: str, text: str) -> dict:
    """A line of an evaluation file. Leading and trailing blank lines of `text` are dropped."""
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r} for {expected}")
    if lang not in LANGS:
        raise ValueError(f"unknown lang {lang!r} for {expected}")
    return {"text": text.strip("\n"), "expected": expected, "kind": kind, "lang": lang, "note": note}
