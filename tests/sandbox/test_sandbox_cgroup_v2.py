"""cgroup v2: the worker's processes go into a leaf cgroup before memory and pids are
enabled (the kernel's "no internal processes" rule), the runs' cgroups beside it.

This host has memory and pids on cgroup v1, so most tests run on a fake cgroup v2 tree
of plain files whose writes follow the kernel's rules (FakeKernel below). The tests at
the end use the host's real cgroup2 mount with whatever controllers it offers.
"""

from __future__ import annotations

import copy
import errno
import os
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from bot.sandbox import Sandbox, SandboxUnavailable, cgroups, sandbox_available
from bot.sandbox.limits import MiB

from .sandbox_helpers import LIMITS, show

LEAF = cgroups.LEAF_NAME
# Above the largest pid_max (2^22), so no fake pid is ever a real process.
P1, P2, P3, P9 = 5_000_001, 5_000_002, 5_000_003, 5_000_009

CONTROLLER_FILES = {
    "memory": {"memory.max": "max", "memory.swap.max": "max", "memory.peak": "0",
               "memory.events": "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n"},
    "pids": {"pids.max": "max"},
    "cpu": {"cpu.max": "max 100000"},
}


def _err(code: int, path: str) -> OSError:
    return OSError(code, os.strerror(code), path)  # ESRCH comes out as ProcessLookupError, as from the kernel


