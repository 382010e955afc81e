"""The supervisor fails closed (issue 27): pid 1 of the sandbox handles no fatal signal
(no faulthandler, no torch handler), so a storm of them from the snippet is dropped by the
kernel; a supervisor lost anyway is reported as lost, never as "not reproduced"; the sweep
between warm runs empties a folder thousands deep without recursion, and a fallback to a
sandbox per run always says why."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from pathlib import Path

import pytest

from bot.sandbox.zygote import Zygote

from .sandbox_helpers import LIMITS, limits

pytestmark = pytest.mark.requires_sandbox

FATAL = (signal.SIGSEGV, signal.SIGILL, signal.SIGBUS, signal.SIGFPE, signal.SIGABRT)

STORM = f"""
import os, json
def caught(pid):
    for line in open(f"/proc/{{pid}}/status"):
        if line.startswith("SigCgt:"):
            mask = int(line.split()[1], 16)
            return sorted(s for s in {list(map(int, FATAL))} if mask >> (s - 1) & 1)
print(json.dumps({{"pid1": caught(1), "child": caught("self")}}), flush=True)
sent = 0
for _ in range(300):
    for sig in {list(map(int, FATAL))}:
        try:
            os.kill(1, sig)
            sent += 1
        except OSError:
            pass
print("sent", sent)
"""


def _storm_checks(result) -> dict:
    assert result.exit_reason == "ok", result.output
    seen = json.loads(result.output.splitlines()[0])
    assert "sent 1500" in result.output
    return seen


def test_a_fatal_signal_storm_cannot_touch_a_warm_supervisor_with_torch(sandbox):
    """torch is preloaded in pid 1, as for every job: pid 1 handles none of the fatal
    signals, the child has faulthandler's, and the next sibling runs in the same zygote."""
    with Zygote(sandbox, limits=LIMITS) as zygote:
        assert zygote.preloaded == ["torch"]
        seen = _storm_checks(zygote.run(STORM))
        assert seen["pid1"] == [], f"pid 1 handles fatal signals {seen['pid1']}"
        assert seen["child"] == sorted(map(int, FATAL))  # faulthandler in the child only
        for _ in range(2):
            _storm_checks(zygote.run(STORM))
        assert not zygote.broken
        assert zygote.run("import torch; print(torch.ones(2).sum().item())").output == "2.0\n"


def test_a_fatal_signal_storm_cannot_kill_a_one_run_supervisor(sandbox):
    seen = _storm_checks(sandbox.run(STORM, limits=LIMITS))
    assert seen["pid1"] == []


def _descendants(root: int) -> list[int]:
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path("/proc", entry, "stat").read_text()
            except OSError:
                continue
            parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        kids = [p for p, parent in parents.items() if parent == pid]
        found += kids
        todo += kids
    return found


def _kill_supervisor_when_started(marker: str) -> threading.Thread:
    """From the host (a fault, as a crash would be): SIGKILL the sandbox's pid 1 (the
    harness) of this test process's sandbox once its snippet printed it started."""
    def kill() -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            for pid in _descendants(os.getpid()):
                try:
                    cmdline = Path("/proc", str(pid), "cmdline").read_bytes()
                    nspid = next(line for line in Path("/proc", str(pid), "status").read_text().splitlines()
                                 if line.startswith("NSpid:")).split()
                except (OSError, StopIteration):
                    continue
                if b"harness.py" in cmdline and nspid[-1] == "1" and len(nspid) > 2 and _started(pid, marker):
                    os.kill(pid, signal.SIGKILL)
                    return
            time.sleep(0.05)

    thread = threading.Thread(target=kill, daemon=True)
    thread.start()
    return thread


def _started(supervisor: int, marker: str) -> bool:
    """The supervisor's child exists (the snippet is running)."""
    return any(True for _ in _descendants(supervisor))


def test_a_lost_supervisor_is_reported_as_lost_never_as_not_reproduced(sandbox, tmp_path):
    from bot.cli.verify import stop_unless_verified
    from bot.errors import Unavailable
    from bot.verify import verify_snippet

    code = "import time\nprint('started', flush=True)\ntime.sleep(20)\nraise RuntimeError('never seen')\n"

    def runner(snippet, **options):
        options.pop("gpu", None)
        killer = _kill_supervisor_when_started("started")
        try:
            return sandbox.run(snippet, limits=limits(wall_seconds=25), **options)
        finally:
            killer.join(timeout=1)

    result = runner(code)
    assert result.supervisor_lost is True and result.exit_reason == "killed", result.to_dict()
    assert any("supervisor was lost" in note for note in result.notes)
    report = verify_snippet(code, runner=runner)
    assert report.supervisor_lost is True and report.reproduced is False
    assert "supervisor was lost" in report.summary and "does not reproduce" not in report.summary
    with pytest.raises(Unavailable):
        stop_unless_verified(report)
    # And it is no evidence: nothing is stored, and nothing counts as a failure to store.
    from sqlalchemy import func, select

    from bot.evidence.record import Recording
    from bot.store import open_store
    from bot.store.models import Verification

    store = open_store(f"sqlite:///{tmp_path / 'evidence.db'}")
    recording = Recording("cli", asker="a", store=store)
    assert recording.save(report, code) is None and recording.failed == 0
    with store.session() as session:
        assert session.scalar(select(func.count()).select_from(Verification)) == 0
    store.engine.dispose()


