"""Issue 14: votes under a burst of clicks, repeated clicks, 👎 asks why (stored, in
`stats`, "the fix did not work" counted against the fix like a failed run), per-channel
settings with `/troubleshoot config`, App Home, the manifest's scopes."""

from __future__ import annotations

import json
import threading

from slack_harness import button_payload

ERROR = "RuntimeError: Trying to backward through the graph a second time, but the buffers have already been freed"
TRACEBACK = ("Traceback (most recent call last):\n  File \"train.py\", line 12, in <module>\n    loss.backward()\n"
             + ERROR)


def settle(bot):
    assert bot.ctx.work_pool.wait_idle(120)


def ask(bot, fake, ts: str, text: str = f"<@UBOT01> {ERROR}", channel: str = "C0GENERAL") -> tuple[dict, int]:
    fake.add_message(channel, {"user": "U0ASKER", "ts": ts, "text": text})
    bot.sender.event({"type": "app_mention", "user": "U0ASKER", "channel": channel, "ts": ts, "text": text})
    settle(bot)
    answer = next(m for m in fake.bot_messages(channel) if m.get("thread_ts") == ts)
    actions = next(b for b in answer["blocks"] if b["type"] == "actions")
    return answer, int(actions["elements"][0]["value"])


def vote_labels(message: dict) -> list[str]:
    actions = next(b for b in message["blocks"] if b["type"] == "actions")
    return [e["text"]["text"] for e in actions["elements"] if e["action_id"].startswith("vote")]