class FakeKernel(cgroups.CgroupFS):
    """A cgroup v2 hierarchy of plain files under `root` that answers writes the way the
    kernel does for the files the sandbox touches:

    - cgroup.subtree_control: ENOENT for a controller not in cgroup.controllers,
      EOPNOTSUPP in a threaded cgroup, EBUSY while the cgroup holds processes (the
      hierarchy's root excepted); enabling gives the children the controller's files;
    - cgroup.procs: moves the process from the cgroup it is in; ESRCH for an unknown
      pid, EBUSY into a cgroup that has controllers enabled for its children;
    - cgroup.kill: kills every process in the cgroup and below;
    - mkdir makes a cgroup with its interface files; rmdir is EBUSY while it is in use.

    Every change is logged (op, path relative to root, value). `fail[(op, relpath)] =
    errno` makes one operation fail; `hooks[(op, relpath)]` runs before it (as another
    process acting at that moment). copy.copy(kernel) is the same kernel as seen by
    another process (a different key in the sandbox's once-per-process cache)."""

    def __init__(self, root: Path, controllers=("cpu", "memory", "pids"), kill_file: bool = True):
        self.root, self.kill_file = root, kill_file
        self.log: list[tuple[str, str, str]] = []
        self.fail: dict[tuple[str, str], int] = {}
        self.hooks: dict[tuple[str, str], object] = {}
        self.lock = threading.RLock()  # the kernel's cgroup mutex
        root.mkdir()
        # The root hands every controller down, as systemd sets it up.
        for name, value in {"cgroup.controllers": " ".join(controllers),
                            "cgroup.subtree_control": " ".join(controllers),
                            "cgroup.procs": "", "cgroup.threads": ""}.items():
            (root / name).write_text(value)  # the root has no cgroup.type, cgroup.events or cgroup.kill

    # -- set-up helpers for the tests (not logged) --
    def rel(self, path) -> str:
        return os.path.relpath(path, self.root)

    def path(self, rel: str) -> str:
        return str(self.root / rel) if rel not in ("", ".") else str(self.root)

    def make(self, rel: str, procs=(), enable=(), type_="domain") -> str:
        parent = self.root
        for part in Path(rel).parts:
            if not (parent / part).exists():
                self._mkdir(parent / part)
            parent = parent / part
        if enable:
            self._enable(parent, list(enable))
        (parent / "cgroup.type").write_text(type_ + "\n")
        for pid in procs:
            self._place(parent, pid)
        return str(parent)

    def procs(self, rel: str) -> list[int]:
        return [int(p) for p in Path(self.path(rel), "cgroup.procs").read_text().split()]

    def ops(self, op: str | None = None) -> list[tuple[str, str, str]]:
        return [e for e in self.log if op is None or e[0] == op]

    # -- the CgroupFS operations --
    def read(self, path: str) -> str:
        time.sleep(0.0005)  # lets other threads in between operations
        with self.lock:
            return Path(path).read_text()

    def exists(self, path: str) -> bool:
        return os.path.exists(path)

    def mkdir(self, path: str) -> None:
        time.sleep(0.0005)  # lets other threads in between operations
        with self.lock:
            self._before("mkdir", path)
            if os.path.exists(path):
                raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), path)
            self._mkdir(Path(path))
            self.log.append(("mkdir", self.rel(path), ""))

    def rmdir(self, path: str) -> None:
        time.sleep(0.0005)  # lets other threads in between operations
        with self.lock:
            self._before("rmdir", path)
            p = Path(path)
            if not p.exists():
                raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path)
            if self.procs(self.rel(p)) or any(c.is_dir() for c in p.iterdir()):
                raise _err(errno.EBUSY, path)
            for f in p.iterdir():
                f.unlink()
            p.rmdir()
            self.log.append(("rmdir", self.rel(path), ""))

    def write(self, path: str, value: str) -> None:
        time.sleep(0.0005)  # lets other threads in between operations
        with self.lock:
            self._before("write", path)
            p = Path(path)
            cg, name = p.parent, p.name
            if not p.exists():
                raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path)
            if name == "cgroup.procs":
                pid = int(value)
                if self._holder(pid) is None:
                    raise _err(errno.ESRCH, path)
                if self._enabled(cg):
                    raise _err(errno.EBUSY, path)
                self._place(cg, pid)
            elif name == "cgroup.subtree_control":
                self._enable(cg, [t[1:] for t in value.split() if t.startswith("+")])
            elif name == "cgroup.kill":
                for d in [cg, *[q for q in cg.rglob("*") if q.is_dir()]]:
                    (d / "cgroup.procs").write_text("")
            else:
                p.write_text(value)
            self.log.append(("write", self.rel(path), value))

    # -- the kernel's side --
    def _before(self, op: str, path: str) -> None:
        key = (op, self.rel(path))
        hook = self.hooks.pop(key, None)
        if hook:
            hook()
        if key in self.fail:
            raise _err(self.fail[key], path)

    def _mkdir(self, p: Path) -> None:
        p.mkdir()
        files = {"cgroup.procs": "", "cgroup.threads": "", "cgroup.subtree_control": "", "cgroup.type": "domain\n",
                 "cgroup.events": "populated 0\nfrozen 0\n", "cgroup.freeze": "0",
                 "cgroup.controllers": (p.parent / "cgroup.subtree_control").read_text()}
        if self.kill_file:
            files["cgroup.kill"] = ""
        for c in files["cgroup.controllers"].split():
            files.update(CONTROLLER_FILES.get(c, {}))
        for name, value in files.items():
            (p / name).write_text(value)

    def _enabled(self, cg: Path) -> list[str]:
        return (cg / "cgroup.subtree_control").read_text().split()

    def _enable(self, cg: Path, wanted: list[str]) -> None:
        available = (cg / "cgroup.controllers").read_text().split()
        enabled = self._enabled(cg)
        new = [c for c in wanted if c not in enabled]
        if any(c not in available for c in wanted):
            raise _err(errno.ENOENT, str(cg / "cgroup.subtree_control"))
        is_root = not (cg / "cgroup.type").exists()
        if new and not is_root and (cg / "cgroup.type").read_text().strip() != "domain":
            raise _err(errno.EOPNOTSUPP, str(cg / "cgroup.subtree_control"))
        if new and not is_root and (cg / "cgroup.procs").read_text().split():
            raise _err(errno.EBUSY, str(cg / "cgroup.subtree_control"))
        (cg / "cgroup.subtree_control").write_text(" ".join(enabled + new))
        for child in (c for c in cg.iterdir() if c.is_dir()):
            (child / "cgroup.controllers").write_text(" ".join(enabled + new))
            for c in new:
                for name, value in CONTROLLER_FILES.get(c, {}).items():
                    (child / name).write_text(value)

    def _holder(self, pid: int) -> Path | None:
        for d in [self.root, *[q for q in self.root.rglob("*") if q.is_dir()]]:
            if str(pid) in (d / "cgroup.procs").read_text().split():
                return d
        return None

    def _place(self, cg: Path, pid: int) -> None:
        old = self._holder(pid)
        if old is not None:
            (old / "cgroup.procs").write_text(" ".join(p for p in (old / "cgroup.procs").read_text().split()
                                                       if p != str(pid)))
        (cg / "cgroup.procs").write_text(" ".join((cg / "cgroup.procs").read_text().split() + [str(pid)]))


