"""Answer a pasted error: the entry it is, its root cause, ranked workarounds, dead ends
and sources, in the asker's language.

    from bot.answer import answer
    answer("RuntimeError: CUDA out of memory ...", lang=None, top=3)
    -> AnswerDocument(answered=..., language="en|ko|zh", matches=[Match, ...])   (document.py)
    answer(...).as_json()   # the `ask --json` document

Raises `InputError` (a ValueError) for input that cannot be answered (empty, binary),
and `bot.retrieval.index.IndexProblem` when the index cannot be built or loaded.
"""

from __future__ import annotations

from bot.answer.build import answer_document
from bot.answer.document import AnswerDocument
from bot.evidence.display import Rate, RateSource
from bot.evidence.rates import get_rate_source, set_rate_source
from bot.retrieval.engine import SearchResult, get_engine
from bot.text.lang import LANGUAGES
from bot.text import InputError

__all__ = ["answer", "answer_result", "AnswerDocument", "InputError", "Rate", "RateSource", "get_rate_source",
           "set_rate_source"]


def answer(text: str, lang: str | None = None, top: int = 3, retriever: str = "hybrid") -> AnswerDocument:
    return answer_result(text, lang=lang, top=top, retriever=retriever)[0]


def answer_result(text: str, lang: str | None = None, top: int = 3,
                  retriever: str = "hybrid") -> tuple[AnswerDocument, SearchResult]:
    """(the answer document, the SearchResult behind it) for callers that render more."""
    if lang is not None and lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}; use one of {', '.join(LANGUAGES)}")
    if top < 1:
        raise ValueError(f"top must be at least 1, got {top}")
    engine = get_engine()
    result = engine.search(text, top=max(top, 3), retriever=retriever)
    language = lang or result.query.language
    return answer_document(result, engine.kb, language, top, get_rate_source()), result
