"""Answer one question: gather its text (message, code, files), ask the knowledge
base, record the answer, post it."""

from __future__ import annotations

import dataclasses
import json
import logging
import re
import threading
from dataclasses import dataclass

from bot.answer.document import AnswerDocument
from bot.evidence.learn import example_text
from bot.evidence.record import record_gap
from bot.evidence.signature import question_hash
from bot.kb.loader import current_knowledge as knowledge
from bot.slack.blocks import answer_versions, escape, text_message, working_message
from bot.slack.i18n import t
from bot.slack.services.code_question import answer_code_question, code_question_of
from bot.slack.services.context import BotContext
from bot.slack.services.enrich import enrich
from bot.slack.services.files import FileRejected, fetch_file_text
from bot.slack.services.message import ParsedMessage, looks_like_traceback
from bot.slack.services.slack_api import Posted, Where, post, update
from bot.store.models import Answer
from bot.text.lang import LANGUAGES, detect_language

log = logging.getLogger(__name__)

# Error text, not a word about one: an exception line (`RuntimeError: ...`, `torch.cuda.OutOfMemoryError:`),
# or a line CUDA, NCCL or cuDNN prints. "what is this error?" and "이거 무슨 에러예요?" have none.
_EXCEPTION_LINE = re.compile(r"\b[A-Z]\w*(?:Error|Exception|Warning)\b(?:\s*\(.*?\))?:")
_LIBRARY_ERROR = re.compile(r"\bCUDA (?:error|out of memory)|\bCUDA kernel errors?\b|\bNCCL (?:error|WARN)\b|"
                            r"\bncclUnhandled\w*|\bCUDNN_STATUS_\w+|\bcuDNN error\b|\bCUBLAS_STATUS_\w+|"
                            r"\bdevice-side assert|\billegal memory access\b|Segmentation fault", re.IGNORECASE)


@dataclass
class Question:
    parsed: ParsedMessage
    surface: str            # mention, dm, command, shortcut, auto, edit
    where: Where
    question_ts: str | None = None
    team: str | None = None
    lang: str | None = None  # the asker's language when we know it better than the text does
    asker: str | None = None  # the Slack user id of who asked (stored only as a salted hash)

WORKING_AFTER_S = 1.0  # an answer slower than this shows "Looking this up…" first, then replaces it


def carries_error(parsed: ParsedMessage) -> bool:
    """Does the message itself hold something to look up (error text, code, a file)? A
    question about an error ("@bot what is this error?") under a traceback does not: the
    thread's parent does."""
    if parsed.code_blocks or parsed.files or looks_like_traceback(parsed.text):
        return True
    return bool(_EXCEPTION_LINE.search(parsed.text) or _LIBRARY_ERROR.search(parsed.text)
                or _known_error_message(parsed.text))


def _known_error_message(text: str) -> bool:
    """An error message pasted without its exception type ("Expected all tensors to be on
    the same device"): a knowledge-base signature recognises it."""
    try:
        kb = knowledge()
    except Exception as exc:  # noqa: BLE001 - the other tests still tell error text
        log.warning("knowledge not loaded to read a message: %s", type(exc).__name__)
        return False
    return any(entry.matches(text) for entry in kb.entries.values())


def prose_language(text: str) -> str | None:
    """An answer language other than English when the asker wrote in it (ko, zh); None
    (not "en") leaves the choice to retrieval, which also reads the pasted error."""
    lang = detect_language(text)
    return lang if lang in LANGUAGES and lang != "en" else None


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


class _Working:
    """Posts "Looking this up…" if the answer is not ready after WORKING_AFTER_S; the
    answer then replaces it (one message in the thread either way)."""

    def __init__(self, ctx: BotContext, where: Where, lang: str):
        self.ctx, self.where, self.lang = ctx, where, lang
        self.posted: Posted | None = None
        self._lock = threading.Lock()
        self._done = False
        self._timer = threading.Timer(WORKING_AFTER_S, self._post) if not where.private and where.channel else None
        if self._timer is not None:
            self._timer.daemon = True
            self._timer.start()

    def _post(self) -> None:
        with self._lock:
            if self._done:
                return
            try:
                self.posted = post(self.ctx.client, self.where, [working_message(self.lang)], lang=self.lang)
            except Exception as exc:  # noqa: BLE001 - only a courtesy
                log.info("no working message: %s", type(exc).__name__)

    def finish(self) -> Posted | None:
        """Stop the timer; the working message (if it went out) for the answer to replace."""
        if self._timer is not None:
            self._timer.cancel()
        with self._lock:
            self._done = True
            return self.posted if self.posted and self.posted.ts and self.posted.via == "message" else None


