"""Owed work (issue 29): every acknowledged Slack request is recorded in the store before
its ack and worked under a lease; a failed attempt is tried again, a request that fails for
good gets the apology. The store's side on SQLite and PostgreSQL, the bot's side with an
in-process bot against the fake Slack API. (The crash, deploy and outage tests, with real
`troubleshoot serve` processes, are in test_slack_durable.py.)"""

from __future__ import annotations

import json
import threading
import time
from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.exc import OperationalError

from bot.store import open_store
from bot.store.models import OwedWork, utcnow
from bot.store.owed import current_owner, work_owner

ERROR = "RuntimeError: Trying to backward through the graph a second time, but the buffers have already been freed"


def _record(store, holder="A", lease=30.0) -> int:
    return store.record_work(kind="event", content_type="application/json", body="{}", holder=holder,
                             lease_seconds=lease)


def test_a_lease_keeps_work_with_its_process_until_it_runs_out(store_url):
    store = open_store(store_url)
    held, free = _record(store, "A"), _record(store, None)
    assert store.due_work(10) == [free]                      # A's row is A's while its lease runs
    assert store.take_work(held, "B", 30) is None
    assert store.take_work(held, "A", 30).attempts == 1
    with store.session() as session:                         # A stops renewing (it died)...
        session.get(OwedWork, held).lease_until = utcnow() - timedelta(seconds=1)
        session.commit()
    assert store.due_work(10) == [held, free]                # ...and anyone may take it
    row = store.take_work(held, "B", 30)
    assert row is not None and row.attempts == 2 and row.lease_owner == "B"
    assert not store.finish_work(held, "A")                  # A no longer holds it
    assert store.finish_work(held, "B")
    assert store.take_work(held, "B", 30) is None            # done is done
    assert store.work_counts() == {"done": 1, "owed": 1}


def test_handed_back_work_waits_out_its_retry_time(store_url):
    store = open_store(store_url)
    work = _record(store, "A")
    assert store.take_work(work, "A", 30) is not None
    assert store.release_work([work], "A", retry_at=utcnow() + timedelta(seconds=60), error="down") == 1
    assert store.due_work(10) == [] and store.take_work(work, "B", 30) is None
    store.release_work([work], "B")                          # not B's to release: nothing changes
    assert store.due_work(10) == []
    assert store.take_work(work, "A", 30) is None            # not even its old holder before the time
    with store.session() as session:
        assert session.scalar(select(OwedWork.last_error).where(OwedWork.id == work)) == "down"


def test_a_replay_of_the_same_work_may_claim_its_own_dedupe_keys(store_url):
    store = open_store(store_url)
    token = current_owner.set(work_owner(7))
    try:
        assert store.claim("msg:1", "event:1")
        assert store.claim("msg:1", "event:1")               # the same work, a later attempt
        assert store.claim("msg:1", "cmsg:1")                # and a key it had not claimed yet
    finally:
        current_owner.reset(token)
    assert not store.claim("msg:1")                          # anyone else: a duplicate
    token = current_owner.set(work_owner(8))
    try:
        assert not store.claim("msg:1", "event:2")           # other work: a duplicate, nothing added
        assert not store.is_claimed("event:2")
    finally:
        current_owner.reset(token)


# -- the bot -------------------------------------------------------------------------------

def mention(ts: str) -> dict:
    return {"type": "app_mention", "user": "U0ASKER", "channel": "C0GENERAL", "ts": ts,
            "text": f"<@UBOT01> {ERROR}", "event_ts": ts}


def _work_rows(bot) -> list[OwedWork]:
    with bot.ctx.store.session() as session:
        return list(session.scalars(select(OwedWork).order_by(OwedWork.id)))


