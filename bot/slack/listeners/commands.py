"""`/troubleshoot [error text]`: an answer only the asker sees, with a Share button."""

from __future__ import annotations

from slack_bolt import App

from bot.slack.i18n import t
from bot.slack.listeners._common import apologise_on_failure
from bot.slack.services.answering import Question, answer_question, prose_language
from bot.slack.services.context import BotContext
from bot.slack.services.message import parse_message
from bot.slack.services.slack_api import Where

COMMAND = "/troubleshoot"


def register(app: App, ctx: BotContext) -> None:

    def ack_command(ack, command: dict) -> None:
        text = (command.get("text") or "").strip()
        if not text:
            ack(text=t("usage", prose_language(text) or "en"))
        else:
            ack()  # the answer follows through response_url

    def answer_command(command: dict) -> None:
        text = (command.get("text") or "").strip()
        if not text:
            return
        parsed = parse_message({"text": text})
        lang = prose_language(parsed.prose)
        where = Where(channel=command.get("channel_id"), user=command.get("user_id"),
                      response_url=command.get("response_url"), private=True)
        with apologise_on_failure(ctx, "slash command answer", where, lang or "en"):
            answer_question(ctx, Question(parsed=parsed, surface="command", where=where,
                                          team=command.get("team_id"), lang=lang))

    app.command(COMMAND)(ack=ack_command, lazy=[answer_command])
