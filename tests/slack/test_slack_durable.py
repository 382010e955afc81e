"""No acknowledged question is lost (issue 29): real `troubleshoot serve --http` processes
against the fake Slack API, killed (SIGKILL, as an OOM kill or a lost node does) or stopped
(SIGTERM, as a deploy does) in the middle of a burst, a replica dying while it holds
work, and the database going away for 10 s. After each, every question Slack got a 200
for has exactly one answer in its thread.

To make "in the middle" sure rather than likely, the fake holds chat.postMessage before
the kill: answers being posted at that moment reach Slack only after the process is
gone (posted, but the process never learned it), which is the hardest case for a replay.
"""

from __future__ import annotations

import json
import signal
import socket
import threading
import time
import uuid

import pytest
from sqlalchemy import create_engine, text

from slack_harness import BotProcess, SlackSender, bot_env, http_get

ERROR = ("RuntimeError: Trying to backward through the graph a second time, but the buffers have "
         "already been freed. Specify retain_graph=True when calling backward the first time.")
CHANNEL = "C0GENERAL"


def mention(ts: str) -> dict:
    return {"type": "app_mention", "user": "U0ASKER", "channel": CHANNEL, "ts": ts, "event_ts": ts,
            "text": f"<@UBOT01> {ERROR}", "client_msg_id": f"cm-{ts}"}


def burst(sender: SlackSender, stamps: list[str], retry_num: int | None = None) -> dict[str, int]:
    """Send a mention per ts all at once; ts -> the HTTP status Slack got."""
    statuses: dict[str, int] = {}

    def send(ts):
        try:
            statuses[ts] = sender.event(mention(ts), retry_num=retry_num).status
        except OSError:
            statuses[ts] = 0

    threads = [threading.Thread(target=send, args=(ts,)) for ts in stamps]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return statuses


def stamps(base: int, n: int) -> list[str]:
    return [f"{base}.{i:06d}" for i in range(1, n + 1)]


def bot_replies(fake, ts: str) -> list[dict]:
    return [m for m in fake.thread(CHANNEL, ts) if m.get("bot_id") == fake.bot_id and m.get("ts") != ts]


def is_answer(message: dict) -> bool:
    return '"answer-' in json.dumps(message.get("blocks") or [])


def answered(fake, acked: list[str]) -> int:
    return sum(1 for ts in acked if any(is_answer(m) for m in bot_replies(fake, ts)))


def assert_each_answered_once(fake, acked: list[str], timeout: float = 240.0) -> None:
    fake.wait_for(lambda: answered(fake, acked) == len(acked), timeout=timeout,
                  what=f"answers to all {len(acked)} acknowledged questions")
    fake.quiet_for(3.0)
    wrong = {ts: [m.get("text", "")[:60] for m in bot_replies(fake, ts)] for ts in acked
             if len(bot_replies(fake, ts)) != 1 or not is_answer(bot_replies(fake, ts)[0])}
    assert wrong == {}, f"questions without exactly one answer: {wrong}"
    assert fake.violations == []


def kill_mid_burst(fake, bot: BotProcess, acked: list[str]) -> int:
    """Wait for the first answers, hold the rest on their way to Slack, SIGKILL, then let
    the held posts through. Returns how many were answered when it died."""
    fake.wait_for(lambda: answered(fake, acked) >= 2, timeout=120, what="the first answers")
    hold = fake.hold("chat.postMessage")
    time.sleep(0.3)
    done = answered(fake, acked)
    bot.proc.send_signal(signal.SIGKILL)
    bot.proc.wait(10)
    hold.set()
    return done


