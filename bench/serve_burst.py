"""Serving under a burst, a crash and a deploy (issue 29).

Runs `troubleshoot serve --http` from a checkout (--repo: this one, or another, e.g. a
checkout of main to measure "before") against the local fake Slack Web API
(tests/slack/slack_fake_api.py), on this checkout's knowledge and index, and measures:

  ack      a burst of N signed app_mention events sent at once (one thread each): the
           time to each HTTP 200 (p50/p99), and whether every question got one answer;
  sigkill  a burst of N, the bot SIGKILLed as soon as all are acknowledged, then started
           again: questions acked vs answered once (and more than once) in the end;
  sigterm  the same with SIGTERM: the time from SIGTERM to the process's exit with work
           in flight, then acked vs answered after the restart.

    PYTHONPATH=. python bench/serve_burst.py [--repo PATH] [--events 50] [--json]
"""

from __future__ import annotations

import argparse
import json
import signal
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(HERE / "tests" / "slack"))

import slack_harness  # noqa: E402
from slack_fake_api import FakeSlack  # noqa: E402
from slack_harness import BotProcess, SlackSender, bot_env  # noqa: E402

# the same kinds of pasted errors as the ack benchmark (bench/slack_ack.py)
sys.path.insert(0, str(HERE / "bench"))
from slack_ack import ERRORS  # noqa: E402

CHANNEL = "C0BENCH"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1))))]


