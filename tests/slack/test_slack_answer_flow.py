"""Issue 14, through the fake Slack Web API with requests signed as Slack signs them: the
short first answer and its details on demand, follow-ups in a thread, the working
message, DMs inline, notification text that carries no markup, rate limits that keep the
answer where it belongs, the last fallback that keeps the fix and the buttons, events the
bot does not use, malformed bodies."""

from __future__ import annotations

import json
import logging
import re
import time

import pytest
from slack_harness import button_payload

from bot.slack.blocks import FIRST_MESSAGE_LIMIT, visible_chars

ERROR = "RuntimeError: Trying to backward through the graph a second time, but the buffers have already been freed"
OTHER_ERROR = ("RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn")


def settle(bot):
    assert bot.ctx.work_pool.wait_idle(120)


def mention(bot, fake, ts: str, text: str = f"<@UBOT01> {ERROR}", channel: str = "C0GENERAL") -> dict:
    fake.add_message(channel, {"user": "U0ASKER", "ts": ts, "text": text})
    bot.sender.event({"type": "app_mention", "user": "U0ASKER", "channel": channel, "ts": ts, "text": text})
    settle(bot)
    return next(m for m in fake.bot_messages(channel) if m.get("thread_ts") == ts)


def answer_id_of(message: dict) -> int:
    actions = next(b for b in message["blocks"] if b["type"] == "actions")
    return int(actions["elements"][0]["value"])


def test_the_first_answer_fits_one_screen_and_details_open_on_demand(bot, fake_slack):
    answer = mention(bot, fake_slack, "1700014000.000100")
    assert visible_chars(answer) <= FIRST_MESSAGE_LIMIT
    blocks = json.dumps(answer["blocks"], ensure_ascii=False)
    assert "Best fix" in blocks and "```" in blocks  # the best fix with its code
    assert "Match confidence: high" in blocks
    actions = next(b for b in answer["blocks"] if b["type"] == "actions")
    assert [e["action_id"] for e in actions["elements"]] == ["verify_fix", "answer_details", "vote_up", "vote_down"]
    dead_end = next(e["text"] for b in answer["blocks"] if b["type"] == "context" for e in b["elements"]
                    if "Don't" in e["text"])
    assert "pytorch/" not in dead_end  # the error a dead end leads to, by its title
    assert fake_slack.violations == []

    bot.sender.interaction(button_payload(action_id="answer_details", value=str(answer_id_of(answer)),
                                          message=answer))
    settle(bot)
    [view] = fake_slack.opened_views
    assert view["callback_id"] == "answer_details_modal"
    text = json.dumps(view["blocks"], ensure_ascii=False)
    stored = json.loads(bot.ctx.store.get_answer(answer_id_of(answer)).answer_json)
    best = stored["matches"][0]
    assert len(best["workarounds"]) > 1
    assert all(w["title"] in text for w in best["workarounds"])  # every fix, on demand
    assert "Root cause" in text and "Dead ends" in text
    if not any(w["rate_kind"] == "measured" for w in best["workarounds"]):  # estimates: never a percentage
        assert not re.search(r"\d\s*%", text) and "team estimate, not yet verified" in text


def test_details_in_korean_for_a_korean_asker(bot, fake_slack):
    answer = mention(bot, fake_slack, "1700014001.000100", f"<@UBOT01> 이 오류가 왜 나나요?\n{ERROR}")
    assert "모든 해결책과 자세히" in json.dumps(answer["blocks"], ensure_ascii=False)
    bot.sender.interaction(button_payload(action_id="answer_details", value=str(answer_id_of(answer)),
                                          message=answer))
    settle(bot)
    text = json.dumps(fake_slack.opened_views[-1], ensure_ascii=False)
    assert "근본 원인" in text and "Root cause" not in text


def test_follow_ups_in_an_answered_thread_need_no_mention(bot, fake_slack):
    first = mention(bot, fake_slack, "1700014002.000100")
    thread = "1700014002.000100"

    def reply(ts: str, text: str, thread_ts: str = thread, channel: str = "C0GENERAL"):
        fake_slack.add_message(channel, {"user": "U0ASKER", "ts": ts, "text": text, "thread_ts": thread_ts})
        bot.sender.event({"type": "message", "channel_type": "channel", "user": "U0ASKER", "channel": channel,
                          "ts": ts, "thread_ts": thread_ts, "text": text})
        settle(bot)

    reply("1700014002.000200", "thanks, trying it now")  # chatter: no answer
    assert [m["ts"] for m in fake_slack.bot_messages("C0GENERAL")] == [first["ts"]]
    reply("1700014002.000300", f"now I get this:\n{OTHER_ERROR}")
    answers = [m for m in fake_slack.bot_messages("C0GENERAL") if m.get("thread_ts") == thread]
    assert len(answers) == 2 and answers[1]["blocks"] != first["blocks"]
    reply("1700014002.000400", "does this also happen with torch.compile?")  # a question about the thread's error
    assert len([m for m in fake_slack.bot_messages("C0GENERAL") if m.get("thread_ts") == thread]) == 3
    # A thread the bot never answered: nothing, however error-like the reply.
    fake_slack.add_message("C0GENERAL", {"user": "U0OTHER", "ts": "1700014003.000100", "text": "my training loop"})
    reply("1700014003.000200", OTHER_ERROR, thread_ts="1700014003.000100")
    assert not [m for m in fake_slack.bot_messages("C0GENERAL") if m.get("thread_ts") == "1700014003.000100"]