@pytest.mark.slow
def test_sigkill_mid_burst_then_restart_answers_every_acked_question_once(fake_slack, answer_index, tmp_path):
    env = bot_env(fake_slack, tmp_path, index_dir=answer_index, extra={"TROUBLESHOOT_WORK_LEASE_SECONDS": "2"})
    bot = BotProcess(env, tmp_path / "bot1.log")
    try:
        sender = SlackSender(bot.wait_listening())
        bot.wait_ready()
        statuses = burst(sender, stamps(1700031000, 30))
        acked = [ts for ts, status in statuses.items() if status == 200]
        assert len(acked) == 30
        done = kill_mid_burst(fake_slack, bot, acked)
        assert done < len(acked), "the kill came after the burst was answered: nothing was tested"
    finally:
        bot.stop()
    restarted = BotProcess(env, tmp_path / "bot2.log")
    try:
        restarted.wait_listening()
        assert_each_answered_once(fake_slack, acked)
    finally:
        assert restarted.stop() == 0
    assert "picking up owed work" in restarted.logs()


@pytest.mark.slow
def test_sigterm_mid_burst_hands_the_rest_back_and_the_next_start_answers_it(fake_slack, answer_index, tmp_path):
    env = bot_env(fake_slack, tmp_path, index_dir=answer_index,
                  extra={"TROUBLESHOOT_STOP_SECONDS": "1", "TROUBLESHOOT_WORK_LEASE_SECONDS": "30"})
    bot = BotProcess(env, tmp_path / "bot1.log")
    try:
        sender = SlackSender(bot.wait_listening())
        bot.wait_ready()
        acked = [ts for ts, status in burst(sender, stamps(1700032000, 30)).items() if status == 200]
        assert len(acked) == 30
        fake_slack.wait_for(lambda: answered(fake_slack, acked) >= 2, timeout=120, what="the first answers")
        bot.proc.send_signal(signal.SIGTERM)
        assert bot.proc.wait(30) == 0
    finally:
        bot.stop()
    log = bot.logs()
    assert "handed back" in log
    # A lease of 30 s: only work handed back (not work whose lease ran out) is answered soon.
    restarted = BotProcess(env, tmp_path / "bot2.log")
    try:
        restarted.wait_listening()
        assert_each_answered_once(fake_slack, acked, timeout=25)
    finally:
        assert restarted.stop() == 0


@pytest.mark.slow
def test_a_replica_dying_with_work_leased_leaves_it_to_the_other(fake_slack, answer_index, tmp_path):
    env = bot_env(fake_slack, tmp_path, index_dir=answer_index, extra={"TROUBLESHOOT_WORK_LEASE_SECONDS": "2"})
    dying, other = BotProcess(env, tmp_path / "a.log"), BotProcess(env, tmp_path / "b.log")
    try:
        sender = SlackSender(dying.wait_listening())
        other.wait_listening()
        dying.wait_ready()
        other.wait_ready()
        acked = [ts for ts, status in burst(sender, stamps(1700033000, 20)).items() if status == 200]
        assert len(acked) == 20
        kill_mid_burst(fake_slack, dying, acked)
        assert_each_answered_once(fake_slack, acked)
        assert "picking up owed work" in other.logs()
    finally:
        dying.stop()
        assert other.stop() == 0


class TcpProxy:
    """A TCP relay to the database that can be switched off (every connection cut, the
    port refusing) and on again on the same port: the database "going away"."""

    def __init__(self, target: tuple[str, int]):
        self.target = target
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self._conns: list[socket.socket] = []
        self._lock = threading.Lock()
        self._up = True
        threading.Thread(target=self._accept, args=(self._listener,), daemon=True).start()

    def _accept(self, listener):
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(self.target)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._conns += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(src, dst):
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def down(self):
        self._listener.close()
        with self._lock:
            for conn in self._conns:
                try:
                    conn.shutdown(socket.SHUT_RDWR)
                    conn.close()
                except OSError:
                    pass
            self._conns.clear()

    def up(self):
        self._listener = socket.create_server(("127.0.0.1", self.port))
        threading.Thread(target=self._accept, args=(self._listener,), daemon=True).start()

    def close(self):
        self.down()


