"""Attacks on the filesystem: writing to the system and to site-packages, leaving files
for the next run, filling the disk."""

from __future__ import annotations

import os
import socket
import sys
import sysconfig
import uuid

from .sandbox_helpers import LIMITS, limits, show
from bot.sandbox.limits import MiB


def test_attack_write_system_paths_and_site_packages(contained):
    name = f"evil-{uuid.uuid4().hex}"
    base_site = sysconfig.get_paths()["purelib"]  # the running interpreter's site-packages (the venv)
    targets = [
        f"/usr/lib/{name}", f"/bin/{name}", f"/etc/{name}", "/etc/passwd", f"/{name}",
        f"/opt/troubleshoot/venv/lib/python3.11/site-packages/{name}.pth", "/opt/troubleshoot/harness.py",
        f"{sys.base_prefix}/lib/python3.11/{name}.py", f"{sys.base_prefix}/lib/python3.11/os.py",
        f"/run/troubleshoot/{name}", f"/proc/sys/kernel/{name}", "/proc/sys/vm/drop_caches",
        "/proc/sys/kernel/core_pattern", "/proc/sysrq-trigger",
    ]
    code = (
        "import os\n"
        f"for p in {targets!r}:\n"
        "    try:\n"
        "        with open(p, 'a'):\n"  # opening for writing is the test: nothing is written,
        "            pass\n"  # so a failure here would not change the host's kernel settings
        "        print('WROTE', p)\n"
        "    except OSError as e:\n"
        "        print('denied', p, e.errno)\n"
        f"for d in ['/usr/lib', '/opt/troubleshoot/venv/lib/python3.11/site-packages', '/']:\n"
        "    try:\n"
        f"        os.mkdir(d + '/{name}-dir')\n"
        "        print('WROTE', d)\n"
        "    except OSError as e:\n"
        "        print('denied mkdir', d, e.errno)\n"
    )
    r = contained.run(code, limits=LIMITS)
    assert r.exit_reason == "ok", show(r)
    assert "WROTE" not in r.output, r.output
    assert r.output.count("denied") == len(targets) + 3
    # and nothing changed on the host
    assert "|" not in open("/proc/sys/kernel/core_pattern").read()
    for p in (f"/usr/lib/{name}", f"{base_site}/{name}.pth", f"{sys.base_prefix}/lib/python3.11/{name}.py"):
        assert not os.path.exists(p)


def test_attack_leave_files_for_the_next_run(contained):
    token = uuid.uuid4().hex
    places = ["/tmp", "/dev/shm", "/home/sandbox", "/var/tmp"]
    plant = (
        "import os\n"
        f"for d in {places!r}:\n"
        "    try:\n"
        f"        open(d + '/{token}', 'w').write('left behind')\n"
        "        print('planted', d)\n"
        "    except OSError as e:\n"
        "        print('cannot plant', d, e.errno)\n"
    )
    first = contained.run(plant, limits=LIMITS)
    assert first.output.count("planted") == 3, show(first)  # /var/tmp does not exist: read-only root
    look = (
        "import os\n"
        f"for d in {places!r}:\n"
        f"    print(d, os.path.exists(d + '/{token}'), sorted(os.listdir(d)) if os.path.isdir(d) else None)\n"
    )
    second = contained.run(look, limits=LIMITS)
    assert "True" not in second.output, second.output
    assert "/tmp False []" in second.output
    assert "/home/sandbox False ['snippet.py']" in second.output


def test_attack_disk_fill(contained):
    code = (
        "import errno, os\n"
        "written = {}\n"
        "for d in ('/tmp', '/dev/shm', '/home/sandbox'):\n"
        "    n = 0\n"
        "    try:\n"
        "        for i in range(10000):\n"
        "            with open(f'{d}/fill{i}', 'wb') as f:\n"
        "                for _ in range(16):\n"
        "                    f.write(b'x' * (1 << 20))\n"
        "                    n += 1\n"
        "    except OSError as e:\n"
        "        written[d] = (n, e.errno)\n"
        "print(written)\n"
        "fs = {l.split()[4]: l.split(' - ')[1].split()[0] for l in open('/proc/self/mountinfo')}\n"
        "print({d: (fs[d], os.statvfs(d).f_blocks * os.statvfs(d).f_frsize >> 20) for d in written})\n"
        "open('/tmp/one-more', 'wb').write(b'x' * (1 << 20))\n"
    )
    r = contained.run(code, limits=limits(tmp_bytes=24 * MiB, file_size_bytes=1024 * MiB))
    assert r.exit_reason == "error", show(r)
    assert r.error["type"] == "OSError" and "No space left on device" in r.error["message"]
    assert r.error["snippet_line"] == 16
    # each place is a 24 MiB tmpfs (memory of this run, not the host's disk) that said ENOSPC (28)
    written, filesystems = r.output.splitlines()[:2]
    assert written.count(", 28)") == 3 and ("(23, 28)" in written or "(24, 28)" in written), r.output
    assert filesystems == "{'/tmp': ('tmpfs', 24), '/dev/shm': ('tmpfs', 24), '/home/sandbox': ('tmpfs', 24)}"


def test_attack_file_size_limit(contained):
    r = contained.run("open('/tmp/big', 'wb').write(b'x' * (8 << 20))\n",
                      limits=limits(file_size_bytes=4 * MiB))
    assert r.exit_reason == "error"
    assert r.error["type"] == "OSError" and "File too large" in r.error["message"]


def test_attack_hostname_change_stays_in_the_sandbox(contained):
    # The sandbox has a UTS namespace of its own: it may rename itself, not the host.
    host_name = socket.gethostname()
    code = "open('/proc/sys/kernel/hostname', 'w').write('pwned')\nimport socket\nprint(socket.gethostname())\n"
    try:
        r = contained.run(code, limits=LIMITS)
    finally:
        changed = socket.gethostname() != host_name
        if changed:  # put it back before failing
            socket.sethostname(host_name)
    assert not changed
    assert r.output in ("pwned\n", "") or r.exit_reason == "error", show(r)
