"""The extras a Slack answer shows beyond the `ask --json` document, filled from the
knowledge base into the document's declared fields (bot/answer/document.py). Pasted
errors (answering.py) and code questions (code_question.py) both go through it."""

from __future__ import annotations

import logging

from bot.answer.document import AnswerDocument, VersionNote
from bot.kb.loader import current_knowledge as knowledge

log = logging.getLogger(__name__)


def enrich(result: AnswerDocument) -> AnswerDocument:
    """What the Slack answer shows beyond the `ask --json` document, from the knowledge
    base, in the document's declared extras: the titles of the errors dead ends lead to
    (never a bare id), and for the best match its diagnosis and version notes (shown
    under "All fixes & details")."""
    try:
        kb = knowledge()
    except Exception as exc:  # noqa: BLE001 - the answer goes out without the extras
        log.warning("knowledge not loaded for the answer's extras: %s", type(exc).__name__)
        return result
    lang = result.language or "en"
    for i, match in enumerate(result.matches):
        for d in match.dead_ends:
            target = kb.resolve(d.leads_to) if d.leads_to else None
            if target is not None:
                d.leads_to_title = target.title.get_text(lang)
        entry = kb.resolve(match.id or "") if i == 0 else None
        if entry is None:
            continue
        if entry.diagnosis and not match.diagnosis:
            match.diagnosis = entry.diagnosis.get_text(lang)
        if entry.affected_versions and not match.version_notes:
            match.version_notes = [VersionNote(versions=v.versions, message=v.message,
                                               note=v.note.get_text(lang) if v.note else None)
                                   for v in entry.affected_versions]
    return result