WORKER = "workers/w1"  # the worker's own cgroup in the fake tree


@pytest.fixture
def kernel(tmp_path) -> FakeKernel:
    k = FakeKernel(tmp_path / "cg")
    k.make("workers", enable=("memory", "pids"))
    k.make(WORKER, procs=(P1, P2, P3))  # the worker and two other processes of its cgroup
    return k


def fake_proc(tmp_path: Path, kernel: FakeKernel, own: str = WORKER) -> str:
    """A /proc/self with a cgroup2 mount of the fake tree only, and the worker's cgroup."""
    proc = tmp_path / f"proc-{uuid.uuid4().hex[:6]}"
    proc.mkdir()
    (proc / "mountinfo").write_text(
        f"35 33 0:30 / {kernel.root} rw,nosuid,nodev,noexec,relatime shared:10 - cgroup2 cgroup2 rw\n")
    (proc / "cgroup").write_text(f"0::/{own}\n")
    return str(proc)


def _shape(log):
    """The log with run names made stable, for comparing orders."""
    return [(op, "/".join("run-*" if part.startswith("run-") else part for part in rel.split("/")), value)
            for op, rel, value in log]


def test_the_fake_kernel_refuses_controllers_while_processes_are_inside(kernel):
    # What the sandbox did before: the write the real kernel refuses with EBUSY.
    with pytest.raises(OSError) as e:
        kernel.write(kernel.path(WORKER) + "/cgroup.subtree_control", "+memory +pids")
    assert e.value.errno == errno.EBUSY
    with pytest.raises(ProcessLookupError):
        kernel.write(kernel.path(WORKER) + "/cgroup.procs", str(P9))


def test_processes_move_to_a_leaf_before_controllers_are_enabled(tmp_path, kernel):
    backend = cgroups.detect(proc=fake_proc(tmp_path, kernel), group="grp", fs=kernel)
    assert backend.version == "v2", backend.reason
    assert backend.reason == f"cgroup v2 at {kernel.path(WORKER)}"
    assert backend.parents == {"": kernel.path(f"{WORKER}/grp")}
    assert backend.passed_over == ""
    assert _shape(kernel.log) == [
        ("mkdir", f"{WORKER}/{LEAF}", ""),
        ("write", f"{WORKER}/{LEAF}/cgroup.procs", str(P1)),
        ("write", f"{WORKER}/{LEAF}/cgroup.procs", str(P2)),
        ("write", f"{WORKER}/{LEAF}/cgroup.procs", str(P3)),
        ("write", f"{WORKER}/cgroup.subtree_control", "+memory +pids"),
        ("mkdir", f"{WORKER}/grp", ""),
        ("write", f"{WORKER}/grp/cgroup.subtree_control", "+memory +pids"),
        ("mkdir", f"{WORKER}/grp/run-*", ""),  # detect's probe
        ("rmdir", f"{WORKER}/grp/run-*", ""),
    ]
    assert kernel.procs(WORKER) == [] and kernel.procs(f"{WORKER}/{LEAF}") == [P1, P2, P3]


def test_run_cgroup_gets_limits_and_reports_oom_peak_and_kill(tmp_path, kernel):
    backend = cgroups.detect(proc=fake_proc(tmp_path, kernel), group="grp", fs=kernel)
    run = backend.create_run()
    assert run.version == "v2" and os.path.dirname(run.path) == backend.parents[""]
    assert run.procs_files == [os.path.join(run.path, "cgroup.procs")]
    run.set_limits(300 * MiB, 17)
    files = Path(run.path)
    assert (files / "memory.max").read_text() == str(300 * MiB)
    assert (files / "memory.swap.max").read_text() == "0"
    assert (files / "pids.max").read_text() == "17"
    assert run.describe(300 * MiB, 17) == [
        "memory 300.0 MiB (cgroup v2 memory.max, no swap)",
        "processes 17 (cgroup v2 pids.max, threads count)",
        "process tree killed at the end: pid namespace teardown + cgroup.kill",
    ]
    assert not run.oom_killed() and run.peak_memory() == 0
    # What the kernel writes after an OOM kill.
    (files / "memory.events").write_text("low 0\nhigh 0\nmax 4\noom 1\noom_kill 1\n")
    (files / "memory.peak").write_text(str(299 * MiB))
    assert run.oom_killed() and run.peak_memory() == 299 * MiB

    kernel._place(files, P9)  # a process of the run (fake: cgroup.kill is all that can kill it)
    assert run.pids() == {P9}
    assert run.kill_all(timeout=0.5) is True
    assert ("write", kernel.rel(files / "cgroup.kill"), "1") in kernel.log and run.pids() == set()
    run.remove()
    assert not files.exists()


