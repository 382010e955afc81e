"""What the bot stores of what people type (issue 26, item 7), through the bot's own code
and its real SQLite store: a 👎 comment keeps no token, a greeting is no coverage gap,
and a PyTorch error the knowledge base does not cover is one, with its token redacted."""

from __future__ import annotations

import json

import answer_docs
from sqlalchemy import select

from bot.evidence.gaps import list_gaps
from bot.store.models import VoteReason

TOKEN = "xoxb-2222222222-3333333333-ZyXwVuTsRqPoNmLkJiHgFeDc"


def settle(bot) -> None:
    assert bot.ctx.work_pool.wait_idle(120)


def mention(bot, fake, ts: str, text: str) -> None:
    fake.add_message("C0GENERAL", {"user": "U0ASKER", "ts": ts, "text": text})
    bot.sender.event({"type": "app_mention", "user": "U0ASKER", "channel": "C0GENERAL", "ts": ts, "text": text})


def test_a_token_in_a_downvote_comment_is_stored_redacted(bot):
    from bot.slack.listeners.views import save_reason

    shown = answer_docs.document(answer_docs.match("pytorch/backward-twice", "Backward twice"))
    answer_id = bot.ctx.store.add_answer(entry_id="pytorch/backward-twice", confidence=0.9, language="en",
                                         surface="mention", error_hash="e" * 64, channel="C0GENERAL",
                                         answer_json=json.dumps(shown.as_json()))
    view = {"private_metadata": str(answer_id),
            "state": {"values": {"reason": {"choice": {"selected_option": {"value": "other"}}},
                                 "comment": {"text": {"value": f"my script logs {TOKEN} and still fails"}}}}}
    save_reason(bot.ctx, {"user": {"id": "U0ASKER"}, "team": {"id": "T0001"}}, view)
    with bot.ctx.store.session() as session:
        [row] = session.scalars(select(VoteReason)).all()
    assert (row.reason, row.comment) == ("other", "my script logs [redacted] and still fails")


def test_a_greeting_is_no_gap_and_an_uncovered_error_is_one_without_its_token(bot, fake_slack):
    mention(bot, fake_slack, "1700016000.000100", "<@UBOT01> hi! thanks for the help yesterday")
    settle(bot)
    assert fake_slack.bot_messages("C0GENERAL")  # it was answered
    assert list_gaps(bot.ctx.store, errors_only=False) == []

    mention(bot, fake_slack, "1700016001.000100",
            f"<@UBOT01> RuntimeError: quantum flux capacitor rejected session {TOKEN} on rank 3")
    settle(bot)
    [gap] = list_gaps(bot.ctx.store, errors_only=False)
    assert "quantum flux capacitor" in gap["example"] and "[redacted]" in gap["example"]
    assert "xoxb" not in gap["example"] and "ZyXwVu" not in gap["example"]
