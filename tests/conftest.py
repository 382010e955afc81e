"""Shared test fixtures. Services (Redis, PostgreSQL) are probed here so that tests
needing them skip with a reason instead of failing where none can be had."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
# The seed documents live in ../shared beside the checkout; TROUBLESHOOT_SEEDS_DIR points
# elsewhere (a git worktree, a CI runner that keeps them apart).
SEEDS = Path(os.environ.get("TROUBLESHOOT_SEEDS_DIR") or REPO.parent / "shared" / "seeds")


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


@pytest.fixture
def optional_seeds_dir() -> Path | None:
    """The seed documents where they are here, else None (for tests that can quote the
    facts they need instead)."""
    return SEEDS if SEEDS.is_dir() else None


@pytest.fixture
def seeds_dir() -> Path:
    if not SEEDS.is_dir():
        pytest.skip(f"the seed documents are not here ({SEEDS} is missing); they live in ../shared beside the "
                    "checkout, or set TROUBLESHOOT_SEEDS_DIR")
    return SEEDS
