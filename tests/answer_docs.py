"""Answer documents for tests that render one (Slack blocks, the terminal): every field
the typed model requires, with plain defaults, so a test names only what it is about."""

from __future__ import annotations

from typing import Any

from bot.answer.document import AnswerDocument, DeadEndItem, Match, Source, WorkaroundItem


def workaround(item_id: str = "w", title: str = "Do this", **fields: Any) -> WorkaroundItem:
    values: dict[str, Any] = dict(
        explanation="Because.", code=None, success_rate=None, rate_kind="estimate",
        rate_text="team estimate, not yet verified", estimate=None, evidence=0, rate_source="prior",
        evidence_summary=None, verified=None, refuted=False, scenario=None, caveats=None, patch=None)
    values.update(fields)
    return WorkaroundItem(id=item_id, title=title, **values)


def dead_end(item_id: str = "d", title: str = "Not this", **fields: Any) -> DeadEndItem:
    values: dict[str, Any] = dict(
        why="It fails too.", code=None, leads_to=None, fail_rate=None, rate_kind="estimate", rate_text=None,
        evidence=None, rate_source=None, evidence_summary=None, verified=None, refuted=False)
    values.update(fields)
    return DeadEndItem(id=item_id, title=title, **values)


def match(entry_id: str = "pytorch/example", title: str = "Example", **fields: Any) -> Match:
    values: dict[str, Any] = dict(score=1.0, confidence=0.92, root_cause="Why it fails.", workarounds=[],
                                  dead_ends=[], sources=[], page_url=None)
    values.update(fields)
    return Match(id=entry_id, title=title, **values)


def source(title: str, url: str | None = None) -> Source:
    return Source(title=title, url=url)


def document(*matches: Match, answered: bool = True, language: str = "en", **fields: Any) -> AnswerDocument:
    fields.setdefault("tier", "answer" if answered else "decline")
    return AnswerDocument(answered=answered, language=language, matches=list(matches), **fields)
