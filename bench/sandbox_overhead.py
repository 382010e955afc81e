"""Sandbox overhead per run: the same interpreter running the same snippet bare
(a plain subprocess) against run_snippet (bubblewrap + cgroups + seccomp + harness,
setup and cleanup included).

    PYTHONPATH=$PWD python bench/sandbox_overhead.py [--runs N] [--json]

Bare and sandboxed runs alternate, so that load from other work on the machine
weighs on both alike. The overhead is the difference of the medians (p50) and of
the 95th percentiles (p95).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from bot.sandbox import Limits, run_snippet, sandbox_available

SNIPPETS = {
    "trivial": "print('hello')\n",
    "import torch": "import torch\nprint(torch.__version__)\n",
}


def percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, max(0, round(q * (len(values) - 1))))]


def bare(path: str, cwd: str) -> float:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, path], cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"bare run failed with exit {done.returncode}")
    return elapsed


def sandboxed(code: str) -> float:
    started = time.perf_counter()
    result = run_snippet(code, limits=Limits(wall_seconds=120))
    elapsed = time.perf_counter() - started
    if result.exit_reason != "ok":
        raise SystemExit(f"sandboxed run failed: {result.exit_reason}\n{result.output}")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="runs per snippet and mode (default 20)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    ok, why = sandbox_available()
    if not ok:
        print(f"sandbox unavailable: {why}", file=sys.stderr)
        return 1

    rows = []
    with tempfile.TemporaryDirectory() as work:
        for name, code in SNIPPETS.items():
            path = os.path.join(work, "snippet.py")
            with open(path, "w") as f:
                f.write(code)
            bare(path, work), sandboxed(code)  # warm the page cache and the default sandbox
            b, s = [], []
            for _ in range(args.runs):
                b.append(bare(path, work))
                s.append(sandboxed(code))
            rows.append({
                "snippet": name, "runs": args.runs,
                "bare_p50_ms": 1000 * statistics.median(b), "bare_p95_ms": 1000 * percentile(b, 0.95),
                "sandbox_p50_ms": 1000 * statistics.median(s), "sandbox_p95_ms": 1000 * percentile(s, 0.95),
            })
            rows[-1]["overhead_p50_ms"] = rows[-1]["sandbox_p50_ms"] - rows[-1]["bare_p50_ms"]
            rows[-1]["overhead_p95_ms"] = rows[-1]["sandbox_p95_ms"] - rows[-1]["bare_p95_ms"]

    load = os.getloadavg()[0]
    if args.json:
        print(json.dumps({"rows": rows, "load_1min": load, "cpus": os.cpu_count()}, indent=2))
        return 0
    print(f"{args.runs} runs each; {os.cpu_count()} CPUs, load average {load:.2f} at the end")
    head = ("snippet", "bare p50", "bare p95", "sandbox p50", "sandbox p95", "overhead p50", "overhead p95")
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join("---" for _ in head) + "|")
    for r in rows:
        cells = [r["snippet"]] + [f"{r[k]:.0f} ms" for k in ("bare_p50_ms", "bare_p95_ms", "sandbox_p50_ms",
                                                               "sandbox_p95_ms", "overhead_p50_ms", "overhead_p95_ms")]
        print("| " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
