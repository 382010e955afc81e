"""A question that is Python code without error text (bot/verify/code_question.py).

In Slack: a "Running your snippet…" message right away, moving with the run's progress;
the run goes through the executor like a Verify-fix click (the one verification path,
one running verification per user); when the report is there, that message becomes the
answer to the error the run really raised (or "it ran without an error on torch X"),
and the verification (what each fix did to the asker's snippet) follows in the thread.

A second code question while the asker's run (or Verify-fix run) is going is queued, not
dropped: a "queued" message at once, and the run starts when the store's per-user lock
is free, one waiting question after another in the order asked. The queue lives in this
process (a restart loses what waits); the lock it waits for is the store's, so a run in
another bot process counts too. Beyond MAX_WAITING waiting questions one is refused,
saying so.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections import deque
from functools import partial
from typing import Callable

from bot.answer.code import answer_from_report, not_run_answer
from bot.answer.document import AnswerDocument
from bot.evidence.record import Recording, record_gap
from bot.evidence.signature import question_hash
from bot.jobs import JobError
from bot.slack.blocks import Message, apology_message, escape, fallback, sections, text_message, verification_result
from bot.slack.blocks import answer_message, compact_answer_message
from bot.slack.i18n import t
from bot.slack.services.context import BotContext
from bot.slack.services.enrich import enrich
from bot.slack.services.errors import log_failure
from bot.slack.services.message import ParsedMessage
from bot.slack.services.slack_api import Posted, Where, post, update
from bot.slack.services.verification import workaround_titles
from bot.verify.code_question import CodeQuestion, detect_code, traceback_text
from bot.verify.report import ExitReason

log = logging.getLogger(__name__)

MAX_WAITING = 3  # questions one user may have waiting behind a running one
POLL_SECONDS = 1.0  # how often a waiting question looks at the lock (it may be another process's)

_waiting: dict[str, deque[Callable[[], None]]] = {}
_waiting_guard = threading.Lock()


def code_question_of(parsed: ParsedMessage, text: str) -> CodeQuestion | None:
    """The message as a code question: its code blocks with the words around them, or
    (no blocks) the whole text, attached .py files included."""
    if parsed.code_blocks:
        fenced = "\n".join([parsed.prose] + [f"```\n{code}\n```" for code in parsed.code_blocks])
        return detect_code(fenced)
    return detect_code(text)


def queued_message(lang: str) -> Message:
    words = t("code_queued", lang)
    return Message(text=fallback(words), blocks=sections(f":hourglass: {words}"))


def running_message(lang: str, stage: str | None = None, done: int = 0, total: int = 0) -> Message:
    words = t("code_running", lang)
    if stage and stage not in ("queued", "running original") and total:
        words += f" ({escape(stage[:120])}, {done}/{total})"
    return Message(text=fallback(words), blocks=sections(f":hourglass_flowing_sand: {words}"))


class _Progress:
    """The running message, moved at most once a second (chat.update is rate limited)."""

    def __init__(self, ctx: BotContext, status: Posted, lang: str):
        import threading
        import time

        self.ctx, self.status, self.lang = ctx, status, lang
        self._time = time.monotonic
        self._last = 0.0
        self._lock = threading.Lock()

    def __call__(self, stage: str, done: int, total: int) -> None:
        if not self.status.ts:
            return
        with self._lock:
            now = self._time()
            if now - self._last < 1.0:
                return
            self._last = now
        try:
            update(self.ctx.client, self.status.channel, self.status.ts,
                   [running_message(self.lang, stage, done, total)])
        except Exception as exc:  # noqa: BLE001 - a missed progress update must not stop the run
            log.warning("progress update failed: %s", type(exc).__name__)


def answer_code_question(ctx: BotContext, *, where: Where, question: CodeQuestion, lang: str | None, surface: str,
                         team: str | None, question_ts: str | None) -> Posted | None:
    """Run the asker's snippet and answer from its error (see the module docstring)."""
    lang = lang or question.language
    if not question.runnable:  # a fragment: say why it is not run instead of guessing from its words
        note = not_run_answer(question, lang, why="not_runnable").note or ""
        return post(ctx.client, where, [text_message(note)])
    user_hash = ctx.store.user_hash(team, where.user or "-")
    run = partial(_run, ctx, where=where, question=question, lang=lang, surface=surface,
                  user_hash=user_hash, question_ts=question_ts)
    with _waiting_guard:
        others_wait = user_hash in _waiting
    if others_wait or not ctx.store.lock_verification(user_hash, None):  # in the order asked
        return _queue_behind(ctx, where, user_hash, lang, run)
    try:
        status = post(ctx.client, where, [running_message(lang)])
        _submit(ctx, partial(run, status=status))
    except BaseException:
        ctx.store.unlock_verification(user_hash)
        raise
    return status


def _submit(ctx: BotContext, job: Callable[[], None]) -> None:
    if ctx.verify_pool is not None:
        ctx.verify_pool.submit(job)
    else:
        job()


