"""Modals: "paste a snippet" (Verify fix found none) and "why 👎" (a vote down).

"The fix did not work" is a vote against the fix the answer showed first: the asker's
👎 on that answer (bot/evidence/votes.py), one per asker and answer, counted like any
vote (bot/evidence/rates.py). It is not a run: nothing was run, so it adds no
verification, and rates say "votes", not "runs"."""

from __future__ import annotations

import ast
import logging
from typing import Any

from slack_bolt import App

from bot.evidence.votes import AnswerVote, Direction, record_vote
from bot.slack.blocks import DOWNVOTE_MODAL, DOWNVOTE_REASONS, SNIPPET_MODAL
from bot.slack.i18n import t
from bot.slack.listeners._common import apologise_on_failure
from bot.slack.listeners.actions import verify_from_slack
from bot.slack.services.answering import stored_answer
from bot.slack.services.context import BotContext
from bot.slack.services.slack_api import Where

log = logging.getLogger(__name__)


def _code(view: dict) -> str:
    try:
        return view["state"]["values"]["snippet"]["code"]["value"] or ""
    except (KeyError, TypeError):
        return ""


def _syntax_error(code: str) -> str | None:
    if not code.strip():
        return "empty"
    try:
        ast.parse(code)
    except SyntaxError as exc:
        return f"line {exc.lineno}: {exc.msg}"
    return None


def _answer_id(view: dict) -> int | None:
    try:
        return int(view.get("private_metadata") or "")
    except ValueError:
        return None


def ack_submission(ctx: BotContext, ack: Any, view: dict) -> None:
    error = _syntax_error(_code(view))
    if error:
        stored = stored_answer(ctx, _answer_id(view) or -1)
        lang = stored[0].language if stored else "en"
        ack(response_action="errors", errors={"snippet": t("not_python", lang, error=error)})
    else:
        ack()


def run_submission(ctx: BotContext, body: dict, view: dict) -> None:
    code = _code(view)
    answer_id = _answer_id(view)
    stored = stored_answer(ctx, answer_id) if answer_id is not None else None
    if _syntax_error(code) or stored is None:
        log.warning("snippet modal with a bad snippet or unknown answer ignored")
        return
    row, answer = stored
    user = (body.get("user") or {}).get("id")
    with apologise_on_failure(ctx, "verify from modal", Where(channel=None, user=user),
                              row.language):
        verify_from_slack(ctx, body, answer_id=answer_id, row=row, answer=answer, code=code,
                           private=row.surface == "command" or not row.channel)


def ack_reason(ack: Any, view: dict) -> None:
    ack()


def save_reason(ctx: BotContext, body: dict, view: dict) -> None:
    answer_id = _answer_id(view)
    stored = stored_answer(ctx, answer_id) if answer_id is not None else None
    values = (view.get("state") or {}).get("values") or {}
    reason = (((values.get("reason") or {}).get("choice") or {}).get("selected_option") or {}).get("value")
    comment = ((values.get("comment") or {}).get("text") or {}).get("value")
    user, team = (body.get("user") or {}).get("id"), (body.get("team") or {}).get("id")
    if stored is None or reason not in DOWNVOTE_REASONS or not user:
        log.warning("a 👎 reason for an unknown answer or with no reason ignored")
        return
    row, answer = stored
    user_hash = ctx.store.user_hash(team, user)
    best = answer.best
    fix = best.workarounds[0].id if best and best.workarounds else None  # the fix the answer showed first
    ctx.store.add_vote_reason(answer_id=answer_id, user_hash=user_hash, entry_id=row.entry_id,
                              workaround_id=fix, reason=reason, comment=comment)
    if reason == "fix_failed" and row.entry_id and fix:
        record_failed_fix(ctx, answer_id=answer_id, user_hash=user_hash)
    log.info("👎 reason %s for A%s", reason, answer_id)


def register(app: App, ctx: BotContext) -> None:
    app.view_submission(SNIPPET_MODAL)(ack=lambda ack, view: ack_submission(ctx, ack, view),
                                       lazy=[lambda body, view: run_submission(ctx, body, view)])
    app.view_submission(DOWNVOTE_MODAL)(ack=ack_reason, lazy=[lambda body, view: save_reason(ctx, body, view)])


def record_failed_fix(ctx: BotContext, *, answer_id: int, user_hash: str) -> None:
    """The asker says the fix the answer showed first did not work: their vote on the
    answer is a 👎 (the 👎 that opened this modal, kept as it is; one that was changed to
    👍 in the meantime goes back), which rates count against that fix."""
    record_vote(AnswerVote(answer_id, user_hash, Direction.DOWN), store=ctx.store)
