"""`/troubleshoot [error text]`: an answer only the asker sees, with a Share button.
`/troubleshoot config [auto=on|off] [lang=en|ko|zh|auto] [verify=on|off]`: the channel's
settings, shown to anyone, changed by workspace admins and the channel's creator. The
reply is in the user's language (config_language: words they typed in Korean or Chinese,
else the language of their last answer, else the channel's configured language, else
English)."""

from __future__ import annotations

import logging

from slack_bolt import App

from bot.slack.blocks import Message, fallback, sections
from bot.slack.i18n import t
from bot.slack.listeners._common import apologise_on_failure
from bot.slack.services.answering import Question, answer_question, prose_language
from bot.slack.services.context import BotContext
from bot.slack.services.home import last_answer_language
from bot.slack.services.home import is_admin
from bot.slack.services.message import parse_message
from bot.slack.services.slack_api import Where, post
from bot.text.lang import LANGUAGES

COMMAND = "/troubleshoot"
CONFIG_WORD = "config"
ON, OFF = ("on", "yes", "true", "1"), ("off", "no", "false", "0")

log = logging.getLogger(__name__)


def is_config(text: str) -> bool:
    words = text.split()
    return bool(words) and words[0].lower() == CONFIG_WORD


def parse_config(args: list[str]) -> tuple[dict, list[str]]:
    """`key=value` words -> the settings to store (None: back to the default) and problems."""
    values, problems = {}, []
    for arg in args:
        key, _, value = arg.partition("=")
        key, value = key.lower().strip(), value.lower().strip()
        if key in ("auto", "auto-answer", "auto_answer") and value in ON + OFF + ("default",):
            values["auto_answer"] = None if value == "default" else value in ON
        elif key in ("verify", "verification") and value in ON + OFF + ("default",):
            values["verify_allowed"] = None if value == "default" else value in ON
        elif key in ("lang", "language") and value in LANGUAGES + ("auto", "default"):
            values["language"] = None if value in ("auto", "default") else value
        else:
            problems.append(arg)
    return values, problems


def may_configure(ctx: BotContext, user: str, channel: str) -> bool:
    """Workspace admins and owners, and the channel's creator."""
    if is_admin(ctx, user):
        return True
    try:
        info = ctx.client.conversations_info(channel=channel)["channel"]
        return info.get("creator") == user
    except Exception as exc:  # noqa: BLE001 - no channels:read / groups:read scope: admins only
        log.info("conversations.info failed: %s", type(exc).__name__)
        return False


def settings_text(ctx: BotContext, team: str | None, channel: str, lang: str) -> str:
    row = ctx.store.channel_settings(team, channel)
    auto = row.auto_answer if row and row.auto_answer is not None else channel in ctx.settings.auto_channels
    verify = row.verify_allowed if row and row.verify_allowed is not None else True
    language = (row.language if row and row.language else None) or t("config_lang_auto", lang)
    return t("config_now", lang, channel=channel, auto=t("on" if auto else "off", lang),
             language=language, verify=t("on" if verify else "off", lang))


def config_language(ctx: BotContext, team: str | None, channel: str | None, user: str | None, text: str) -> str:
    """The language of a `/troubleshoot config` reply, first that applies: the command's own
    words (not `key=value` settings) are Korean or Chinese; the language of the user's last
    answer in the store; the channel's configured language (as it was before this command);
    English. What a person just wrote says most about what they read; a channel's
    language is the team's choice for answers, the weakest sign for one person's reply."""
    words = " ".join(w for w in text.split()[1:] if "=" not in w)
    typed = prose_language(words) if words else None
    if typed:
        return typed
    last = last_answer_language(ctx, ctx.store.user_hash(team, user)) if user else None
    if last:
        return last
    row = ctx.store.channel_settings(team, channel)
    return row.language if row is not None and row.language in LANGUAGES else "en"


def configure(ctx: BotContext, command: dict) -> None:
    text = (command.get("text") or "").strip()
    args = text.split()[1:]
    team, channel, user = command.get("team_id"), command.get("channel_id"), command.get("user_id")
    where = Where(channel=channel, user=user, response_url=command.get("response_url"), private=True)
    lang = config_language(ctx, team, channel, user, text)
    if not args:
        reply = settings_text(ctx, team, channel, lang) + "\n" + t("config_usage", lang)
    else:
        values, problems = parse_config(args)
        if problems:
            reply = t("config_bad", lang, words=" ".join(problems)) + "\n" + t("config_usage", lang)
        elif not may_configure(ctx, user, channel):
            reply = t("config_denied", lang)
        else:
            ctx.store.set_channel_settings(team, channel, updated_by=ctx.store.user_hash(team, user), **values)
            log.info("channel %s settings changed: %s", channel, values)
            reply = t("config_saved", lang) + "\n" + settings_text(ctx, team, channel, lang)
    post(ctx.client, where, [Message(text=fallback(reply.replace("`", "")), blocks=sections(reply))])


def ack_command(ack, command: dict) -> None:
    text = (command.get("text") or "").strip()
    if not text:
        ack(text=t("usage", prose_language(text) or "en"))
    else:
        ack()  # the answer follows through response_url


def answer_command(ctx: BotContext, command: dict) -> None:
    text = (command.get("text") or "").strip()
    if not text:
        return
    if is_config(text):
        where = Where(channel=command.get("channel_id"), user=command.get("user_id"),
                      response_url=command.get("response_url"), private=True)
        with apologise_on_failure(ctx, "channel config", where):
            configure(ctx, command)
        return
    parsed = parse_message({"text": text})
    lang = prose_language(parsed.prose)
    where = Where(channel=command.get("channel_id"), user=command.get("user_id"),
                  response_url=command.get("response_url"), private=True)
    with apologise_on_failure(ctx, "slash command answer", where, lang or "en"):
        answer_question(ctx, Question(parsed=parsed, surface="command", where=where,
                                      team=command.get("team_id"), lang=lang, asker=command.get("user_id")))


def register(app: App, ctx: BotContext) -> None:
    app.command(COMMAND)(ack=ack_command, lazy=[lambda command: answer_command(ctx, command)])
