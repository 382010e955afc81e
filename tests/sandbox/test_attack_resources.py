"""Attacks on resources: fork bomb, memory bomb, output flood, busy loop, sleeping past
the deadline."""

from __future__ import annotations

import signal

from .sandbox_helpers import SHORT_WALL, limits, processes_in_cgroups, show
from bot.sandbox.limits import MiB


def test_attack_fork_bomb(contained):
    code = (
        "import os\n"
        "while True:\n"
        "    try:\n"
        "        os.fork()\n"
        "    except OSError:\n"
        "        pass\n"
    )
    r = contained.run(code, limits=limits(wall_seconds=SHORT_WALL, max_processes=32))
    assert r.exit_reason == "timeout", show(r)
    assert processes_in_cgroups(contained) == []


def test_attack_fork_bomb_hits_the_process_limit(contained):
    code = (
        "import os, time\n"
        "children = 0\n"
        "try:\n"
        "    while True:\n"
        "        if os.fork() == 0:\n"
        "            time.sleep(30)\n"
        "            os._exit(0)\n"
        "        children += 1\n"
        "except OSError as e:\n"
        "    print('stopped after', children, 'children:', type(e).__name__)\n"
    )
    r = contained.run(code, limits=limits(max_processes=20))
    assert r.exit_reason == "ok", show(r)
    # bwrap's outer process and its pid 1 count too; the limit holds before 20 children
    assert "BlockingIOError" in r.output
    children = int(r.output.split("stopped after ")[1].split()[0])
    assert 10 <= children < 20


def test_attack_memory_bomb(contained):
    code = "chunks = []\nwhile True:\n    chunks.append(bytearray(32 << 20))\n"
    r = contained.run(code, limits=limits(memory_bytes=256 * MiB))
    assert r.exit_reason == "memory", show(r)
    assert r.signal == signal.SIGKILL
    assert any("OOM" in n for n in r.notes)


def test_attack_memory_bomb_with_torch(contained):
    code = "import torch\nx = torch.ones(2**31)\nprint(x.sum())\n"  # 8 GiB of float32
    r = contained.run(code, limits=limits(memory_bytes=512 * MiB, wall_seconds=60))
    assert r.exit_reason == "memory", show(r)


def test_attack_output_flood(contained):
    r = contained.run("while True:\n    print('x' * 1000)\n", limits=limits(output_bytes=32 * 1024))
    assert r.exit_reason == "output_limit", show(r)
    assert r.output_truncated
    assert len(r.output.encode()) == 32 * 1024


def test_attack_output_flood_on_stderr_without_newlines(contained):
    r = contained.run("import os\nwhile True:\n    os.write(2, b'e' * 65536)\n", limits=limits(output_bytes=16 * 1024))
    assert r.exit_reason == "output_limit" and len(r.output) == 16 * 1024


def test_attack_busy_loop(contained):
    r = contained.run("while True:\n    pass\n", limits=limits(wall_seconds=SHORT_WALL))
    assert r.exit_reason == "timeout", show(r)
    assert r.wall_seconds >= SHORT_WALL


def test_attack_busy_loop_hits_the_cpu_limit(contained):
    r = contained.run("while True:\n    pass\n", limits=limits(wall_seconds=30, cpu_seconds=1))
    assert r.exit_reason == "timeout", show(r)
    assert r.signal == signal.SIGXCPU
    assert r.wall_seconds < 30


def test_attack_sleep_past_the_deadline(contained):
    r = contained.run("import time\nprint('going to sleep', flush=True)\ntime.sleep(600)\n",
                      limits=limits(wall_seconds=2))
    assert r.exit_reason == "timeout", show(r)
    assert r.output == "going to sleep\n"  # output up to the deadline is kept
    assert 2 <= r.wall_seconds < 600


def test_attack_close_output_and_sleep(contained):
    # Closing stdout/stderr ends the host's reading early; the deadline must still hold.
    r = contained.run("import os, time\nos.close(1)\nos.close(2)\ntime.sleep(600)\n", limits=limits(wall_seconds=2))
    assert r.exit_reason == "timeout", show(r)


def test_attack_open_file_limit(contained):
    code = "fs = []\nwhile True:\n    fs.append(open('/dev/null'))\n"
    r = contained.run(code, limits=limits(open_files=64))
    assert r.exit_reason == "error" and "Too many open files" in r.error["message"], show(r)