def verify_allowed(ctx: BotContext, team: str | None, channel: str | None) -> bool:
    settings = ctx.store.channel_settings(team, channel) if channel else None
    return settings is None or settings.verify_allowed is not False


def answer_question(ctx: BotContext, q: Question) -> Posted | None:
    text, notes = gather_text(ctx, q.parsed)
    # The asker's language when they wrote Korean or Chinese; else the channel's default
    # (`/troubleshoot config lang=...`); else retrieval decides from the text.
    settings = ctx.store.channel_settings(q.team, q.where.channel) if q.where.channel else None
    lang = q.lang or prose_language(q.parsed.prose) or (settings.language if settings else None)
    if not text.strip():
        message = text_message(t("no_error", lang or "en") + ("\n" + "\n".join(notes) if notes else ""))
        return post(ctx.client, _privately(q), [message], lang=lang or "en")

    code = code_question_of(q.parsed, text)
    if code is not None:  # Python code without error text: run it, answer from its real error
        return answer_code_question(ctx, where=q.where, question=code, lang=lang, surface=q.surface, team=q.team,
                                    question_ts=q.question_ts)
    working = _Working(ctx, q.where, lang or "en")
    try:
        try:
            # answer() takes text as Slack sends it and decodes entities itself; our text is
            # already decoded, so escape it back: every entity is decoded exactly once.
            with ctx.answer_slots:
                result = ctx.answer_fn(escape(text), lang=lang, top=3)
        except ValueError as exc:  # bot.answer.InputError: binary or empty input, said plainly
            return _deliver(ctx, q.where, [text_message(str(exc))], working.finish(), lang or "en")
        result = enrich(result)
        if result.tier == "choices":  # what a pick keeps for review (troubleshoot kb learn)
            result.question = example_text(text)
    except BaseException:
        working.finish()
        raise
    lang = result.language or lang or "en"
    best = result.best
    asker = ctx.store.user_hash(q.team, q.asker) if q.asker else None
    answer_id = ctx.store.add_answer(
        entry_id=best.id if best else None,
        confidence=float(best.confidence) if best else None,
        language=lang, surface=q.surface, error_hash=question_hash(text),
        channel=q.where.channel, thread_ts=q.where.thread_ts, question_ts=q.question_ts,
        answer_json=json.dumps(result.as_json(), ensure_ascii=False), asker=asker)
    where = q.where
    if result.declined == "no-error":
        # nothing to look up: the request for the error goes only to whoever used the shortcut
        where = _privately(q)
    placeholder = working.finish()
    if where.private and placeholder is not None:  # a public "Looking this up…" would stay behind
        try:
            ctx.client.chat_delete(channel=placeholder.channel, ts=placeholder.ts)
        except Exception:  # noqa: BLE001
            pass
        placeholder = None
    versions = answer_versions(result, answer_id=answer_id, private=where.private, notes=notes,
                               verify=settings is None or settings.verify_allowed is not False)
    posted = _deliver(ctx, where, versions, placeholder, lang)
    if posted.ts:
        ctx.store.set_answer_posted(answer_id, posted.channel, posted.ts)
    # after posting: a question we had no confident answer for
    record_gap(text, result, store=ctx.store)
    log.info("answered A%s surface=%s entry=%s via=%s", answer_id, q.surface, best.id if best else None, posted.via)
    return posted


def _privately(q: Question) -> Where:
    """Where a reply meant only for the asker goes: the message shortcut's user sees it alone
    (ephemeral); other surfaces keep their place."""
    if q.surface != "shortcut" or not q.where.user:
        return q.where
    return dataclasses.replace(q.where, private=True)



def _deliver(ctx: BotContext, where: Where, versions, working: Posted | None, lang: str) -> Posted:
    """Replace the working message with the answer, or post the answer."""
    if working is not None:
        try:
            update(ctx.client, working.channel, working.ts, versions)
            return working
        except Exception as exc:  # noqa: BLE001 - post it instead, and take the placeholder away
            log.warning("could not replace the working message: %s", type(exc).__name__)
            try:
                ctx.client.chat_delete(channel=working.channel, ts=working.ts)
            except Exception:  # noqa: BLE001
                pass
    return post(ctx.client, where, versions, lang=lang)


def stored_answer(ctx: BotContext, answer_id: int) -> tuple[Answer, AnswerDocument] | None:
    """The answer row and its document, read back from the store's JSON column; None
    when there is none (or it is not an answer document: logged)."""
    row = ctx.store.get_answer(answer_id)
    if row is None or not row.answer_json:
        return None
    try:
        return row, AnswerDocument.from_json(json.loads(row.answer_json))
    except (ValueError, TypeError) as exc:  # ValueError: bad JSON or a key the document lacks
        log.warning("stored answer A%s unreadable: %s", answer_id, exc)
        return None
