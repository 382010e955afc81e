"""One job at a time, honestly (issue 26, item 5), against the fake Slack API: a second
code-only question while the asker's first one runs is queued, said so in the asker's
language, and run when the first ends, in the order asked; beyond the queue's length
one is refused, saying it was not queued. The executor is a stand-in whose first run
waits for the test to let it finish."""

from __future__ import annotations

import threading
import time

import pytest

from bot.verify.report import ExitReason, VerifyReport

CHANNEL = "C0GENERAL"


class GatedExecutor:
    """Runs nothing: reports a clean run; the first run ends only when `gate` is set."""

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.started: list[str] = []
        self.running = 0
        self.most_at_once = 0
        self._lock = threading.Lock()

    def verify(self, code: str, progress=None, *, lang: str = "en", record=None, **_kw) -> VerifyReport:
        with self._lock:
            self.started.append(code.strip())
            self.running += 1
            self.most_at_once = max(self.most_at_once, self.running)
            first = len(self.started) == 1
        try:
            if first:
                assert self.gate.wait(120)
            return VerifyReport(reproduced=False, exit_reason=ExitReason.OK, output="ok\n", error=None,
                                environment={"torch": "2.3.1+cpu", "cuda_available": False, "python": "3.11.9"})
        finally:
            with self._lock:
                self.running -= 1


def snippet(n: int) -> str:
    return f"import torch\nprint(torch.ones({n}).sum().item())"


def ask(bot, fake, ts: str, prose: str, n: int) -> None:
    text = f"<@UBOT01> {prose}\n```\n{snippet(n)}\n```"
    fake.add_message(CHANNEL, {"user": "U0ASKER", "ts": ts, "text": text})
    bot.sender.event({"type": "app_mention", "user": "U0ASKER", "channel": CHANNEL, "ts": ts, "text": text})


def reply(fake, ts: str) -> dict | None:
    """The bot's one message in the question's thread, as it is now (updates applied)."""
    messages = [m for m in fake.bot_messages(CHANNEL) if m.get("thread_ts") == ts]
    assert len(messages) <= 1
    return messages[0] if messages else None


def wait_for(condition, what: str) -> None:
    deadline = time.monotonic() + 120  # a liveness bound, not a measurement
    while not condition():
        assert time.monotonic() < deadline, f"never happened: {what}"
        time.sleep(0.05)


@pytest.fixture
def gated(bot_factory, monkeypatch):
    from bot.slack.services import code_question

    monkeypatch.setattr(code_question, "POLL_SECONDS", 0.05)
    executor = GatedExecutor()
    yield bot_factory(executor=executor), executor
    executor.gate.set()  # a failed test must not leave the first run waiting


def test_a_second_code_question_is_queued_and_runs_when_the_first_ends(gated, fake_slack):
    bot, executor = gated
    ask(bot, fake_slack, "1700009000.000100", "is this right?", 1)
    wait_for(lambda: executor.started, "the first run starts")
    ask(bot, fake_slack, "1700009001.000100", "이 코드도 확인해 주세요", 2)
    wait_for(lambda: reply(fake_slack, "1700009001.000100"), "the second question is answered at once")
    queued = reply(fake_slack, "1700009001.000100")
    assert "대기열에 넣었고" in queued["text"]  # queued, said in Korean
    assert executor.started == [snippet(1)]  # not run while the first runs

    executor.gate.set()
    wait_for(lambda: "ran without an error" in (reply(fake_slack, "1700009000.000100") or {}).get("text", ""),
             "the first answer")
    wait_for(lambda: "torch 2.3.1" in reply(fake_slack, "1700009001.000100")["text"], "the queued question's answer")
    assert executor.started == [snippet(1), snippet(2)] and executor.most_at_once == 1
    # The queued message became the answer: the question kept its one message, no second post.
    assert "대기열" not in reply(fake_slack, "1700009001.000100")["text"]
    assert bot.ctx.store.lock_verification("x", None)
    assert fake_slack.violations == []


def test_beyond_the_queue_a_question_is_refused_saying_so_and_the_rest_run_in_order(gated, fake_slack):
    from bot.slack.services.code_question import MAX_WAITING

    bot, executor = gated
    ask(bot, fake_slack, "1700009100.000100", "is this right?", 1)
    wait_for(lambda: executor.started, "the first run starts")
    waiting = [f"1700009{101 + i}.000100" for i in range(MAX_WAITING)]
    for i, ts in enumerate(waiting):
        ask(bot, fake_slack, ts, "and this one?", 2 + i)
        wait_for(lambda ts=ts: reply(fake_slack, ts), "queued")
        assert "is queued and runs as soon as it ends" in reply(fake_slack, ts)["text"]
    ask(bot, fake_slack, "1700009200.000100", "这段代码呢？", 99)
    wait_for(lambda: reply(fake_slack, "1700009200.000100"), "the refusal")
    refused = reply(fake_slack, "1700009200.000100")["text"]
    assert f"已有 {MAX_WAITING} 段代码在排队" in refused and "没有加入队列" in refused  # refused, said in Chinese
    assert executor.started == [snippet(1)]

    executor.gate.set()
    wait_for(lambda: len(executor.started) == 1 + MAX_WAITING
             and all("torch 2.3.1" in reply(fake_slack, ts)["text"] for ts in waiting), "every queued question ran")
    assert executor.started == [snippet(n) for n in range(1, 2 + MAX_WAITING)]  # in the order asked
    assert executor.most_at_once == 1 and snippet(99) not in executor.started
    assert fake_slack.violations == []
