"""Attacks on a warm sandbox (bot/sandbox/zygote.py): each test runs an attacking child
and then a sibling in the same zygote, and checks that the sibling finds nothing of the
attacker's and gets a true report. Most zygotes here preload nothing (fast to start);
the torch-specific ones preload torch as jobs do."""

from __future__ import annotations

import json
import time

import pytest

from bot.sandbox.limits import MiB
from bot.sandbox.warm import WarmRunner, ZygotePool
from bot.sandbox.zygote import WarmUnavailable, Zygote, preload_list

from .sandbox_helpers import LIMITS, limits, processes_in_cgroups

LOOK = """
import json, os
def listing(d):
    return sorted(os.listdir(d))
print(json.dumps({"tmp": listing("/tmp"), "home": listing("."), "shm": listing("/dev/shm"),
                  "procs": sorted(int(p) for p in os.listdir("/proc") if p.isdigit()),
                  "modes": [oct(os.stat(d).st_mode & 0o7777) for d in ("/tmp", ".", "/dev/shm")],
                  "shm_ipc": open("/proc/sysvipc/shm").read().splitlines()[1:],
                  "sem_ipc": open("/proc/sysvipc/sem").read().splitlines()[1:],
                  "msg_ipc": open("/proc/sysvipc/msg").read().splitlines()[1:]}))
"""


def look(zygote: Zygote) -> dict:
    result = zygote.run(LOOK)
    assert result.exit_reason == "ok", result.output
    return json.loads(result.output)


def assert_fresh(seen: dict) -> None:
    assert seen["tmp"] == [] and seen["shm"] == [], seen
    assert seen["home"] == ["snippet.py"], seen
    assert len(seen["procs"]) == 2 and 1 in seen["procs"], f"processes other than pid 1 and itself: {seen['procs']}"
    assert seen["modes"] == ["0o1777", "0o700", "0o1777"], seen
    assert seen["shm_ipc"] == seen["sem_ipc"] == seen["msg_ipc"] == [], seen


@pytest.fixture
def zygote(sandbox):
    with Zygote(sandbox, limits=LIMITS, preload=()) as z:
        yield z
    assert not processes_in_cgroups(sandbox), "a process of the zygote outlived it"


def test_files_left_in_tmp_home_and_shm_are_gone_for_the_next_child(zygote):
    attack = zygote.run("""
import os
for d in ("/tmp", ".", "/dev/shm"):
    os.makedirs(os.path.join(d, "deep/er"), exist_ok=True)
    open(os.path.join(d, "deep/er/left.txt"), "w").write("sibling data")
    open(os.path.join(d, ".hidden"), "w").write("x")
    os.symlink("/etc/passwd", os.path.join(d, "link"))
os.chmod("deep/er", 0)      # a folder nobody may enter
os.chmod("deep", 0o500)     # nor write
os.chmod("/tmp", 0)         # and the run folders themselves locked
os.chmod(".", 0o500)
print("left")
""")
    assert attack.exit_reason == "ok" and "left" in attack.output
    assert_fresh(look(zygote))


def test_a_daemon_left_by_a_child_is_killed_before_the_next_child_starts(zygote):
    attack = zygote.run("""
import os, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        while True:                      # keeps writing into the run folders
            try:
                open("/tmp/daemon", "a").write("x")
            except OSError:
                pass
            time.sleep(0.01)
    os._exit(0)
time.sleep(0.2)
print("daemon started")
""")
    assert attack.exit_reason == "ok"
    seen = look(zygote)
    assert_fresh(seen)
    time.sleep(0.1)
    assert_fresh(look(zygote))


def test_sysv_ipc_objects_left_by_a_child_are_removed(zygote):
    attack = zygote.run("""
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
IPC_CREAT = 0o1000
assert libc.shmget(0x1234, 4096, IPC_CREAT | 0o600) >= 0, ctypes.get_errno()
assert libc.semget(0x1235, 1, IPC_CREAT | 0o600) >= 0, ctypes.get_errno()
assert libc.msgget(0x1236, IPC_CREAT | 0o600) >= 0, ctypes.get_errno()
print(open("/proc/sysvipc/shm").read().count("\\n"))
""")
    assert attack.exit_reason == "ok", attack.output
    assert attack.output.strip() == "2"  # a header and the segment
    assert_fresh(look(zygote))


def test_posix_message_queues_are_refused(zygote):
    result = zygote.run("""
import ctypes, errno, os
librt = ctypes.CDLL("librt.so.1", use_errno=True)
fd = librt.mq_open(b"/left-for-a-sibling", os.O_CREAT | os.O_RDWR, 0o600, None)
print(fd, errno.errorcode.get(ctypes.get_errno()))
""")
    assert result.exit_reason == "ok", result.output
    assert result.output.split() == ["-1", "EPERM"]


