"""Helpers for the sandbox tests (imported by conftest.py and the test modules)."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

from dataclasses import replace

from bot.sandbox import Limits, RunResult, Sandbox
from bot.sandbox.limits import MiB
from bot.sandbox.zygote import PER_CHILD, Zygote

# Short limits keep the suite fast; attacks that need a deadline use SHORT_WALL.
LIMITS = Limits(wall_seconds=10, memory_bytes=512 * MiB, tmp_bytes=32 * MiB, output_bytes=64 * 1024)
SHORT_WALL = 3


def limits(**changes) -> Limits:
    values = {f: getattr(LIMITS, f) for f in ("wall_seconds", "memory_bytes", "max_processes", "file_size_bytes",
                                              "open_files", "output_bytes", "tmp_bytes")}
    values.update(changes)
    return Limits(**values)


def processes_in_cgroups(box: "Sandbox | WarmBox") -> list[int]:
    """Host pids in any cgroup below this sandbox's group folder (of a WarmBox: besides
    its zygotes' own bwrap and supervisor, which live until it is closed)."""
    if isinstance(box, WarmBox):
        own = box.zygote_pids()
        return [pid for pid in processes_in_cgroups(box.sandbox) if pid not in own]
    backend = box.cgroup_backend
    if not backend.version:
        return []
    pids = []
    for parent in backend.parents.values():
        for root, _dirs, files in os.walk(parent):
            if "cgroup.procs" in files and root != parent:
                pids += [int(p) for p in Path(root, "cgroup.procs").read_text().split()]
    return pids


def host_processes_with(token: str) -> list[tuple[int, str]]:
    """Host processes whose command line contains `token`."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            cmdline = Path("/proc", entry, "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if token in cmdline:
            found.append((int(entry), cmdline))
    return found


def assert_contained(box: Sandbox, run_dir_base: Path) -> None:
    """After an attack: no process and no folder of any run is left, and an ordinary
    run still works."""
    assert processes_in_cgroups(box) == [], "processes of a finished run are still alive"
    run_cgroups = [r for p in box.cgroup_backend.parents.values() for r in os.listdir(p) if r.startswith("run-")] \
        if box.cgroup_backend.version else []
    assert run_cgroups == [], f"run cgroups left behind: {run_cgroups}"
    assert list(run_dir_base.iterdir()) == [], "per-run folders left behind"
    token = uuid.uuid4().hex
    result = box.run(f"import os\nprint('ordinary run', {token!r}, os.getuid())\n", limits=LIMITS)
    assert result.exit_reason == "ok", result.to_dict()
    assert f"ordinary run {token} 65534" in result.output


def show(result: RunResult) -> str:
    d = result.to_dict()
    d["output"] = d["output"][-2000:]
    return repr(d)


class WarmBox:
    """A sandbox whose runs are children of a warm sandbox (bot/sandbox/zygote.py), for
    running every attack test per child too: each attack is the second child of its
    zygote (a sibling ran first), and the zygote is closed at the end of the test."""

    def __init__(self, sandbox: Sandbox):
        self.sandbox = sandbox
        self._zygotes: dict[tuple, Zygote] = {}

    def run(self, code: str, *, limits: Limits | None = None, gpu: str | None = None,
            files: dict[str, bytes] | None = None, site_packages: str | None = None) -> RunResult:
        limits = limits or Limits()
        # Zygotes differ by what a child cannot change: rlimits and tmpfs sizes.
        key = (gpu, site_packages, replace(limits, **{name: getattr(LIMITS, name) for name in PER_CHILD}))
        zygote = self._zygotes.get(key)
        if zygote is None or zygote.fits(limits) is not None:
            zygote = self._zygotes[key] = Zygote(self.sandbox, limits=limits, gpu=gpu, site_packages=site_packages,
                                                 preload=())
            assert zygote.run("print('the sibling before')").output == "the sibling before\n"
        return zygote.run(code, limits=limits, files=files)

    def zygote_pids(self) -> set[int]:
        pids = set()
        for zygote in self._zygotes.values():
            cg = zygote._launch.cg
            pids |= cg.pids() if cg is not None else set()
        return pids

    def close(self) -> None:
        for zygote in self._zygotes.values():
            zygote.close()
        self._zygotes.clear()

    def __getattr__(self, name: str):
        return getattr(self.sandbox, name)
