"""Buttons on answers: Verify fix, All fixes & details, 👍 / 👎 (👎 asks why), Share in channel.

Vote counts on the message: Slack runs many clicks at once, and their updates may land
in any order; so each redraw reads the counts from the store and, after its update,
reads them again and redraws until they stand still (one lock per answer in this
process; across processes the last redraw always follows the last vote)."""

from __future__ import annotations

import json
import logging
import threading

from slack_bolt import App
from slack_sdk.errors import SlackApiError
from slack_sdk.webhook import WebhookClient

from bot.answer.document import AnswerDocument
from bot.contract import present
from bot.evidence.record import record_pick
from bot.evidence.votes import AnswerVote, Direction, record_vote
from bot.slack.blocks import (DETAILS_ACTION, PICK_ACTIONS, SHARE_ACTION, VERIFY_ACTION, VOTE_DOWN_ACTION,
                              VOTE_UP_ACTION, answer_buttons, answer_message, answer_versions, details_message,
                              details_view, downvote_modal, picked_answer, snippet_modal, text_message)
from bot.slack.i18n import t
from bot.slack.listeners._common import ack_now, apologise_on_failure
from bot.slack.services.answering import stored_answer, verify_allowed
from bot.slack.services.context import BotContext
from bot.store.models import Answer
from bot.slack.services.slack_api import PLACE_ERRORS, Where, open_dm, post, respond_url, slack_error, update
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


def verify_from_slack(ctx: BotContext, body: dict, *, answer_id: int, row, answer: AnswerDocument, code: str,
                       private: bool) -> None:
    user, team = (body.get("user") or {}).get("id"), (body.get("team") or {}).get("id")
    where = verification_where(ctx, row, user, private)
    started = start_verification(ctx, code=code, user_hash=ctx.store.user_hash(team, user), answer_id=answer_id,
                                 where=where, lang=row.language, answer=answer, user=user)
    if not started:
        if body.get("type") == "view_submission":
            post(ctx.client, Where(channel=where.channel, thread_ts=where.thread_ts, user=user, private=True),
                 [text_message(t("already_running", row.language))])
        else:
            private_notice(ctx, body, t("already_running", row.language))


_vote_locks: dict[int, threading.Lock] = {}
_vote_locks_guard = threading.Lock()
MAX_REDRAWS = 5


def _vote_lock(answer_id: int) -> threading.Lock:
    with _vote_locks_guard:
        return _vote_locks.setdefault(answer_id, threading.Lock())


def redraw_votes(ctx: BotContext, body: dict, *, answer_id: int, row, answer: AnswerDocument) -> None:
    """Show the store's current counts on the answer; again while they keep moving."""
    with _vote_lock(answer_id):
        shown = None
        for _ in range(MAX_REDRAWS):
            votes = ctx.store.vote_counts(answer_id)
            if votes == shown:
                return
            _draw_votes(ctx, body, answer_id=answer_id, row=row, answer=answer, votes=votes)
            shown = votes


def _draw_votes(ctx: BotContext, body: dict, *, answer_id: int, row, answer: AnswerDocument,
                votes: tuple[int, int]) -> None:
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
        action_ids = {e.get("action_id") for e in old.get("elements", [])}
        buttons = answer_buttons(answer_id, row.language, votes, private=SHARE_ACTION in action_ids,
                                 verify=VERIFY_ACTION in action_ids, details=DETAILS_ACTION in action_ids).to_dict()
        blocks = [buttons if b is old else b for b in blocks]
        text = message.get("text") or ""
    channel = (body.get("channel") or {}).get("id") or body["container"]["channel_id"]
    update(ctx.client, channel, body["container"]["message_ts"], [_RawMessage(text, blocks)])


class _RawMessage:
    """Blocks as Slack gave them back (dicts), redrawn with new buttons."""

    def __init__(self, text: str, blocks: list[dict]):
        self.text, self.blocks = text, blocks

    def payload(self) -> dict:
        return {"text": self.text, "blocks": self.blocks}


def on_vote(ctx: BotContext, body: dict) -> None:
    answer_id, user, team = _ids(body)
    if answer_id is None or not user:
        log.warning("malformed vote payload ignored")
        return
    stored = stored_answer(ctx, answer_id)
    if stored is None:
        log.warning("vote for unknown answer A%s ignored", answer_id)
        return
    row, answer = stored
    vote = Direction.UP if body["actions"][0]["action_id"] == VOTE_UP_ACTION else Direction.DOWN
    user_hash = ctx.store.user_hash(team, user)
    result = record_vote(AnswerVote(answer_id, user_hash, vote), store=ctx.store)
    if not result.changed:
        # A repeated click: say so, only to the clicker.
        private_notice(ctx, body, t("already_voted", row.language, vote="👍" if vote == Direction.UP else "👎"))
        return
    if vote == Direction.UP and present(answer.question) and answer.best is not None:
        # a 👍 on an answer the asker picked: one more time this question was tied to it
        record_pick(answer.question, answer.best.id, row.language, source="upvote", store=ctx.store)
    if vote == Direction.DOWN and body.get("trigger_id"):
        try:  # 👎: ask why (the modal needs the trigger, which expires in 3 seconds: first)
            ctx.client.views_open(trigger_id=body["trigger_id"], view=downvote_modal(answer_id, row.language))
        except Exception as exc:  # noqa: BLE001 - the vote counts without a reason
            log.info("no reason modal: %s", type(exc).__name__)
    with apologise_on_failure(ctx, "vote update", None):
        redraw_votes(ctx, body, answer_id=answer_id, row=row, answer=answer)


