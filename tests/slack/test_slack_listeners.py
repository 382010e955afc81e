"""The listener bodies called directly, without bolt or signed requests: each takes the
bot's context and the payload Slack would send. The context's client talks to the fake
Slack Web API (slack_fake_api.py), which records and checks every call; `ack` is a
recording stand-in for bolt's acknowledgement."""

from __future__ import annotations

import json

import pytest

from answer_docs import document, match, workaround
from bot.slack.listeners import actions, commands, events, home, views
from slack_harness import SIGNING_SECRET


@pytest.fixture
def ctx(fake_slack, tmp_path):
    from bot.slack.app import build_context
    from bot.slack.services.context import SlackSettings
    from bot.store import open_store

    settings = SlackSettings(bot_token=fake_slack.bot_token, signing_secret=SIGNING_SECRET, api_url=fake_slack.api_url)
    return build_context(settings, store=open_store(f"sqlite:///{tmp_path / 'bot.db'}"))


class Ack:
    """bolt's `ack`: records what each call acknowledged with."""

    def __init__(self):
        self.calls: list[dict] = []

    def __call__(self, **kwargs):
        self.calls.append(kwargs)


def _slack_calls(fake) -> list[str]:
    return [r.method for r in fake.requests if r.method != "auth.test"]


def _stored_answer(ctx, channel: str = "C1", question_ts: str = "100.000100") -> int:
    answer = document(match(workarounds=[workaround("add-losses", "Add the losses")]))
    answer_id = ctx.store.add_answer(entry_id="pytorch/example", confidence=0.92, language="en", surface="mention",
                                     error_hash="h", channel=channel, thread_ts=question_ts, question_ts=question_ts,
                                     answer_json=json.dumps(answer.as_json()))
    return answer_id


def test_an_empty_slash_command_is_acknowledged_with_the_usage():
    ack = Ack()
    commands.ack_command(ack, {"text": "   "})
    assert len(ack.calls) == 1 and "/troubleshoot" in ack.calls[0]["text"]


def test_a_slash_command_with_text_is_acknowledged_empty_and_answered_later():
    ack = Ack()
    commands.ack_command(ack, {"text": "RuntimeError: boom"})
    assert ack.calls == [{}]


def test_a_malformed_vote_touches_nothing(ctx, fake_slack):
    actions.on_vote(ctx, {"type": "block_actions", "actions": [{"action_id": "vote_up", "value": "not-a-number"}],
                          "user": {"id": "U1"}, "team": {"id": "T1"}})
    assert _slack_calls(fake_slack) == []


def test_a_vote_on_an_answer_the_store_does_not_have_touches_nothing(ctx, fake_slack):
    actions.on_vote(ctx, {"type": "block_actions", "actions": [{"action_id": "vote_up", "value": "9999"}],
                          "user": {"id": "U1"}, "team": {"id": "T1"}})
    assert _slack_calls(fake_slack) == []
    assert ctx.store.vote_counts(9999) == (0, 0)


def test_deleting_a_question_deletes_the_answer_to_it(ctx, fake_slack):
    answer_id = _stored_answer(ctx)
    posted = fake_slack.add_message("C1", {"text": "the answer", "bot_id": fake_slack.bot_id,
                                           "thread_ts": "100.000100"})
    ctx.store.set_answer_posted(answer_id, "C1", posted["ts"])
    events.on_message(ctx, {"team_id": "T1"}, {"type": "message", "subtype": "message_deleted", "channel": "C1",
                                               "deleted_ts": "100.000100",
                                               "previous_message": {"ts": "100.000100", "user": "U1"}})
    assert fake_slack.bodies("chat.delete") == [{"channel": "C1", "ts": posted["ts"]}]


def test_deleting_a_message_nobody_answered_deletes_nothing(ctx, fake_slack):
    _stored_answer(ctx)
    events.on_message(ctx, {"team_id": "T1"}, {"type": "message", "subtype": "message_deleted", "channel": "C1",
                                               "deleted_ts": "555.000001",
                                               "previous_message": {"ts": "555.000001", "user": "U1"}})
    assert fake_slack.calls("chat.delete") == []


def test_sharing_twice_posts_the_answer_once_and_tells_the_second_click(ctx, fake_slack):
    answer_id = _stored_answer(ctx)
    body = {"type": "block_actions", "actions": [{"action_id": "share_answer", "value": str(answer_id)}],
            "user": {"id": "U1"}, "team": {"id": "T1"}, "channel": {"id": "C1"}}
    actions.on_share(ctx, body)
    actions.on_share(ctx, body)
    shared = [b for b in fake_slack.bodies("chat.postMessage") if b.get("channel") == "C1"]
    assert len(shared) == 1 and "Add the losses" in str(shared[0]["blocks"])
    notices = fake_slack.bodies("chat.postEphemeral")
    assert len(notices) == 1 and notices[0]["user"] == "U1"


def test_opening_app_home_publishes_the_users_tab(ctx, fake_slack):
    home.on_home(ctx, {"team_id": "T1"}, {"type": "app_home_opened", "user": "U7", "tab": "home"})
    published = fake_slack.bodies("views.publish")
    assert len(published) == 1 and published[0]["user_id"] == "U7"
    assert published[0]["view"]["type"] == "home"


def test_the_messages_tab_of_app_home_publishes_nothing(ctx, fake_slack):
    home.on_home(ctx, {"team_id": "T1"}, {"type": "app_home_opened", "user": "U7", "tab": "messages"})
    assert fake_slack.calls("views.publish") == []


