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


@pytest.fixture
def kb_dir(tmp_path: Path) -> Path:
    """A private copy of the project's knowledge folder to break on purpose."""
    target = tmp_path / "knowledge"
    shutil.copytree(REPO / "knowledge", target)
    return target
