"""What the job queue costs, and how many jobs it moves.

    PYTHONPATH=$PWD python bench/queue_overhead.py [--jobs N] [--burst M] [--redis-url URL] [--json]

1. Overhead per job: the same trivial snippet verified N times, one after the other,
   by the local executor (in this process) and through Celery + Redis by one
   `troubleshoot worker`; the overhead is the difference of the medians (and p95s).
   Both include the sandbox run; the queue adds publishing, the worker taking the
   job, storing progress and the result, and the submitter's polling (every 0.1 s).
2. Throughput: M trivial jobs submitted at once, with one and then with two workers
   (one job at a time each, as on a one-GPU machine); jobs per minute from the first
   submit to the last report. The same with jobs that sleep 1 s: trivial jobs are
   CPU-bound (sandbox start-up), so on a 2-core machine a second worker mostly
   competes for the same cores; a GPU job mostly waits, which the 1 s jobs stand for.

It uses its own Redis database (default redis://127.0.0.1:6379/14) and flushes it
before and after. Workers are real `troubleshoot worker` processes.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

TRIVIAL = "print('ok')\n"
NAP = "import time\ntime.sleep(1)\nprint('ok')\n"  # a job that waits, as one on a GPU mostly does
ENV = {"TROUBLESHOOT_JOB_SECONDS": "120", "TROUBLESHOOT_JOB_HEARTBEAT_SECONDS": "5"}


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def summary(values: list[float]) -> dict:
    return {"n": len(values), "p50_s": round(pct(values, 0.5), 3), "p95_s": round(pct(values, 0.95), 3),
            "mean_s": round(statistics.fmean(values), 3)}


class Worker:
    def __init__(self, url: str, log_dir: str):
        self.name = f"bench-{uuid.uuid4().hex[:6]}@{socket.gethostname()}"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "TROUBLESHOOT_"))}
        env.update(ENV, REDIS_URL=url, TROUBLESHOOT_WORKER_NAME=self.name, PYTHONPATH=str(REPO))
        self.log = open(os.path.join(log_dir, self.name.split("@")[0] + ".log"), "wb")
        self.proc = subprocess.Popen([sys.executable, "-m", "bot.cli", "worker", "--concurrency", "1"], cwd=REPO,
                                     env=env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)

    def wait_ready(self, client, timeout: float = 120) -> "Worker":
        deadline = time.monotonic() + timeout
        while not client.exists(f"troubleshoot:worker:{self.name}"):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"worker {self.name} did not start; see {self.log.name}")
            time.sleep(0.1)
        return self

    def stop(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(30)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.log.close()


def sequential(executor, n: int) -> tuple[list[float], list[float]]:
    """End-to-end seconds per job, and the same less the sandbox run's own seconds."""
    times, outside = [], []
    for _ in range(n):
        start = time.perf_counter()
        report = executor.verify(TRIVIAL, timeout=120)
        took = time.perf_counter() - start
        assert report.exit_reason == "ok", report.summary
        times.append(took)
        outside.append(took - report.seconds)
    return times, outside


def burst(executor, m: int, code: str = TRIVIAL) -> dict:
    start = time.perf_counter()
    jobs = [executor.submit(code) for _ in range(m)]
    workers = {}
    for job in jobs:
        report = job.result(300)
        name = report.environment["worker"]["name"]
        workers[name] = workers.get(name, 0) + 1
    wall = time.perf_counter() - start
    return {"jobs": m, "seconds": round(wall, 2), "jobs_per_minute": round(60 * m / wall, 1),
            "jobs_per_worker": sorted(workers.values(), reverse=True)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=20, help="sequential jobs per executor (default 20)")
    parser.add_argument("--burst", type=int, default=30, help="jobs submitted at once per throughput run")
    parser.add_argument("--naps", type=int, default=12, help="1-second jobs submitted at once per throughput run")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/14")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    os.environ.update(ENV)

    import redis

    from bot.jobs.local import LocalExecutor
    from bot.jobs.remote import CeleryExecutor
    from bot.jobs.settings import JobSettings

    client = redis.Redis.from_url(args.redis_url)
    client.flushdb()
    logs = tempfile.mkdtemp(prefix="queue-bench-")
    results: dict = {"cpus": os.cpu_count(), "redis": args.redis_url}
    local = LocalExecutor(JobSettings.from_env({**ENV}), gpus=[])
    sequential(local, 2)  # warm-up: first sandbox run, imports
    times, outside = sequential(local, args.jobs)
    results["local"], results["local_outside_sandbox"] = summary(times), summary(outside)
    local.shutdown()

    remote = CeleryExecutor(JobSettings.from_env({**ENV, "REDIS_URL": args.redis_url}))
    workers = [Worker(args.redis_url, logs).wait_ready(client)]
    try:
        sequential(remote, 2)
        times, outside = sequential(remote, args.jobs)
        results["queue"], results["queue_outside_sandbox"] = summary(times), summary(outside)
        results["overhead_p50_s"] = round(results["queue"]["p50_s"] - results["local"]["p50_s"], 3)
        results["overhead_p95_s"] = round(results["queue"]["p95_s"] - results["local"]["p95_s"], 3)
        results["overhead_outside_sandbox_p50_s"] = round(
            results["queue_outside_sandbox"]["p50_s"] - results["local_outside_sandbox"]["p50_s"], 3)
        results["one_worker"] = burst(remote, args.burst)
        results["one_worker_nap"] = burst(remote, args.naps, NAP)
        workers.append(Worker(args.redis_url, logs).wait_ready(client))
        burst(remote, 4)  # both workers warm
        results["two_workers"] = burst(remote, args.burst)
        results["two_workers_nap"] = burst(remote, args.naps, NAP)
    finally:
        for w in workers:
            w.stop()
        client.flushdb()

    if args.json:
        print(json.dumps(results, indent=2))
    else:
        lo, q = results["local"], results["queue"]
        print(f"machine: {results['cpus']} CPUs; Redis {results['redis']}")
        print(f"per job, trivial snippet, {lo['n']} in a row:")
        print(f"  local executor   p50 {lo['p50_s']:.3f} s  p95 {lo['p95_s']:.3f} s")
        print(f"  Celery + Redis   p50 {q['p50_s']:.3f} s  p95 {q['p95_s']:.3f} s")
        print(f"  queue overhead   p50 {results['overhead_p50_s']:+.3f} s  p95 {results['overhead_p95_s']:+.3f} s")
        print(f"  outside the sandbox run: local p50 {results['local_outside_sandbox']['p50_s']:.3f} s, "
              f"queue p50 {results['queue_outside_sandbox']['p50_s']:.3f} s "
              f"(difference {results['overhead_outside_sandbox_p50_s']:+.3f} s)")
        for key, label in (("one_worker", "one worker, trivial"), ("two_workers", "two workers, trivial"),
                           ("one_worker_nap", "one worker, 1 s jobs"), ("two_workers_nap", "two workers, 1 s jobs")):
            r = results[key]
            print(f"throughput, {label}: {r['jobs']} jobs in {r['seconds']} s = {r['jobs_per_minute']} jobs/min "
                  f"(per worker: {r['jobs_per_worker']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