def test_a_child_cannot_reach_the_supervisors_report_or_control_socket(zygote):
    attack = zygote.run("""
import os, socket, stat
found = []
for fd in range(3, 1024):
    try:
        st = os.fstat(fd)
    except OSError:
        continue
    found.append((fd, stat.S_IFMT(st.st_mode)))
    try:
        os.write(fd, b'{"supervisor": 1, "status": {"exited": 0, "signal": null, "core_dumped": false}}')
    except OSError:
        pass
    try:
        socket.socket(fileno=fd).send(b'{"done": true}')
    except OSError:
        pass
print("open descriptors:", [kind for _fd, kind in found])
raise SystemExit(7)
""")
    assert attack.exit_reason == "error" and attack.exit_code == 7, attack.output
    assert attack.error["type"] == "SystemExit"
    # Open beyond stdio: the child's own account (a memfd: a regular file) and nothing
    # else; no socket (the control channel), no second file (the supervisor's report).
    kinds = json.loads(attack.output.split("open descriptors:")[1].splitlines()[0])
    assert kinds == [0o100000], attack.output
    assert zygote.run("print('after')").output == "after\n"


def test_killing_pid_1_from_a_child_does_not_stop_the_zygote(zygote):
    attack = zygote.run("""
import os, signal
for sig in (signal.SIGKILL, signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGSTOP):
    try:
        os.kill(1, sig)
    except OSError as e:
        print(sig, e)
print("still here")
""")
    assert attack.exit_reason == "ok", attack.output
    assert zygote.run("print('sibling')").output == "sibling\n"


def test_sigusr1_to_the_supervisor_marks_only_the_child_that_sent_it(zygote):
    attack = zygote.run("import os, signal, time; os.kill(1, signal.SIGUSR1); time.sleep(0.05)")
    assert attack.reads_own_source is True
    assert zygote.run("print(1)").reads_own_source is False


def test_the_deadline_and_output_cap_are_per_child(zygote):
    slow = zygote.run("while True: pass", limits=limits(wall_seconds=1))
    assert slow.exit_reason == "timeout", slow.exit_detail
    loud = zygote.run("import sys\nwhile True: sys.stdout.write('x' * 4096)", limits=limits(output_bytes=8192))
    assert loud.exit_reason == "output_limit" and len(loud.output) == 8192
    quick = zygote.run("print('ok')")
    assert quick.exit_reason == "ok" and quick.output == "ok\n" and quick.wall_seconds < 5


def test_the_memory_limit_is_per_child(sandbox, zygote):
    if not sandbox.cgroup_backend.version:
        pytest.skip("no writable cgroup here: memory is a sandbox-wide rlimit, not per child")
    hog = zygote.run("x = bytearray(400 * 1024 * 1024)\nx[::4096] = b'1' * len(x[::4096])",
                     limits=limits(memory_bytes=128 * MiB))
    assert hog.exit_reason == "memory", hog.exit_detail
    assert any("128.0 MiB" in line for line in hog.limits), hog.limits
    assert zygote.run("x = bytearray(200 * 1024 * 1024)\nprint(len(x))").output == f"{200 * 1024 * 1024}\n"


def test_a_child_is_in_its_own_cgroup_before_its_first_line_runs(sandbox, zygote):
    if not sandbox.cgroup_backend.version:
        pytest.skip("no writable cgroup here")
    first = zygote.run("print(open('/proc/self/cgroup').read())").output
    second = zygote.run("print(open('/proc/self/cgroup').read())").output
    mine = [line for line in first.splitlines() if "memory" in line or line.startswith("0::")]
    assert mine and mine != [line for line in second.splitlines() if "memory" in line or line.startswith("0::")]


def test_files_are_given_to_their_run_only(zygote):
    first = zygote.run("print(open('data.txt').read())", files={"data.txt": b"for the first run"})
    assert first.output == "for the first run\n"
    assert_fresh(look(zygote))


