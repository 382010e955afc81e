"""When Slack pushes back: 429 with Retry-After, 5xx, ok:false errors with their
fallbacks; any failure reaches the user as an apology with a reference id; logs
carry no secrets."""

from __future__ import annotations

import json
import logging

import pytest
from sqlalchemy import text

from bot.logs import RedactingFormatter

ERROR = "RuntimeError: Trying to backward through the graph a second time, but the buffers have already been freed"


def mention(ts: str, channel: str = "C0GENERAL") -> dict:
    return {"type": "app_mention", "user": "U0ASKER", "channel": channel, "ts": ts,
            "text": f"<@UBOT01> {ERROR}", "event_ts": ts}


def settle(bot):
    assert bot.ctx.work_pool.wait_idle(90)


@pytest.mark.slow  # waits out Retry-After (~3 s)
def test_429_is_retried_after_retry_after(bot, fake_slack):
    fake_slack.fail("chat.postMessage", status=429, retry_after=2)
    bot.sender.event(mention("1700004000.000100"))
    settle(bot)
    calls = fake_slack.calls("chat.postMessage")
    assert [c.status for c in calls] == [429, 200]
    assert calls[1].at - calls[0].at >= 2.0  # it waited as told, not a fixed back-off
    assert len(fake_slack.bot_messages("C0GENERAL")) == 1


@pytest.mark.slow  # waits out the client's retry back-off (~3 s)
def test_5xx_is_retried(bot, fake_slack):
    fake_slack.fail("chat.postMessage", status=503)
    fake_slack.fail("chat.postMessage", status=502)
    bot.sender.event(mention("1700004001.000100"))
    settle(bot)
    assert [c.status for c in fake_slack.calls("chat.postMessage")] == [503, 502, 200]
    assert len(fake_slack.bot_messages("C0GENERAL")) == 1


def test_not_in_channel_falls_back_to_a_direct_message(bot, fake_slack):
    fake_slack.fail("chat.postMessage", error="not_in_channel")
    bot.sender.event(mention("1700004002.000100", channel="C0PRIVATE"))
    settle(bot)
    assert [b["users"] for b in fake_slack.bodies("conversations.open")] == ["U0ASKER"]
    [dm] = fake_slack.bot_messages("D0ASKER")
    assert "pytorch/backward-twice" in json.dumps(dm["blocks"])


def test_channel_not_found_falls_back_to_response_url(bot, fake_slack):
    from slack_harness import shortcut_payload

    message = fake_slack.add_message("C0GENERAL", {"user": "U0OTHER", "text": ERROR})
    fake_slack.fail("chat.postMessage", error="channel_not_found")
    url = fake_slack.response_url()
    bot.sender.interaction(shortcut_payload(message, response_url=url))
    settle(bot)
    [posted] = [r.body for r in fake_slack.calls("response_url")]
    assert "pytorch/backward-twice" in json.dumps(posted["blocks"])


def test_msg_too_long_and_invalid_blocks_fall_back_to_smaller_answers(bot, fake_slack):
    fake_slack.fail("chat.postMessage", error="msg_too_long")
    fake_slack.fail("chat.postMessage", error="invalid_blocks")
    bot.sender.event(mention("1700004003.000100"))
    settle(bot)
    calls = fake_slack.calls("chat.postMessage")
    assert [c.reply["ok"] for c in calls] == [False, False, True]
    full, compact, minimal = (len(json.dumps(c.body.get("blocks"))) for c in calls)
    assert full > compact > minimal
    [answer] = fake_slack.bot_messages("C0GENERAL")
    assert "Backward through the same graph" in answer["text"] and "Best fix" in answer["text"]
    assert any(b["type"] == "actions" for b in answer["blocks"])  # the buttons survive every fallback


def test_a_failure_reaches_the_user_as_an_apology_with_a_reference(bot, fake_slack, caplog):
    with bot.ctx.store.engine.begin() as conn:  # break the store under the running bot
        conn.execute(text("DROP TABLE votes"))
        conn.execute(text("DROP TABLE answers"))
    with caplog.at_level(logging.ERROR, logger="bot.slack.failure"):
        bot.sender.event(mention("1700004004.000100"))
        settle(bot)
    [apology] = fake_slack.bot_messages("C0GENERAL")
    assert apology["text"].startswith("Sorry, something went wrong on my side. Reference: E")
    ref = apology["text"].split("Reference: ")[1].rstrip(".")
    assert any(ref in r.getMessage() for r in caplog.records)  # the reference leads to the log entry


def test_logged_lines_never_carry_tokens(bot, fake_slack, caplog):
    """A whole session at DEBUG (API calls, a file download, a failure) formatted as
    `troubleshoot serve` formats its logs."""
    info = fake_slack.add_file("t.log", ERROR.encode())
    fake_slack.fail("chat.postMessage", error="not_in_channel")
    with caplog.at_level(logging.DEBUG):
        bot.sender.event(dict(mention("1700004005.000100"), files=[info]))
        bot.sender.command(ERROR, response_url=fake_slack.response_url())
        settle(bot)
        assert fake_slack.bot_token not in "\n".join(r.getMessage() for r in caplog.records)  # not even unformatted
        logging.getLogger("test").error("a token in an error: %s", fake_slack.bot_token)
    formatter = RedactingFormatter("%(levelname)s %(name)s %(message)s")
    output = "\n".join(formatter.format(r) for r in caplog.records)
    assert "chat.postMessage" in output  # slack_sdk's debug lines are there
    assert fake_slack.bot_token not in output
    assert "xoxb-" not in output
    assert "[redacted]" in output
