"""The "paste a snippet" modal opened by Verify fix when no snippet was found."""

from __future__ import annotations

import ast
import logging

from slack_bolt import App

from bot.slack.blocks import SNIPPET_MODAL
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


def register(app: App, ctx: BotContext) -> None:

    def ack_submission(ack, view: dict) -> None:
        error = _syntax_error(_code(view))
        if error:
            stored = stored_answer(ctx, _answer_id(view) or -1)
            lang = stored[0].language if stored else "en"
            ack(response_action="errors", errors={"snippet": t("not_python", lang, error=error)})
        else:
            ack()

    def run_submission(body: dict, view: dict) -> None:
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

    app.view_submission(SNIPPET_MODAL)(ack=ack_submission, lazy=[run_submission])
