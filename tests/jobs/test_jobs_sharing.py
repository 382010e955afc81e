"""Two workers on one queue share the jobs: with prefetch off, a busy worker takes
no second job while another one idles."""

from __future__ import annotations

from collections import Counter

from bot.jobs.remote import CeleryExecutor

from .conftest import job_settings

NAP = "import time\ntime.sleep(2)\nprint('napped')\n"


def test_two_workers_share_the_jobs(clean_redis, sandbox_ok, start_worker):
    a = start_worker(clean_redis)
    b = start_worker(clean_redis)
    a.wait_ready()
    b.wait_ready()
    executor = CeleryExecutor(job_settings(clean_redis))
    jobs = [executor.submit(NAP) for _ in range(4)]
    reports = [job.result(120) for job in jobs]
    assert all(r.exit_reason == "ok" and "napped" in r.output for r in reports)
    by_worker = Counter(r.environment["worker"]["name"] for r in reports)
    assert set(by_worker) == {a.name, b.name}, by_worker
    assert all(executor.state.starts(job.id) == 1 for job in jobs)  # nothing ran twice
