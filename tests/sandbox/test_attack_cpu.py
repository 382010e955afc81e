"""Attacks on CPU time: a run that keeps several CPUs busy is held to its CPU quota
(cgroup cpu.max / cfs_quota), and the report says how much CPU it used, as the host
measured it. Where no cgroup can be written, runs are refused unless a setting allows
the rlimit fallback."""

from __future__ import annotations

import pytest

from bot.sandbox import Sandbox, SandboxUnavailable

from .sandbox_helpers import limits, show

BURN = (
    "import os, time\n"
    "end = time.monotonic() + 3\n"
    "for _ in range(3):\n"
    "    if os.fork() == 0:\n"
    "        while time.monotonic() < end:\n"
    "            pass\n"
    "        os._exit(0)\n"
    "while time.monotonic() < end:\n"
    "    pass\n"
    "for _ in range(3):\n"
    "    os.wait()\n"
    "print('burnt')\n"
)


def test_attack_cpu_burn_is_held_to_the_quota(contained):
    if not any(name in contained.cgroup_backend.parents for name in ("cpu", "")):
        pytest.skip("no cgroup cpu controller here")
    r = contained.run(BURN, limits=limits(cpus=0.5, wall_seconds=20))
    assert r.exit_reason == "ok" and "burnt" in r.output, show(r)
    assert any("cpu 0.5 CPU (cgroup" in line for line in r.limits), r.limits
    # 4 busy processes for 3 s of wall time: 12 CPU-seconds unlimited, 2 cores here; at
    # half a CPU about 1.5 s (the last wall second can be spent waiting for the others).
    assert r.cpu_seconds is not None and r.cpu_seconds <= 0.5 * r.wall_seconds + 0.5, show(r)


def test_cpu_seconds_are_the_hosts_measure(contained):
    r = contained.run("import time\nend = time.process_time() + 0.5\nwhile time.process_time() < end:\n    pass\n",
                      limits=limits(cpus=1))
    assert r.exit_reason == "ok", show(r)
    assert 0.4 <= r.cpu_seconds <= r.wall_seconds + 0.2, show(r)


def test_rlimit_fallback_is_refused_by_default(run_dir_base, monkeypatch):
    monkeypatch.delenv("TROUBLESHOOT_SANDBOX_RLIMIT_FALLBACK", raising=False)
    try:
        box = Sandbox(run_dir_base=str(run_dir_base), use_cgroups=False)
    except SandboxUnavailable as e:
        pytest.skip(str(e))
    with pytest.raises(SandboxUnavailable) as info:
        box.run("print('never runs')")
    text = str(info.value)
    assert "no writable cgroup here (cgroups turned off)" in text
    assert "RLIMIT_AS" in text and "RLIMIT_NPROC" in text and "TROUBLESHOOT_SANDBOX_RLIMIT_FALLBACK=1" in text
    monkeypatch.setenv("TROUBLESHOOT_SANDBOX_RLIMIT_FALLBACK", "1")
    allowed = Sandbox(run_dir_base=str(run_dir_base), use_cgroups=False)
    r = allowed.run("print('runs')", limits=limits())
    assert r.exit_reason == "ok" and "rlimit fallback allowed" in "\n".join(r.limits), show(r)
