"""Verify the fixes of an answer on the asker's snippet, from a Slack button.

The run goes through bot.jobs' executor (`BotContext.executor`, the one Executor
protocol of bot/jobs/base.py): in this process, or on GPU workers through Celery when
REDIS_URL is set. `executor.verify(code, progress, record=Recording(...))` waits for
the typed report, which is recorded as evidence on the way (bot/evidence/record.py);
`progress(stage, done, total)` reports each step.

What must hold: one running verification per user (a lock row in the store, so a
double click or a second bot process starts nothing twice); a status message that
moves as the runs progress; the final per-fix statuses with a short output excerpt,
the full output as a file when it is long; then the answer's own message redrawn with
the evidence as it now stands (the run was recorded: its evidence line moves).
"""

from __future__ import annotations

import logging
import threading
import time
from functools import partial

from bot.answer import get_rate_source
from bot.answer.build import refresh_rates
from bot.evidence.record import Recording
from bot.jobs import Executor, JobError, get_executor
from bot.answer.document import AnswerDocument
from bot.kb.loader import current_knowledge
from bot.slack.blocks import (answer_versions, apology_message, fix_titles, output_excerpt, verification_done_notice,
                              verification_progress, verification_result)
from bot.slack.services.context import BotContext
from bot.slack.services.errors import log_failure
from bot.slack.services.slack_api import Where, post, update
from bot.text.jsonin import loads as json_loads

log = logging.getLogger(__name__)

UPDATE_EVERY_S = 1.0  # chat.update is rate limited (about 50 a minute per channel)


def default_executor() -> Executor:
    """bot.jobs' executor: in this process, or on GPU workers through the broker when
    REDIS_URL is set (nothing connects until a verification is submitted). JobError
    messages are meant for the user."""
    return get_executor()


class _StatusUpdater:
    """Turns progress callbacks into chat.update calls, at most one a second; the
    last state is always shown by the final update."""

    def __init__(self, ctx: BotContext, channel: str, ts: str, lang: str, titles: dict[str, str] | None = None):
        self.ctx, self.channel, self.ts, self.lang = ctx, channel, ts, lang
        self.titles = titles or {}
        self._last = 0.0
        self._lock = threading.Lock()

    def __call__(self, stage: str, done: int, total: int) -> None:
        with self._lock:
            now = time.monotonic()
            if now - self._last < UPDATE_EVERY_S:
                return
            self._last = now
        try:
            update(self.ctx.client, self.channel, self.ts,
                   [verification_progress(self.lang, stage, done, total, titles=self.titles)])
        except Exception as exc:  # noqa: BLE001 - a missed progress update must not stop the run
            log.warning("progress update failed: %s", type(exc).__name__)


def workaround_titles(answer: AnswerDocument | None) -> dict[str, str]:
    return fix_titles(answer)


def start_verification(ctx: BotContext, *, code: str, user_hash: str, answer_id: int | None, where: Where,
                       lang: str, answer: AnswerDocument | None = None, user: str | None = None) -> bool:
    """Start a verification on the verification pool; False (and nothing started) when
    this user already has one running, in this process or another sharing the store."""
    if not ctx.store.lock_verification(user_hash, answer_id):
        return False
    job = partial(_run_locked, ctx, code=code, user_hash=user_hash, answer_id=answer_id, where=where, lang=lang,
                  answer=answer, user=user)
    try:
        if ctx.verify_pool is not None:
            ctx.verify_pool.submit(job)
        else:
            job()
    except RuntimeError:  # the pool is shutting down
        ctx.store.unlock_verification(user_hash)
        raise
    return True


def _run_locked(ctx: BotContext, *, code: str, user_hash: str, answer_id: int | None, where: Where, lang: str,
                answer: AnswerDocument | None, user: str | None = None) -> None:
    """Run one verification and report it in Slack; the user's lock is released at the end."""
    status = None
    try:
        status = post(ctx.client, where, [verification_progress(lang, "queued", 0, 0)])
        titles = workaround_titles(answer)
        progress = _StatusUpdater(ctx, status.channel, status.ts, lang, titles) if status.ts else (lambda *a: None)
        # Recording never raises; see bot/evidence/record.py
        recording = Recording("slack", user_hash, answer_id=answer_id, store=ctx.store)
        report = ctx.executor.verify(code, progress, lang=lang, record=recording)
        output = report.output or ""
        _, cut = output_excerpt(output)
        attached = False
        if cut and status.channel:
            try:
                ctx.client.files_upload_v2(channel=status.channel, thread_ts=where.thread_ts or status.ts,
                                           content=output, filename="verification-output.txt",
                                           title="verification output")
                attached = True
            except Exception as exc:  # noqa: BLE001 - the summary still goes out
                log.warning("uploading the full output failed: %s", type(exc).__name__)
        final = verification_result(report, lang, titles=titles, file_attached=attached, user=user, answer=answer)
        if status.ts:
            update(ctx.client, status.channel, status.ts, [final])
        else:
            post(ctx.client, where, [final])
        if user and status.channel:
            # An edit notifies nobody: a new message in the thread tells the asker it is done.
            try:
                post(ctx.client, Where(channel=status.channel, thread_ts=where.thread_ts, user=user),
                     [verification_done_notice(lang, user, report, titles=titles, answer=answer)], lang=lang)
            except Exception as exc:  # noqa: BLE001 - the result is there already
                log.warning("could not notify the asker: %s", type(exc).__name__)
        try:
            if recording.ids:  # the run is evidence now: the answer's rates moved
                redraw_answer(ctx, answer_id)
        except Exception as exc:  # noqa: BLE001 - the result is there; the old evidence line stays
            log.warning("could not redraw A%s: %s", answer_id, type(exc).__name__)
        log.info("verification for A%s done: reproduced=%s fixes=%s", answer_id, report.reproduced,
                 [f.status.value for f in report.fixes])
    except Exception as exc:  # noqa: BLE001 - every failure reaches the user
        ref = log_failure("verification", exc)
        apology = apology_message(ref, lang, detail=str(exc) if isinstance(exc, JobError) else None)
        try:
            if status is not None and status.ts:
                update(ctx.client, status.channel, status.ts, [apology])
            else:
                post(ctx.client, where, [apology])
        except Exception as inner:  # noqa: BLE001
            log_failure("apology after a failed verification", inner)
    finally:
        ctx.store.unlock_verification(user_hash)


def redraw_answer(ctx: BotContext, answer_id: int | None) -> None:
    """The answer's message (a public one: an ephemeral answer cannot be edited) drawn again
    with the rates as they stand after the run was recorded (recording tells the rates
    cache, bot.evidence.rates.evidence_changed), its fixes in the order it showed them."""
    row = ctx.store.get_answer(answer_id) if answer_id is not None else None
    if answer_id is None or row is None or not row.channel or not row.ts or not row.answer_json:
        return
    shown = AnswerDocument.from_json(json_loads(row.answer_json))
    fresh = refresh_rates(shown, current_knowledge(), get_rate_source())
    update(ctx.client, row.channel, row.ts,
           answer_versions(fresh, answer_id=answer_id, votes=ctx.store.vote_counts(answer_id)))