def _snippet_view(answer_id: int, code: str) -> dict:
    return {"private_metadata": str(answer_id), "state": {"values": {"snippet": {"code": {"value": code}}}}}


def test_a_snippet_that_is_not_python_is_refused_in_the_modal(ctx):
    answer_id = _stored_answer(ctx)
    ack = Ack()
    views.ack_submission(ctx, ack, _snippet_view(answer_id, "def broken(:\n"))
    assert ack.calls[0]["response_action"] == "errors" and "line 1" in ack.calls[0]["errors"]["snippet"]


def test_a_python_snippet_closes_the_modal(ctx):
    ack = Ack()
    views.ack_submission(ctx, ack, _snippet_view(_stored_answer(ctx), "import torch\n"))
    assert ack.calls == [{}]


def test_the_fix_did_not_work_is_a_vote_against_it_not_a_run(ctx, fake_slack):
    from sqlalchemy import func, select

    from bot.store.models import Verification

    answer_id = _stored_answer(ctx)
    view = {"private_metadata": str(answer_id),
            "state": {"values": {"reason": {"choice": {"selected_option": {"value": "fix_failed"}}},
                                 "comment": {"text": {"value": "still crashes"}}}}}
    body = {"user": {"id": "U1"}, "team": {"id": "T1"}}
    views.save_reason(ctx, body, view)
    views.save_reason(ctx, body, view)  # the same asker twice: still one voice
    assert ctx.store.vote_counts(answer_id) == (0, 1)
    with ctx.store.session() as session:
        assert session.scalar(select(func.count()).select_from(Verification)) == 0
    assert _slack_calls(fake_slack) == []


def _choices_answer(ctx, channel: str = "C1", question_ts: str = "200.000100") -> int:
    from bot.answer.document import Choice

    answer = document(match("pytorch/a", "First candidate", confidence=0.61,
                            workarounds=[workaround("fix-a", "Do the first thing")]),
                      match("pytorch/b", "Second candidate", confidence=0.4,
                            workarounds=[workaround("fix-b", "Do the second thing")]),
                      answered=False, tier="choices", declined="not-covered", question="GPU ran out, training stops",
                      choices=[Choice(id="pytorch/a", title="First candidate", confidence=0.61, line="Why A."),
                               Choice(id="pytorch/b", title="Second candidate", confidence=0.4, line="Why B.")])
    return ctx.store.add_answer(entry_id=None, confidence=0.61, language="en", surface="mention", error_hash="h",
                                channel=channel, thread_ts=question_ts, question_ts=question_ts,
                                answer_json=json.dumps(answer.as_json()))


def test_choices_are_buttons_and_a_pick_turns_the_message_into_that_answer(ctx, fake_slack):
    from bot.evidence.learn import pending
    from bot.slack.blocks import PICK_ACTIONS, answer_message
    from bot.slack.services.answering import stored_answer

    answer_id = _choices_answer(ctx)
    _row, stored = stored_answer(ctx, answer_id)
    shown = answer_message(stored, answer_id=answer_id).payload()
    buttons = [e for b in shown["blocks"] if b["type"] == "actions" for e in b["elements"]]
    assert [(e["action_id"], e["value"]) for e in buttons] == [(PICK_ACTIONS[0], f"{answer_id}:1"),
                                                               (PICK_ACTIONS[1], f"{answer_id}:2")]
    assert "Is it one of these?" in json.dumps(shown) and "verify_fix" not in json.dumps(shown)
    posted = fake_slack.add_message("C1", {"text": "choices", "bot_id": fake_slack.bot_id, "thread_ts": "200.000100"})
    body = {"type": "block_actions", "actions": [{"action_id": PICK_ACTIONS[1], "value": f"{answer_id}:2"}],
            "user": {"id": "U1"}, "team": {"id": "T1"}, "channel": {"id": "C1"},
            "container": {"channel_id": "C1", "message_ts": posted["ts"]}}
    actions.on_pick(ctx, body)
    updated = fake_slack.bodies("chat.update")
    assert len(updated) == 1 and updated[0]["ts"] == posted["ts"]
    assert "Second candidate" in str(updated[0]["blocks"]) and "Do the second thing" in str(updated[0]["blocks"])
    row, now = stored_answer(ctx, answer_id)
    assert row.entry_id == "pytorch/b" and now.tier == "answer" and now.evidence == "picked"
    assert [(p["entry_id"], p["source"]) for p in pending(ctx.store)] == [("pytorch/b", "pick")]
    # a second click on the old buttons: told privately, nothing changes
    actions.on_pick(ctx, body)
    assert len(fake_slack.bodies("chat.update")) == 1 and len(fake_slack.bodies("chat.postEphemeral")) == 1
    # a 👍 on the picked answer counts once more for the same pending example
    actions.on_vote(ctx, {"type": "block_actions", "actions": [{"action_id": "vote_up", "value": str(answer_id)}],
                          "user": {"id": "U2"}, "team": {"id": "T1"}, "channel": {"id": "C1"},
                          "container": {"channel_id": "C1", "message_ts": posted["ts"]}})
    assert [(p["entry_id"], p["count"], p["source"]) for p in pending(ctx.store)] == [("pytorch/b", 2, "upvote")]


def test_a_malformed_pick_touches_nothing(ctx, fake_slack):
    for value in ("nonsense", "12", "x:1"):
        actions.on_pick(ctx, {"type": "block_actions", "actions": [{"action_id": "pick_choice_1", "value": value}],
                              "user": {"id": "U1"}, "team": {"id": "T1"}})
    assert _slack_calls(fake_slack) == []
