"""Sandbox overhead per run: the same interpreter running the same snippet bare
(a plain subprocess) against run_snippet (bubblewrap + cgroups + seccomp + harness,
setup and cleanup included).

    PYTHONPATH=$PWD python bench/sandbox_overhead.py [--runs N] [--torch-runs N] [--json]

Two bare baselines:
- "bare": `python snippet.py`, ending the usual way;
- "bare+_exit": the same snippet followed by os._exit(0). The sandbox's harness ends
  that way once it has written the result, skipping interpreter teardown (with torch
  loaded that alone takes most of a second), so this is the like-for-like baseline,
  and the overhead is measured against it.
Bare runs get a session of their own, as the sandbox does (bwrap --new-session): with
the kernel's autogroup scheduling a new session gets its own share of a busy CPU.
The three kinds of run alternate, so that load from other work weighs on all alike.
"overhead" is the difference of the p50s and of the p95s; "paired" is the median of
the differences of each sandboxed run and the baseline run just before it.
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
FAST_EXIT = "import os, sys\nsys.stdout.flush()\nos._exit(0)\n"


def percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, max(0, round(q * (len(values) - 1))))]


def bare(path: str, cwd: str) -> float:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, path], cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                          start_new_session=True)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"bare run of {path} failed with exit {done.returncode}")
    return elapsed


def sandboxed(code: str) -> float:
    started = time.perf_counter()
    result = run_snippet(code, limits=Limits(wall_seconds=120))
    elapsed = time.perf_counter() - started
    if result.exit_reason != "ok":
        raise SystemExit(f"sandboxed run failed: {result.exit_reason}\n{result.output}")
    return elapsed


def ms(values: list[float], q: float | None = None) -> float:
    return 1000 * (statistics.median(values) if q is None else percentile(values, q))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30, help="runs of the trivial snippet per kind (default 30)")
    parser.add_argument("--torch-runs", type=int, default=10, help="runs of the torch snippet per kind (default 10)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    ok, why = sandbox_available()
    if not ok:
        print(f"sandbox unavailable: {why}", file=sys.stderr)
        return 1

    rows = []
    with tempfile.TemporaryDirectory() as work:
        for name, code in SNIPPETS.items():
            runs = args.torch_runs if "torch" in name else args.runs
            plain, fast = os.path.join(work, "snippet.py"), os.path.join(work, "snippet_exit.py")
            with open(plain, "w") as f:
                f.write(code)
            with open(fast, "w") as f:
                f.write(code + FAST_EXIT)
            bare(plain, work), bare(fast, work), sandboxed(code)  # warm the page cache and the default sandbox
            b, bx, s = [], [], []
            for _ in range(runs):
                b.append(bare(plain, work))
                bx.append(bare(fast, work))
                s.append(sandboxed(code))
            rows.append({
                "snippet": name, "runs": runs,
                "bare_p50_ms": ms(b), "bare_p95_ms": ms(b, 0.95),
                "bare_exit_p50_ms": ms(bx), "bare_exit_p95_ms": ms(bx, 0.95),
                "sandbox_p50_ms": ms(s), "sandbox_p95_ms": ms(s, 0.95),
                "overhead_p50_ms": ms(s) - ms(bx), "overhead_p95_ms": ms(s, 0.95) - ms(bx, 0.95),
                "paired_p50_ms": 1000 * statistics.median(y - x for x, y in zip(bx, s, strict=True)),
            })

    load = os.getloadavg()[0]
    if args.json:
        print(json.dumps({"rows": rows, "load_1min": load, "cpus": os.cpu_count()}, indent=2))
        return 0
    print(f"{os.cpu_count()} CPUs, load average {load:.2f} at the end; overhead = sandbox - bare+_exit")
    keys = ("bare_p50_ms", "bare_p95_ms", "bare_exit_p50_ms", "bare_exit_p95_ms", "sandbox_p50_ms", "sandbox_p95_ms",
            "overhead_p50_ms", "overhead_p95_ms", "paired_p50_ms")
    head = ("snippet", "runs", "bare p50", "bare p95", "bare+_exit p50", "bare+_exit p95", "sandbox p50",
            "sandbox p95", "overhead p50", "overhead p95", "paired p50")
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join("---" for _ in head) + "|")
    for r in rows:
        print("| " + " | ".join([r["snippet"], str(r["runs"])] + [f"{r[k]:.0f} ms" for k in keys]) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
