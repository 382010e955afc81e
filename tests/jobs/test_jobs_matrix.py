"""A queue per torch environment: a worker advertises the environments it holds and
listens on their queues; a release is routed to a worker that holds it, and a release
no worker holds is refused naming those held. Real Redis, real workers, real runs."""

from __future__ import annotations

import pytest

from bot.jobs.remote import CeleryExecutor, NoEnvironment
from bot.jobs.settings import env_queue

from .conftest import SEED, job_settings

pytestmark = pytest.mark.slow


def test_each_release_goes_to_a_worker_that_holds_it(clean_redis, sandbox_ok, torch_envs, start_worker):
    store, envs = torch_envs
    holder = start_worker(clean_redis, extra_env={"TROUBLESHOOT_ENVS_DIR": str(store.root)})
    plain = start_worker(clean_redis, extra_env={"TROUBLESHOOT_ENVS_DIR": str(store.root / "none")})
    holder.wait_ready()
    plain.wait_ready()
    presence = holder.presence()
    assert [e["version"] for e in presence["environments"]] == ["2.13", "2.13.0"]
    assert env_queue("2.13.0") in presence["queues"]
    assert plain.presence()["environments"] == []

    executor = CeleryExecutor(job_settings(clean_redis))
    with pytest.raises(NoEnvironment) as info:
        executor.verify_matrix(SEED.read_text(), ["2.13.0", "2.9.1"], timeout=30)
    assert info.value.missing == ["2.9.1"] and info.value.available == ["2.13", "2.13.0"]
    assert "2.13, 2.13.0" in str(info.value)

    report = executor.verify_matrix(SEED.read_text(), ["2.13.0"], timeout=300)
    row = report.versions[0]
    assert row["environment"]["torch"] == envs[1].torch
    assert row["environment"]["worker"] == holder.name
    assert row["reproduced"] is True and row["error"]["entry_id"] == "pytorch/backward-twice"
    assert report.job["queue"] == env_queue("2.13.0")
