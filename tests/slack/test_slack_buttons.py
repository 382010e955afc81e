"""Buttons on answers: 👍/👎 once per user with the count shown, and Verify fix
running the asker's snippet in the real sandbox with a status message that moves,
one verification per user, the modal when no snippet is found."""

from __future__ import annotations

import json

import pytest

from slack_harness import button_payload, view_submission_payload

ERROR = "RuntimeError: Trying to backward through the graph a second time, but the buffers have already been freed"
SNIPPET = ("import torch\nx = torch.ones(3, requires_grad=True)\ny = (x * x).sum()\n"
           "for i in range(60):\n    print('step', i)\ny.backward()\ny.backward()")


def settle(bot, verifications: bool = False):
    assert bot.ctx.work_pool.wait_idle(120)
    if verifications:
        assert bot.ctx.verify_pool.wait_idle(300)
        assert bot.ctx.work_pool.wait_idle(120)


def ask(bot, fake, ts: str, text: str) -> tuple[dict, int]:
    """Post a question in the fake's channel, mention the bot, return (answer message, answer id)."""
    question = fake.add_message("C0GENERAL", {"user": "U0ASKER", "ts": ts, "text": text})
    bot.sender.event({"type": "app_mention", "user": "U0ASKER", "channel": "C0GENERAL", "ts": ts, "text": text})
    settle(bot)
    answer = next(m for m in fake.bot_messages("C0GENERAL") if m.get("thread_ts") == question["ts"])
    actions = next(b for b in answer["blocks"] if b["type"] == "actions")
    return answer, int(actions["elements"][0]["value"])


def vote_labels(message: dict) -> list[str]:
    actions = next(b for b in message["blocks"] if b["type"] == "actions")
    return [e["text"]["text"] for e in actions["elements"] if e["action_id"].startswith("vote")]


def test_votes_count_once_per_user_and_the_message_shows_the_count(bot, fake_slack):
    answer, answer_id = ask(bot, fake_slack, "1700006000.000100", f"<@UBOT01> {ERROR}")
    before = [b for b in answer["blocks"] if b["type"] != "actions"]

    def click(action, user):
        bot.sender.interaction(button_payload(action_id=action, value=str(answer_id), user=user, message=answer))
        settle(bot)

    click("vote_up", "U0ALICE")
    click("vote_up", "U0ALICE")  # again: counted once
    assert vote_labels(answer) == ["👍 1", "👎 0"]
    click("vote_down", "U0BOB")
    assert vote_labels(answer) == ["👍 1", "👎 1"]
    click("vote_up", "U0BOB")  # Bob changes his mind: still one vote
    assert vote_labels(answer) == ["👍 2", "👎 0"]
    assert len(fake_slack.bodies("chat.update")) == 3  # the repeated click changed nothing
    assert [b for b in answer["blocks"] if b["type"] != "actions"] == before  # the rest is untouched
    assert bot.ctx.store.vote_counts(answer_id) == (2, 0)


def test_malformed_or_unknown_vote_payloads_change_nothing(bot, fake_slack):
    answer, answer_id = ask(bot, fake_slack, "1700006001.000100", f"<@UBOT01> {ERROR}")
    for value in ("not-a-number", "999999", ""):
        assert bot.sender.interaction(button_payload(action_id="vote_up", value=value, message=answer)).status == 200
    broken = button_payload(action_id="vote_up", value=str(answer_id), message=answer)
    broken["actions"] = []
    bot.sender.interaction(broken)
    settle(bot)
    assert fake_slack.bodies("chat.update") == []
    assert bot.ctx.store.vote_counts(answer_id) == (0, 0)


def test_votes_on_a_private_answer_redraw_it_through_response_url(bot, fake_slack):
    url = fake_slack.response_url()
    bot.sender.command(ERROR, response_url=url)
    settle(bot)
    posted = fake_slack.calls("response_url")[-1].body
    answer_id = next(b for b in posted["blocks"] if b["type"] == "actions")["elements"][0]["value"]
    bot.sender.interaction(button_payload(action_id="vote_down", value=answer_id, ephemeral=True, response_url=url,
                                          message_ts="1700006002.000100"))
    settle(bot)
    redrawn = fake_slack.calls("response_url")[-1].body
    assert redrawn["replace_original"] is True and vote_labels(redrawn) == ["👍 0", "👎 1"]