def _clicked(ctx: BotContext, body: dict, what: str) -> tuple[int, str, Answer, AnswerDocument] | None:
    """(answer id, user, the answer's row, the answer) of a click on an answer's button;
    None, logged, for a malformed payload or an answer the store does not have."""
    answer_id, user, _team = _ids(body)
    stored = stored_answer(ctx, answer_id) if answer_id is not None else None
    if answer_id is None or stored is None or not user:
        log.warning("%s on an unknown or malformed answer ignored", what)
        return None
    row, answer = stored
    return answer_id, user, row, answer


def on_pick(ctx: BotContext, body: dict) -> None:
    """A click on a candidate of a choices answer: the message becomes that entry's answer
    (in place, for everyone who sees it), the answer row names the entry, and the pick is
    kept for review (`troubleshoot kb learn`)."""
    try:
        raw_id, raw_number = str(body["actions"][0]["value"]).split(":", 1)
        answer_id, number = int(raw_id), int(raw_number)
    except (KeyError, IndexError, TypeError, ValueError):
        log.warning("malformed pick payload ignored")
        return
    user = (body.get("user") or {}).get("id")
    stored = stored_answer(ctx, answer_id)
    if stored is None or not user:
        log.warning("pick on an unknown answer A%s ignored", answer_id)
        return
    row, answer = stored
    picked = picked_answer(answer, number)
    if picked is None:  # picked already (a double click), or a stale message
        private_notice(ctx, body, t("already_picked", row.language))
        return
    best = picked.matches[0]
    ctx.store.set_answer_picked(answer_id, entry_id=best.id, confidence=best.confidence,
                                answer_json=json.dumps(picked.as_json(), ensure_ascii=False))
    if present(answer.question):
        record_pick(answer.question, best.id, row.language, source="pick", store=ctx.store)
    channel = (body.get("channel") or {}).get("id") or (body.get("container") or {}).get("channel_id")
    team = (body.get("team") or {}).get("id")
    verify = not row.channel or verify_allowed(ctx, team, row.channel)
    versions = answer_versions(picked, answer_id=answer_id, votes=ctx.store.vote_counts(answer_id),
                               private=_is_ephemeral(body), verify=verify)
    where = Where(channel=channel, user=user, response_url=body.get("response_url"), private=True)
    with apologise_on_failure(ctx, "pick", where, row.language):
        if _is_ephemeral(body):
            respond_url(body["response_url"], versions[0], replace=True)
        else:
            update(ctx.client, channel, body["container"]["message_ts"], versions)


def on_details(ctx: BotContext, body: dict) -> None:
    clicked = _clicked(ctx, body, "details")
    if clicked is None:
        return
    answer_id, user, row, answer = clicked
    try:
        ctx.client.views_open(trigger_id=body["trigger_id"], view=details_view(answer, answer_id))
        return
    except (SlackApiError, KeyError) as exc:  # an expired trigger: the details as a private message
        log.info("details modal not opened (%s): sending them privately", type(exc).__name__)
    channel = (body.get("channel") or {}).get("id") or (body.get("container") or {}).get("channel_id")
    where = Where(channel=channel, user=user, response_url=body.get("response_url"), private=True)
    with apologise_on_failure(ctx, "details", where, row.language):
        post(ctx.client, where, [details_message(answer, answer_id)], lang=row.language)


def on_share(ctx: BotContext, body: dict) -> None:
    clicked = _clicked(ctx, body, "share")
    if clicked is None:
        return
    answer_id, user, row, answer = clicked
    if not ctx.store.claim(f"share:{answer_id}"):
        private_notice(ctx, body, t("already_shared", row.language))  # a double click: shared once already
        return
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


def on_verify(ctx: BotContext, body: dict) -> None:
    clicked = _clicked(ctx, body, "verify")
    if clicked is None:
        return
    answer_id, user, row, answer = clicked
    private = _is_ephemeral(body) or row.surface == "command"
    team = (body.get("team") or {}).get("id")
    if row.channel and not verify_allowed(ctx, team, row.channel):
        private_notice(ctx, body, t("verify_off", row.language))
        return
    notice_where = Where(channel=(body.get("channel") or {}).get("id"), user=user,
                         response_url=body.get("response_url"), private=True)
    with apologise_on_failure(ctx, "verify", notice_where, row.language):
        code = None if private else find_snippet(ctx, row.channel, row.thread_ts or row.question_ts,
                                                  row.question_ts)
        if code is None:
            ctx.client.views_open(trigger_id=body["trigger_id"], view=snippet_modal(answer_id, row.language))
            return
        verify_from_slack(ctx, body, answer_id=answer_id, row=row, answer=answer, code=code, private=private)


def register(app: App, ctx: BotContext) -> None:
    app.action(VOTE_UP_ACTION)(ack=ack_now, lazy=[lambda body: on_vote(ctx, body)])
    app.action(VOTE_DOWN_ACTION)(ack=ack_now, lazy=[lambda body: on_vote(ctx, body)])
    app.action(SHARE_ACTION)(ack=ack_now, lazy=[lambda body: on_share(ctx, body)])
    app.action(VERIFY_ACTION)(ack=ack_now, lazy=[lambda body: on_verify(ctx, body)])
    app.action(DETAILS_ACTION)(ack=ack_now, lazy=[lambda body: on_details(ctx, body)])
    for pick in PICK_ACTIONS:
        app.action(pick)(ack=ack_now, lazy=[lambda body: on_pick(ctx, body)])
