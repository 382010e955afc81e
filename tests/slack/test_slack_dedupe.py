"""Exactly one threaded reply per question: retries, duplicate deliveries, both
app_mention and message events; bots ignored; the edit and delete policy."""

from __future__ import annotations

import threading

from slack_harness import new_event_id

ERROR = "RuntimeError: Trying to backward through the graph a second time, but the buffers have already been freed"


def mention(ts: str, *, channel: str = "C0GENERAL", text: str = ERROR, **extra) -> dict:
    return {"type": "app_mention", "user": "U0ASKER", "channel": channel, "ts": ts, "text": f"<@UBOT01> {text}",
            "event_ts": ts, "client_msg_id": f"cm-{ts}", **extra}


def as_message(event: dict, channel_type: str = "channel") -> dict:
    return dict(event, type="message", channel_type=channel_type)


def answers(fake, thread_ts: str) -> list[dict]:
    return [b for b in fake.bodies("chat.postMessage") if b.get("thread_ts") == thread_ts]


def settle(bot) -> None:
    assert bot.ctx.work_pool.wait_idle(60)


def test_slack_retries_get_no_second_answer(bot, fake_slack):
    event, event_id = mention("1700001000.000100"), new_event_id()
    assert bot.sender.event(event, event_id=event_id).status == 200
    for retry in (1, 2, 3):
        assert bot.sender.event(event, event_id=event_id, retry_num=retry).status == 200
    settle(bot)
    assert len(answers(fake_slack, "1700001000.000100")) == 1


def test_duplicate_deliveries_sent_at_once_get_one_answer(bot, fake_slack):
    event, event_id = mention("1700001001.000100"), new_event_id()
    threads = [threading.Thread(target=bot.sender.event, args=(event,), kwargs={"event_id": event_id})
               for _ in range(8)]
    # The same message delivered under other event ids (Slack does this too).
    threads += [threading.Thread(target=bot.sender.event, args=(event,)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    settle(bot)
    assert len(answers(fake_slack, "1700001001.000100")) == 1


def test_app_mention_and_message_for_one_message_get_one_answer(bot_factory, fake_slack):
    bot = bot_factory(auto_channels={"C0AUTO"})
    # In an auto-answer channel the mention arrives twice: app_mention and message.channels.
    event = mention("1700001002.000100", channel="C0AUTO",
                    text="```Traceback (most recent call last):\n  File \"t.py\", line 3, in <module>\n"
                         "    loss.backward()\n" + ERROR + "```")
    bot.sender.event(as_message(event))
    bot.sender.event(event)
    # In an ordinary channel the message event of a mention is left to app_mention.
    other = mention("1700001003.000100")
    bot.sender.event(as_message(other))
    bot.sender.event(other)
    settle(bot)
    assert len(answers(fake_slack, "1700001002.000100")) == 1
    assert len(answers(fake_slack, "1700001003.000100")) == 1


def test_two_bots_sharing_a_store_answer_once(bot_factory, fake_slack):
    first, second = bot_factory(), bot_factory()
    event, event_id = mention("1700001004.000100"), new_event_id()
    senders = [threading.Thread(target=b.sender.event, args=(event,), kwargs={"event_id": event_id})
               for b in (first, second, first, second)]
    for t in senders:
        t.start()
    for t in senders:
        t.join()
    settle(first)
    settle(second)
    assert len(answers(fake_slack, "1700001004.000100")) == 1


def test_own_and_other_bots_messages_are_ignored(bot, fake_slack):
    own = {"type": "message", "channel": "D0ASKER", "channel_type": "im", "user": "UBOT01", "bot_id": "BBOT01",
           "ts": "1700001005.000100", "text": ERROR}
    other_bot = {"type": "message", "channel": "D0ASKER", "channel_type": "im", "subtype": "bot_message",
                 "bot_id": "B0OTHER", "ts": "1700001006.000100", "text": ERROR}
    other_bot_mention = mention("1700001007.000100", bot_id="B0OTHER", bot_profile={"id": "B0OTHER"})
    for event in (own, other_bot, other_bot_mention):
        assert bot.sender.event(event).status == 200
    settle(bot)
    assert fake_slack.bodies("chat.postMessage") == []
    # A person's direct message is answered, inline (a DM is a conversation, not a channel).
    bot.sender.event({"type": "message", "channel": "D0ASKER", "channel_type": "im", "user": "U0ASKER",
                      "ts": "1700001008.000100", "text": ERROR, "client_msg_id": "cm-dm"})
    settle(bot)
    [answer] = fake_slack.bodies("chat.postMessage")
    assert answer["channel"] == "D0ASKER" and "thread_ts" not in answer


def test_an_edit_that_adds_a_mention_is_answered_once_and_other_edits_are_not(bot, fake_slack):
    ts = "1700001009.000100"
    edit = {"type": "message", "subtype": "message_changed", "channel": "C0GENERAL", "channel_type": "channel",
            "ts": "1700001010.000100", "hidden": True,
            "message": {"type": "message", "user": "U0ASKER", "ts": ts, "text": f"<@UBOT01> {ERROR}",
                        "edited": {"user": "U0ASKER", "ts": "1700001010.000000"}},
            "previous_message": {"type": "message", "user": "U0ASKER", "ts": ts, "text": ERROR}}
    bot.sender.event(edit)
    settle(bot)
    assert len(answers(fake_slack, ts)) == 1
    # A second edit of the same message, and an edit that keeps the mention: nothing new.
    again = dict(edit, message=dict(edit["message"], text=f"<@UBOT01> {ERROR} (typo fixed)"))
    bot.sender.event(again)
    bot.sender.event(dict(edit, previous_message=edit["message"]))
    # An edit of a message the bot answered from a mention: ignored too.
    bot.sender.event(mention("1700001011.000100"))
    settle(bot)
    bot.sender.event(dict(edit, message=dict(edit["message"], ts="1700001011.000100"),
                          previous_message={"type": "message", "user": "U0ASKER", "ts": "1700001011.000100",
                                            "text": "something else"}))
    settle(bot)
    assert len(answers(fake_slack, ts)) == 1
    assert len(answers(fake_slack, "1700001011.000100")) == 1


def test_deleting_an_answered_question_deletes_the_answer(bot, fake_slack):
    ts = "1700001012.000100"
    bot.sender.event(mention(ts))
    settle(bot)
    [answer] = [m for m in fake_slack.bot_messages("C0GENERAL") if m.get("thread_ts") == ts]
    bot.sender.event({"type": "message", "subtype": "message_deleted", "channel": "C0GENERAL",
                      "channel_type": "channel", "ts": "1700001013.000100", "deleted_ts": ts, "hidden": True,
                      "previous_message": {"type": "message", "user": "U0ASKER", "ts": ts, "text": ERROR}})
    settle(bot)
    assert [b["ts"] for b in fake_slack.bodies("chat.delete")] == [answer["ts"]]
    assert fake_slack.bot_messages("C0GENERAL") == []