def test_setup_is_once_per_process_and_safe_to_repeat(tmp_path, kernel):
    proc = fake_proc(tmp_path, kernel)
    first = cgroups.detect(proc=proc, group="grp", fs=kernel)
    again = cgroups.detect(proc=proc, group="grp2", fs=kernel)
    assert again.version == "v2" and again.parents == {"": kernel.path(f"{WORKER}/grp2")}
    assert [e for e in kernel.ops("mkdir") if e[1].endswith(LEAF)] == [("mkdir", f"{WORKER}/{LEAF}", "")]
    assert [e for e in kernel.ops("write") if e[1] == f"{WORKER}/cgroup.subtree_control"] == \
        [("write", f"{WORKER}/cgroup.subtree_control", "+memory +pids")]

    # Another worker process, started after the move, finds itself in the leaf: it uses
    # the worker's cgroup (no nesting) and has nothing left to move or enable.
    before = len(kernel.log)
    other = copy.copy(kernel)
    later = cgroups.detect(proc=fake_proc(tmp_path, kernel, own=f"{WORKER}/{LEAF}"), group="grp", fs=other)
    assert later.version == "v2" and later.parents == first.parents
    assert [e for e in kernel.log[before:] if e[0] == "write"] == []  # no moves, no enabling
    assert cgroups.enable_v2_controllers(kernel.path(WORKER), copy.copy(kernel)) == []


