"""What a run sees: its own namespaces, an unprivileged user (inside and on the host),
a read-only root holding only what the interpreter needs."""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import threading
import time

import pytest

from bot.sandbox import bwrap, privileges

from .sandbox_helpers import LIMITS, processes_in_cgroups, show

INSPECT = (
    "import os, json, pwd\n"
    "ns = {n: os.readlink(f'/proc/self/ns/{n}') for n in ('user', 'pid', 'net', 'ipc', 'uts', 'mnt', 'cgroup')}\n"
    "mounts = [l.split()[4] for l in open('/proc/self/mountinfo')]\n"
    "print(json.dumps({'ns': ns, 'uid': os.getuid(), 'gid': os.getgid(), 'groups': os.getgroups(),\n"
    "    'user': pwd.getpwuid(os.getuid()).pw_name, 'home': os.path.expanduser('~'), 'cwd': os.getcwd(),\n"
    "    'hostname': os.uname().nodename, 'mounts': mounts, 'root': sorted(os.listdir('/')),\n"
    "    'uid_map': open('/proc/self/uid_map').read().split(), 'cgroup': open('/proc/self/cgroup').read(),\n"
    "    'status': [l for l in open('/proc/self/status') if l.startswith(('Cap', 'NoNewPrivs', 'Seccomp:'))]}))\n"
)


def inspect(box) -> dict:
    r = box.run(INSPECT, limits=LIMITS)
    assert r.exit_reason == "ok", show(r)
    return json.loads(r.output)


def test_every_namespace_is_new(contained):
    seen = inspect(contained)
    for name, link in seen["ns"].items():
        assert link != os.readlink(f"/proc/self/ns/{name}"), name
    assert seen["cgroup"].strip().endswith(":/")  # its own cgroup namespace
    assert seen["hostname"] == "sandbox"


def test_unprivileged_user_without_capabilities(contained):
    seen = inspect(contained)
    assert (seen["uid"], seen["gid"], seen["user"]) == (65534, 65534, "sandbox")
    assert seen["home"] == seen["cwd"] == "/home/sandbox"
    caps = {line.split(":")[0]: line.split()[1] for line in seen["status"]}
    assert all(caps[c] == "0000000000000000" for c in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"))
    assert caps["NoNewPrivs"] == "1" and caps["Seccomp"] == "2"


def test_the_host_sees_the_sandbox_as_an_unprivileged_user(contained):
    # The kernel checks file owners against the host uid: it must never be root.
    if contained.cgroup_backend.version is None:
        pytest.skip("finds the run's processes through its cgroup")
    seen: dict[int, str] = {}
    done = threading.Event()

    def watch():
        while not done.is_set():
            for pid in processes_in_cgroups(contained):
                try:
                    uid_line = next(line for line in open(f"/proc/{pid}/status") if line.startswith("Uid:"))
                    seen[pid] = uid_line.split()[1:]
                except (OSError, StopIteration):
                    pass
            time.sleep(0.02)

    t = threading.Thread(target=watch)
    t.start()
    try:
        r = contained.run("import time\ntime.sleep(1)\n", limits=LIMITS)
    finally:
        done.set()
        t.join()
    assert r.exit_reason == "ok"
    assert len(seen) >= 2, seen  # bwrap and the snippet at least
    expected = ["65534"] * 4 if os.geteuid() == 0 else [str(os.geteuid())] * 4
    assert all(uids == expected for uids in seen.values()), seen


def test_root_holds_only_what_the_interpreter_needs(contained):
    seen = inspect(contained)
    assert set(seen["root"]) <= {"usr", "bin", "lib", "lib64", "lib32", "libx32", "sbin", "etc", "proc", "dev", "tmp",
                                 "home", "opt", "run", "root"}
    mounts = seen["mounts"]
    assert not any(m.startswith(("/work", "/usr/local", "/sys", "/var")) for m in mounts), mounts
    assert all(not m.startswith("/root") or m == os.path.realpath(sys.base_prefix) for m in mounts), mounts


def test_python_install_found_from_sys_base_prefix():
    layout = bwrap.discover_host()
    assert layout.python_prefix == os.path.realpath(sys.base_prefix)
    assert layout.python_exe.startswith(layout.python_prefix)
    if sys.prefix != sys.base_prefix:
        assert layout.site_packages and all("site-packages" in p for p in layout.site_packages)
    assert "/usr/local" not in layout.usr_dirs


def test_reachable_by_follows_the_permission_bits():
    base = tempfile.mkdtemp(prefix="reach-")
    try:
        os.chmod(base, 0o755)
        os.mkdir(os.path.join(base, "private"), 0o700)
        os.mkdir(os.path.join(base, "open"), 0o755)
        os.mkdir(os.path.join(base, "walk-only"), 0o711)
        assert privileges.reachable_by(os.path.join(base, "open"), 65534, 65534)
        assert not privileges.reachable_by(os.path.join(base, "private"), 65534, 65534)
        assert not privileges.reachable_by(os.path.join(base, "walk-only"), 65534, 65534)
        assert privileges.reachable_by(os.path.join(base, "walk-only"), 65534, 65534, list_it=False)
    finally:
        shutil.rmtree(base)
    assert privileges.reachable_by("/usr/lib", 65534, 65534)
    assert privileges.reachable_by("/etc/ld.so.cache", 65534, 65534) == os.access("/etc/ld.so.cache", os.R_OK)
    if os.stat("/root").st_mode & 0o005 == 0:
        assert not privileges.reachable_by("/root", 65534, 65534)
