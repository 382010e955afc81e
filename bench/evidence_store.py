"""How much the evidence store costs: recording reports, reading every rate for a
snapshot (what each answer does at most once per TROUBLESHOOT_RATES_TTL), opening the
store (what every `troubleshoot ask` and `verify` pays), on SQLite and PostgreSQL.

    PYTHONPATH=. python bench/evidence_store.py [--reports 2000] [--pg postgresql+psycopg://postgres@127.0.0.1/postgres]

Reports are the shape `troubleshoot verify --json` gives for the seed entry: five fix
rows each, over distinct snippets, torch versions and answers with votes.
"""

from __future__ import annotations

import argparse
import json
import secrets
import statistics
import tempfile
import time
from pathlib import Path

ITEMS = [("retain-graph-all-but-last", "workaround"), ("recompute-forward", "workaround"),
         ("detach-before-backward", "dead_end"), ("no-grad-forward", "dead_end"),
         ("move-model-to-new-device", "dead_end")]


def report(i: int):
    from bot.verify.report import ErrorInfo, ExitReason, FixRow, Status, VerifyReport

    statuses = list(Status)
    return VerifyReport(
        reproduced=True, exit_reason=ExitReason.ERROR, output="",
        error=ErrorInfo(type="RuntimeError", message="m", entry_id="pytorch/backward-twice"),
        environment={"torch": f"2.{3 + i % 11}.0+cpu", "python": "3.11.7", "cuda_available": False},
        seconds=1.2, peak_memory_bytes=2 ** 27,
        fixes=[FixRow(workaround=item, kind=kind, status=statuses[(i + k) % 5], seconds=1.0,
                      peak_memory_bytes=2 ** 27, error=None, patch=None, title=None)
               for k, (item, kind) in enumerate(ITEMS)])


def timed(fn, repeat: int = 5) -> list[float]:
    out = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out


def bench(url: str, n: int) -> dict:
    from bot.evidence.rates import load_observations
    from bot.evidence.record import record_verification
    from bot.store import open_store

    start = time.perf_counter()
    store = open_store(url)  # creates and migrates
    first_open = time.perf_counter() - start
    start = time.perf_counter()
    for i in range(n):
        record_verification(report(i), f"snippet {i}", store=store)
    record_s = time.perf_counter() - start
    answer = json.dumps({"answered": True, "matches": [{"id": "pytorch/backward-twice",
                                                        "workarounds": [{"id": "recompute-forward"}]}]})
    for a in range(n // 10):
        answer_id = store.add_answer(entry_id="pytorch/backward-twice", confidence=1.0, language="en",
                                     surface="mention", error_hash="h", answer_json=answer)
        for u in range(3):
            store.vote(answer_id, f"user{u}", 1 if (a + u) % 3 else -1)
    snapshot = timed(lambda: load_observations(store))
    store.engine.dispose()
    reopen = timed(lambda: open_store(url).engine.dispose())
    return {"reports": n, "outcome_rows": 5 * n, "votes": 3 * (n // 10), "first_open_s": round(first_open, 3),
            "record_ms_per_report": round(1000 * record_s / n, 2),
            "snapshot_ms_median": round(1000 * statistics.median(snapshot), 1),
            "reopen_ms_median": round(1000 * statistics.median(reopen), 1)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reports", type=int, default=2000)
    parser.add_argument("--pg", default="postgresql+psycopg://postgres@127.0.0.1:5432/postgres",
                        help="an admin URL; a scratch database is made there and dropped ('' skips)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        print("sqlite", json.dumps(bench(f"sqlite:///{Path(tmp) / 'bench.db'}", args.reports)))
    if args.pg:
        from sqlalchemy import create_engine, text

        admin = create_engine(args.pg, isolation_level="AUTOCOMMIT")
        name = f"troubleshoot_bench_{secrets.token_hex(4)}"
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
        try:
            print("postgresql", json.dumps(bench(args.pg.rsplit("/", 1)[0] + "/" + name, args.reports)))
        finally:
            with admin.connect() as conn:
                conn.execute(text(f'DROP DATABASE "{name}" WITH (FORCE)'))
            admin.dispose()


if __name__ == "__main__":
    main()
