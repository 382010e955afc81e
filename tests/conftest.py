"""Shared test fixtures and probes. The sandbox and PostgreSQL are probed once, here, so
that tests needing them skip with the reason instead of failing where none can be had:

- `@pytest.mark.requires_sandbox` (or the `sandbox_ok` fixture): skipped where the
  sandbox cannot run on this host;
- `pg_admin_url`: the PostgreSQL server's admin URL (TROUBLESHOOT_TEST_PG, default
  127.0.0.1:5432), skipped where none answers. Redis is probed in tests/jobs/conftest.py.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from probes import PG_ADMIN_URL, postgres_probe, sandbox_probe


# Tests that use one of these fixtures run snippets in the real sandbox or torch in a
# subprocess, or need Redis and Celery workers: they are `slow`, outside the fast lane
# (`python -m pytest -m "not slow"`); CI runs everything.
SLOW_FIXTURES = frozenset({
    "runner", "sandbox_runner", "original_run", "try_patch", "seed_report",  # tests/verify
    "seed_run", "slack_bot", "broker",  # tests/evidence
    "sandbox", "sandbox_without_cgroups", "contained",  # tests/sandbox
    "sandbox_ok", "redis_url", "private_redis", "clean_redis", "shared_worker", "start_worker", "compose",  # jobs
    "kb_dir", "use_kb",  # each parses a fresh copy of the whole knowledge base; `troubleshoot verify` runs
})


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.get_closest_marker("requires_sandbox") or SLOW_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)


def pytest_runtest_setup(item):
    if item.get_closest_marker("requires_sandbox"):
        ok, why = sandbox_probe()
        if not ok:
            pytest.skip(f"the sandbox cannot run here: {why}")


@pytest.fixture(scope="session")
def sandbox_ok() -> bool:
    ok, why = sandbox_probe()
    if not ok:
        pytest.skip(f"the sandbox cannot run here: {why}")
    return True


@pytest.fixture(scope="session")
def pg_admin_url() -> str:
    why = postgres_probe()
    if why:
        pytest.skip(why)
    return PG_ADMIN_URL


REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session", autouse=True)
def private_state(tmp_path_factory):
    """The suite records evidence (`ask`, `verify`) into a store of its own, never into the
    developer's var/ or a DATABASE_URL set in the shell."""
    saved = {k: os.environ.get(k) for k in ("TROUBLESHOOT_VAR_DIR", "DATABASE_URL")}
    os.environ["TROUBLESHOOT_VAR_DIR"] = str(tmp_path_factory.mktemp("var"))
    os.environ.pop("DATABASE_URL", None)
    yield
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


# A slice of the knowledge base (the seed repro's entry and its neighbours): the Slack and
# evidence tests answer with it; indexing the whole base on every run would cost minutes.
KB_SLICE = ("backward-twice", "no-grad-fn", "inplace-modified", "leaf-inplace", "cuda-oom", "device-mismatch",
            "numpy-requires-grad")


@pytest.fixture(scope="session")
def kb_slice(tmp_path_factory) -> tuple[Path, Path]:
    """(knowledge dir, index dir): the slice above and its real search index (the configured
    embedder), built once per session and shared; tests treat it as read-only."""
    from bot.retrieval.engine import get_embedder
    from bot.retrieval.index import build_index
    from bot.settings import embedder_name

    root = tmp_path_factory.mktemp("kb-slice")
    entries = root / "knowledge" / "entries" / "pytorch"
    entries.mkdir(parents=True)
    for name in KB_SLICE:
        shutil.copy(REPO / "knowledge" / "entries" / "pytorch" / f"{name}.yml", entries)
    build_index(root / "knowledge", root / "index", get_embedder(embedder_name()), progress=False,
                log=lambda msg: None)
    return root / "knowledge", root / "index"


@pytest.fixture
def kb_dir(tmp_path: Path) -> Path:
    """A private copy of the project's knowledge folder to break on purpose."""
    target = tmp_path / "knowledge"
    shutil.copytree(REPO / "knowledge", target)
    return target


# --- torch environments (bot/envs) ----------------------------------------------------------
# Two environments made from the same local torch wheel under two names of one release
# ("2.13" and "2.13.0"): the mechanics of a version matrix without a second multi-GB
# torch download. Built once per session, only for the tests that ask for them.
LOCAL_TORCH = "2.13.0"


@pytest.fixture(scope="session")
def torch_envs(tmp_path_factory):
    """(EnvStore, [env "2.13", env "2.13.0"]) made by pip from the local wheel (minutes)."""
    import tempfile

    from bot.envs import EnvError, EnvStore

    import re
    import subprocess
    import sys

    # Only from a wheel on this disk (pip's find-links), never a multi-GB download.
    config = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True).stdout
    folders = [f for line in re.findall(r"find-links='([^']*)'", config) for f in line.split()]
    if not any(any(Path(f).glob(f"torch-{LOCAL_TORCH}*.whl")) for f in folders if Path(f).is_dir()):
        pytest.skip(f"no local torch {LOCAL_TORCH} wheel in pip's find-links ({folders or 'none'})")
    # Not under pytest's 0700 tmp folder: the sandbox's unprivileged host user mounts them.
    root = Path(tempfile.mkdtemp(prefix="troubleshoot-test-envs-"))
    root.chmod(0o755)
    store = EnvStore(root, index_url="")
    try:
        envs = [store.add(v, check_index=False) for v in ("2.13", LOCAL_TORCH)]
    except EnvError as exc:
        shutil.rmtree(root, ignore_errors=True)
        if str(exc).startswith("pip could not install"):  # no torch wheel pip can reach here
            pytest.skip(f"could not build the test environments: {exc}")
        raise
    yield store, envs
    shutil.rmtree(root, ignore_errors=True)