def test_twelve_simultaneous_votes_end_with_the_right_count(bot, fake_slack):
    answer, answer_id = ask(bot, fake_slack, "1700015000.000100")
    snapshot = json.loads(json.dumps(answer))  # every click carries the message as it was when clicked
    threads = [threading.Thread(target=bot.sender.interaction, args=(button_payload(
        action_id="vote_up", value=str(answer_id), user=f"U0VOTER{i:02d}", message=snapshot),)) for i in range(12)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    settle(bot)
    assert bot.ctx.store.vote_counts(answer_id) == (12, 0)
    assert vote_labels(answer) == ["👍 12", "👎 0"]
    assert fake_slack.violations == []


def test_a_repeated_vote_or_share_gets_a_private_answer(bot, fake_slack):
    answer, answer_id = ask(bot, fake_slack, "1700015001.000100")
    for _ in range(2):
        bot.sender.interaction(button_payload(action_id="vote_up", value=str(answer_id), message=answer))
        settle(bot)
    [notice] = fake_slack.bodies("chat.postEphemeral")
    assert notice["user"] == "U0ASKER" and "already voted 👍" in notice["text"]

    url = fake_slack.response_url()
    bot.sender.command(ERROR, response_url=url)
    settle(bot)
    posted = fake_slack.calls("response_url")[-1].body
    private_id = next(b for b in posted["blocks"] if b["type"] == "actions")["elements"][0]["value"]
    for _ in range(2):
        bot.sender.interaction(button_payload(action_id="share_answer", value=private_id, ephemeral=True,
                                              response_url=url, message_ts="1700015001.000500"))
        settle(bot)
    assert len([m for m in fake_slack.bot_messages("C0GENERAL") if not m.get("thread_ts")]) == 1
    assert "already shared" in json.dumps([c.body for c in fake_slack.calls("response_url")])


def test_a_vote_down_asks_why_and_the_fix_did_not_work_is_a_vote_not_a_run(bot, fake_slack, capsys):
    from sqlalchemy import func, select

    from bot.store.models import Verification, VerificationOutcome, Vote
    from bot.evidence.stats import build_stats, format_stats
    from bot.kb.loader import check_knowledge
    from bot.store.models import VoteReason

    answer, answer_id = ask(bot, fake_slack, "1700015002.000100")
    bot.sender.interaction(button_payload(action_id="vote_down", value=str(answer_id), message=answer))
    settle(bot)
    [modal] = fake_slack.opened_views
    assert modal["callback_id"] == "downvote_reason_modal" and modal["private_metadata"] == str(answer_id)
    choices = [o["value"] for o in modal["blocks"][0]["element"]["options"]]
    assert choices == ["wrong_error", "fix_failed", "unclear", "other"]
    assert vote_labels(answer) == ["👍 0", "👎 1"]

    def submit(reason: str, user: str = "U0ASKER", comment: str | None = None):
        view = {"id": "V1", "type": "modal", "callback_id": "downvote_reason_modal",
                "private_metadata": str(answer_id),
                "state": {"values": {"reason": {"choice": {"type": "radio_buttons",
                                                           "selected_option": {"value": reason}}},
                                     "comment": {"text": {"type": "plain_text_input", "value": comment}}}}}
        reply = bot.sender.interaction({"type": "view_submission", "team": {"id": "T0001"},
                                        "user": {"id": user, "team_id": "T0001"}, "api_app_id": "A0001",
                                        "token": "legacy", "trigger_id": "1.trigger", "view": view})
        assert reply.status == 200
        settle(bot)

    asker = bot.ctx.store.user_hash("T0001", "U0ASKER")
    bot.ctx.store.vote(answer_id, asker, 1)  # the asker changed their mind to 👍 before saying the fix failed
    submit("fix_failed", comment="still crashes on the second step")
    submit("fix_failed")  # the same asker again: still one vote
    submit("unclear", user="U0OTHER")
    stored = json.loads(bot.ctx.store.get_answer(answer_id).answer_json)
    fix = stored["matches"][0]["workarounds"][0]["id"]
    with bot.ctx.store.session() as session:
        reasons = {(r.reason, r.comment) for r in session.scalars(select(VoteReason))}
        verifications = session.scalar(select(func.count()).select_from(Verification))
        outcomes = session.scalar(select(func.count()).select_from(VerificationOutcome))
        votes = session.execute(select(Vote.answer_id, Vote.user_hash, Vote.vote)).all()
    assert reasons == {("fix_failed", None), ("unclear", None)}  # the second reason replaced the first
    assert verifications == 0 and outcomes == 0  # nothing ran: no verification, no outcome
    assert [tuple(v) for v in votes] == [(answer_id, asker, -1)]  # one vote per asker and answer: a 👎 again

    kb, _ = check_knowledge()
    doc = build_stats(kb, bot.ctx.store)
    entry = next(e for e in doc["entries"] if e["id"] == "pytorch/backward-twice")
    assert entry["downvote_reasons"] == {"fix_failed": 1, "unclear": 1}
    item = next(w for w in entry["workarounds"] if w["id"] == fix)
    assert (item["up"], item["down"]) == (0, 1) and item["source"] == "votes"
    assert item["runs"] == item["askers_failed"] == item["recorded"] == 0
    # votes, not runs; one vote is no percentage (bot.evidence.display.MIN_VOTES)
    assert item["rate_text"] == "team estimate, not yet verified; 👍 0 👎 1 on answers"
    assert item["measured"] is None
    assert doc["store"]["verifications"] == 0 and entry["verifications"] == 0
    assert "👎 reasons: the fix did not work 1, unclear 1" in format_stats(doc)


def test_channel_config_is_for_admins_and_creators_and_is_kept(bot, fake_slack):
    url = fake_slack.response_url()
    bot.sender.command("config auto=on lang=ko verify=off", channel="C0TEAM", user="U0RANDOM", response_url=url)
    settle(bot)
    assert "Only workspace admins" in fake_slack.calls("response_url")[-1].body["text"]
    assert bot.ctx.store.channel_settings("T0001", "C0TEAM") is None

    fake_slack.channel_creators["C0TEAM"] = "U0CREATOR"
    bot.sender.command("config auto=on lang=ko verify=off", channel="C0TEAM", user="U0CREATOR", response_url=url)
    settle(bot)
    row = bot.ctx.store.channel_settings("T0001", "C0TEAM")
    assert (row.auto_answer, row.language, row.verify_allowed) == (True, "ko", False)
    assert "Saved" in fake_slack.calls("response_url")[-1].body["text"]

    # Auto-answer is on: a root message with a traceback is answered without a mention, in
    # the channel's language (the message has no words of its own), without Verify fix.
    fake_slack.add_message("C0TEAM", {"user": "U0ASKER", "ts": "1700015003.000100", "text": TRACEBACK})
    bot.sender.event({"type": "message", "channel_type": "channel", "user": "U0ASKER", "channel": "C0TEAM",
                      "ts": "1700015003.000100", "text": TRACEBACK})
    settle(bot)
    [answer] = fake_slack.bot_messages("C0TEAM")
    text = json.dumps(answer["blocks"], ensure_ascii=False)
    assert "가장 좋은 해결책" in text and "verify_fix" not in text

    fake_slack.admins.add("U0ADMIN")
    bot.sender.command("config auto=off verify=on", channel="C0TEAM", user="U0ADMIN", response_url=url)
    settle(bot)
    bot.sender.command("config colour=blue", channel="C0TEAM", user="U0ADMIN", response_url=url)
    settle(bot)
    row = bot.ctx.store.channel_settings("T0001", "C0TEAM")
    assert (row.auto_answer, row.language, row.verify_allowed) == (False, "ko", True)
    assert "colour=blue" in fake_slack.calls("response_url")[-1].body["text"]
    fake_slack.add_message("C0TEAM", {"user": "U0ASKER", "ts": "1700015003.000300", "text": TRACEBACK})
    bot.sender.event({"type": "message", "channel_type": "channel", "user": "U0ASKER", "channel": "C0TEAM",
                      "ts": "1700015003.000300", "text": TRACEBACK})
    settle(bot)
    assert len(fake_slack.bot_messages("C0TEAM")) == 1  # auto-answer is off again


def test_app_home_shows_recent_questions_and_admins_see_the_overview(bot, fake_slack):
    answer, answer_id = ask(bot, fake_slack, "1700015004.000100")
    bot.sender.interaction(button_payload(action_id="vote_up", value=str(answer_id), message=answer))
    settle(bot)
    bot.sender.event({"type": "app_home_opened", "user": "U0ASKER", "channel": "D0ASKER", "tab": "home"})
    settle(bot)
    home = json.dumps(fake_slack.home_views["U0ASKER"], ensure_ascii=False)
    stored = json.loads(bot.ctx.store.get_answer(answer_id).answer_json)
    assert "Your recent questions" in home and stored["matches"][0]["title"] in home and "👍" in home
    assert "Workspace overview" not in home

    fake_slack.admins.add("U0ADMIN")
    bot.sender.event({"type": "app_home_opened", "user": "U0ADMIN", "channel": "D0ADMIN", "tab": "home"})
    settle(bot)
    admin = json.dumps(fake_slack.home_views["U0ADMIN"], ensure_ascii=False)
    assert "Workspace overview" in admin and "Most-asked errors" in admin and "█" in admin
    assert "Verified fix rates" in admin and "%" not in admin
    assert fake_slack.violations == []
