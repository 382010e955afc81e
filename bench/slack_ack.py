"""How fast the Slack bot acknowledges and answers.

Starts the local fake Slack Web API (tests/slack/slack_fake_api.py) and the bot as
`troubleshoot serve --http` against it (SLACK_API_URL), on the project's knowledge
and index (built first if missing), then measures:

  - ack latency: time from sending a signed event to the bot's HTTP 200, for a burst
    of N app_mention events sent at once (one thread each);
  - mention to answer: time from sending an event to the fake receiving the threaded
    chat.postMessage, for the same burst and for mentions sent one at a time.

    PYTHONPATH=. python bench/slack_ack.py [--events 50] [--sequential 10] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests" / "slack"))

from slack_fake_api import FakeSlack  # noqa: E402
from slack_harness import BotProcess, SlackSender, bot_env  # noqa: E402

ERRORS = [
    "RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed).",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
    "23.65 GiB of which 1.02 GiB is free.",
    "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!",
    "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn",
    "RuntimeError: one of the variables needed for gradient computation has been modified by an inplace "
    "operation: [torch.FloatTensor [3]] is at version 1; expected version 0 instead.",
]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1))))
    return ordered[k]


def stats_ms(values: list[float]) -> dict:
    ms = [v * 1000 for v in values]
    return {"n": len(ms), "p50_ms": round(statistics.median(ms), 1), "p99_ms": round(percentile(ms, 99), 1),
            "max_ms": round(max(ms), 1)}


class Timer:
    """Send a mention and note when it was sent, when it was acked and when answered."""

    def __init__(self, fake: FakeSlack, sender: SlackSender):
        self.fake, self.sender = fake, sender
        self.sent: dict[str, float] = {}
        self.acked: dict[str, float] = {}
        self.status: dict[str, int] = {}

    def mention(self, ts: str, text: str) -> None:
        event = {"type": "app_mention", "user": "U0BENCH", "channel": "C0BENCH", "ts": ts, "event_ts": ts,
                 "text": f"<@UBOT01> {text}", "client_msg_id": f"bench-{ts}"}
        self.sent[ts] = time.monotonic()
        try:
            status = self.sender.event(event).status
        except OSError as exc:  # a refused or reset connection counts as a failed ack
            status = f"{type(exc).__name__}"
        self.acked[ts] = time.monotonic()
        self.status[ts] = status

    def answered_at(self) -> dict[str, float]:
        return {r.body.get("thread_ts"): r.at for r in self.fake.calls("chat.postMessage")
                if (r.reply or {}).get("ok")}

    def wait_answers(self, stamps: list[str], timeout: float = 600) -> dict[str, float]:
        self.fake.wait_for(lambda: all(ts in self.answered_at() for ts in stamps), timeout=timeout,
                           what=f"{len(stamps)} answers")
        return self.answered_at()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=50, help="events in the burst (default 50)")
    parser.add_argument("--sequential", type=int, default=10, help="mentions sent one at a time (default 10)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--log", help="keep the bot's log in this file")
    args = parser.parse_args()

    fake = FakeSlack().start()
    with tempfile.TemporaryDirectory() as tmp:
        env = bot_env(fake, Path(tmp))
        bot = BotProcess(env, Path(args.log) if args.log else Path(tmp) / "bot.log")
        try:
            started = time.monotonic()
            sender = SlackSender(bot.wait_listening(timeout=900))
            bot.wait_ready(timeout=900)
            ready_s = time.monotonic() - started
            timer = Timer(fake, sender)

            timer.mention("1800000000.000000", ERRORS[0])  # one warm-up question, not counted
            timer.wait_answers(["1800000000.000000"])

            sequential = []
            for i in range(args.sequential):
                ts = f"1800000001.{i:06d}"
                timer.mention(ts, ERRORS[i % len(ERRORS)])
                sequential.append(ts)
                timer.wait_answers([ts])

            burst = [f"1800000002.{i:06d}" for i in range(args.events)]
            gate = threading.Barrier(len(burst))

            def send(i: int, ts: str) -> None:
                gate.wait()
                timer.mention(ts, ERRORS[i % len(ERRORS)])

            threads = [threading.Thread(target=send, args=(i, ts)) for i, ts in enumerate(burst)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            answered = timer.wait_answers([ts for ts in burst + sequential if timer.status[ts] == 200])
        finally:
            bot.stop()
            fake.stop()

    result = {
        "startup_to_ready_s": round(ready_s, 1),
        "burst": {
            "events": args.events,
            "acked_200": sum(1 for ts in burst if timer.status[ts] == 200),
            "ack": stats_ms([timer.acked[ts] - timer.sent[ts] for ts in burst]),
            "mention_to_answer": stats_ms([answered[ts] - timer.sent[ts] for ts in burst if ts in answered]),
        },
        "sequential": {
            "ack": stats_ms([timer.acked[ts] - timer.sent[ts] for ts in sequential]),
            "mention_to_answer": stats_ms([answered[ts] - timer.sent[ts] for ts in sequential]),
        },
        "answers_posted": len(answered),
        "block_limit_violations": len(fake.violations),
    }
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        b, s = result["burst"], result["sequential"]
        print(f"bot ready after {result['startup_to_ready_s']} s (index and model loaded)")
        print(f"burst of {b['events']} signed events at once: {b['acked_200']} acked 200; "
              f"ack p50 {b['ack']['p50_ms']} ms, p99 {b['ack']['p99_ms']} ms, max {b['ack']['max_ms']} ms")
        print(f"  mention to answer posted: p50 {b['mention_to_answer']['p50_ms']} ms, "
              f"p99 {b['mention_to_answer']['p99_ms']} ms")
        print(f"one at a time ({s['ack']['n']}): ack p50 {s['ack']['p50_ms']} ms; mention to answer p50 "
              f"{s['mention_to_answer']['p50_ms']} ms, max {s['mention_to_answer']['max_ms']} ms")
        print(f"block limit violations: {result['block_limit_violations']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
