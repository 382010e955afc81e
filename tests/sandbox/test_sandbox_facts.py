"""The host's facts about a run, found in every Python layout: torch's version comes
from the folder the sandbox binds, whether that is a venv's site-packages or, as in the
Docker images, the system Python's own (no venv at all)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from bot.sandbox import facts

FACTS_PY = Path(facts.__file__)
VERSION_PY = "__version__ = '2.13.0+cpu'\ncuda: Optional[str] = None\n"
CUDA_VERSION_PY = "__version__ = '2.13.0+cu128'\ncuda: Optional[str] = '12.8'\n"


def fake_torch(folder: Path, text: str) -> None:
    (folder / "torch").mkdir(parents=True)
    (folder / "torch" / "version.py").write_text(text)


def test_a_venv_layout_reads_the_venvs_site_packages(tmp_path):
    venv_site = tmp_path / "venv" / "lib" / "python3.11" / "site-packages"
    fake_torch(venv_site, CUDA_VERSION_PY)
    dirs = facts.torch_site_dirs([str(venv_site)], str(tmp_path / "base"), "3.11")
    assert dirs == [str(venv_site)]
    assert facts.torch_build(dirs) == ("2.13.0+cu128", "12.8")


def test_a_system_python_prefix_is_searched_in_its_lib_folder(tmp_path):
    # python:3.11-slim: /usr/local/lib/python3.11/site-packages/torch, no venv.
    fake_torch(tmp_path / "lib" / "python3.11" / "site-packages", VERSION_PY)
    dirs = facts.torch_site_dirs([], str(tmp_path), "3.11")
    assert facts.torch_build(dirs) == ("2.13.0+cpu", None)
    # The prefix itself (the old lookup: <prefix>/torch/version.py) is not a package folder.
    assert facts.torch_build([str(tmp_path)]) == (None, None)


def test_a_debian_python_is_searched_in_dist_packages(tmp_path):
    fake_torch(tmp_path / "lib" / "python3" / "dist-packages", VERSION_PY)
    assert facts.torch_build(facts.torch_site_dirs([], str(tmp_path), "3.11"))[0] == "2.13.0+cpu"


def test_no_torch_anywhere_is_none(tmp_path):
    assert facts.torch_site_dirs([], str(tmp_path), "3.11") == []
    assert facts.environment([], gpu_index=None, cuda_visible=None)["torch"] is None


def test_facts_outside_a_venv_in_a_subprocess(tmp_path):
    """The base interpreter with -S (no site, so no venv and none of its packages),
    loading facts.py alone: it finds its own package folder, and torch in a prefix laid
    out as a system Python's."""
    fake_torch(tmp_path / "prefix" / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}"
               / "site-packages", VERSION_PY)
    base = getattr(sys, "_base_executable", None) or sys.executable
    program = (
        "import importlib.util, json, os, sys, sysconfig\n"
        "spec = importlib.util.spec_from_file_location('facts', sys.argv[1])\n"
        "facts = importlib.util.module_from_spec(spec); spec.loader.exec_module(facts)\n"
        "version = f'{sys.version_info.major}.{sys.version_info.minor}'\n"
        "own = facts.torch_site_dirs([], os.path.realpath(sys.base_prefix), version)\n"
        "env = facts.environment(facts.torch_site_dirs([], sys.argv[2], version), gpu_index=None, cuda_visible=None)\n"
        "print(json.dumps({'in_venv': sys.prefix != sys.base_prefix, 'own': own,"
        " 'purelib': os.path.realpath(sysconfig.get_path('purelib')), 'torch': env['torch']}))\n"
    )
    clean = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    out = subprocess.run([base, "-S", "-c", program, str(FACTS_PY), str(tmp_path / "prefix")],
                         capture_output=True, text=True, timeout=60, env=clean)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert got["in_venv"] is False
    assert got["purelib"] in [os.path.realpath(d) for d in got["own"]], got
    assert got["torch"] == "2.13.0+cpu"
