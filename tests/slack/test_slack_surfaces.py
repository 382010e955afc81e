"""Where users meet the bot: /troubleshoot (private, with Share), the "Troubleshoot
this" shortcut, mentions under a thread, auto-answer channels."""

from __future__ import annotations

import json

from slack_harness import button_payload, shortcut_payload

ERROR = "RuntimeError: Trying to backward through the graph a second time, but the buffers have already been freed"
TRACEBACK = ('Traceback (most recent call last):\n  File "train.py", line 12, in <module>\n    loss.backward()\n'
             + ERROR)


def settle(bot):
    assert bot.ctx.work_pool.wait_idle(60)


def blocks_text(body: dict) -> str:
    return json.dumps(body.get("blocks"), ensure_ascii=False) + (body.get("text") or "")


def test_slash_command_answers_privately_with_a_share_button(bot, fake_slack):
    url = fake_slack.response_url("cmd1")
    reply = bot.sender.command(f"역전파 오류 ```{ERROR}```", response_url=url)
    assert reply.status == 200 and reply.body in (b"", b"{}")  # acked; the answer follows
    settle(bot)
    [posted] = [r.body for r in fake_slack.calls("response_url")]
    assert posted["response_type"] == "ephemeral"
    assert "pytorch/backward-twice" in blocks_text(posted) and "가장 좋은 해결책" in blocks_text(posted)
    assert "share_answer" in blocks_text(posted)
    assert fake_slack.bodies("chat.postMessage") == []  # nothing public
    assert fake_slack.violations == []


def test_slash_command_without_text_gets_the_usage(bot, fake_slack):
    reply = bot.sender.command("   ", response_url=fake_slack.response_url())
    assert reply.status == 200
    assert "Usage: `/troubleshoot" in reply.body.decode()
    settle(bot)
    assert fake_slack.calls("response_url") == [] and fake_slack.bodies("chat.postMessage") == []


def _private_answer(bot, fake_slack) -> tuple[int, str]:
    url = fake_slack.response_url()
    bot.sender.command(ERROR, response_url=url)
    settle(bot)
    posted = fake_slack.calls("response_url")[-1].body
    actions = next(b for b in posted["blocks"] if b["type"] == "actions")
    return int(actions["elements"][0]["value"]), url


def test_share_posts_the_answer_in_the_channel_once_and_removes_the_private_copy(bot, fake_slack):
    answer_id, url = _private_answer(bot, fake_slack)
    click = button_payload(action_id="share_answer", value=str(answer_id), ephemeral=True, response_url=url,
                           message_ts="1700003000.000100")
    assert bot.sender.interaction(click).status == 200
    assert bot.sender.interaction(click).status == 200  # a double click
    settle(bot)
    [shared] = fake_slack.bodies("chat.postMessage")
    assert shared["channel"] == "C0GENERAL" and "thread_ts" not in shared
    assert "Shared by <@U0ASKER>" in blocks_text(shared) and "pytorch/backward-twice" in blocks_text(shared)
    assert "share_answer" not in blocks_text(shared)
    assert {"delete_original": True} in [r.body for r in fake_slack.calls("response_url")]


def test_share_where_the_bot_is_not_a_member_goes_through_response_url(bot, fake_slack):
    answer_id, url = _private_answer(bot, fake_slack)
    fake_slack.fail("chat.postMessage", error="not_in_channel")
    bot.sender.interaction(button_payload(action_id="share_answer", value=str(answer_id), ephemeral=True,
                                          response_url=url, message_ts="1700003001.000100"))
    settle(bot)
    public = [r.body for r in fake_slack.calls("response_url") if r.body.get("response_type") == "in_channel"]
    assert len(public) == 1 and "pytorch/backward-twice" in blocks_text(public[0])


def test_message_shortcut_answers_in_the_messages_thread_once(bot, fake_slack):
    message = fake_slack.add_message("C0GENERAL", {"user": "U0OTHER", "text": f"my run died: ```{TRACEBACK}```"})
    url = fake_slack.response_url()
    assert bot.sender.interaction(shortcut_payload(message, response_url=url)).status == 200
    settle(bot)
    [answer] = fake_slack.bodies("chat.postMessage")
    assert answer["thread_ts"] == message["ts"] and "pytorch/backward-twice" in blocks_text(answer)
    bot.sender.interaction(shortcut_payload(message, response_url=url))
    settle(bot)
    assert len(fake_slack.bodies("chat.postMessage")) == 1
    assert "already answered" in blocks_text(fake_slack.calls("response_url")[-1].body)


def test_a_bare_mention_in_a_thread_answers_the_threads_parent_in_the_askers_language(bot, fake_slack):
    parent = fake_slack.add_message("C0GENERAL", {"user": "U0OTHER", "text": f"```{TRACEBACK}```"})
    reply = fake_slack.add_message("C0GENERAL", {"user": "U0ASKER", "text": "<@UBOT01> 이거 왜 그래요?",
                                                 "thread_ts": parent["ts"]})
    bot.sender.event({"type": "app_mention", "user": "U0ASKER", "channel": "C0GENERAL", "ts": reply["ts"],
                      "thread_ts": parent["ts"], "text": reply["text"]})
    settle(bot)
    assert fake_slack.bodies("conversations.replies")[0]["ts"] == parent["ts"]
    [answer] = fake_slack.bodies("chat.postMessage")
    assert answer["thread_ts"] == parent["ts"]
    assert "pytorch/backward-twice" in blocks_text(answer) and "가장 좋은 해결책" in blocks_text(answer)


def test_a_bare_mention_outside_a_thread_asks_for_the_error(bot, fake_slack):
    bot.sender.event({"type": "app_mention", "user": "U0ASKER", "channel": "C0GENERAL", "ts": "1700003002.000100",
                      "text": "<@UBOT01>"})
    settle(bot)
    [answer] = fake_slack.bodies("chat.postMessage")
    assert "couldn't find an error message" in answer["text"]


def test_auto_answer_channels_answer_root_tracebacks_only(bot_factory, fake_slack):
    bot = bot_factory(auto_channels={"C0AUTO"})

    def message(ts, text, **extra):
        return {"type": "message", "channel": "C0AUTO", "channel_type": "channel", "user": "U0ASKER", "ts": ts,
                "text": text, **extra}

    bot.sender.event(message("1700003010.000100", f"```{TRACEBACK}```"))
    bot.sender.event(message("1700003011.000100", f"```{TRACEBACK}```", thread_ts="1700003010.000100"))
    bot.sender.event(message("1700003012.000100", "lunch anyone?"))
    bot.sender.event(dict(message("1700003013.000100", f"```{TRACEBACK}```"), channel="C0QUIET"))
    settle(bot)
    answers = fake_slack.bodies("chat.postMessage")
    assert [a["thread_ts"] for a in answers] == ["1700003010.000100"]