def burst(sender: SlackSender, stamps: list[str]) -> dict[str, tuple[int | str, float]]:
    """ts -> (HTTP status, seconds to the ack), all sent at once."""
    out: dict[str, tuple[int | str, float]] = {}
    gate = threading.Barrier(len(stamps))

    def send(i: int, ts: str) -> None:
        event = {"type": "app_mention", "user": "U0BENCH", "channel": CHANNEL, "ts": ts, "event_ts": ts,
                 "text": f"<@UBOT01> {ERRORS[i % len(ERRORS)]}", "client_msg_id": f"bench-{ts}"}
        gate.wait()
        start = time.monotonic()
        try:
            status: int | str = sender.event(event).status
        except OSError as exc:
            status = type(exc).__name__
        out[ts] = (status, time.monotonic() - start)

    threads = [threading.Thread(target=send, args=(i, ts)) for i, ts in enumerate(stamps)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


def replies(fake: FakeSlack, ts: str) -> list[dict]:
    return [m for m in fake.thread(CHANNEL, ts) if m.get("bot_id") == fake.bot_id and m.get("ts") != ts]


def is_answer(message: dict) -> bool:
    return '"answer-' in json.dumps(message.get("blocks") or [])


def count(fake: FakeSlack, acked: list[str]) -> dict[str, int]:
    answers = {ts: sum(1 for m in replies(fake, ts) if is_answer(m)) for ts in acked}
    return {"acked": len(acked), "answered": sum(1 for n in answers.values() if n >= 1),
            "answered_once": sum(1 for n in answers.values() if n == 1),
            "answered_twice_or_more": sum(1 for n in answers.values() if n > 1),
            "apologies": sum(1 for ts in acked for m in replies(fake, ts) if m.get("text", "").startswith("Sorry"))}


def settle(fake: FakeSlack, acked: list[str], timeout: float) -> None:
    """Until every acked question is answered, or `timeout` passes."""
    try:
        fake.wait_for(lambda: count(fake, acked)["answered"] == len(acked), timeout=timeout, what="answers")
    except AssertionError:
        pass
    fake.quiet_for(2.0)


class Run:
    def __init__(self, fake: FakeSlack, tmp: Path, extra: dict, workers: int | None = None):
        self.fake, self.tmp, self.extra = fake, tmp, extra
        self.args = ["--http", "--port", "0", "--host", "127.0.0.1"] + (["--workers", str(workers)] if workers else [])
        self.n = 0

    def start(self) -> tuple[BotProcess, SlackSender]:
        self.n += 1
        env = bot_env(self.fake, self.tmp, extra=self.extra)
        bot = BotProcess(env, self.tmp / f"bot{self.n}.log", args=self.args)
        sender = SlackSender(bot.wait_listening(timeout=900))
        bot.wait_ready(timeout=900)
        return bot, sender


def measure_ack(run: Run, events: int, base: int) -> dict:
    bot, sender = run.start()
    try:
        warm = burst(sender, [f"{base}.999999"])  # one question first, not counted: the model is warm
        settle(run.fake, list(warm), 120)
        sent = burst(sender, [f"{base}.{i:06d}" for i in range(events)])
        acked = [ts for ts, (status, _) in sent.items() if status == 200]
        settle(run.fake, acked, 600)
    finally:
        bot.stop()
    ms = [seconds * 1000 for _, seconds in sent.values()]
    return {"events": events, "ack_p50_ms": round(statistics.median(ms), 1), "ack_p99_ms": round(percentile(ms, 99), 1),
            "ack_max_ms": round(max(ms), 1), **count(run.fake, acked)}


def measure_stop(run: Run, events: int, base: int, how: signal.Signals, wait_after: float) -> dict:
    bot, sender = run.start()
    stopped_s = None
    try:
        sent = burst(sender, [f"{base}.{i:06d}" for i in range(events)])
        acked = [ts for ts, (status, _) in sent.items() if status == 200]
        # signalled as soon as the burst is acknowledged: the work is in flight
        at_stop = count(run.fake, acked)["answered"]
        signalled = time.monotonic()
        bot.proc.send_signal(how)
        bot.proc.wait(120)
        stopped_s = time.monotonic() - signalled
        before_restart = count(run.fake, acked)["answered"]
    finally:
        bot.stop()
    bot, _ = run.start()
    try:
        settle(run.fake, acked, wait_after)
    finally:
        bot.stop()
    result = {"events": events, "answered_when_signalled": at_stop, "answered_before_restart": before_restart,
              **count(run.fake, acked)}
    if how == signal.SIGTERM:
        result["sigterm_to_exit_s"] = round(stopped_s, 2)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repo", default=str(HERE), help="the checkout whose bot runs (default: this one)")
    parser.add_argument("--events", type=int, default=50, help="questions in each burst (default 50)")
    parser.add_argument("--only", choices=["ack", "sigkill", "sigterm"], action="append",
                        help="run only these measurements (repeatable)")
    parser.add_argument("--stop-seconds", type=float, help="TROUBLESHOOT_STOP_SECONDS of the bot (default its own)")
    parser.add_argument("--workers", type=int, help="serve --workers N (a checkout without it: leave out)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    slack_harness.REPO = Path(args.repo).resolve()  # where BotProcess runs `python -m bot.cli serve`
    extra = {"TROUBLESHOOT_KNOWLEDGE_DIR": str(HERE / "knowledge"), "TROUBLESHOOT_INDEX_DIR": str(HERE / "index"),
             # a short lease, so that the restart after a SIGKILL takes the dead process's work soon
             "TROUBLESHOOT_WORK_LEASE_SECONDS": "5"}
    if args.stop_seconds is not None:
        extra["TROUBLESHOOT_STOP_SECONDS"] = str(args.stop_seconds)
    only = set(args.only or ["ack", "sigkill", "sigterm"])
    result: dict = {"repo": str(slack_harness.REPO)}
    fake = FakeSlack().start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            run = Run(fake, Path(tmp), extra, args.workers)
            if "ack" in only:
                result["ack"] = measure_ack(run, args.events, 1800010000)
            if "sigkill" in only:
                result["sigkill"] = measure_stop(run, args.events, 1800020000, signal.SIGKILL, 90)
            if "sigterm" in only:
                result["sigterm"] = measure_stop(run, args.events, 1800030000, signal.SIGTERM, 90)
    finally:
        fake.stop()
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"bot from {result['repo']}")
    if "ack" in result:
        a = result["ack"]
        print(f"burst of {a['events']} at once: ack p50 {a['ack_p50_ms']} ms, p99 {a['ack_p99_ms']} ms, "
              f"max {a['ack_max_ms']} ms; {a['acked']} acked, {a['answered_once']} answered once, "
              f"{a['answered_twice_or_more']} more than once")
    for name in ("sigkill", "sigterm"):
        if name in result:
            r = result[name]
            extra_s = f", SIGTERM to exit {r['sigterm_to_exit_s']} s" if "sigterm_to_exit_s" in r else ""
            print(f"{name.upper()} mid-burst then restart: {r['acked']} acked, {r['answered_when_signalled']} "
                  f"answered when signalled, {r['answered_before_restart']} before the restart, "
                  f"{r['answered_once']} answered once in the end, {r['answered_twice_or_more']} more than once, "
                  f"{r['acked'] - r['answered']} never{extra_s}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
