"""Events: mentions, direct messages, auto-answer channels, edits and deletions.

Exactly one answer per question: before answering, the delivery (`event_id`), the
message (`channel` + `ts`) and the client's message id are claimed in the store at
once. A Slack retry (X-Slack-Retry-Num), a duplicate delivery, or the `message`
event that arrives beside `app_mention` for the same message finds its key taken,
in this process or any other that shares the store, and does nothing.

Edits and deletions (the policy, also in the README):
- an edit that adds a mention of the bot to a message it has not answered is
  answered like a new mention; other edits are ignored (the answer stays with the
  text it answered; mention the bot again to ask anew);
- when a question the bot answered is deleted, the bot deletes its answer too.

Follow-ups: in a thread the bot has answered (and only there), a new error, a snippet
or a question is answered without mentioning the bot again; chatter ("thanks!") is not.
A new error or snippet is a new question (a new answer); a question without error text
is answered from the entry the thread was answered with (services/followup.py), never
with the same answer card again. A mention without error text in a thread the bot has
not answered looks up the thread's first message.
Direct messages are answered inline (a thread only when the user wrote in one).
Events the bot does not use (file_shared, reaction_added, app_uninstalled, ...) are
acknowledged with 200 so that Slack does not retry them.
"""

from __future__ import annotations

import logging
import re

from slack_bolt import App
from slack_sdk.errors import SlackApiError

from bot.slack.listeners import home
from bot.slack.listeners._common import ack_now, apologise_on_failure, is_from_bot
from bot.slack.services.answering import Question, answer_question, carries_error, prose_language
from bot.slack.services.context import BotContext
from bot.slack.services.followup import answer_follow_up, is_chatter
from bot.slack.services.message import ParsedMessage, looks_like_traceback, parse_message
from bot.slack.services.slack_api import Where

log = logging.getLogger(__name__)


def message_keys(team: str | None, channel: str, event: dict, event_id: str | None = None) -> list[str]:
    keys = [f"msg:{team or '-'}:{channel}:{event['ts']}"]
    if event_id:
        keys.append(f"event:{event_id}")
    if event.get("client_msg_id"):
        keys.append(f"cmsg:{event['client_msg_id']}")
    return keys


def _parent_message(ctx: BotContext, channel: str, thread_ts: str) -> dict | None:
    try:
        messages = ctx.client.conversations_replies(channel=channel, ts=thread_ts, limit=1)["messages"]
    except SlackApiError as exc:
        log.warning("could not read the thread's parent: %s", exc.response.get("error"))
        return None
    return messages[0] if messages else None


def _merge(parent: ParsedMessage, mention: ParsedMessage) -> ParsedMessage:
    """The parent's error with the asker's own words (which set the answer language)."""
    text = "\n".join(p for p in (parent.text, mention.text) if p.strip())
    return ParsedMessage(text=text, prose=mention.prose or parent.prose,
                         code_blocks=parent.code_blocks + mention.code_blocks, files=parent.files + mention.files)


def _answer_message_event(ctx: BotContext, *, event: dict, channel: str, team: str | None, surface: str,
                          keys: list[str]) -> None:
    if not ctx.store.claim(*keys):
        log.info("duplicate %s for %s:%s ignored", surface, channel, event.get("ts"))
        return
    thread_ts = event.get("thread_ts") or event["ts"]
    inline = surface == "dm" and not event.get("thread_ts")  # a DM is a conversation: answer inline
    where = Where(channel=channel, thread_ts=None if inline else thread_ts, user=event.get("user"))
    parsed = parse_message(event)
    lang = prose_language(parsed.prose) or "en"
    with apologise_on_failure(ctx, f"{surface} answer", where, lang):
        question = parsed
        if surface in ("mention", "edit", "followup") and not carries_error(parsed) and thread_ts != event["ts"]:
            # A question in a thread the bot answered is about that answer: reply to it from
            # the answer's entry (chatter gets nothing). Otherwise it is about the parent's error.
            answered = ctx.store.answered_in_thread(channel, thread_ts) if parsed.prose.strip() else None
            if answered is not None:
                if is_chatter(parsed.prose):
                    return
                if answer_follow_up(ctx, answered, parsed.prose, where, lang):
                    return
            parent = _parent_message(ctx, channel, thread_ts)
            if parent is not None:
                question = _merge(parse_message(parent), parsed)
        answer_question(ctx, Question(parsed=question, surface=surface, where=where, question_ts=event["ts"],
                                      team=team, lang=prose_language(parsed.prose), asker=event.get("user")))


def _mentions_bot(ctx: BotContext, text: str | None) -> bool:
    return bool(ctx.bot_user_id) and f"<@{ctx.bot_user_id}" in (text or "")


