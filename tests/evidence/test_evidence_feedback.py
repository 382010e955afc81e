"""Feedback through the Slack bot: 👍/👎 clicks (signed interaction payloads to the real
bolt app) move the first workaround's rate once per user; replayed, malformed and
unknown-answer payloads change nothing; a Verify-fix click records its runs; the next
answer in Slack shows the evidence next to each workaround."""

from __future__ import annotations

import json
import urllib.parse

from .conftest import SEED, SEED_ERROR

ENTRY = "pytorch/backward-twice"


def settle(bot, verifications: bool = False) -> None:
    assert bot.ctx.work_pool.wait_idle(120)
    if verifications:
        assert bot.ctx.verify_pool.wait_idle(300)
        assert bot.ctx.work_pool.wait_idle(120)


def ask(bot, ts: str, text: str) -> tuple[dict, int]:
    question = bot.fake.add_message("C0GENERAL", {"user": "U0ASKER", "ts": ts, "text": text})
    bot.sender.event({"type": "app_mention", "user": "U0ASKER", "channel": "C0GENERAL", "ts": ts, "text": text})
    settle(bot)
    answer = next(m for m in bot.fake.bot_messages("C0GENERAL") if m.get("thread_ts") == question["ts"])
    actions = next(b for b in answer["blocks"] if b["type"] == "actions")
    return answer, int(actions["elements"][-1]["value"])


def evidence(bot) -> dict:
    from bot.evidence.stats import build_stats
    from bot.kb.loader import current_knowledge as knowledge

    return build_stats(knowledge(), bot.store)


def workaround(doc: dict, item_id: str) -> dict:
    entry = next(e for e in doc["entries"] if e["id"] == ENTRY)
    return next(w for w in entry["workarounds"] if w["id"] == item_id)


def test_votes_replays_and_malformed_payloads(slack_bot):
    from slack_harness import button_payload

    bot = slack_bot
    answer, answer_id = ask(bot, "1700007000.000100", f"<@UBOT01> {SEED_ERROR}")
    stored = json.loads(bot.store.get_answer(answer_id).answer_json)
    top = stored["matches"][0]["workarounds"][0]["id"]
    before = evidence(bot)

    def click(action: str, user: str, value: str | None = None) -> dict:
        payload = button_payload(action_id=action, value=str(answer_id) if value is None else value, user=user,
                                 message=answer)
        assert bot.sender.interaction(payload).status == 200
        settle(bot)
        return payload

    click("vote_up", "U0ALICE")
    replay = click("vote_up", "U0BOB")
    doc = evidence(bot)
    assert (workaround(doc, top)["up"], workaround(doc, top)["down"]) == (2, 0)
    assert workaround(doc, top)["fix_rate"] > workaround(before, top)["fix_rate"]

    # A replayed identical payload, malformed ones, and votes on answers that do not exist.
    bot.sender.interaction(replay)
    for value in ("999999", "not-a-number", "", "1; DROP TABLE votes", "-1"):
        click("vote_down", "U0MALLORY", value)
    headless = button_payload(action_id="vote_down", value=str(answer_id), message=answer)
    headless.pop("user")
    bot.sender.interaction(headless)
    empty = button_payload(action_id="vote_down", value=str(answer_id), message=answer)
    empty["actions"] = []
    bot.sender.interaction(empty)
    body = urllib.parse.urlencode({"payload": "{not json"}).encode()
    bot.sender.raw(body, "application/x-www-form-urlencoded")
    bot.sender.raw(json.dumps(button_payload(action_id="vote_down", value=str(answer_id))).encode(),
                   "application/json", secret="a-wrong-signing-secret")
    settle(bot)
    assert evidence(bot) == doc
    assert bot.store.vote_counts(answer_id) == (2, 0)

    # Bob changes his mind: his vote is replaced, not added.
    click("vote_down", "U0BOB")
    changed = workaround(evidence(bot), top)
    assert (changed["up"], changed["down"]) == (1, 1)

    # The next answer in Slack shows the evidence next to that workaround (its details list
    # every fix): as votes, too few for a percentage, and no "50%" beside "not yet verified".
    again, again_id = ask(bot, "1700007001.000100", f"<@UBOT01> {SEED_ERROR}")
    click_details = button_payload(action_id="answer_details", value=str(again_id), user="U0ASKER", message=again)
    assert bot.sender.interaction(click_details).status == 200
    settle(bot)
    shown = json.dumps([again["blocks"], bot.fake.opened_views[-1]], ensure_ascii=False)
    assert "team estimate, not yet verified; 👍 1 👎 1 on answers" in shown and "50%" not in shown


def test_a_verify_click_records_the_runs_and_the_next_answer_shows_them(slack_bot):
    from slack_harness import button_payload

    bot = slack_bot
    code = SEED.read_text()
    answer, answer_id = ask(bot, "1700007010.000100", f"<@UBOT01> this fails:\n```{code}```\n```{SEED_ERROR}```")
    bot.sender.interaction(button_payload(action_id="verify_fix", value=str(answer_id), message=answer))
    settle(bot, verifications=True)

    from sqlalchemy import select

    from bot.store.models import Verification

    with bot.store.session() as session:
        [row] = session.scalars(select(Verification)).all()
    assert (row.surface, row.answer_id, row.entry_id, row.reproduced) == ("slack", answer_id, ENTRY, True)
    assert row.snippet is None  # no consent asked in Slack yet: only the hash
    retain = workaround(evidence(bot), "retain-graph-all-but-last")
    assert (retain["runs"], retain["fixed"]) == (1, 1)

    again, _ = ask(bot, "1700007011.000100", f"<@UBOT01> {SEED_ERROR}")
    assert "fixed 1 of 1 verified run on torch 2.13" in json.dumps(again["blocks"], ensure_ascii=False)


def test_a_slack_question_without_a_confident_answer_is_a_coverage_gap(slack_bot):
    bot = slack_bot
    question = "<@UBOT01> RuntimeError: the flux capacitor in /home/carol/proj/model.py is out of phase"
    ask(bot, "1700007020.000100", question)
    ask(bot, "1700007021.000100", question.replace("carol", "dave"))
    [gap] = evidence(bot)["coverage_gaps"]
    assert gap["count"] == 2
    assert gap["excerpt"] == "RuntimeError: the flux capacitor in model.py is out of phase"
