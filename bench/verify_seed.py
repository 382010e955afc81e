"""How long verifying the seed repro takes (seed 000: a model, MSELoss, two backward calls).

Times, through the real sandbox:
  - one run of the original snippet,
  - the whole verification (original + every patched workaround and dead end of
    pytorch/backward-twice), with runs in parallel and one at a time,
and the same snippet run bare by this interpreter, for comparison.

    PYTHONPATH=. python bench/verify_seed.py [--repeat 3] [--json]
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
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SEED = REPO / "tests" / "verify" / "data" / "seed000_backward_twice.py"


def bare_run(code: str) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp, "snippet.py")
        path.write_text(code)
        start = time.perf_counter()
        subprocess.run([sys.executable, str(path)], cwd=tmp, capture_output=True)
        return time.perf_counter() - start


def summary(values: list[float]) -> dict:
    return {"median_s": round(statistics.median(values), 3), "min_s": round(min(values), 3),
            "max_s": round(max(values), 3), "n": len(values)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="times to repeat each measurement (default 3)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    from bot.sandbox import run_snippet, sandbox_available
    from bot.verify import verify_snippet
    from bot.kb.loader import current_knowledge as knowledge

    ok, why = sandbox_available()
    if not ok:
        print(f"the sandbox cannot run here: {why}", file=sys.stderr)
        return 2
    code = SEED.read_text()
    knowledge()  # load the knowledge base before timing

    bare, sandboxed, parallel, sequential = [], [], [], []
    statuses: list = []
    per_fix: dict[str, list[float]] = {}
    for _ in range(args.repeat):
        bare.append(bare_run(code))
        start = time.perf_counter()
        run_snippet(code)
        sandboxed.append(time.perf_counter() - start)
        for label, parallel_runs, into in (("parallel", True, parallel), ("sequential", False, sequential)):
            start = time.perf_counter()
            report = verify_snippet(code, parallel=parallel_runs)
            into.append(time.perf_counter() - start)
            statuses = [(row["patch"], row["status"]) for row in report["fixes"]]
            for row in report["fixes"]:
                if row["seconds"] is not None:
                    per_fix.setdefault(row["patch"], []).append(row["seconds"])

    result = {
        "machine": {"cpus": os.cpu_count(), "load_average_1m": round(os.getloadavg()[0], 2)},
        "runs_per_verification": 1 + len(statuses),
        "bare_python_run": summary(bare),
        "sandbox_run": summary(sandboxed),
        "sandbox_overhead_median_s": round(statistics.median(sandboxed) - statistics.median(bare), 3),
        "verify_parallel": summary(parallel),
        "verify_sequential": summary(sequential),
        "fix_run_seconds_median": {k: round(statistics.median(v), 3) for k, v in per_fix.items()},
        "statuses": dict(statuses),
        # Paired in each repeat: the whole verification against one bare run measured just before it
        # (issue 15's goal: at most 1.5).
        "ratio_verify_parallel_to_bare_median": round(statistics.median(p / b for p, b in zip(parallel, bare)), 3),
        "ratio_verify_sequential_to_bare_median": round(statistics.median(q / b for q, b in zip(sequential, bare)), 3),
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"seed 000 repro, {args.repeat} repeat(s), {result['machine']['cpus']} CPUs, "
          f"load {result['machine']['load_average_1m']}")
    for key in ("bare_python_run", "sandbox_run", "verify_parallel", "verify_sequential"):
        s = result[key]
        print(f"  {key:<20} median {s['median_s']:.2f} s  (min {s['min_s']:.2f}, max {s['max_s']:.2f})")
    print(f"  sandbox overhead per run (median vs bare): {result['sandbox_overhead_median_s'] * 1000:.0f} ms")
    print(f"  one verification = {result['runs_per_verification']} sandbox runs; fix runs (median s): "
          + ", ".join(f"{k} {v:.2f}" for k, v in result["fix_run_seconds_median"].items()))
    print(f"  paired ratio verify/bare (median): parallel {result['ratio_verify_parallel_to_bare_median']:.2f}, "
          f"sequential {result['ratio_verify_sequential_to_bare_median']:.2f} (goal <= 1.5)")
    print("  statuses: " + ", ".join(f"{k}={v}" for k, v in result["statuses"].items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
