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