def test_a_direct_message_is_answered_inline_and_its_notification_carries_no_markup(bot, fake_slack):
    evil = fake_slack.add_file("<!channel> & <https://evil.example|invoice>.png", b"\x89PNG\r\n",
                               filetype="png", mimetype="image/png")
    bot.sender.event({"type": "message", "channel_type": "im", "user": "U0ASKER", "channel": "D0ASKER",
                      "ts": "1700014004.000100", "text": "", "files": [evil], "subtype": "file_share"})
    bot.sender.event({"type": "message", "channel_type": "im", "user": "U0ASKER", "channel": "D0ASKER",
                      "ts": "1700014004.000200", "text": ERROR})
    settle(bot)
    posted = fake_slack.bodies("chat.postMessage")
    assert len(posted) == 2
    assert all("thread_ts" not in b for b in posted)  # inline, not threaded under the user's message
    for body in posted:
        assert "<!channel>" not in body["text"] and "<https://evil" not in body["text"]
    assert "&lt;!channel&gt;" in posted[0]["text"]


@pytest.mark.slow  # waits for the slow-answer notice (~2 s)
def test_a_slow_answer_shows_looking_this_up_then_replaces_it(bot_factory, fake_slack):
    from bot.slack.app import default_answer_fn

    def slow_answer(text, lang=None, top=3):
        time.sleep(1.6)
        return default_answer_fn(text, lang=lang, top=top)

    bot = bot_factory(answer_fn=slow_answer)
    answer = mention(bot, fake_slack, "1700014005.000100")
    [working] = fake_slack.bodies("chat.postMessage")
    assert "Looking this up" in working["text"]
    [replaced] = fake_slack.bodies("chat.update")
    assert replaced["ts"] == answer["ts"] and "Best fix" in json.dumps(replaced["blocks"])
    assert len(fake_slack.bot_messages("C0GENERAL")) == 1


@pytest.mark.slow  # waits out the fake Slack's Retry-After (~8 s)
def test_rate_limits_keep_a_channel_answer_in_the_channel(bot, fake_slack):
    fake_slack.fail("chat.postMessage", status=429, retry_after=1, times=6)
    answer = mention(bot, fake_slack, "1700014006.000100")
    calls = fake_slack.calls("chat.postMessage")
    assert [c.status for c in calls] == [429] * 6 + [200]
    assert calls[-1].at - calls[0].at >= 5.5  # each Retry-After honoured
    assert answer["thread_ts"] == "1700014006.000100"
    assert fake_slack.calls("conversations.open") == []  # never moved to a DM


@pytest.mark.slow  # waits out the client's retry back-off (~3 s)
def test_server_errors_keep_a_channel_answer_in_the_channel(bot, fake_slack):
    fake_slack.fail("chat.postMessage", status=503, times=3)
    mention(bot, fake_slack, "1700014007.000100")
    assert [c.status for c in fake_slack.calls("chat.postMessage")] == [503, 503, 503, 200]
    assert fake_slack.calls("conversations.open") == []


def test_a_channel_error_moves_the_answer_to_a_dm_with_a_note(bot, fake_slack):
    fake_slack.fail("chat.postMessage", error="not_in_channel")
    bot.sender.event({"type": "app_mention", "user": "U0ASKER", "channel": "C0PRIVATE", "ts": "1700014008.000100",
                      "text": f"<@UBOT01> {ERROR}"})
    settle(bot)
    assert len(fake_slack.bot_messages("D0ASKER")) == 1
    [note] = fake_slack.bodies("chat.postEphemeral")
    assert note["channel"] == "C0PRIVATE" and "direct message" in note["text"]


def test_after_two_msg_too_long_the_last_form_still_has_the_fix_and_buttons(bot, fake_slack):
    fake_slack.fail("chat.postMessage", error="msg_too_long", times=2)
    answer = mention(bot, fake_slack, "1700014009.000100")
    text = json.dumps(answer["blocks"], ensure_ascii=False)
    assert "Best fix" in text and "```" in text
    assert any(b["type"] == "actions" for b in answer["blocks"])


def test_unknown_events_get_200_and_malformed_bodies_get_400_without_a_traceback(bot, fake_slack, caplog):
    caplog.set_level(logging.DEBUG)
    for kind in ("file_shared", "reaction_added", "app_uninstalled", "tokens_revoked", "member_joined_channel"):
        reply = bot.sender.event({"type": kind, "user": "U0ASKER", "event_ts": "1700014010.000100"})
        assert reply.status == 200, kind
    assert bot.sender.raw(b'{"type": "event_callback", "event": ', "application/json").status == 400
    assert bot.sender.raw(b"payload=%7Bnot+json", "application/x-www-form-urlencoded").status == 400
    assert bot.sender.raw(b'["a list"]', "application/json").status == 400
    # An unsigned malformed body is still refused as unsigned.
    assert bot.sender.raw(b"{", "application/json", secret="wrong-secret").status == 401
    settle(bot)
    assert not [r for r in caplog.records if r.exc_info or "Traceback" in r.getMessage()]
    assert fake_slack.bodies("chat.postMessage") == []
