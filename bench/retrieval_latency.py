"""Warm `ask` latency in one process, cold start time, peak memory.

    PYTHONPATH=. python bench/retrieval_latency.py [--rounds 3]

Warm: one process, the engine loaded once, then `bot.answer.answer(text)` (what the
Slack bot calls) on every eval/dev line, `--rounds` times; p50/p95/max in ms.
Cold: `python -m bot.cli ask TEXT --json` as a fresh process with the index already
built (wall time, and the child's peak RSS). Pinned to two cores. The machine's load
average is printed too: other jobs on a shared box inflate every number here.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

COLD_PROBE = """
import resource, sys, time
t0 = time.perf_counter()
from bot.cli import main
code = main(["ask", sys.argv[1], "--json"])
took = time.perf_counter() - t0
print(json.dumps({"in_process_s": took, "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}),
      file=sys.stderr)
"""


def percentile(values, q):
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100
    lo = int(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def texts_of(path: Path) -> list[str]:
    return [json.loads(line)["text"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cold-runs", type=int, default=3)
    args = parser.parse_args()
    try:
        os.sched_setaffinity(0, set(sorted(os.sched_getaffinity(0))[:2]))
    except (AttributeError, OSError):
        pass
    print(f"cores: {sorted(os.sched_getaffinity(0))}, load average before: {os.getloadavg()}")

    sets = {name: texts_of(REPO / "eval" / "dev" / f"{name}.jsonl") for name in ("pasted", "questions")}

    t0 = time.perf_counter()
    from bot.answer import answer
    from bot.retrieval.engine import get_engine

    t_import = time.perf_counter() - t0  # the default model needs no sentence-transformers (bot/embed/direct.py)
    t1 = time.perf_counter()
    engine = get_engine()
    t_engine = time.perf_counter() - t1
    t2 = time.perf_counter()
    answer("RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB")
    t_first = time.perf_counter() - t2
    print(f"in-process start: import bot.answer {t_import:.2f} s, load engine (kb + index + model) "
          f"{t_engine:.2f} s, first answer {t_first * 1000:.0f} ms; {len(engine.index.chunks)} chunks")

    for texts in sets.values():  # warm every path once
        for text in texts:
            answer(text)
    all_times = []
    for name, texts in sets.items():
        times = []
        for _ in range(args.rounds):
            for text in texts:
                start = time.perf_counter()
                answer(text)
                times.append((time.perf_counter() - start) * 1000)
        all_times += times
        print(f"warm answer() on dev/{name} ({len(texts)} lines x {args.rounds}): p50 {percentile(times, 50):.1f} ms, "
              f"p95 {percentile(times, 95):.1f} ms, max {max(times):.1f} ms")
    print(f"warm answer() overall: p50 {percentile(all_times, 50):.1f} ms, p95 {percentile(all_times, 95):.1f} ms")
    print(f"warm process peak RSS: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")

    env = dict(os.environ, PYTHONPATH=str(REPO))
    text = sets["pasted"][0]
    for i in range(args.cold_runs):
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, "-c", "import json\n" + COLD_PROBE, text], capture_output=True,
                              env=env, cwd=REPO, timeout=300)
        wall = time.perf_counter() - start
        probe = json.loads(proc.stderr.decode().strip().splitlines()[-1])
        print(f"cold `ask` run {i + 1}: {wall:.2f} s wall (exit {proc.returncode}); in-process "
              f"{probe['in_process_s']:.2f} s; peak RSS {probe['peak_rss_mb']:.0f} MB")
    print(f"load average after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