@pytest.mark.slow
def test_verify_fix_runs_the_threads_snippet_and_reports_each_fix(bot, fake_slack):
    answer, answer_id = ask(bot, fake_slack, "1700006010.000100",
                            f"<@UBOT01> this fails:\n```{SNIPPET}```\n```{ERROR}```")
    click = button_payload(action_id="verify_fix", value=str(answer_id), message=answer)
    bot.sender.interaction(click)
    bot.sender.interaction(click)  # a double click starts nothing twice
    settle(bot, verifications=True)

    statuses = [m for m in fake_slack.bot_messages("C0GENERAL") if m is not answer]
    assert len(statuses) == 2  # one status message, and a new one that tells the asker it is done
    status, done = statuses
    assert status["thread_ts"] == done["thread_ts"] == "1700006010.000100"
    assert done["text"].startswith("<@U0ASKER>") and "Verification finished" in done["text"]
    updates = [b["text"] for b in fake_slack.bodies("chat.update") if b["ts"] == status["ts"]]
    assert any("Verifying your snippet" in u for u in updates[:-1])  # it moved while running
    assert not any("(1/" in u or "(2/" in u for u in updates)  # one counter, not two
    final = json.dumps(status["blocks"], ensure_ascii=False)
    assert "The error reproduces" in final and "RuntimeError" in final
    assert "fixed" in final and "retain_graph=True" in final
    assert "still fails" in final or "new error" in final  # a dead end shown failing
    # The double click got a private note instead of a second run.
    notes = [b for b in fake_slack.bodies("chat.postEphemeral")]
    assert len(notes) == 1 and "already have a verification running" in notes[0]["text"]
    # The output was long: the last lines inline, all of it as a file in the thread.
    [upload] = fake_slack.bodies("files.completeUploadExternal")
    assert upload["thread_ts"] == "1700006010.000100" and upload["channel_id"] == "C0GENERAL"
    file_id = json.loads(upload["files"])[0]["id"]
    assert b"step 59" in fake_slack.uploaded(file_id) and b"step 0\n" in fake_slack.uploaded(file_id)
    assert "step 0\n" not in final
    assert fake_slack.violations == []


@pytest.mark.slow
def test_verify_without_a_snippet_opens_a_modal_and_runs_what_is_pasted(bot, fake_slack):
    answer, answer_id = ask(bot, fake_slack, "1700006020.000100", f"<@UBOT01> {ERROR}")
    bot.sender.interaction(button_payload(action_id="verify_fix", value=str(answer_id), message=answer))
    settle(bot)
    [opened] = fake_slack.bodies("views.open")
    view = opened["view"] if isinstance(opened["view"], dict) else json.loads(opened["view"])
    assert view["callback_id"] == "verify_snippet_modal" and view["private_metadata"] == str(answer_id)

    reply = bot.sender.interaction(view_submission_payload(answer_id=answer_id, code="def broken(:\n"))
    assert reply.status == 200
    assert reply.json()["response_action"] == "errors" and "line 1" in reply.json()["errors"]["snippet"]

    reply = bot.sender.interaction(view_submission_payload(answer_id=answer_id, code=SNIPPET))
    assert reply.status == 200 and reply.body in (b"", b"{}")
    settle(bot, verifications=True)
    status = [m for m in fake_slack.bot_messages("C0GENERAL") if m is not answer]
    assert len(status) == 2 and status[0]["thread_ts"] == "1700006020.000100"  # the status and the notice
    assert "The error reproduces" in json.dumps(status[0]["blocks"])


@pytest.mark.slow
def test_verify_on_a_private_answer_reports_in_a_direct_message(bot, fake_slack):
    url = fake_slack.response_url()
    bot.sender.command(ERROR, response_url=url)
    settle(bot)
    posted = fake_slack.calls("response_url")[-1].body
    answer_id = int(next(b for b in posted["blocks"] if b["type"] == "actions")["elements"][0]["value"])
    bot.sender.interaction(button_payload(action_id="verify_fix", value=str(answer_id), ephemeral=True,
                                          response_url=url, message_ts="1700006030.000100"))
    settle(bot)
    assert len(fake_slack.bodies("views.open")) == 1  # a private answer has no thread to take a snippet from
    bot.sender.interaction(view_submission_payload(answer_id=answer_id, code=SNIPPET))
    settle(bot, verifications=True)
    assert fake_slack.bot_messages("C0GENERAL") == []  # nothing public
    status, done = fake_slack.bot_messages("D0ASKER")
    assert "The error reproduces" in json.dumps(status["blocks"]) and "<@U0ASKER>" in done["text"]


def test_broker_down_answers_still_work_and_verify_says_why(bot_factory, fake_slack, monkeypatch):
    """With REDIS_URL pointing at a broker that is not there, the bot still answers,
    and Verify fix tells the user the queue is unreachable (with a reference id)."""
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("REDIS_URL", f"redis://127.0.0.1:{port}/0")
    bot = bot_factory()  # its default executor is chosen from the environment
    answer, answer_id = ask(bot, fake_slack, "1700006040.000100",
                            f"<@UBOT01> this fails:\n```{SNIPPET}```\n```{ERROR}```")
    assert bot.ctx.store.get_answer(answer_id).entry_id == "pytorch/backward-twice"
    bot.sender.interaction(button_payload(action_id="verify_fix", value=str(answer_id), message=answer))
    settle(bot, verifications=True)
    [status] = [m for m in fake_slack.bot_messages("C0GENERAL") if m is not answer]
    final = json.dumps(status["blocks"], ensure_ascii=False)
    assert "cannot reach the job queue" in final and "answers still work" in final
    assert f"127.0.0.1:{port}" in final
