"""The checks that keep the code as it is: ruff over the repository and mypy --strict on
the typed documents and the CLI (configured in pyproject.toml). Both run in the fast lane,
so a change that breaks either fails like any other test."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _tool(name: str) -> list[str]:
    if shutil.which(name) is None and not (Path(sys.executable).parent / name).exists():
        pytest.skip(f"{name} is not installed (it is in the dev extra: pip install -e '.[dev]')")
    exe = Path(sys.executable).parent / name
    return [str(exe) if exe.exists() else name]


def test_ruff_finds_nothing():
    out = subprocess.run([*_tool("ruff"), "check", "--no-cache", "."], cwd=REPO, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]


def test_mypy_strict_on_the_typed_modules():
    out = subprocess.run([*_tool("mypy"), "--no-incremental"], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