_QUESTION = re.compile(r"[?？]\s*$|^\s*(how|why|what|which|when|where|does|do|is|are|can|could|should|will|would|"
                       r"any|still)\b|어떻게|왜|무엇|뭐|되나요|할까요|나요\??\s*$|为什么|怎么|如何|什么|吗[？?]?\s*$",
                       re.IGNORECASE | re.MULTILINE)


def is_follow_up(parsed: ParsedMessage) -> bool:
    """Worth answering in a thread the bot answered: an error, code, a file, or a question."""
    return carries_error(parsed) or bool(parsed.snippets) or bool(_QUESTION.search(parsed.prose or parsed.text))


def auto_answers(ctx: BotContext, team: str | None, channel: str) -> bool:
    """TROUBLESHOOT_AUTO_CHANNELS, unless `/troubleshoot config auto=off` turned it off;
    or `/troubleshoot config auto=on`."""
    settings = ctx.store.channel_settings(team, channel)
    if settings is not None and settings.auto_answer is not None:
        return settings.auto_answer
    return channel in ctx.settings.auto_channels


def on_mention(ctx: BotContext, body: dict, event: dict, request) -> None:
    if is_from_bot(ctx, event):
        return
    retry = (request.headers.get("x-slack-retry-num") or [None])[0]
    if retry:  # nothing special to do: the claim below finds the first delivery's keys
        log.info("Slack retry %s of event %s (%s)", retry, body.get("event_id"),
                 (request.headers.get("x-slack-retry-reason") or ["?"])[0])
    team = body.get("team_id")
    _answer_message_event(ctx, event=event, channel=event["channel"], team=team, surface="mention",
                          keys=message_keys(team, event["channel"], event, body.get("event_id")))


def on_message(ctx: BotContext, body: dict, event: dict) -> None:
    subtype = event.get("subtype")
    team = body.get("team_id")
    if subtype == "message_changed":
        return on_edit(ctx, body, event)
    if subtype == "message_deleted":
        return on_delete(ctx, event)
    if subtype not in (None, "file_share", "thread_broadcast") or is_from_bot(ctx, event):
        return
    channel = event["channel"]
    keys = message_keys(team, channel, event, body.get("event_id"))
    if event.get("channel_type") == "im":
        _answer_message_event(ctx, event=event, channel=channel, team=team, surface="dm", keys=keys)
    elif _mentions_bot(ctx, event.get("text")):
        return  # answered from its app_mention event
    elif event.get("thread_ts") not in (None, event["ts"]):
        # A reply in a thread: a follow-up when the bot answered in this thread.
        if ctx.store.answered_in_thread(channel, event["thread_ts"]) is None:
            return
        if is_follow_up(parse_message(event)):
            _answer_message_event(ctx, event=event, channel=channel, team=team, surface="followup", keys=keys)
    elif auto_answers(ctx, team, channel) and looks_like_traceback(parse_message(event).text):
        _answer_message_event(ctx, event=event, channel=channel, team=team, surface="auto", keys=keys)


def on_edit(ctx: BotContext, body: dict, event: dict) -> None:
    new, old = event.get("message") or {}, event.get("previous_message") or {}
    if not new.get("ts") or is_from_bot(ctx, new) or event.get("channel_type") == "im":
        return
    if _mentions_bot(ctx, new.get("text")) and not _mentions_bot(ctx, old.get("text")):
        team = body.get("team_id")
        # The same message key as a mention: an edit never answers a message twice.
        _answer_message_event(ctx, event=dict(new, channel=event["channel"]), channel=event["channel"],
                              team=team, surface="edit", keys=message_keys(team, event["channel"], new))


def on_delete(ctx: BotContext, event: dict) -> None:
    deleted_ts = event.get("deleted_ts") or (event.get("previous_message") or {}).get("ts")
    if not deleted_ts or is_from_bot(ctx, event.get("previous_message") or {}):
        return
    for row in ctx.store.answers_to_message(event["channel"], deleted_ts):
        if not row.ts:
            continue
        try:
            ctx.client.chat_delete(channel=row.channel, ts=row.ts)
            log.info("deleted answer A%s: its question was deleted", row.id)
        except SlackApiError as exc:
            log.warning("could not delete answer A%s: %s", row.id, exc.response.get("error"))


def on_other_event(ctx: BotContext, body: dict) -> None:
    kind = (body.get("event") or {}).get("type")
    if kind in ("app_uninstalled", "tokens_revoked"):
        log.warning("Slack says %s for team %s", kind, body.get("team_id"))
    else:
        log.debug("event %s not used", kind)


def register(app: App, ctx: BotContext) -> None:
    app.event("app_mention")(ack=ack_now, lazy=[lambda body, event, request: on_mention(ctx, body, event, request)])
    app.event("message")(ack=ack_now, lazy=[lambda body, event: on_message(ctx, body, event)])

    home.register(app, ctx)
    # Last: every other event type is acknowledged (a 404 would make Slack retry it).
    app.event(re.compile(r".*"))(ack=ack_now, lazy=[lambda body: on_other_event(ctx, body)])
