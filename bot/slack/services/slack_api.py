"""The Web API client and posting with fallbacks.

Slack answers some calls with 429 (wait `Retry-After` seconds) or a 5xx; slack_sdk's
retry handlers repeat those, and post() keeps waiting as told (within a budget) in the
same place: a rate limit or an outage never moves an answer somewhere else. Refusals
that come back as `ok: false` have a fallback here when they depend on what or where
we post: too long or invalid blocks -> a smaller form of the same answer (still the fix
and the buttons); a channel or permission error (not in the channel, archived, missing
scope) -> the command's response_url, then a direct message to the asker, with a note
in the original thread where Slack lets us write one. Any other error is raised.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_handlers import (ConnectionErrorRetryHandler, RateLimitErrorRetryHandler,
                                                   ServerErrorRetryHandler)
from slack_sdk.webhook import WebhookClient

from bot.settings import get_settings
from bot.slack.blocks import Message
from bot.slack.blocks import fallback, sections
from bot.slack.i18n import t

log = logging.getLogger(__name__)

DEFAULT_API_URL = "https://slack.com/api/"
CONTENT_ERRORS = {"msg_too_long", "invalid_blocks", "invalid_blocks_format", "too_many_attachments", "no_text"}
PLACE_ERRORS = {"not_in_channel", "channel_not_found", "is_archived", "restricted_action", "cant_reply",
                "thread_not_found", "message_not_found", "ekm_access_denied", "missing_scope", "access_denied",
                "no_permission", "team_access_not_granted", "not_allowed_token_type", "is_inactive",
                "channel_is_archived"}
RATE_LIMIT_BUDGET_S = 90.0   # how long post() keeps honouring Retry-After before giving up
RETRY_AFTER_CAP_S = 30.0     # one wait at most (a broken header must not park a worker for hours)
SERVER_ERROR_RETRIES = 3     # more tries of the same place after slack_sdk's own, for 5xx and timeouts


class ServerErrorsRetryHandler(ServerErrorRetryHandler):
    """Retry every 5xx, not only 500 and 503."""

    def _can_retry(self, *, state, request, response=None, error=None) -> bool:
        return response is not None and 500 <= response.status_code <= 599


def make_client(token: str, base_url: str | None = None) -> WebClient:
    base_url = base_url or DEFAULT_API_URL
    if not base_url.endswith("/"):
        base_url += "/"

    # A Slack API that stops answering is an error after TROUBLESHOOT_SLACK_TIMEOUT_SECONDS.
    return WebClient(token=token, base_url=base_url, timeout=get_settings().slack_timeout_seconds, retry_handlers=[
        ConnectionErrorRetryHandler(max_retry_count=2),
        RateLimitErrorRetryHandler(max_retry_count=3),
        ServerErrorsRetryHandler(max_retry_count=2),
    ])


def retry_after(exc: SlackApiError) -> float | None:
    """Seconds Slack asked us to wait (a 429's Retry-After); None when it is not a rate limit."""
    response = getattr(exc, "response", None)
    if response is None or getattr(response, "status_code", None) != 429:
        return None
    headers = {k.lower(): v for k, v in (getattr(response, "headers", None) or {}).items()}
    value = headers.get("retry-after")
    if isinstance(value, list):
        value = value[0] if value else None
    try:
        return max(0.0, min(RETRY_AFTER_CAP_S, float(value)))
    except (TypeError, ValueError):
        return 1.0


def is_server_error(exc: SlackApiError) -> bool:
    status = getattr(getattr(exc, "response", None), "status_code", 200)
    return isinstance(status, int) and status >= 500 or slack_error(exc) in (
        "internal_error", "fatal_error", "service_unavailable", "request_timeout")


def slack_error(exc: SlackApiError) -> str:
    try:
        return str(exc.response.get("error") or exc.response.status_code)
    except Exception:  # noqa: BLE001 - a response without a body
        return "unknown"


@dataclass
class Where:
    """Where a reply goes, with the ways out when Slack refuses that place."""
    channel: str | None
    thread_ts: str | None = None
    user: str | None = None              # the asker: DM fallback, ephemeral target
    response_url: str | None = None      # slash commands, shortcuts, buttons
    private: bool = False                # ephemeral: only the asker sees it


@dataclass
class Posted:
    channel: str | None
    ts: str | None
    via: str  # "message", "ephemeral", "response_url", "dm"


def respond_url(response_url: str, message: Message, *, replace: bool = False, in_channel: bool = False) -> None:
    payload = message.payload()
    resp = WebhookClient(response_url, timeout=15).send(
        text=payload["text"], blocks=payload["blocks"], replace_original=replace,
        response_type="in_channel" if in_channel else "ephemeral")
    if resp.status_code != 200:
        raise RuntimeError(f"response_url answered HTTP {resp.status_code}")


def open_dm(client: WebClient, user: str) -> str:
    return client.conversations_open(users=user)["channel"]["id"]


def _post_once(client: WebClient, where: Where, message: Message, via: str) -> Posted:
    payload = message.payload()
    if via == "response_url":
        respond_url(where.response_url, message)
        return Posted(where.channel, None, via)
    if via == "ephemeral":
        client.chat_postEphemeral(channel=where.channel, user=where.user, thread_ts=where.thread_ts, **payload)
        return Posted(where.channel, None, via)
    if via == "dm":
        channel = open_dm(client, where.user)
        resp = client.chat_postMessage(channel=channel, unfurl_links=False, unfurl_media=False, **payload)
        return Posted(resp["channel"], resp["ts"], via)
    resp = client.chat_postMessage(channel=where.channel, thread_ts=where.thread_ts, unfurl_links=False,
                                   unfurl_media=False, **payload)
    return Posted(resp["channel"], resp["ts"], via)


def _post_same_place(client: WebClient, where: Where, message: Message, via: str) -> Posted:
    """One place, one form: rate limits and server errors are waited out here (Retry-After,
    then a short back-off), so they never move the answer to another place."""
    return _with_waits(lambda: _post_once(client, where, message, via), via)


def post(client: WebClient, where: Where, versions: list[Message], *, lang: str = "en") -> Posted:
    """Post the first of `versions` (full, then smaller forms) that Slack accepts, in
    the first place that works. Only channel and permission errors move on to the next
    place; rate limits and outages are waited out in the same place; anything else is
    raised (the caller apologises)."""
    if where.private:
        places = ["response_url", "ephemeral"] if where.response_url else ["ephemeral"]
    else:
        places = ((["message"] if where.channel else []) + (["response_url"] if where.response_url else [])
                  + (["dm"] if where.user else []))
    last_error: Exception | None = None
    if not places:
        raise ValueError("nowhere to post: no channel, response_url or user")
    for place in places:
        for message in versions:
            try:
                posted = _post_same_place(client, where, message, place)
            except SlackApiError as exc:
                code = slack_error(exc)
                last_error = exc
                if code in CONTENT_ERRORS:
                    log.warning("Slack refused %s for its content (%s): trying a smaller form", place, code)
                    continue
                if code in PLACE_ERRORS:
                    log.warning("Slack refused the place %s (%s): trying the next place", place, code)
                    break
                raise
            except Exception as exc:  # noqa: BLE001 - response_url failures: try the next place
                last_error = exc
                log.warning("posting via %s failed: %s", place, type(exc).__name__)
                break
            if place == "dm" and where.channel and not where.private:
                _note_moved(client, where, lang)
            return posted
    assert last_error is not None
    raise last_error


def _note_moved(client: WebClient, where: Where, lang: str) -> None:
    """Where Slack still lets us, say in the original thread that the answer went to a DM."""

    text = t("moved_to_dm", lang, user=where.user)
    note = Message(text=fallback(text.replace(f"<@{where.user}>", "you")), blocks=sections(text))
    try:
        client.chat_postEphemeral(channel=where.channel, user=where.user, thread_ts=where.thread_ts,
                                  **note.payload())
    except Exception as exc:  # noqa: BLE001 - often the very reason we moved: not in the channel
        log.info("no note in the original thread (%s)", type(exc).__name__)


def update(client: WebClient, channel: str, ts: str, versions: list[Message]) -> None:
    """chat.update with the same waiting and content fallbacks as post()."""
    last_error: Exception | None = None
    for message in versions:
        try:
            # called within this iteration; the default binds this iteration's message all the same
            _with_waits(lambda message=message: client.chat_update(channel=channel, ts=ts, **message.payload()),
                        "chat.update")
            return
        except SlackApiError as exc:
            last_error = exc
            code = slack_error(exc)
            log.warning("Slack refused chat.update: %s", code)
            if code not in CONTENT_ERRORS:
                break
    assert last_error is not None
    raise last_error


def _with_waits(call, what: str):
    waited, server_tries = 0.0, 0
    while True:
        try:
            return call()
        except SlackApiError as exc:
            wait = retry_after(exc)
            if wait is not None and waited + wait <= RATE_LIMIT_BUDGET_S:
                log.warning("Slack rate-limited %s: waiting %.0fs as told", what, wait)
                time.sleep(wait)
                waited += wait
                continue
            if wait is None and is_server_error(exc) and server_tries < SERVER_ERROR_RETRIES:
                server_tries += 1
                log.warning("Slack failed %s (%s): trying again (%d)", what, slack_error(exc), server_tries)
                time.sleep(0.5 * 2 ** (server_tries - 1))
                continue
            raise