def test_parallel_starts_in_threads_and_in_processes(tmp_path, kernel):
    proc = fake_proc(tmp_path, kernel)
    barrier = threading.Barrier(8)
    found: list = []
    errors: list = []

    def start(fs):
        try:
            barrier.wait()
            found.append(cgroups.detect(proc=proc, group="grp", fs=fs))
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    # Threads of one process: the setup runs once.
    threads = [threading.Thread(target=start, args=(kernel,)) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and {b.version for b in found} == {"v2"}, [b.reason for b in found]
    assert {b.parents[""] for b in found} == {kernel.path(f"{WORKER}/grp")}
    assert sum(1 for e in kernel.log if e[:2] == ("mkdir", f"{WORKER}/{LEAF}")) == 1
    assert [e[2] for e in kernel.log if e[1] == f"{WORKER}/{LEAF}/cgroup.procs"] == [str(P1), str(P2), str(P3)]
    assert sum(1 for e in kernel.log if e[1] == f"{WORKER}/cgroup.subtree_control") == 1

    # Runs started in parallel each get their own limited cgroup.
    runs: list = []

    def run_one():
        barrier.wait()
        r = found[0].create_run()
        r.set_limits(64 * MiB, 8)
        runs.append(r)

    threads = [threading.Thread(target=run_one) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({r.path for r in runs}) == 8
    assert all(Path(r.path, "pids.max").read_text() == "8" for r in runs)
    for r in runs:
        r.remove()


def test_parallel_setup_from_several_processes(tmp_path):
    # Pool processes of one worker all start their sandbox at once, each with its own
    # cache (copies of the kernel), racing on the same tree.
    kernel = FakeKernel(tmp_path / "cg")
    kernel.make("workers", enable=("memory", "pids"))
    kernel.make(WORKER, procs=range(P1, P1 + 8))
    proc = fake_proc(tmp_path, kernel)
    barrier = threading.Barrier(8)
    found, errors = [], []

    def start():
        try:
            barrier.wait()
            found.append(cgroups.detect(proc=proc, group="grp", fs=copy.copy(kernel)))
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=start) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and [b.version for b in found] == ["v2"] * 8, [b.reason for b in found]
    assert kernel.procs(WORKER) == [] and sorted(kernel.procs(f"{WORKER}/{LEAF}")) == list(range(P1, P1 + 8))
    assert Path(kernel.path(WORKER), "cgroup.subtree_control").read_text().split() == ["memory", "pids"]


def test_processes_forked_during_the_move_are_moved_too(tmp_path, kernel):
    # A process still in the worker's cgroup forks while the others are moved, and
    # again just before the controllers are enabled (the kernel then says EBUSY).
    kernel.hooks[("write", f"{WORKER}/{LEAF}/cgroup.procs")] = lambda: kernel._place(Path(kernel.path(WORKER)), P9)
    kernel.hooks[("write", f"{WORKER}/cgroup.subtree_control")] = \
        lambda: kernel._place(Path(kernel.path(WORKER)), P9 + 1)
    backend = cgroups.detect(proc=fake_proc(tmp_path, kernel), group="grp", fs=kernel)
    assert backend.version == "v2", backend.reason
    assert kernel.procs(WORKER) == []
    assert sorted(kernel.procs(f"{WORKER}/{LEAF}")) == [P1, P2, P3, P9, P9 + 1]


def test_a_process_gone_before_its_move_is_skipped(tmp_path, kernel):
    def p1_exits():
        Path(kernel.path(WORKER), "cgroup.procs").write_text(f"{P2} {P3}")

    kernel.hooks[("write", f"{WORKER}/{LEAF}/cgroup.procs")] = p1_exits  # just before P1's move
    assert cgroups.enable_v2_controllers(kernel.path(WORKER), kernel) == [P2, P3]


def test_an_empty_worker_cgroup_gets_no_leaf(tmp_path):
    # E.g. systemd's DelegateSubgroup= already keeps the worker's cgroup empty.
    kernel = FakeKernel(tmp_path / "cg")
    kernel.make("workers", enable=("memory", "pids"))
    kernel.make(WORKER)
    backend = cgroups.detect(proc=fake_proc(tmp_path, kernel), group="grp", fs=kernel)
    assert backend.version == "v2", backend.reason
    assert not Path(kernel.path(f"{WORKER}/{LEAF}")).exists()
    assert _shape(kernel.log)[0] == ("write", f"{WORKER}/cgroup.subtree_control", "+memory +pids")


def test_the_root_cgroup_is_never_emptied(tmp_path):
    # At the hierarchy's root the rule does not apply, and its processes are the host's.
    kernel = FakeKernel(tmp_path / "cg")
    kernel._place(kernel.root, P1)
    backend = cgroups.detect(proc=fake_proc(tmp_path, kernel, own=""), group="grp", fs=kernel)
    assert backend.version == "v2", backend.reason
    assert backend.parents == {"": kernel.path("grp")}
    assert kernel.procs("") == [P1] and not Path(kernel.path(LEAF)).exists()


@pytest.mark.parametrize("case", ["no pids controller", "threaded", "read-only", "move refused", "enable refused"])
def test_fallback_says_why_v2_cannot_be_used(tmp_path, case):
    kernel = FakeKernel(tmp_path / "cg", controllers=("cpu", "memory") if case == "no pids controller"
                        else ("cpu", "memory", "pids"))
    available = ("memory",) if case == "no pids controller" else ("memory", "pids")
    kernel.make("workers", enable=available)
    kernel.make(WORKER, procs=(P1, P2), type_="threaded" if case == "threaded" else "domain")
    if case == "read-only":
        kernel.fail[("mkdir", f"{WORKER}/{LEAF}")] = errno.EROFS
    if case == "move refused":
        kernel.fail[("write", f"{WORKER}/{LEAF}/cgroup.procs")] = errno.EACCES
    if case == "enable refused":
        kernel.fail[("write", f"{WORKER}/cgroup.subtree_control")] = errno.EACCES
    own = kernel.path(WORKER)
    backend = cgroups.detect(proc=fake_proc(tmp_path, kernel), group="grp", fs=kernel)
    assert backend.version is None
    expected = {
        "no pids controller": f"cgroup v2 at {own} lacks the pids controller (its cgroup.controllers: memory)",
        "threaded": f"cgroup v2 at {own} is of type 'threaded' (cgroup.type): memory and pids cannot be "
                    f"enabled in a threaded subtree",
        "read-only": f"cgroup v2 at {own} holds processes and no leaf cgroup can be made there to move them "
                     f"into (Read-only file system)",
        "move refused": f"cgroup v2 at {own}: cannot move process {P1} into {LEAF} (Permission denied)",
        "enable refused": f"cgroup v2 at {own}: enabling memory pids in cgroup.subtree_control failed "
                          f"(Permission denied) (its processes were moved into {LEAF} first)",
    }[case]
    assert backend.reason == f"{expected}; no cgroup v1 memory hierarchy"
    if case in ("no pids controller", "threaded", "read-only", "move refused"):
        assert kernel.procs(WORKER) == [P1, P2]  # nothing was moved
    assert not Path(own, "grp").exists()


def test_the_reason_reaches_every_report_with_the_rlimit_fallback(tmp_path, run_dir_base):
    ok, why = sandbox_available()
    if not ok:
        pytest.skip(f"the sandbox cannot run on this host: {why}")
    kernel = FakeKernel(tmp_path / "cg", controllers=("memory",))
    kernel.make("workers", enable=("memory",))
    kernel.make(WORKER, procs=(P1,))
    backend = cgroups.detect(proc=fake_proc(tmp_path, kernel), group="grp", fs=kernel)
    try:
        box = Sandbox(run_dir_base=str(run_dir_base), found_cgroups=backend, allow_rlimit_fallback=True)
    except SandboxUnavailable as e:
        pytest.skip(str(e))
    r = box.run("print('hello')\n", limits=LIMITS)
    assert r.exit_reason == "ok", show(r)
    text = "\n".join(r.limits)
    assert f"cgroups: none (cgroup v2 at {kernel.path(WORKER)} lacks the pids controller" in text
    assert "processes 64 (RLIMIT_NPROC, fallback: no writable cgroup;" in text
    assert r.sandbox["cgroups"] == "none"


def test_v2_sweeps_run_cgroups_of_dead_workers(tmp_path, kernel):
    backend = cgroups.detect(proc=fake_proc(tmp_path, kernel), group="grp", fs=kernel)
    dead = subprocess.Popen(["true"])
    dead.wait()
    stale, live = f"run-{dead.pid}-deadbeef0000", f"run-{os.getpid()}-feedface0000"
    kernel.mkdir(os.path.join(backend.parents[""], stale))
    kernel.mkdir(os.path.join(backend.parents[""], live))
    assert backend.sweep_stale() == [stale]
    assert not Path(backend.parents[""], stale).exists() and Path(backend.parents[""], live).exists()


def test_v1_in_use_says_why_v2_was_not(sandbox):
    backend = sandbox.cgroup_backend
    if backend.version != "v1" or not backend.passed_over:
        pytest.skip("for hosts whose memory and pids are on cgroup v1 beside a cgroup v2 mount")
    r = sandbox.run("print('hi')\n", limits=LIMITS)
    assert r.exit_reason == "ok", show(r)
    assert f"cgroup v1 used because {backend.passed_over}" in r.limits
    assert "cgroup v2" in backend.passed_over


# -- the host's real cgroup2 mount --

def _cgroup2_mount() -> str | None:
    try:
        mounts = cgroups.parse_mountinfo(Path("/proc/self/mountinfo").read_text())
    except OSError:
        return None
    return next((m.point for m in mounts if m.fstype == "cgroup2" and m.root == "/"), None)


def _empty_and_remove(top: Path) -> None:
    """Kill what the test put under `top` (only its own processes are there) and remove it."""
    for d, _dirs, _files in os.walk(top, topdown=False):
        kill = Path(d, "cgroup.kill")
        for _ in range(200):
            if not Path(d, "cgroup.procs").read_text().split():
                break
            if kill.exists():
                kill.write_text("1")
            else:
                for pid in Path(d, "cgroup.procs").read_text().split():
                    cgroups._kill_pid(int(pid))
            time.sleep(0.01)
        cgroups._rmdir_retry(d)


@pytest.fixture
def real_v2(tmp_path):
    """A cgroup of the test's own under the host's cgroup2 root; removed afterwards."""
    point = _cgroup2_mount()
    if point is None:
        pytest.skip("no cgroup2 hierarchy mounted here")
    top = Path(point, f"troubleshoot-v2-test-{os.getpid()}-{uuid.uuid4().hex[:8]}")
    try:
        top.mkdir()
    except OSError as e:
        pytest.skip(f"cannot make a cgroup under {point} ({e.strerror})")
    try:
        yield top
    finally:
        _empty_and_remove(top)


def _start(args, cgroup: Path | None = None, **kw) -> subprocess.Popen:
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, **kw)
    assert proc.stdout.readline().strip() == b"ready"
    if cgroup is not None:
        (cgroup / "cgroup.procs").write_text(str(proc.pid))
    return proc


