"""Fixtures for the sandbox tests: a real sandbox with short limits, and the check
that follows every attack (nothing of the run is left, and an ordinary run works)."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from bot.sandbox import Sandbox, SandboxUnavailable, cgroups
from probes import sandbox_probe

from .sandbox_helpers import WarmBox, assert_contained


@pytest.fixture(scope="session")
def run_dir_base() -> Path:
    # Not under pytest's tmp_path: that is 0700 root, and a root worker's sandbox runs as
    # an unprivileged host user that must reach the per-run folders.
    path = Path(tempfile.mkdtemp(prefix="sandbox-runs-"))
    path.chmod(0o711)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _make(run_dir_base: Path, **kw) -> Sandbox:
    ok, why = sandbox_probe()
    if not ok:
        pytest.skip(f"the sandbox cannot run on this host: {why}")
    try:
        return Sandbox(run_dir_base=str(run_dir_base), **kw)
    except SandboxUnavailable as e:
        pytest.skip(str(e))


@pytest.fixture(scope="session")
def cgroup_group():
    # A cgroup folder of the test session's own, so that what is left there is ours
    # (other runs may share the host); removed at the end.
    name = f"troubleshoot-sandbox-test-{os.getpid()}"
    yield name
    cgroups.detect(group=name).remove_parents()


@pytest.fixture(scope="session")
def sandbox(run_dir_base, cgroup_group):
    return _make(run_dir_base, cgroup_group=cgroup_group)


@pytest.fixture(scope="session")
def sandbox_without_cgroups(run_dir_base):
    return _make(run_dir_base, use_cgroups=False, allow_rlimit_fallback=True)


@pytest.fixture(params=["one-run", "warm"])
def contained(request, sandbox, run_dir_base):
    """For attack tests, each run twice: in a sandbox of its own, and as a child of a
    warm sandbox (a zygote, after a sibling). After the test body, nothing of the run
    is left and an ordinary run works."""
    if request.param == "one-run":
        yield sandbox
    else:
        box = WarmBox(sandbox)
        try:
            yield box
        finally:
            box.close()
    assert_contained(sandbox, run_dir_base)
