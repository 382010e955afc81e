"""Shared by the listeners: the work wrapper that turns any failure into an apology."""

from __future__ import annotations

import contextlib
import logging

from bot.slack.blocks import apology_message
from bot.slack.services.context import BotContext
from bot.slack.services.errors import log_failure
from bot.slack.services.slack_api import Where, post
from bot.slack.work_queue import retry_later

log = logging.getLogger("bot.slack")


def ack_now(ack) -> None:
    ack()


def is_from_bot(ctx: BotContext, event: dict) -> bool:
    """Our own messages always; other bots' unless TROUBLESHOOT_ANSWER_BOTS is set."""
    if event.get("user") and event.get("user") == ctx.bot_user_id:
        return True
    if ctx.bot_id and event.get("bot_id") == ctx.bot_id:
        return True
    is_bot = bool(event.get("bot_id") or event.get("bot_profile") or event.get("subtype") == "bot_message")
    return is_bot and not ctx.settings.answer_bots


@contextlib.contextmanager
def apologise_on_failure(ctx: BotContext, what: str, where: Where | None, lang: str = "en"):
    """Run the work; on any exception log it with a reference id and tell the user."""
    try:
        yield
    except Exception as exc:  # noqa: BLE001 - never silence: every failure is reported
        if retry_later(exc):  # the store is down: the owed work is tried again, apologised for if it never works
            raise
        ref = log_failure(what, exc)
        if where is None:
            return
        try:
            post(ctx.client, where, [apology_message(ref, lang)])
        except Exception as inner:  # noqa: BLE001
            log_failure(f"apology for {ref}", inner)
