"""Shared test fixtures. Services (Redis, PostgreSQL) are probed here so that tests
needing them skip with a reason instead of failing where none can be had."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
SEEDS = SHARED / "seeds"


@pytest.fixture
def kb_dir(tmp_path: Path) -> Path:
    """A private copy of the project's knowledge folder to break on purpose."""
    target = tmp_path / "knowledge"
    shutil.copytree(REPO / "knowledge", target)
    return target


@pytest.fixture
def seeds_dir() -> Path:
    if not SEEDS.is_dir():
        pytest.skip(f"the seed documents are not here ({SEEDS} is missing); they live in ../shared beside the checkout")
    return SEEDS
