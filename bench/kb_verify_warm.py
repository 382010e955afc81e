"""`troubleshoot kb verify` of every CPU entry, with warm sandboxes (the default) and with
a sandbox per run (TROUBLESHOOT_WARM_SANDBOX=0), one after the other on the same
machine: wall time, peak RSS of the CLI and its waited children, and the paired ratio.

    PYTHONPATH=. python bench/kb_verify_warm.py [--json] [ENTRY_ID...]

Nothing is recorded as evidence (--no-record). The search index should exist first
(run `troubleshoot index` or one `ask`), or the first run pays for building it.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def one(warm: bool, ids: list[str]) -> dict:
    env = {**os.environ, "TROUBLESHOOT_WARM_SANDBOX": "1" if warm else "0", "PYTHONPATH": str(REPO)}
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "bot.cli", "kb", "verify", "--json", "--no-record", *ids],
                            cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    summary = json.loads(out)["summary"]
    return {"seconds": round(seconds, 1), "peak_rss_bytes": usage.ru_maxrss * 1024,
            "exit_status": os.waitstatus_to_exitcode(status), "summary": summary}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ids", nargs="*", help="entries to verify (default: every entry)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    warm = one(True, args.ids)
    cold = one(False, args.ids)
    result = {"machine": {"cpus": os.cpu_count(), "load_average_1m": round(os.getloadavg()[0], 2)},
              "warm": warm, "sandbox_per_run": cold,
              "ratio_warm_to_sandbox_per_run": round(warm["seconds"] / cold["seconds"], 3)}
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    for name in ("warm", "sandbox_per_run"):
        r = result[name]
        s = r["summary"]
        print(f"{name:<16} {r['seconds']:7.1f} s  peak RSS {r['peak_rss_bytes'] / 2**20:.0f} MiB  "
              f"exit {r['exit_status']}  proven {s['proven']} of {s['ran']}, patch claims failed "
              f"{s['patch_claims_failed']} of {s['patch_claims']}")
    print(f"paired ratio warm / sandbox per run: {result['ratio_warm_to_sandbox_per_run']:.2f} "
          f"({result['machine']['cpus']} CPUs, load {result['machine']['load_average_1m']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
