"""Cold `troubleshoot ask` against `python -c "import torch"`, paired in one run.

    PYTHONPATH=. python bench/cold_ask.py [--pairs 5] [--json]

Each pair runs both commands as fresh processes back to back (order alternating), with
the index already built; the ratio of each pair's wall times is reported (median of the
pairs) with each command's peak RSS (from wait4). On a shared machine the absolute
times move with the load; the paired ratio moves much less. The goal (issue 15) is a
ratio of at most 1.5. The heavy modules a cold ask imported are listed with the result.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
QUESTION = ("RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors "
            "after they have already been freed).")
HEAVY = ("torch", "transformers", "sentence_transformers", "sklearn", "scipy", "libcst", "alembic")


def timed(argv: list[str], env: dict) -> tuple[float, int, int]:
    """(wall seconds, peak RSS in MB, exit status) of one fresh process."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=REPO)
    _pid, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        sys.stderr.write(proc.stderr.read().decode(errors="replace")[-2000:])
    return wall, usage.ru_maxrss // 1024, proc.returncode


def heavy_modules(env: dict) -> list[str]:
    code = ("import sys\nfrom bot.cli import main\nmain(['ask', sys.argv[1]])\n"
            f"print('MODULES', sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r})), file=sys.stderr)")
    out = subprocess.run([sys.executable, "-c", code, QUESTION], capture_output=True, text=True, env=env, cwd=REPO)
    line = next((err for err in out.stderr.splitlines() if err.startswith("MODULES")), "MODULES ?")
    return eval(line.split(" ", 1)[1])  # our own printout of a sorted list


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--record", action="store_true",
                        help="let ask record its answer (the default outside this bench is on)")
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    if not args.record:
        env["TROUBLESHOOT_RECORD_ASK"] = "0"
    ask = [sys.executable, "-m", "bot.cli", "ask", QUESTION]
    torch = [sys.executable, "-c", "import torch"]
    timed(ask, env)  # builds the index if it is stale, warms the page cache for both
    timed(torch, env)
    rows = []
    for i in range(args.pairs):
        order = (("ask", ask), ("torch", torch)) if i % 2 == 0 else (("torch", torch), ("ask", ask))
        got = {name: timed(argv, env) for name, argv in order}
        rows.append({"ask_s": round(got["ask"][0], 3), "torch_s": round(got["torch"][0], 3),
                     "ask_rss_mb": got["ask"][1], "torch_rss_mb": got["torch"][1],
                     "ratio": round(got["ask"][0] / got["torch"][0], 3), "ask_exit": got["ask"][2]})
    result = {
        "pairs": rows,
        "ratio_median": round(statistics.median(r["ratio"] for r in rows), 3),
        "ask_median_s": round(statistics.median(r["ask_s"] for r in rows), 3),
        "torch_median_s": round(statistics.median(r["torch_s"] for r in rows), 3),
        "ask_peak_rss_mb": max(r["ask_rss_mb"] for r in rows),
        "torch_peak_rss_mb": max(r["torch_rss_mb"] for r in rows),
        "heavy_modules_imported_by_ask": heavy_modules(env),
        "loadavg": os.getloadavg(),
        "record_ask": bool(args.record),
    }
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for r in rows:
            print(f"ask {r['ask_s']:.2f} s ({r['ask_rss_mb']} MB)  import torch {r['torch_s']:.2f} s "
                  f"({r['torch_rss_mb']} MB)  ratio {r['ratio']:.2f}")
        print(f"median ratio {result['ratio_median']:.2f} (goal <= 1.5); peak RSS ask {result['ask_peak_rss_mb']} MB, "
              f"torch {result['torch_peak_rss_mb']} MB; "
              f"heavy modules in ask: {result['heavy_modules_imported_by_ask']}; "
              f"load {result['loadavg'][0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
