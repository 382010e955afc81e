"""A question that is only code (issue 13, item 5), through the fake Slack API and the
real sandbox: a "Running your snippet" message at once, updated with the answer to the
error the run really raised, then the verification in the thread; a clean snippet says
it ran without an error; a fragment is not run and says what it lacks."""

from __future__ import annotations

import json

import pytest

NO_GRAD = ("import torch\nimport torch.nn as nn\n\nmodel = nn.Linear(4, 1)\nx = torch.randn(8, 4)\n"
           "with torch.no_grad():\n    pred = model(x)\nloss = pred.pow(2).mean()\nloss.backward()")


def settle(bot):
    assert bot.ctx.work_pool.wait_idle(120)
    assert bot.ctx.verify_pool.wait_idle(300)
    assert bot.ctx.work_pool.wait_idle(120)


def mention(bot, fake, ts: str, text: str) -> None:
    fake.add_message("C0GENERAL", {"user": "U0ASKER", "ts": ts, "text": text})
    bot.sender.event({"type": "app_mention", "user": "U0ASKER", "channel": "C0GENERAL", "ts": ts, "text": text})


def sandbox_or_skip():
    from bot.sandbox import sandbox_available

    ok, why = sandbox_available()
    if not ok:
        pytest.skip(f"the sandbox cannot run here: {why}")


@pytest.mark.slow
def test_code_only_question_runs_then_answers_then_verifies(bot, fake_slack):
    sandbox_or_skip()
    mention(bot, fake_slack, "1700007000.000100", f"<@UBOT01> 이 코드 왜 안 되나요?\n```python\n{NO_GRAD}\n```")
    settle(bot)
    posted = fake_slack.bodies("chat.postMessage")
    assert "스니펫을 실행하는 중" in posted[0]["text"]  # the first word is the running message, in Korean
    messages = [m for m in fake_slack.bot_messages("C0GENERAL") if m.get("thread_ts") == "1700007000.000100"]
    assert len(messages) == 2
    answer, verification = messages
    updates = [u for u in fake_slack.bodies("chat.update") if u["ts"] == answer["ts"]]
    assert updates and "no-grad-fn" in json.dumps(updates[-1])  # the running message became the answer
    shown = json.dumps(answer["blocks"], ensure_ascii=False)
    assert "pytorch/no-grad-fn" in shown and "torch 2." in shown and "RuntimeError" in shown
    actions = next(b for b in answer["blocks"] if b["type"] == "actions")
    answer_id = int(actions["elements"][0]["value"])
    row = bot.ctx.store.get_answer(answer_id)
    assert row.entry_id == "pytorch/no-grad-fn" and row.language == "ko" and row.ts == answer["ts"]
    stored = json.loads(row.answer_json)
    assert stored["run"]["error"]["type"] == "RuntimeError"
    leading = [d for d in stored["matches"][0]["dead_ends"] if d.get("leads_to")]
    assert leading and all(d.get("leads_to_title") for d in leading)  # where a dead end leads: a title, not an id
    final = json.dumps(verification["blocks"], ensure_ascii=False)
    assert "RuntimeError" in final and ("해결" in final or "fixed" in final)
    assert fake_slack.violations == []
    # The run is evidence, recorded once, under the asker.
    from sqlalchemy import func, select

    from bot.store.models import Verification

    with bot.ctx.store.session() as session:
        assert session.scalar(select(func.count()).select_from(Verification)) == 1
        run = session.scalars(select(Verification)).one()
    # Recorded on the verification path before the answer existed, then linked to it.
    assert (run.surface, run.answer_id, run.entry_id) == ("slack", answer_id, "pytorch/no-grad-fn") and run.asker


@pytest.mark.slow
def test_a_clean_snippet_says_it_ran_without_an_error(bot, fake_slack):
    sandbox_or_skip()
    mention(bot, fake_slack, "1700007010.000100",
            "<@UBOT01> is this right?\n```\nimport torch\nprint(torch.ones(2, 2).sum().item())\n```")
    settle(bot)
    [message] = [m for m in fake_slack.bot_messages("C0GENERAL") if m.get("thread_ts") == "1700007010.000100"]
    assert "It ran without an error on torch 2." in message["text"] and "(CPU)" in message["text"]
    assert fake_slack.violations == []


def test_a_fragment_is_not_run(bot, fake_slack):
    mention(bot, fake_slack, "1700007020.000100",
            "<@UBOT01> ```\nfor epoch in range(num_epochs):\n    train_one_epoch(model, loader, opt)\n```")
    settle(bot)
    [message] = [m for m in fake_slack.bot_messages("C0GENERAL") if m.get("thread_ts") == "1700007020.000100"]
    assert "can't run it" in message["text"] and "`num_epochs`" in message["text"]
    assert bot.ctx.store.lock_verification("x", None)  # nothing holds a lock