@pytest.mark.parametrize("code", [
    "print('fine')",
    "raise ValueError('bad value')",
    "import sys; sys.exit(3)",
    "import sys; sys.exit('a message')",
    "import ctypes; ctypes.string_at(0)",
    "import os, signal; os.kill(os.getpid(), signal.SIGTERM)",
    "def f(:\n  pass",
])
def test_a_warm_run_reports_what_a_one_run_sandbox_reports(sandbox, zygote, code):
    warm, cold = zygote.run(code), sandbox.run(code, limits=LIMITS)
    for name in ("exit_reason", "exit_code", "signal", "reads_own_source"):
        assert getattr(warm, name) == getattr(cold, name), (name, warm, cold)
    assert (warm.error or {}).get("type") == (cold.error or {}).get("type")
    assert (warm.error or {}).get("message") == (cold.error or {}).get("message")
    assert warm.sandbox.get("warm") is True


def test_torch_is_imported_once_and_each_child_computes_on_its_own(sandbox):
    with Zygote(sandbox, limits=LIMITS) as z:
        assert z.preloaded == ["torch"]
        first = z.run("import sys, torch; print('torch' in sys.modules, torch.ones(2).sum().item())")
        second = z.run("import torch; torch.manual_seed(0); print(torch.randn(1).item())")
        third = z.run("import torch; torch.manual_seed(0); print(torch.randn(1).item())")
    assert first.output.split() == ["True", "2.0"]
    assert second.output == third.output  # no state of one child in the next


@pytest.fixture
def env_with_a_threaded_module(tmp_path) -> str:
    """A torch environment's folder (bot/envs) whose module `starts_thread` starts a
    Python thread when imported (its torch is an empty stand-in: not imported here)."""
    env = tmp_path / "site-packages"
    (env / "torch").mkdir(parents=True)
    (env / "torch" / "__init__.py").write_text("")
    (env / "starts_thread.py").write_text("import threading, time\n"
                                          "threading.Thread(target=time.sleep, args=(60,), daemon=True).start()\n")
    tmp_path.chmod(0o755)
    return str(env)


def test_a_preload_that_starts_a_thread_makes_the_zygote_unusable(sandbox, env_with_a_threaded_module):
    with Zygote(sandbox, limits=LIMITS, site_packages=env_with_a_threaded_module, preload=()) as z:
        with pytest.raises(WarmUnavailable, match="Python thread"):
            z.preload(["starts_thread"])
        with pytest.raises(WarmUnavailable):
            z.run("print(1)")


def test_the_runner_falls_back_to_a_sandbox_per_run_and_says_why(sandbox, env_with_a_threaded_module):
    with WarmRunner(preload=["starts_thread"], sandbox=sandbox, cold=sandbox.run) as run:
        result = run("print('cold')", limits=LIMITS, site_packages=env_with_a_threaded_module)
    assert result.output == "cold\n" and not result.sandbox.get("warm")
    assert any("not a warm one" in n and "thread" in n for n in result.notes), result.notes
    assert run.cold_runs == 1 and run.warm_runs == 0


def test_a_run_whose_rlimits_differ_gets_a_sandbox_of_its_own(sandbox):
    with WarmRunner(sandbox=sandbox, cold=sandbox.run) as run:
        warm = run("print(1)", limits=LIMITS)
        other = run("print(2)", limits=limits(tmp_bytes=16 * MiB))
    assert warm.sandbox.get("warm") is True and other.sandbox.get("warm") is None
    assert any("tmpfs" in n for n in other.notes)


def test_the_pool_hands_each_zygote_to_one_job_only(sandbox):
    pool = ZygotePool(size=1, sandbox=sandbox, limits=LIMITS)
    try:
        pool.prime()
        deadline = time.monotonic() + 60
        while pool.ready() < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        first = pool.take(None, None, LIMITS)
        second = pool.take(None, None, LIMITS)
        assert first is not None and second is not first
        assert first.run("print('job one')").output == "job one\n"
        first.close()
    finally:
        pool.close()
    assert not processes_in_cgroups(sandbox)


def test_the_preload_list_holds_installed_libraries_only():
    code = "import torch\nimport torch.nn as nn\nfrom numpy import array\nimport mymodule\nimport os\n" \
           "from . import local\nif True:\n    import scipy\n"
    assert preload_list(code) == ["torch", "torch.nn", "numpy"]
    assert preload_list("def broken(:") == []


def test_without_cgroups_a_childs_daemon_and_deadline_are_still_its_own(sandbox_without_cgroups):
    with Zygote(sandbox_without_cgroups, limits=LIMITS, preload=()) as z:
        slow = z.run("import os, time\nif os.fork() == 0:\n    os.setsid()\n    while True: time.sleep(1)\n"
                     "while True: pass", limits=limits(wall_seconds=1))
        assert slow.exit_reason == "timeout", slow.exit_detail
        assert any("supervisor's sweep" in line for line in slow.limits), slow.limits
        assert_fresh(look(z))
