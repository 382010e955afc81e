"""Issue 26, item 1: threads are conversations, through the fake Slack Web API with
signed requests. A question about the error under it answers the thread's error; a
follow-up question in an answered thread is answered from the thread's entry (never the
same card again, no new answer id); a new error is a new question; thanks get nothing."""

from __future__ import annotations

import json

import pytest

from bot.kb.loader import current_knowledge

ERROR = "RuntimeError: Trying to backward through the graph a second time, but the buffers have already been freed"
TRACEBACK = ('Traceback (most recent call last):\n  File "train.py", line 12, in <module>\n    loss.backward()\n'
             + ERROR)
OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.65 GiB"
OTHER_ERROR = "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn"
CHANNEL = "C0GENERAL"


def settle(bot):
    assert bot.ctx.work_pool.wait_idle(60)


def text_of(message: dict) -> str:
    return json.dumps(message.get("blocks"), ensure_ascii=False) + (message.get("text") or "")


def in_thread(fake, thread_ts: str) -> list[dict]:
    return [m for m in fake.bot_messages(CHANNEL) if m.get("thread_ts") == thread_ts]


def ask(bot, fake, ts: str, error: str) -> dict:
    """A mention with an error at the top of the channel: the bot answers in its thread."""
    text = f"<@UBOT01> {error}"
    fake.add_message(CHANNEL, {"user": "U0ASKER", "ts": ts, "text": text})
    bot.sender.event({"type": "app_mention", "user": "U0ASKER", "channel": CHANNEL, "ts": ts, "text": text})
    settle(bot)
    [answer] = in_thread(fake, ts)
    return answer


def reply(bot, fake, thread_ts: str, ts: str, text: str, *, mention: bool = False) -> None:
    """A reply in the thread, as a plain message or mentioning the bot."""
    if mention:
        text = f"<@UBOT01> {text}"
    fake.add_message(CHANNEL, {"user": "U0ASKER", "ts": ts, "text": text, "thread_ts": thread_ts})
    event = {"type": "app_mention" if mention else "message", "user": "U0ASKER", "channel": CHANNEL, "ts": ts,
             "thread_ts": thread_ts, "text": text}
    if not mention:
        event["channel_type"] = "channel"
    bot.sender.event(event)
    settle(bot)


def has_buttons(message: dict) -> bool:
    return any(b["type"] == "actions" for b in message.get("blocks") or [])


@pytest.mark.parametrize("question, best_fix", [
    ("what is this error?", "Best fix"),
    ("이거 무슨 에러예요?", "가장 좋은 해결책"),
    ("这个 RuntimeError 是什么错误？", "最佳修复"),
])
def test_a_question_about_the_error_under_it_answers_the_threads_error(bot, fake_slack, question, best_fix):
    parent = fake_slack.add_message(CHANNEL, {"user": "U0OTHER", "text": f"```{TRACEBACK}```"})
    reply(bot, fake_slack, parent["ts"], fake_slack.next_ts(), question, mention=True)
    [answer] = in_thread(fake_slack, parent["ts"])
    assert "pytorch/backward-twice" in text_of(answer) and best_fix in text_of(answer)
    assert fake_slack.violations == []


@pytest.mark.parametrize("error, question, said, lang_word", [
    (ERROR, "does this also happen when I train a GAN?", "fake.detach()", "From "),
    (OOM, "그럼 batch size를 줄이면 되나요?", "마이크로배치", "항목의 내용"),
    (OOM, "混合精度可以吗？", "torch.autocast", "来自"),
])
def test_a_follow_up_is_answered_from_the_threads_entry_in_its_language(bot, fake_slack, error, question, said,
                                                                        lang_word):
    thread = fake_slack.next_ts()
    first = ask(bot, fake_slack, thread, error)
    answered = bot.ctx.store.answered_in_thread(CHANNEL, thread)
    reply(bot, fake_slack, thread, fake_slack.next_ts(), question)
    answers = in_thread(fake_slack, thread)
    assert len(answers) == 2
    follow_up = answers[1]
    assert said in text_of(follow_up) and lang_word in text_of(follow_up)
    assert follow_up["blocks"] != first["blocks"] and not has_buttons(follow_up)  # not the answer card again
    assert bot.ctx.store.answered_in_thread(CHANNEL, thread).id == answered.id  # no new answer id
    assert fake_slack.violations == []


@pytest.mark.parametrize("question, not_said", [
    ("does this also happen on Windows?", "does not say"),
    ("그럼 batch size를 줄이면 되나요?", "항목에는 그 내용이 없습니다"),
])
def test_a_follow_up_the_entry_does_not_cover_says_so_and_what_it_does_say(bot, fake_slack, question, not_said):
    thread = fake_slack.next_ts()
    ask(bot, fake_slack, thread, ERROR)  # backward through the graph twice: nothing about Windows or batch size
    reply(bot, fake_slack, thread, fake_slack.next_ts(), question, mention=True)
    answers = in_thread(fake_slack, thread)
    assert len(answers) == 2
    follow_up = answers[1]
    assert not_said in text_of(follow_up) and not has_buttons(follow_up)
    entry = current_knowledge().resolve("pytorch/backward-twice")
    lang = "ko" if "항목" in not_said else "en"
    assert entry is not None
    assert entry.workarounds[0].title.get_text(lang) in text_of(follow_up)  # what the entry does say


def test_a_follow_up_with_a_new_error_is_a_new_question(bot, fake_slack):
    thread = fake_slack.next_ts()
    ask(bot, fake_slack, thread, ERROR)
    first = bot.ctx.store.answered_in_thread(CHANNEL, thread)
    reply(bot, fake_slack, thread, fake_slack.next_ts(), f"now I get this:\n{OTHER_ERROR}")
    second = bot.ctx.store.answered_in_thread(CHANNEL, thread)
    assert second.id != first.id and second.entry_id == "pytorch/no-grad-fn"
    assert has_buttons(in_thread(fake_slack, thread)[1])  # a full answer card, with its own id


@pytest.mark.parametrize("thanks", ["thanks!", "고마워요", "谢谢"])
def test_thanks_in_an_answered_thread_get_nothing(bot, fake_slack, thanks):
    thread = fake_slack.next_ts()
    ask(bot, fake_slack, thread, ERROR)
    reply(bot, fake_slack, thread, fake_slack.next_ts(), thanks)
    reply(bot, fake_slack, thread, fake_slack.next_ts(), thanks, mention=True)
    assert len(in_thread(fake_slack, thread)) == 1