@pytest.fixture
def pg_database(pg_admin_url):
    admin_url = pg_admin_url.replace("postgresql://", "postgresql+psycopg://", 1)
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    name = f"durable_test_{uuid.uuid4().hex[:10]}"
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    yield admin.url, name
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE "{name}" WITH (FORCE)'))
    admin.dispose()


@pytest.mark.slow
def test_the_database_going_away_for_10_s_mid_burst_loses_no_acked_question(fake_slack, answer_index, tmp_path,
                                                                            pg_database):
    admin, name = pg_database
    proxy = TcpProxy((admin.host or "127.0.0.1", admin.port or 5432))
    url = admin.set(port=proxy.port, database=name).render_as_string(hide_password=False)
    env = bot_env(fake_slack, tmp_path, index_dir=answer_index, database_url=url, extra={
        "TROUBLESHOOT_WORK_LEASE_SECONDS": "3", "TROUBLESHOOT_WORK_ATTEMPTS": "10",
        "TROUBLESHOOT_DB_TIMEOUT_SECONDS": "1", "TROUBLESHOOT_DB_STATEMENT_SECONDS": "3",
        "TROUBLESHOOT_SERVICE_BACKOFF_SECONDS": "1"})
    bot = BotProcess(env, tmp_path / "bot.log")
    try:
        sender = SlackSender(bot.wait_listening())
        bot.wait_ready()
        first = burst(sender, stamps(1700034000, 20))
        assert set(first.values()) == {200}
        fake_slack.wait_for(lambda: answered(fake_slack, list(first)) >= 2, timeout=120, what="the first answers")
        proxy.down()
        went = time.monotonic()
        during = burst(sender, stamps(1700034100, 10))       # Slack gets 503s: nothing is acked unrecorded
        refused = [ts for ts, status in during.items() if status != 200]
        time.sleep(max(0.0, 10.0 - (time.monotonic() - went)))
        proxy.up()
        # Slack retries what it got no 200 for (X-Slack-Retry-Num) a minute later; here, as
        # soon as the bot says its store answers again.
        deadline = time.monotonic() + 60
        while http_get(bot.base_url + "/health").status != 200 and time.monotonic() < deadline:
            time.sleep(0.5)
        retried = burst(sender, refused, retry_num=1) if refused else {}
        acked = list(first) + [ts for ts, status in during.items() if status == 200] + \
            [ts for ts, status in retried.items() if status == 200]
        assert len(acked) == 30
        assert_each_answered_once(fake_slack, acked)
        assert bot.proc.poll() is None
    finally:
        bot.stop()
        proxy.close()


@pytest.mark.slow
def test_socket_mode_records_before_the_ack_and_closes_cleanly_on_sigterm(fake_slack, answer_index, tmp_path):
    from slack_harness import event_body

    env = bot_env(fake_slack, tmp_path, index_dir=answer_index, extra={"SLACK_APP_TOKEN": fake_slack.app_token})
    bot = BotProcess(env, tmp_path / "bot.log", args=[])
    try:
        fake_slack.wait_for(fake_slack.socket_connected, timeout=120, what="the Socket Mode connection")
        envelope_id = fake_slack.send_socket_envelope(event_body(mention("1700035000.000100")))
        fake_slack.wait_for(lambda: any(a.get("envelope_id") == envelope_id for a in fake_slack.socket_acks),
                            what="the ack over the socket")
        assert_each_answered_once(fake_slack, ["1700035000.000100"], timeout=120)
        bot.proc.send_signal(signal.SIGTERM)
        assert bot.proc.wait(30) == 0
    finally:
        bot.stop()
    assert fake_slack.calls("socket_close"), "the bot left without closing its WebSocket"
    assert "stopped: " in bot.logs()
    from bot.store import open_store

    assert open_store(f"sqlite:///{tmp_path / 'bot.db'}").work_counts() == {"done": 1}