THREADED_WORKER = [sys.executable, "-c",
                   "import threading, time\n"
                   "for _ in range(3):\n"
                   "    threading.Thread(target=time.sleep, args=(60,), daemon=True).start()\n"
                   "print('ready', flush=True)\n"
                   "time.sleep(60)\n"]
SLEEPER = [sys.executable, "-c", "import time; print('ready', flush=True); time.sleep(60)"]


def test_real_cgroup2_move_first_then_runs_beside_the_leaf(real_v2):
    # On this host's cgroup2 mount no controller can be had without changing the host's
    # root cgroup, so this runs the same steps with none: the move, the group, a run
    # cgroup, joining it, and killing it, all on the real kernel.
    own = real_v2 / "own"
    own.mkdir()
    worker = _start(THREADED_WORKER, own)
    other = _start(SLEEPER, own)
    try:
        threads = {int(t) for t in os.listdir(f"/proc/{worker.pid}/task")}
        backend = cgroups.v2_backend(str(own), "grp", controllers=())
        assert backend.parents == {"": str(own / "grp")}
        assert (own / "cgroup.procs").read_text().split() == []
        assert sorted(int(p) for p in (own / LEAF / "cgroup.procs").read_text().split()) == \
            sorted([worker.pid, other.pid])
        assert threads <= {int(t) for t in (own / LEAF / "cgroup.threads").read_text().split()}
        # Nothing left to do the second time, from another "process" either.
        assert cgroups.enable_v2_controllers(str(own), cgroups.CgroupFS(), ()) == []

        run = backend.create_run()
        child = _start(SLEEPER, preexec_fn=lambda: cgroups.join(run.procs_files))
        assert run.pids() == {child.pid}
        assert "cgroup.kill" in run.describe(MiB, 1)[-1]
        assert run.kill_all() is True
        assert child.wait(timeout=5) == -9
        run.remove()
        assert not Path(run.path).exists()
    finally:
        for p in (worker, other):
            p.kill()
            p.wait()


