"""`troubleshoot serve` as it runs in production: a subprocess on a real port (HTTP
mode) or connected over a WebSocket (Socket Mode), against the fake Slack API that
SLACK_API_URL points it at."""

from __future__ import annotations

import json
import subprocess
import sys
import threading

import pytest

from slack_harness import REPO, BotProcess, SlackSender, bot_env, event_body, http_get, new_event_id


# The error line of seed 000 is PyTorch's own message (torch <= 1.7 wording), a fact we
# may quote; where the seeds are beside the checkout the line is read from the seed
# itself, so the test also proves it is the same text.
SEED_000_ERROR = ("RuntimeError: Trying to backward through the graph a second time, but the buffers have "
                  "already been freed. Specify retain_graph=True when calling backward the first time.")


@pytest.fixture
def seed_error() -> str:
    return SEED_000_ERROR


def mention(text: str, ts: str) -> dict:
    return {"type": "app_mention", "user": "U0ASKER", "channel": "C0GENERAL", "ts": ts, "event_ts": ts,
            "text": f"<@UBOT01> {text}", "client_msg_id": f"cm-{ts}"}


def answers(fake, thread_ts):
    return [b for b in fake.bodies("chat.postMessage") if b.get("thread_ts") == thread_ts]


def answer_content(fake, thread_ts) -> str:
    """What the thread's answer says in the end: a slow answer is posted as "Looking this
    up..." first and then replaced with chat.update."""
    return json.dumps(answers(fake, thread_ts) + fake.bodies("chat.update"), ensure_ascii=False)


@pytest.mark.slow
def test_acceptance_a_mention_with_the_seed_error_gets_one_threaded_answer(fake_slack, answer_index, tmp_path,
                                                                           seed_error):
    env = bot_env(fake_slack, tmp_path, index_dir=answer_index, extra={"TROUBLESHOOT_LOG_LEVEL": "DEBUG"})
    bot = BotProcess(env, tmp_path / "bot.log")
    try:
        sender = SlackSender(bot.wait_listening())
        bot.wait_ready()
        event, event_id = mention(seed_error, "1700005000.000100"), new_event_id()
        assert sender.event(event, event_id=event_id).status == 200
        assert sender.event(event, event_id=event_id, retry_num=1).status == 200
        fake_slack.wait_for(lambda: answers(fake_slack, "1700005000.000100"), what="the answer")
        fake_slack.quiet_for(1.5)
        [answer] = answers(fake_slack, "1700005000.000100")
        assert answer["channel"] == "C0GENERAL"
        fake_slack.wait_for(lambda: "pytorch/backward-twice" in answer_content(fake_slack, "1700005000.000100"),
                            what="the answer's content")
        assert fake_slack.violations == []
        health = http_get(bot.base_url + "/health").json()
        assert health["ok"] and health["ready"]
    finally:
        assert bot.stop() == 0
    logs = bot.logs()
    assert "chat.postMessage" in logs  # DEBUG logging was on
    assert fake_slack.bot_token not in logs and "8f742231b10e8888abcd99yyyzzz85a5" not in logs


@pytest.mark.slow
def test_two_bot_processes_sharing_one_sqlite_file_answer_once(fake_slack, answer_index, tmp_path, seed_error):
    env = bot_env(fake_slack, tmp_path, index_dir=answer_index)  # both use tmp_path/bot.db
    bots = [BotProcess(env, tmp_path / f"bot{i}.log") for i in range(2)]
    try:
        senders = [SlackSender(b.wait_listening()) for b in bots]
        for b in bots:
            b.wait_ready()
        event, event_id = mention(seed_error, "1700005001.000100"), new_event_id()
        message = dict(event, type="message", channel_type="channel")
        # Slack's retries may land on either process; app_mention and message as well.
        jobs = [(senders[0], event, event_id), (senders[1], event, event_id), (senders[1], message, new_event_id()),
                (senders[0], event, new_event_id())]
        threads = [threading.Thread(target=s.event, args=(e,), kwargs={"event_id": i}) for s, e, i in jobs]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        fake_slack.wait_for(lambda: answers(fake_slack, "1700005001.000100"), what="the answer")
        fake_slack.quiet_for(2.0)
        assert len(answers(fake_slack, "1700005001.000100")) == 1
    finally:
        for b in bots:
            b.stop()


@pytest.mark.slow
def test_socket_mode_when_an_app_token_is_set(fake_slack, answer_index, tmp_path, seed_error):
    env = bot_env(fake_slack, tmp_path, index_dir=answer_index, extra={"SLACK_APP_TOKEN": fake_slack.app_token})
    bot = BotProcess(env, tmp_path / "bot.log", args=[])
    try:
        fake_slack.wait_for(fake_slack.socket_connected, timeout=120, what="the Socket Mode connection")
        [opened] = fake_slack.calls("apps.connections.open")
        assert opened.headers["Authorization"] == f"Bearer {fake_slack.app_token}"
        body = event_body(mention(seed_error, "1700005002.000100"))
        envelope_id = fake_slack.send_socket_envelope(body)
        fake_slack.wait_for(lambda: any(a.get("envelope_id") == envelope_id for a in fake_slack.socket_acks),
                            what="the ack over the socket")
        fake_slack.wait_for(lambda: "pytorch/backward-twice" in answer_content(fake_slack, "1700005002.000100"),
                            timeout=120, what="the answer")
    finally:
        bot.stop()
    assert fake_slack.app_token not in bot.logs()


@pytest.mark.slow
def test_serve_says_what_is_missing(tmp_path):
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO), "TROUBLESHOOT_VAR_DIR": str(tmp_path)}
    run = subprocess.run([sys.executable, "-m", "bot.cli", "serve", "--http"], cwd=REPO, env=env,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "SLACK_BOT_TOKEN is not set" in run.stderr
    env["SLACK_BOT_TOKEN"] = "xoxb-1-2-x"
    run = subprocess.run([sys.executable, "-m", "bot.cli", "serve"], cwd=REPO, env=env,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "set SLACK_APP_TOKEN" in run.stderr
    run = subprocess.run([sys.executable, "-m", "bot.cli", "serve", "--http"], cwd=REPO, env=env,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "SLACK_SIGNING_SECRET is not set" in run.stderr


@pytest.mark.slow
def test_serve_reports_a_refused_token(fake_slack, tmp_path):
    env = bot_env(fake_slack, tmp_path, extra={"SLACK_BOT_TOKEN": "xoxb-9-9-wrong"})
    run = subprocess.run([sys.executable, "-m", "bot.cli", "serve", "--http", "--port", "0"], cwd=REPO, env=env,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "Slack refused the bot token (auth.test: invalid_auth)" in run.stderr
    assert "xoxb-9-9-wrong" not in run.stderr