DEEP = """
import os
for top in ("/tmp", os.getcwd()):
    os.chdir(top)
    for _ in range({depth}):
        os.mkdir("d")
        os.chdir("d")
    open("bottom", "w").write("x")
    os.chmod(".", 0o500)
print("deep")
"""


def test_a_folder_thousands_deep_is_swept_and_the_zygote_stays_warm(sandbox):
    with Zygote(sandbox, limits=LIMITS, preload=()) as zygote:
        attack = zygote.run(DEEP.format(depth=3000))
        assert attack.exit_reason == "ok", attack.output
        look = zygote.run("import os; print(sorted(os.listdir('/tmp')), sorted(os.listdir('.')))")
        assert look.output == "[] ['snippet.py']\n", look.output
        assert not zygote.broken


def test_a_fallback_to_a_sandbox_per_run_always_names_its_reason():
    from bot.sandbox.warm import _reason
    from bot.sandbox.zygote import WarmUnavailable

    assert _reason(WarmUnavailable()) == "WarmUnavailable (no message)"
    assert _reason(RecursionError("maximum recursion depth exceeded")) == "maximum recursion depth exceeded"


def test_dev_is_read_only_and_dev_shm_is_its_own_bounded_mount(contained):
    """A marker left in /dev reached later siblings, and 5 runs pinned 945 MiB there."""
    result = contained.run("""
import errno, os
try:
    open("/dev/marker", "w").write("for a sibling")
    print("dev writable")
except OSError as e:
    print("dev", errno.errorcode[e.errno])
open("/dev/null", "w").write("fine")
open("/dev/shm/x", "w").write("fine")
st = os.statvfs("/dev/shm")
print("shm", st.f_blocks * st.f_frsize)
""", limits=LIMITS)
    assert result.exit_reason == "ok", result.output
    assert "dev EROFS" in result.output and "dev writable" not in result.output
    assert f"shm {LIMITS.tmp_bytes}" in result.output


SNOOP = """
import sys, types
MARK = "zq-marker-27"
found = []
frame = sys._getframe(0).f_back
while frame is not None:
    for name, value in list(frame.f_locals.items()):
        values = value if isinstance(value, (list, tuple)) else [value]
        for v in values:
            if isinstance(v, types.CodeType) or (isinstance(v, str) and MARK in v):
                found.append(name)
    frame = frame.f_back
print("found", found)
"""


def test_no_frame_the_snippet_can_reach_holds_its_code_or_source(contained):
    """The attack read the harness's compiled code through sys._getframe(0).f_back.f_locals
    and told the original from its variants by it."""
    result = contained.run(SNOOP, limits=LIMITS)
    assert result.exit_reason == "ok", result.output
    assert "found []" in result.output, result.output


FLOOD = """
import os
made = 0
try:
    for i in range(3_000_000):
        os.close(os.open(f"{folder}/f{{i}}", os.O_CREAT | os.O_WRONLY, 0o600))
        made += 1
    print("made", made)
except OSError as e:
    print("stopped by", e, "after", made)
"""


@pytest.mark.parametrize("folder", ["/tmp", ".", "/dev/shm"])
def test_a_flood_of_empty_files_ends_as_a_memory_exit(contained, folder):
    """Empty files cost no tmpfs bytes, only kernel memory (inodes, dentries): a million
    of them grew the host's slab beyond every tmpfs cap. bwrap cannot set nr_inodes on its
    tmpfs mounts; what bounds them is the run's memory cgroup, which is charged the kernel
    memory of every file the run makes: the flood ends as `memory`, cleanly."""
    result = contained.run(FLOOD.format(folder=folder), limits=limits(memory_bytes=128 * 1024 * 1024,
                                                                      wall_seconds=60))
    assert result.exit_reason == "memory", (result.exit_reason, result.exit_detail, result.output[-300:])
    assert result.supervisor_lost is False