def _queue_behind(ctx: BotContext, where: Where, user_hash: str, lang: str,
                  run: Callable[..., None]) -> Posted:
    """The user's lock is held: say so and queue the question, or say it was not queued."""
    with _waiting_guard:
        full = len(_waiting.get(user_hash, ())) >= MAX_WAITING
    if full:
        return post(ctx.client, where, [text_message(t("code_queue_full", lang, count=MAX_WAITING))])
    status = post(ctx.client, where, [queued_message(lang)])  # outside the guard: Slack may be slow
    with _waiting_guard:
        line = _waiting.get(user_hash)
        if line is None:
            line = _waiting[user_hash] = deque()
            threading.Thread(target=_drain, args=(ctx, user_hash), name="code-question-queue", daemon=True).start()
        line.append(partial(_start_queued, ctx, run, status, lang))
    return status


def _drain(ctx: BotContext, user_hash: str) -> None:
    """Start the user's waiting questions in order, each once it holds the user's lock
    (released by the run it starts, at its end)."""
    while True:
        try:
            locked = ctx.store.lock_verification(user_hash, None)
        except Exception as exc:  # noqa: BLE001 - the store is down for a moment: wait and look again
            log.warning("waiting question: the lock could not be read (%s)", type(exc).__name__)
            locked = False
        if not locked:
            time.sleep(POLL_SECONDS)
            continue
        with _waiting_guard:
            line = _waiting[user_hash]
            start = line.popleft()
            last = not line
            if last:  # a question asked from now on starts a new line (and thread)
                del _waiting[user_hash]
        try:
            start()
        except Exception as exc:  # noqa: BLE001 - the pool is shutting down: nothing will run it
            log_failure("starting a queued code question", exc)
            ctx.store.unlock_verification(user_hash)
        if last:
            return


def _start_queued(ctx: BotContext, run: Callable[..., None], status: Posted, lang: str) -> None:
    if status.ts:  # the "queued" message now says it runs
        try:
            update(ctx.client, status.channel, status.ts, [running_message(lang)])
        except Exception as exc:  # noqa: BLE001 - the run goes on; its answer replaces the message anyway
            log.warning("could not mark a queued question running: %s", type(exc).__name__)
    _submit(ctx, partial(run, status=status))


def _show(ctx: BotContext, where: Where, status: Posted, versions: list[Message]) -> Posted:
    """Replace the running message (a public one), or post anew (ephemeral, or no ts)."""
    if status.ts and status.via in ("message", "dm"):
        update(ctx.client, status.channel, status.ts, versions)
        return status
    return post(ctx.client, where, versions)


def _run(ctx: BotContext, *, where: Where, question: CodeQuestion, lang: str, surface: str, status: Posted,
         user_hash: str, question_ts: str | None) -> None:
    try:
        recording = Recording("slack", user_hash, store=ctx.store)
        report = ctx.executor.verify(question.code, _Progress(ctx, status, lang), lang=lang, record=recording)

        def answer_fn(text: str, *, lang: str | None, top: int) -> AnswerDocument:
            with ctx.answer_slots:  # answer() takes Slack's escaped text: escape the traceback once
                return ctx.answer_fn(escape(text), lang=lang, top=top)

        data = enrich(answer_from_report(report, question, answer_fn, lang=lang, top=3))
        note = data.note or ""
        if not report.reproduced:
            _show(ctx, where, status, [text_message(f":white_check_mark: {note}"
                                                    if report.exit_reason == ExitReason.OK else note)])
            return
        error_text = traceback_text(report)
        best = data.best
        answer_id = ctx.store.add_answer(
            entry_id=best.id if best else None,
            confidence=float(best.confidence) if best else None,
            language=data.language or lang, surface=surface, error_hash=question_hash(error_text),
            channel=where.channel, thread_ts=where.thread_ts, question_ts=question_ts,
            answer_json=json.dumps(data.as_json(), ensure_ascii=False))
        head = sections(f":arrow_forward: {escape(note)}")
        # No Verify button: the verification has run already (it follows in the thread).
        full = answer_message(data, answer_id=answer_id, private=where.private, verify=False)
        compact = compact_answer_message(data, answer_id=answer_id, private=where.private, verify=False)
        versions = [Message(text=m.text, blocks=head + m.blocks) for m in (full, compact)]
        versions.append(text_message(note + "\n" + full.text))
        shown = _show(ctx, where, status, versions)
        if shown.ts:
            ctx.store.set_answer_posted(answer_id, shown.channel, shown.ts)
        post(ctx.client, where, [verification_result(report, lang, titles=workaround_titles(data), answer=data)])
        recording.link_answer(answer_id)  # the answer exists only now, made from the report
        record_gap(error_text, data, store=ctx.store)
        log.info("code question answered A%s entry=%s fixes=%s", answer_id, best.id if best else None,
                 [f.status.value for f in report.fixes])
    except Exception as exc:  # noqa: BLE001 - every failure reaches the user
        ref = log_failure("code question", exc)

        apology = apology_message(ref, lang, detail=str(exc) if isinstance(exc, JobError) else None)
        try:
            _show(ctx, where, status, [apology])
        except Exception as inner:  # noqa: BLE001
            log_failure("apology after a failed code question", inner)
    finally:
        ctx.store.unlock_verification(user_hash)
