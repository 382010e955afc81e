"""cgroup detection and the rlimit fallback where no cgroup can be written."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from bot.sandbox import Sandbox, cgroups
from bot.sandbox.limits import MiB

from .sandbox_helpers import LIMITS, host_processes_with, limits, show

MOUNTINFO = """\
25 30 0:22 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw
33 25 0:28 / /sys/fs/cgroup ro,nosuid,nodev,noexec shared:9 - tmpfs tmpfs ro,mode=755
35 33 0:30 / /sys/fs/cgroup/unified rw,nosuid,nodev,noexec,relatime shared:10 - cgroup2 cgroup2 rw
38 33 0:33 / /sys/fs/cgroup/memory rw,nosuid,nodev,noexec,relatime shared:13 - cgroup cgroup rw,memory
39 33 0:34 /docker/abc /sys/fs/cgroup/pids rw,nosuid,nodev,noexec,relatime shared:14 - cgroup cgroup rw,pids
40 33 0:35 / /sys/fs/cgroup/cpu\\040acct rw - cgroup cgroup rw,cpu,cpuacct
"""


def test_parse_mountinfo():
    mounts = cgroups.parse_mountinfo(MOUNTINFO)
    by_point = {m.point: m for m in mounts}
    assert by_point["/sys/fs/cgroup/unified"].fstype == "cgroup2"
    assert "memory" in by_point["/sys/fs/cgroup/memory"].super_options
    assert by_point["/sys/fs/cgroup/pids"].root == "/docker/abc"
    assert "/sys/fs/cgroup/cpu acct" in by_point


def test_parse_proc_cgroup():
    own = cgroups.parse_proc_cgroup("8:pids:/docker/abc/x\n4:memory:/a/b\n2:cpu,cpuacct:/c\n0::/user.slice\n")
    assert own == {"pids": "/docker/abc/x", "memory": "/a/b", "cpu": "/c", "cpuacct": "/c", "": "/user.slice"}
    assert cgroups._relative("/docker/abc/x", "/docker/abc") == "x"
    assert cgroups._relative("/a/b", "/") == "a/b"


def test_detection_on_this_host_names_what_it_found(sandbox):
    backend = sandbox.cgroup_backend
    if backend.version is None:
        pytest.skip(f"no writable cgroup here: {backend.reason}")
    assert backend.version in ("v1", "v2")
    assert backend.reason.startswith(f"cgroup {backend.version} at ")
    if backend.version == "v1":
        assert {"memory", "pids"} <= set(backend.parents)


def test_detection_without_permission_gives_a_reason(tmp_path):
    proc = tmp_path / "proc"
    proc.mkdir()
    (proc / "mountinfo").write_text(MOUNTINFO.replace("/sys/fs/cgroup", str(tmp_path / "nowhere")))
    (proc / "cgroup").write_text("4:memory:/\n8:pids:/docker/abc\n0::/\n")
    backend = cgroups.detect(proc=str(proc))
    assert backend.version is None
    assert "cgroup v2" in backend.reason and "cgroup v1" in backend.reason


def test_run_cgroup_is_made_limited_and_removed(sandbox):
    backend = sandbox.cgroup_backend
    if backend.version != "v1":
        pytest.skip("checks the cgroup v1 files of this host")
    run = backend.create_run()
    try:
        run.set_limits(300 * MiB, 17)
        assert int(Path(run.dirs["memory"], "memory.limit_in_bytes").read_text()) == 300 * MiB
        assert Path(run.dirs["pids"], "pids.max").read_text().strip() == "17"
        assert run.pids() == set() and not run.oom_killed()
    finally:
        run.remove()
    assert not any(os.path.exists(d) for d in run.dirs.values())


def test_fallback_without_cgroups_uses_rlimits_and_says_so(sandbox_without_cgroups):
    r = sandbox_without_cgroups.run("chunks = []\nwhile True:\n    chunks.append(bytearray(32 << 20))\n",
                                    limits=limits(memory_bytes=256 * MiB))
    assert r.exit_reason == "memory", show(r)
    assert r.error["type"] == "MemoryError"
    text = "\n".join(r.limits)
    assert "memory 256.0 MiB (RLIMIT_AS address space, fallback: no writable cgroup; tmpfs pages" in text
    assert "processes 64 (RLIMIT_NPROC, fallback: no writable cgroup; one budget for every process" in text
    assert "cpu bandwidth: NOT limited" in text
    assert "cgroups: none (cgroups turned off)" in text
    assert r.sandbox["cgroups"] == "none"


def test_fallback_without_cgroups_still_kills_daemons(sandbox_without_cgroups):
    token = "7" + str(os.getpid()).zfill(8)
    code = (
        "import os, time\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    if os.fork() == 0:\n"
        f"        os.execv('/usr/bin/sleep', ['sleep', '300.{token}'])\n"
        "    os._exit(0)\n"
        "time.sleep(0.3)\n"
    )
    r = sandbox_without_cgroups.run(code, limits=LIMITS)
    assert r.exit_reason == "ok", show(r)
    import time
    for _ in range(50):
        if not host_processes_with(token):
            break
        time.sleep(0.02)
    assert host_processes_with(token) == []


def test_fallback_process_limit_holds_without_cgroups(sandbox_without_cgroups):
    # Bounded on purpose (200 at most): should the limit not hold, this is no fork bomb.
    code = (
        "import os, time\n"
        "children = 0\n"
        "try:\n"
        "    for _ in range(200):\n"
        "        if os.fork() == 0:\n"
        "            time.sleep(20)\n"
        "            os._exit(0)\n"
        "        children += 1\n"
        "except OSError as e:\n"
        "    print('stopped after', children, type(e).__name__)\n"
    )
    r = sandbox_without_cgroups.run(code, limits=limits(max_processes=20))
    assert r.exit_reason == "ok", show(r)
    assert "BlockingIOError" in r.output, r.output
    assert int(r.output.split()[2]) < 20


def test_leftovers_of_a_dead_worker_are_swept(sandbox, run_dir_base, cgroup_group):
    backend = sandbox.cgroup_backend
    if backend.version is None:
        pytest.skip("no cgroups here")
    dead = subprocess.Popen(["true"])
    dead.wait()
    stale, live = f"run-{dead.pid}-deadbeef0000", f"run-{os.getpid()}-feedface0000"
    for parent in backend.parents.values():
        os.mkdir(os.path.join(parent, stale))
        os.mkdir(os.path.join(parent, live))
    stale_dir = run_dir_base / f"troubleshoot-run-{dead.pid}-x1"
    live_dir = run_dir_base / f"troubleshoot-run-{os.getpid()}-x2"
    stale_dir.mkdir()
    (stale_dir / "result.json").write_text("{}")
    live_dir.mkdir()
    try:
        Sandbox(run_dir_base=str(run_dir_base), cgroup_group=cgroup_group)  # sweeps on start
        for parent in backend.parents.values():
            assert not os.path.exists(os.path.join(parent, stale))
            assert os.path.exists(os.path.join(parent, live))
        assert not stale_dir.exists() and live_dir.exists()
    finally:
        for parent in backend.parents.values():
            os.rmdir(os.path.join(parent, live))
        live_dir.rmdir()
