"""The "Troubleshoot this" message shortcut: answer any message in its thread."""

from __future__ import annotations

from slack_bolt import App

from bot.slack.listeners._common import ack_now, apologise_on_failure
from bot.slack.listeners.events import message_keys
from bot.slack.services.answering import Question, answer_question, prose_language
from bot.slack.services.context import BotContext
from bot.slack.services.message import parse_message
from bot.slack.services.slack_api import Where, respond_url
from bot.slack.blocks import text_message
from bot.slack.i18n import t

CALLBACK_ID = "troubleshoot_this"


def answer_shortcut(ctx: BotContext, body: dict) -> None:
    message = body.get("message") or {}
    channel = (body.get("channel") or {}).get("id")
    user = (body.get("user") or {}).get("id")
    team = (body.get("team") or {}).get("id")
    if not message.get("ts") or not channel:
        return
    parsed = parse_message(message)
    lang = prose_language(parsed.prose) or "en"
    where = Where(channel=channel, thread_ts=message.get("thread_ts") or message["ts"], user=user,
                  response_url=body.get("response_url"))
    with apologise_on_failure(ctx, "shortcut answer", where, lang):
        # The same key a mention of this message would claim: one answer per message.
        if not ctx.store.claim(*message_keys(team, channel, message)):
            if body.get("response_url"):
                respond_url(body["response_url"], text_message(t("already_answered", lang)))
            return
        answer_question(ctx, Question(parsed=parsed, surface="shortcut", where=where, question_ts=message["ts"],
                                      team=team, lang=prose_language(parsed.prose)))


def register(app: App, ctx: BotContext) -> None:
    app.message_shortcut(CALLBACK_ID)(ack=ack_now, lazy=[lambda body: answer_shortcut(ctx, body)])