def _wait(predicate, timeout=60.0, what="condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


class FlakyStore:
    """An answer function whose store is unreachable the first `fails` times."""

    def __init__(self, fails: int):
        self.fails, self.calls = fails, 0
        self._lock = threading.Lock()

    def __call__(self, text, lang=None, top=3):
        from bot.slack.app import default_answer_fn

        with self._lock:
            self.calls += 1
            failing = self.calls <= self.fails
        if failing:
            raise OperationalError("SELECT 1", {}, Exception("connection refused"))
        return default_answer_fn(text, lang=lang, top=top)


def test_a_mention_is_recorded_before_its_ack_and_done_after_its_answer(bot_factory, fake_slack, monkeypatch):
    monkeypatch.setenv("TROUBLESHOOT_WORK_LEASE_SECONDS", "1")
    bot = bot_factory()
    hold = fake_slack.hold("chat.postMessage")               # the answer waits: the work is still owed
    assert bot.sender.event(mention("1700029000.000100")).status == 200
    [row] = _wait(lambda: _work_rows(bot), what="the owed row")
    assert row.kind == "event" and row.state == "owed" and row.lease_owner == bot.ctx.work_queue.holder
    assert '"1700029000.000100"' in row.body
    hold.set()
    _wait(lambda: _work_rows(bot)[0].state == "done", what="the work done")
    assert len(fake_slack.thread("C0GENERAL", "1700029000.000100")) == 1


def test_a_store_that_fails_twice_is_tried_again_and_answers_once(bot_factory, fake_slack, monkeypatch):
    monkeypatch.setenv("TROUBLESHOOT_WORK_LEASE_SECONDS", "1")
    flaky = FlakyStore(fails=2)
    bot = bot_factory(answer_fn=flaky)
    assert bot.sender.event(mention("1700029001.000100")).status == 200
    _wait(lambda: _work_rows(bot) and _work_rows(bot)[0].state == "done", what="the work done")
    fake_slack.quiet_for(1.0)
    [row] = _work_rows(bot)
    assert row.attempts == 3 and flaky.calls == 3
    [answer] = fake_slack.bot_messages("C0GENERAL")
    assert not answer["text"].startswith("Sorry") and '"answer-1"' in json.dumps(answer["blocks"])


def test_work_that_fails_for_good_gets_one_apology(bot_factory, fake_slack, monkeypatch):
    monkeypatch.setenv("TROUBLESHOOT_WORK_LEASE_SECONDS", "1")
    monkeypatch.setenv("TROUBLESHOOT_WORK_ATTEMPTS", "2")
    bot = bot_factory(answer_fn=FlakyStore(fails=100))
    assert bot.sender.event(mention("1700029002.000100")).status == 200
    _wait(lambda: _work_rows(bot) and _work_rows(bot)[0].state != "owed", what="the work finished")
    fake_slack.quiet_for(1.0)
    [apology] = fake_slack.thread("C0GENERAL", "1700029002.000100")
    assert apology["thread_ts"] == "1700029002.000100"
    assert apology["text"].startswith("Sorry, something went wrong on my side. Reference: E")
    [row] = _work_rows(bot)
    assert row.attempts == 2


def test_work_taken_while_stopping_is_left_for_the_next_process(bot_factory, fake_slack, monkeypatch):
    monkeypatch.setenv("TROUBLESHOOT_WORK_LEASE_SECONDS", "1")
    first = bot_factory()
    summary = first.ctx.work_queue.stop(0)
    assert summary["handed_back"] == 0
    assert first.sender.event(mention("1700029003.000100")).status == 200   # still acknowledged...
    [row] = _work_rows(first)
    assert row.state == "owed" and row.lease_owner is None                   # ...and recorded for another
    fake_slack.quiet_for(1.0)
    assert fake_slack.bot_messages("C0GENERAL") == []
    bot_factory()                                                            # the next process takes it
    fake_slack.wait_for(lambda: fake_slack.thread("C0GENERAL", "1700029003.000100"), what="the answer")
    _wait(lambda: _work_rows(first)[0].state == "done", what="the work done")
    fake_slack.quiet_for(1.0)
    assert len(fake_slack.thread("C0GENERAL", "1700029003.000100")) == 1
