"""Uploaded files: read with the bot token, limited in size and type, and an HTML
sign-in page instead of the content is recognised."""

from __future__ import annotations

import json

import pytest

from bot.slack.services.files import FileRejected, fetch_file_text

TRACEBACK = ('Traceback (most recent call last):\n  File "/home/me/train.py", line 12, in <module>\n'
             '    loss.backward()\nRuntimeError: Trying to backward through the graph a second time (or directly '
             'access saved tensors after they have already been freed).\n')


def mention_with_files(ts: str, files: list[dict], text: str = "") -> dict:
    return {"type": "app_mention", "user": "U0ASKER", "channel": "C0GENERAL", "ts": ts,
            "text": f"<@UBOT01> {text}".strip(), "files": files, "event_ts": ts}


def reply_text(fake, thread_ts: str | None) -> str:
    [body] = [b for b in fake.bodies("chat.postMessage") if b.get("thread_ts") == thread_ts]
    return json.dumps(body["blocks"], ensure_ascii=False) + body["text"]


def test_a_log_file_is_fetched_with_the_bot_token_and_answered(bot, fake_slack):
    info = fake_slack.add_file("train.log", ("epoch 1 ok\n" * 50 + TRACEBACK).encode(), filetype="text")
    bot.sender.event(mention_with_files("1700002000.000100", [info]))
    assert bot.ctx.work_pool.wait_idle(60)
    [download] = fake_slack.calls("download")
    assert download.headers["Authorization"] == f"Bearer {fake_slack.bot_token}"
    assert "pytorch/backward-twice" in reply_text(fake_slack, "1700002000.000100")


def test_a_shared_file_known_only_by_id_is_looked_up(bot, fake_slack):
    commented = TRACEBACK.encode().replace(b"\n", b"\n# ")
    info = fake_slack.add_file("repro.py", b"import torch\n# fails with:\n# " + commented, filetype="python")
    event = {"type": "message", "subtype": "file_share", "channel": "D0ASKER", "channel_type": "im",
             "user": "U0ASKER", "ts": "1700002001.000100", "text": "",
             "files": [{"id": info["id"], "file_access": "check_file_info"}]}
    bot.sender.event(event)
    assert bot.ctx.work_pool.wait_idle(60)
    assert [b["file"] for b in fake_slack.bodies("files.info")] == [info["id"]]
    assert "pytorch/backward-twice" in reply_text(fake_slack, None)  # a DM: answered inline


def test_wrong_type_too_big_and_sign_in_page_are_reported_not_read(bot, fake_slack):
    image = fake_slack.add_file("screenshot.png", b"\x89PNG\r\n\x1a\n", filetype="png", mimetype="image/png")
    huge = fake_slack.add_file("huge.log", b"x", size=50 * 2**20)
    login = fake_slack.add_file("other.txt", TRACEBACK.encode(), login_page=True)
    binary = fake_slack.add_file("core.log", b"\x7fELF\x00\x00\x01" * 20)
    bot.sender.event(mention_with_files("1700002002.000100", [image, huge, login, binary]))
    assert bot.ctx.work_pool.wait_idle(60)
    text = reply_text(fake_slack, "1700002002.000100")
    assert "screenshot.png: only text and code files" in text
    assert "huge.log: 52428800 bytes is over the" in text
    assert "other.txt: Slack sent a sign-in page instead of the file" in text
    assert "core.log: the input looks binary" in text
    # Only the files that passed the type and size checks were downloaded.
    assert sorted(r.path.rsplit("/", 1)[1] for r in fake_slack.calls("download")) == ["core.log", "other.txt"]


def test_without_the_right_token_slack_sends_a_sign_in_page_and_it_is_detected(fake_slack):
    from slack_sdk import WebClient

    info = fake_slack.add_file("a.txt", b"RuntimeError: boom")
    client = WebClient(token="xoxb-wrong", base_url=fake_slack.api_url)
    with pytest.raises(FileRejected, match="sign-in page"):
        fetch_file_text(client, info, "xoxb-wrong")
    assert fetch_file_text(client, info, fake_slack.bot_token).text == "RuntimeError: boom"


def test_the_token_is_not_sent_along_a_redirect_to_another_host(fake_slack):
    from slack_fake_api import FakeSlack
    from slack_sdk import WebClient

    other = FakeSlack(bot_token=fake_slack.bot_token).start()
    try:
        target = other.add_file("cdn.txt", b"RuntimeError: boom")
        # The same server under another name: "localhost" instead of "127.0.0.1".
        elsewhere = target["url_private"].replace("127.0.0.1", "localhost")
        info = fake_slack.add_file("a.txt", b"", redirect_to=elsewhere)
        client = WebClient(token=fake_slack.bot_token, base_url=fake_slack.api_url)
        with pytest.raises(FileRejected, match="sign-in page"):  # the other host, asked without a token
            fetch_file_text(client, info, fake_slack.bot_token)
        [followed] = other.calls("download")
        assert "Authorization" not in followed.headers
    finally:
        other.stop()
