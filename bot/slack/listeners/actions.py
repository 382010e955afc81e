"""Buttons on answers: Verify fix, 👍 / 👎, Share in channel."""

from __future__ import annotations

import logging

from slack_bolt import App
from slack_sdk.errors import SlackApiError
from slack_sdk.webhook import WebhookClient

from bot.slack.blocks import (SHARE_ACTION, VERIFY_ACTION, VOTE_DOWN_ACTION, VOTE_UP_ACTION, answer_buttons,
                              answer_message, snippet_modal, text_message)
from bot.slack.i18n import t
from bot.slack.listeners._common import ack_now, apologise_on_failure
from bot.slack.services.answering import stored_answer
from bot.slack.services.context import BotContext
from bot.slack.services.slack_api import PLACE_ERRORS, Where, open_dm, post, respond_url, slack_error
from bot.slack.services.snippets import find_snippet
from bot.slack.services.verification import start_verification

log = logging.getLogger(__name__)


def _ids(body: dict) -> tuple[int | None, str | None, str | None]:
    """(answer id, user, team) from a block_actions payload; None where malformed."""
    try:
        answer_id = int(body["actions"][0]["value"])
    except (KeyError, IndexError, TypeError, ValueError):
        answer_id = None
    return answer_id, (body.get("user") or {}).get("id"), (body.get("team") or {}).get("id")


def _is_ephemeral(body: dict) -> bool:
    return bool((body.get("container") or {}).get("is_ephemeral"))


def private_notice(ctx: BotContext, body: dict, text: str) -> None:
    """A short note only the clicking user sees."""
    channel = (body.get("channel") or {}).get("id") or (body.get("container") or {}).get("channel_id")
    user = (body.get("user") or {}).get("id")
    where = Where(channel=channel, user=user, response_url=body.get("response_url"), private=True)
    try:
        post(ctx.client, where, [text_message(text)])
    except Exception as exc:  # noqa: BLE001
        log.warning("could not send a notice: %s", type(exc).__name__)


def verification_where(ctx: BotContext, row, user: str, private: bool) -> Where:
    """Status messages go to the answer's thread; for private answers, to a DM."""
    if private or not row.channel:
        return Where(channel=open_dm(ctx.client, user), user=user)
    return Where(channel=row.channel, thread_ts=row.thread_ts, user=user)


def verify_from_slack(ctx: BotContext, body: dict, *, answer_id: int, row, answer: dict, code: str,
                       private: bool) -> None:
    user, team = (body.get("user") or {}).get("id"), (body.get("team") or {}).get("id")
    where = verification_where(ctx, row, user, private)
    started = start_verification(ctx, code=code, user_hash=ctx.store.user_hash(team, user), answer_id=answer_id,
                               where=where, lang=row.language, answer=answer)
    if not started:
        if body.get("type") == "view_submission":
            post(ctx.client, Where(channel=where.channel, thread_ts=where.thread_ts, user=user, private=True),
                 [text_message(t("already_running", row.language))])
        else:
            private_notice(ctx, body, t("already_running", row.language))


def register(app: App, ctx: BotContext) -> None:

    def on_vote(body: dict) -> None:
        answer_id, user, team = _ids(body)
        if answer_id is None or not user:
            log.warning("malformed vote payload ignored")
            return
        stored = stored_answer(ctx, answer_id)
        if stored is None:
            log.warning("vote for unknown answer A%s ignored", answer_id)
            return
        row, answer = stored
        vote = 1 if body["actions"][0]["action_id"] == VOTE_UP_ACTION else -1
        result = ctx.store.vote(answer_id, ctx.store.user_hash(team, user), vote)
        if not result.changed:
            return
        votes = (result.up, result.down)
        with apologise_on_failure(ctx, "vote update", None):
            if _is_ephemeral(body):
                respond_url(body["response_url"], answer_message(answer, answer_id=answer_id, votes=votes, private=True),
                            replace=True)
                return
            message = body.get("message") or {}
            block_id = f"answer-{answer_id}"
            blocks = message.get("blocks") or []
            old = next((b for b in blocks if b.get("block_id") == block_id), None)
            if old is None:  # not our layout: redraw from the store
                new = answer_message(answer, answer_id=answer_id, votes=votes)
                text, blocks = new.text, new.payload()["blocks"]
            else:
                has_verify = any(e.get("action_id") == VERIFY_ACTION for e in old.get("elements", []))
                buttons = answer_buttons(answer_id, row.language, votes, private=False, verify=has_verify).to_dict()
                blocks = [buttons if b is old else b for b in blocks]
                text = message.get("text") or ""
            channel = (body.get("channel") or {}).get("id") or body["container"]["channel_id"]
            ctx.client.chat_update(channel=channel, ts=body["container"]["message_ts"], text=text, blocks=blocks)

    def on_share(body: dict) -> None:
        answer_id, user, _team = _ids(body)
        stored = stored_answer(ctx, answer_id) if answer_id is not None else None
        if stored is None or not user:
            log.warning("share of unknown or malformed answer ignored")
            return
        row, answer = stored
        if not ctx.store.claim(f"share:{answer_id}"):
            return  # a double click: shared once already
        channel = (body.get("channel") or {}).get("id") or row.channel
        message = answer_message(answer, answer_id=answer_id, votes=ctx.store.vote_counts(answer_id),
                                 shared_by=user)
        with apologise_on_failure(ctx, "share", Where(channel=channel, user=user,
                                                      response_url=body.get("response_url"), private=True),
                                  row.language):
            try:
                resp = ctx.client.chat_postMessage(channel=channel, unfurl_links=False, **message.payload())
                ctx.store.set_answer_posted(answer_id, resp["channel"], resp["ts"])
            except SlackApiError as exc:
                if slack_error(exc) not in PLACE_ERRORS or not body.get("response_url"):
                    raise
                # Not a member of the channel: the command's response_url may still post there.
                respond_url(body["response_url"], message, in_channel=True)
                return
            if body.get("response_url"):
                WebhookClient(body["response_url"]).send_dict({"delete_original": True})

    def on_verify(body: dict) -> None:
        answer_id, user, _team = _ids(body)
        stored = stored_answer(ctx, answer_id) if answer_id is not None else None
        if stored is None or not user:
            log.warning("verify on unknown or malformed answer ignored")
            return
        row, answer = stored
        private = _is_ephemeral(body) or row.surface == "command"
        notice_where = Where(channel=(body.get("channel") or {}).get("id"), user=user,
                             response_url=body.get("response_url"), private=True)
        with apologise_on_failure(ctx, "verify", notice_where, row.language):
            code = None if private else find_snippet(ctx, row.channel, row.thread_ts, row.question_ts)
            if code is None:
                ctx.client.views_open(trigger_id=body["trigger_id"], view=snippet_modal(answer_id, row.language))
                return
            verify_from_slack(ctx, body, answer_id=answer_id, row=row, answer=answer, code=code, private=private)

    app.action(VOTE_UP_ACTION)(ack=ack_now, lazy=[on_vote])
    app.action(VOTE_DOWN_ACTION)(ack=ack_now, lazy=[on_vote])
    app.action(SHARE_ACTION)(ack=ack_now, lazy=[on_share])
    app.action(VERIFY_ACTION)(ack=ack_now, lazy=[on_verify])
