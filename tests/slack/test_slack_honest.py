"""Issue 13 in Slack: a message without an error gets a request for it, and the
"Troubleshoot this" shortcut on such a message answers only the person who used it;
another library's error is named, with no PyTorch guesses."""

from __future__ import annotations

import json

from slack_harness import shortcut_payload


def settle(bot):
    assert bot.ctx.work_pool.wait_idle(60)


def blocks_text(body: dict) -> str:
    return json.dumps(body.get("blocks"), ensure_ascii=False) + (body.get("text") or "")


def test_shortcut_on_a_message_without_an_error_answers_only_its_user(bot, fake_slack):
    message = fake_slack.add_message("C0GENERAL", {"user": "U0OTHER", "text": "안녕하세요~ 다들 좋은 아침이에요"})
    url = fake_slack.response_url()
    assert bot.sender.interaction(shortcut_payload(message, response_url=url, user="U0ASKER")).status == 200
    settle(bot)
    assert fake_slack.bodies("chat.postMessage") == []  # nothing in the channel or the thread
    private = [r.body for r in fake_slack.calls("response_url")] + fake_slack.bodies("chat.postEphemeral")
    assert len(private) == 1
    assert private[0].get("response_type", "ephemeral") == "ephemeral"
    assert "붙여 넣어" in blocks_text(private[0]) and "pytorch/" not in blocks_text(private[0])
    assert fake_slack.violations == []


def test_a_mention_with_another_librarys_error_names_the_library(bot, fake_slack):
    text = ("<@UBOT01> cv2 fails on every frame\n```cv2.error: OpenCV(4.8.0) /io/opencv/modules/imgproc/src/"
            "color.cpp:182: error: (-215:Assertion failed) !_src.empty() in function 'cvtColor'```")
    message = fake_slack.add_message("C0GENERAL", {"user": "U0ASKER", "text": text})
    bot.sender.event({"type": "app_mention", "user": "U0ASKER", "channel": "C0GENERAL", "ts": message["ts"],
                      "text": text})
    settle(bot)
    [answer] = fake_slack.bodies("chat.postMessage")
    assert "OpenCV" in blocks_text(answer) and "pytorch/" not in blocks_text(answer)
    assert "verify" not in blocks_text(answer).lower()
