"""Attacks on processes: daemons that try to outlive the run, killing the parent,
pid 1 and everything else."""

from __future__ import annotations

import os
import time
import uuid

from .sandbox_helpers import LIMITS, host_processes_with, limits, show

DAEMON = (
    "import os, signal, sys, time\n"
    "def daemon():\n"
    "    if os.fork():\n"
    "        return\n"
    "    os.setsid()\n"
    "    signal.signal(signal.SIGHUP, signal.SIG_IGN)\n"
    "    signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
    "    if os.fork():\n"
    "        os._exit(0)\n"
    "    os.closerange(0, 256)\n"
    "    os.execv('/usr/bin/sleep', ['sleep', '{seconds}.{token}'])\n"
    "daemon()\n"
    "time.sleep(0.5)\n"
    "print('parent done', flush=True)\n"
)


def _gone(token: str) -> bool:
    # The kernel tears a pid namespace down asynchronously; give it a moment.
    for _ in range(50):
        if not host_processes_with(token):
            return True
        time.sleep(0.02)
    return False


def test_attack_double_forked_daemon_outliving_the_run(contained):
    token = f"{int(uuid.uuid4().int % 10**9):09d}"
    r = contained.run(DAEMON.format(seconds=300, token=token), limits=LIMITS)
    assert r.exit_reason == "ok", show(r)
    assert "parent done" in r.output
    assert _gone(token), host_processes_with(token)


def test_attack_double_forked_daemon_with_timeout(contained):
    token = f"{int(uuid.uuid4().int % 10**9):09d}"
    code = DAEMON.format(seconds=300, token=token) + "time.sleep(600)\n"
    r = contained.run(code, limits=limits(wall_seconds=2))
    assert r.exit_reason == "timeout", show(r)
    assert _gone(token), host_processes_with(token)


def test_attack_kill_parent_and_pid_1(contained):
    code = (
        "import os, signal\n"
        "print('ppid', os.getppid(), flush=True)\n"
        "for target in (os.getppid(), 1):\n"
        "    try:\n"
        "        os.kill(target, signal.SIGKILL)\n"
        "    except OSError as e:\n"
        "        print('kill', target, 'failed', e.errno)\n"
        "import time; time.sleep(0.2)\n"
        "print('still here')\n"
    )
    r = contained.run(code, limits=LIMITS)
    # pid 1 of a pid namespace ignores signals from inside it: the run simply goes on
    assert r.exit_reason in ("ok", "killed"), show(r)
    assert r.exit_reason == "ok" and "still here" in r.output
    assert "ppid 1" in r.output
    assert os.getppid() > 0  # and the worker (this process) lives


def test_attack_kill_every_process_it_can_see(contained):
    code = (
        "import os, signal, time\n"
        "child = os.fork()\n"
        "if child == 0:\n"
        "    time.sleep(30)\n"
        "    os._exit(0)\n"
        "os.kill(-1, signal.SIGKILL)\n"  # every process it may signal but itself
        "print('child', os.waitpid(child, 0)[1] & 0x7f, 'survived kill -1', flush=True)\n"
        "os.kill(0, signal.SIGKILL)\n"  # its own process group: itself
    )
    r = contained.run(code, limits=LIMITS)
    assert r.exit_reason == "killed", show(r)
    assert "child 9 survived kill -1" in r.output


def test_attack_processes_are_invisible(contained):
    r = contained.run("import os\nprint(sorted(int(p) for p in os.listdir('/proc') if p.isdigit()), os.getpid())\n",
                      limits=LIMITS)
    # bwrap's pid 1 and the snippet, nothing of the host (and, in a warm sandbox, nothing
    # of the sibling that ran before: the snippet's pid is then not 2).
    seen, own = r.output.rsplit(" ", 1)
    assert seen == f"[1, {int(own)}]", show(r)
