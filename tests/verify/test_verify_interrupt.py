"""Ctrl-C during `troubleshoot verify` (issue 19): every running sandbox is killed at
once, the runs clean up, and the command exits 130 with one line, however often Ctrl-C
is pressed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _bwrap_children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        comm = stat[stat.index("(") + 1:stat.rindex(")")]
        ppid = int(stat[stat.rindex(")") + 2:].split()[1])
        if ppid == pid and comm == "bwrap":
            found.append(int(entry))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.slow
@pytest.mark.parametrize("presses", [1, 3])
def test_ctrl_c_kills_the_sandboxes_at_once(sandbox_runner, tmp_path, presses):
    snippet = tmp_path / "slow.py"
    snippet.write_text("import time\ntime.sleep(120)\n")
    env = {**os.environ, "PYTHONPATH": str(REPO), "TROUBLESHOOT_RECORD_ASK": "0"}
    proc = subprocess.Popen([sys.executable, "-m", "bot.cli", "verify", str(snippet), "--no-record"], cwd=REPO,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        children: list[int] = []
        while not children and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.2)
            children = _bwrap_children(proc.pid)
        assert children, "the sandbox never started"
        time.sleep(0.5)
        started = time.monotonic()
        for _ in range(presses):
            proc.send_signal(signal.SIGINT)
            time.sleep(0.05)
        out, err = proc.communicate(timeout=30)
        seconds = time.monotonic() - started
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130
    assert err.strip() == "troubleshoot verify: interrupted; stopped 1 running sandbox(es) and cleaned up"
    assert "Traceback" not in err and out == ""
    assert seconds < 3  # was about 49 s
    assert not any(_alive(pid) for pid in children)