class _NoKillFile(cgroups.CgroupFS):
    """The real cgroup filesystem as a kernel before 5.14 shows it: no cgroup.kill."""

    def exists(self, path: str) -> bool:
        return os.path.basename(path) != "cgroup.kill" and super().exists(path)


def test_real_cgroup2_kill_by_freezing_where_cgroup_kill_is_missing(real_v2):
    backend = cgroups.v2_backend(str(real_v2), "grp", fs=_NoKillFile(), controllers=())
    run = backend.create_run()
    forker = [sys.executable, "-c",
              "import os, time\n"
              "if os.fork() == 0:\n"
              "    os.setsid()\n"
              "    time.sleep(60)\n"
              "print('ready', flush=True)\n"
              "time.sleep(60)\n"]
    proc = _start(forker, preexec_fn=lambda: cgroups.join(run.procs_files))
    for _ in range(200):
        if len(run.pids()) == 2:
            break
        time.sleep(0.01)
    assert len(run.pids()) == 2 and proc.pid in run.pids()
    assert "cgroup v2 freezer + SIGKILL" in run.describe(MiB, 1)[-1]
    assert run.kill_all() is True
    assert proc.wait(timeout=5) == -9
    assert (Path(run.path) / "cgroup.freeze").read_text().strip() == "0"
    run.remove()


def test_real_cgroup2_refuses_controllers_while_processes_are_inside(real_v2):
    available = (real_v2 / "cgroup.controllers").read_text().split()
    if not available:
        pytest.skip(f"no controller is enabled in {real_v2.parent}/cgroup.subtree_control (here memory and pids "
                    f"belong to cgroup v1); enabling one would change the host's root cgroup, which this "
                    f"test does not do")
    controller = available[0]
    own = real_v2 / "own"
    own.mkdir()
    worker = _start(SLEEPER, own)
    try:
        with pytest.raises(OSError) as e:
            (own / "cgroup.subtree_control").write_text(f"+{controller}")
        assert e.value.errno == errno.EBUSY
        backend = cgroups.v2_backend(str(own), "grp", controllers=(controller,))
        run = backend.create_run()
        assert controller in Path(run.path, "cgroup.controllers").read_text().split()
        run.remove()
    finally:
        worker.kill()
        worker.wait()
