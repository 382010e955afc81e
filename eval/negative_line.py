"""One line of the negative and code-only sets, and the notes that say where its text came from.

A negative line is something the bot must NOT answer with a PyTorch entry (`expected` is
null); a through-library positive is a PyTorch error of a covered class raised under
another library's frames (`expected` is its taxonomy id).
"""

from __future__ import annotations

NEGATIVE_KINDS = {
    "neg-pytorch-uncovered",  # a PyTorch error outside the 90 taxonomy classes
    "neg-other-library",      # raised by another library itself (tensorflow, pandas, ...)
    "neg-install",            # pip / conda / wheel / nvcc build failures
    "neg-question",           # a plain question without error text
    "neg-greeting",           # hello, thanks, ...
    "neg-python",             # a plain Python error in the asker's own code
}
POSITIVE_KIND = "pos-through-library"
LANGS = {"en", "ko", "zh"}

WRITTEN = "written by hand"
QUESTION = "question written by hand; no error text"
GREETING = "greeting written by hand"


def thread(url: str) -> str:
    """The error lines (and frames) were pasted in that public thread; prose around them is ours."""
    return f"error text as posted in {url}; prose and trimming by hand"


def known(what: str) -> str:
    """No thread quoted: the message as the library prints it, typed from knowledge."""
    return f"written from the known {what} message; no public thread quoted"


def neg(kind: str, lang: str, note: str, text: str, library: str | None = None) -> dict:
    if kind not in NEGATIVE_KINDS:
        raise ValueError(f"unknown negative kind {kind!r}")
    if lang not in LANGS:
        raise ValueError(f"unknown lang {lang!r}")
    if (kind == "neg-other-library") != (library is not None):
        raise ValueError(f"{kind}: a `library` is required for neg-other-library and only there ({text[:40]!r})")
    item = {"text": text.strip("\n"), "expected": None, "kind": kind, "lang": lang, "note": note}
    if library is not None:
        item["library"] = library
    return item


def through(expected: str, library: str, lang: str, note: str, text: str) -> dict:
    """A covered PyTorch error raised under another library's frames: must be answered."""
    if lang not in LANGS:
        raise ValueError(f"unknown lang {lang!r}")
    return {"text": text.strip("\n"), "expected": expected, "kind": POSITIVE_KIND, "lang": lang,
            "note": note, "library": library}
