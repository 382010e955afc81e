"""Find the asker's repro snippet for a "Verify fix" click: the question message
first, then the thread's other human messages, newest first; code blocks and
attached .py files count, pasted tracebacks do not."""

from __future__ import annotations

import logging

from slack_sdk.errors import SlackApiError

from bot.slack.services.context import BotContext
from bot.slack.services.files import FileRejected, fetch_file_text
from bot.slack.services.message import looks_like_snippet, parse_message

log = logging.getLogger(__name__)


def _is_bot(ctx: BotContext, message: dict) -> bool:
    return bool(message.get("bot_id") or message.get("subtype") == "bot_message"
                or (ctx.bot_user_id and message.get("user") == ctx.bot_user_id))


def snippet_in_message(ctx: BotContext, message: dict) -> str | None:
    parsed = parse_message(message)
    if parsed.snippets:
        return parsed.snippets[0]
    for info in parsed.files:
        name = (info.get("name") or "").lower()
        if not (name.endswith(".py") or info.get("filetype") == "python"):
            continue
        try:
            text = fetch_file_text(ctx.client, info, ctx.settings.bot_token, limit=ctx.settings.max_file_bytes).text
        except FileRejected as exc:
            log.info("snippet file skipped: %s", exc)
            continue
        if looks_like_snippet(text):
            return text
    return None


def find_snippet(ctx: BotContext, channel: str | None, thread_ts: str | None, question_ts: str | None) -> str | None:
    if not channel or not thread_ts:
        return None
    try:
        messages = ctx.client.conversations_replies(channel=channel, ts=thread_ts, limit=200)["messages"]
    except SlackApiError as exc:
        log.warning("could not read the thread: %s", exc.response.get("error"))
        return None
    humans = [m for m in messages if not _is_bot(ctx, m)]
    first = [m for m in humans if m.get("ts") == question_ts]
    rest = [m for m in reversed(humans) if m.get("ts") != question_ts]
    for message in first + rest:
        snippet = snippet_in_message(ctx, message)
        if snippet:
            return snippet
    return None
