"""Answer one question: gather its text (message, code, files), ask the knowledge
base, record the answer, post it."""

from __future__ import annotations

import hashlib
import json
import logging
import re
from dataclasses import dataclass

from bot.evidence.record import record_gap
from bot.evidence.signature import question_signature
from bot.slack.blocks import answer_message, compact_answer_message, escape, text_message
from bot.slack.i18n import t
from bot.slack.services.context import BotContext
from bot.slack.services.files import FileRejected, fetch_file_text
from bot.slack.services.message import ParsedMessage, looks_like_traceback
from bot.slack.services.slack_api import Posted, Where, post
from bot.text import InputError
from bot.text.lang import detect_language
from bot.text.normalize import normalise_message

log = logging.getLogger(__name__)

_ERROR_HINT = re.compile(r"error|exception|traceback|warning|out of memory|nan|illegal|segmentation|assert|"
                         r"failed|오류|에러|错误|报错|异常", re.IGNORECASE)


@dataclass
class Question:
    parsed: ParsedMessage
    surface: str            # mention, dm, command, shortcut, auto, edit
    where: Where
    question_ts: str | None = None
    team: str | None = None
    lang: str | None = None  # the asker's language when we know it better than the text does


def carries_error(parsed: ParsedMessage) -> bool:
    """Does the message itself hold something to look up (an error, code, a file)? A
    bare "@bot what is this?" under a traceback does not: the thread's parent does."""
    if parsed.code_blocks or parsed.files or looks_like_traceback(parsed.text):
        return True
    return bool(_ERROR_HINT.search(parsed.text)) and len(parsed.text.split()) >= 3


def prose_language(text: str) -> str | None:
    """ko or zh when the asker wrote in it; None (not "en") leaves the choice to
    retrieval, which also reads the pasted error."""
    lang = detect_language(text)
    return lang if lang in ("ko", "zh") else None


def error_hash(text: str) -> str:
    """The question's signature hash, the same one `troubleshoot ask` and the coverage
    gaps record (bot/evidence/signature.py), so answers group alike whatever the surface."""
    try:
        return question_signature(text).hash
    except InputError:  # nothing readable to sign: hash what there is
        return hashlib.sha256(normalise_message(text).encode()).hexdigest()


def gather_text(ctx: BotContext, parsed: ParsedMessage) -> tuple[str, list[str]]:
    """The text to look up (message and attached files), and notes on skipped files."""
    parts = [parsed.text] if parsed.text.strip() else []
    notes = []
    for info in parsed.files:
        try:
            fetched = fetch_file_text(ctx.client, info, ctx.settings.bot_token, limit=ctx.settings.max_file_bytes)
        except FileRejected as exc:
            log.info("file skipped: %s", exc)
            notes.append(str(exc))
            continue
        parts.append(fetched.text)
    return "\n\n".join(parts), notes


def answer_question(ctx: BotContext, q: Question) -> Posted | None:
    text, notes = gather_text(ctx, q.parsed)
    lang = q.lang or prose_language(q.parsed.prose)
    if not text.strip():
        message = text_message(t("no_error", lang or "en") + ("\n" + "\n".join(notes) if notes else ""))
        return post(ctx.client, q.where, [message])
    try:
        # answer() takes text as Slack sends it and decodes entities itself; our text is
        # already decoded, so escape it back: every entity is decoded exactly once.
        with ctx.answer_slots:
            result = ctx.answer_fn(escape(text), lang=lang, top=3)
    except ValueError as exc:  # bot.answer.InputError: binary or empty input, said plainly
        return post(ctx.client, q.where, [text_message(str(exc))])
    lang = result.get("language") or lang or "en"
    matches = result.get("matches") or []
    best = matches[0] if result.get("answered") and matches else None
    confidence = best.get("confidence") if best else None
    answer_id = ctx.store.add_answer(
        entry_id=best["id"] if best else None,
        confidence=float(confidence) if isinstance(confidence, (int, float)) else None,
        language=lang, surface=q.surface, error_hash=error_hash(text),
        channel=q.where.channel, thread_ts=q.where.thread_ts, question_ts=q.question_ts,
        answer_json=json.dumps(result, ensure_ascii=False))
    private = q.where.private
    versions = [
        answer_message(result, answer_id=answer_id, private=private, notes=notes),
        compact_answer_message(result, answer_id=answer_id, private=private),
        text_message(answer_message(result, answer_id=answer_id).text),
    ]
    posted = post(ctx.client, q.where, versions)
    if posted.ts:
        ctx.store.set_answer_posted(answer_id, posted.channel, posted.ts)
    # after posting: a question we had no confident answer for
    record_gap(text, result, store=ctx.store)
    log.info("answered A%s surface=%s entry=%s via=%s", answer_id, q.surface, best["id"] if best else None, posted.via)
    return posted


def stored_answer(ctx: BotContext, answer_id: int) -> tuple[object, dict] | None:
    row = ctx.store.get_answer(answer_id)
    if row is None or not row.answer_json:
        return None
    return row, json.loads(row.answer_json)
