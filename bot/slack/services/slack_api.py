"""The Web API client and posting with fallbacks.

Slack answers some calls with 429 (wait `Retry-After` seconds) or a 5xx; slack_sdk's
retry handlers repeat those. Other refusals come back as `ok: false` with an error
code; the ones that depend on where or what we post have a fallback here:
too long or invalid blocks -> a compact answer, then plain text; not in the channel
-> the command's response_url, then a direct message to the asker.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_handlers import (ConnectionErrorRetryHandler, RateLimitErrorRetryHandler,
                                                   ServerErrorRetryHandler)
from slack_sdk.webhook import WebhookClient

from bot.slack.blocks import Message

log = logging.getLogger(__name__)

DEFAULT_API_URL = "https://slack.com/api/"
CONTENT_ERRORS = {"msg_too_long", "invalid_blocks", "invalid_blocks_format", "too_many_attachments", "no_text"}
PLACE_ERRORS = {"not_in_channel", "channel_not_found", "is_archived", "restricted_action", "cant_reply",
                "thread_not_found", "message_not_found", "ekm_access_denied"}


class ServerErrorsRetryHandler(ServerErrorRetryHandler):
    """Retry every 5xx, not only 500 and 503."""

    def _can_retry(self, *, state, request, response=None, error=None) -> bool:
        return response is not None and 500 <= response.status_code <= 599


def make_client(token: str, base_url: str | None = None) -> WebClient:
    base_url = base_url or DEFAULT_API_URL
    if not base_url.endswith("/"):
        base_url += "/"
    from bot.settings import get_settings

    # A Slack API that stops answering is an error after TROUBLESHOOT_SLACK_TIMEOUT_SECONDS.
    return WebClient(token=token, base_url=base_url, timeout=get_settings().slack_timeout_seconds, retry_handlers=[
        ConnectionErrorRetryHandler(max_retry_count=2),
        RateLimitErrorRetryHandler(max_retry_count=3),
        ServerErrorsRetryHandler(max_retry_count=2),
    ])


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


def post(client: WebClient, where: Where, versions: list[Message]) -> Posted:
    """Post the first of `versions` (full, then smaller forms) that Slack accepts, in
    the first place that works. Raises the last SlackApiError when nothing did."""
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
                return _post_once(client, where, message, place)
            except SlackApiError as exc:
                code = slack_error(exc)
                last_error = exc
                log.warning("Slack refused %s (%s): %s", place, "content" if code in CONTENT_ERRORS else "place", code)
                if code in CONTENT_ERRORS:
                    continue  # try the smaller version in the same place
                break  # the place is wrong: next place
            except Exception as exc:  # noqa: BLE001 - response_url failures: try the next place
                last_error = exc
                log.warning("posting via %s failed: %s", place, type(exc).__name__)
                break
    assert last_error is not None
    raise last_error


def update(client: WebClient, channel: str, ts: str, versions: list[Message]) -> None:
    """chat.update with the same content fallbacks as post()."""
    last_error: Exception | None = None
    for message in versions:
        try:
            client.chat_update(channel=channel, ts=ts, **message.payload())
            return
        except SlackApiError as exc:
            last_error = exc
            code = slack_error(exc)
            log.warning("Slack refused chat.update: %s", code)
            if code not in CONTENT_ERRORS:
                break
    assert last_error is not None
    raise last_error
