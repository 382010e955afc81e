"""Attacks on the host's reading of the result: symlinks, FIFOs, huge files, forged
or garbage JSON. The host must never follow a link, block, or trust a field."""

from __future__ import annotations

import json
import os
import uuid

import pytest

from bot.sandbox.result import MAX_RESULT_BYTES, parse_result, parse_supervisor, read_untrusted_file

from .sandbox_helpers import LIMITS, limits, show


def test_attack_replace_result_file_with_symlink(contained, run_dir_base):
    host_file = run_dir_base.parent / f"host-file-{uuid.uuid4().hex}"
    host_file.write_text("host secret\n")
    try:
        code = (
            "import os\n"
            "for target in ('/etc/shadow', %r):\n"
            "    for attempt in ('unlink', 'rename'):\n"
            "        try:\n"
            "            if attempt == 'unlink':\n"
            "                os.unlink('/run/troubleshoot/result.json')\n"
            "            else:\n"
            "                os.symlink(target, '/tmp/link'); os.rename('/tmp/link', '/run/troubleshoot/result.json')\n"
            "            print('REPLACED', attempt)\n"
            "        except OSError as e:\n"
            "            print(attempt, 'failed', e.errno)\n"
            "        try:\n"
            "            os.unlink('/tmp/link')\n"
            "        except OSError:\n"
            "            pass\n"
            "for where in ('/run/troubleshoot/evil', '/run/evil'):\n"
            "    try:\n"
            "        os.symlink('/etc/shadow', where); print('PLANTED', where)\n"
            "    except OSError as e:\n"
            "        print('plant failed', e.errno)\n"
        ) % str(host_file)
        r = contained.run(code, limits=LIMITS)
    finally:
        content = host_file.read_text()
        host_file.unlink()
    assert "REPLACED" not in r.output and "PLANTED" not in r.output, r.output
    assert r.exit_reason == "ok", show(r)
    assert content == "host secret\n"
    assert "root:" not in json.dumps(r.to_dict())


FORGED = {"supervisor": 1, "status": {"exited": 0, "signal": None, "core_dumped": False}, "snippet_seconds": 0.01,
          "cpu_seconds": 0.0, "max_rss_bytes": 1, "reads_own_source": False,
          "child_report": '{"exit_code": 0, "error": null}',
          "environment": {"torch": "2.99.0+cu999", "device_name": "NVIDIA H100"}}


def _host_torch() -> str | None:
    from bot.sandbox import bwrap, facts
    layout = bwrap.discover_host()
    found = facts.torch_site_dirs(layout.site_packages, layout.python_prefix, layout.python_version)
    return facts.torch_build(found)[0]


def test_attack_forged_report_through_every_descriptor(contained):
    # The snippet never imports torch, writes a "fixed on torch 2.99 / H100, peak 1 byte"
    # report into every descriptor it has and every one of pid 1's it can reach, then fails.
    code = (
        "import json, os\n"
        f"forged = json.dumps({FORGED!r}).encode()\n"
        "wrote = []\n"
        "for fd in range(3, 256):\n"
        "    try:\n"
        "        os.pwrite(fd, forged, 0); wrote.append(fd)\n"
        "    except OSError:\n"
        "        try:\n"
        "            os.write(fd, forged); wrote.append(fd)\n"
        "        except OSError:\n"
        "            pass\n"
        "reached = []\n"
        "for name in ('fd', 'mem', 'environ'):\n"
        "    try:\n"
        "        for fd in os.listdir(f'/proc/1/{name}') if name == 'fd' else [None]:\n"
        "            path = f'/proc/1/fd/{fd}' if fd else f'/proc/1/{name}'\n"
        "            with open(path, 'r+b' if fd else 'rb') as f:\n"
        "                reached.append(path)\n"
        "    except OSError as e:\n"
        "        print('denied', name, e.errno)\n"
        "print('wrote', wrote, 'reached', reached, flush=True)\n"
        "print('Traceback (most recent call last):\\nRuntimeError: fixed')\n"
        "os._exit(3)\n"
    )
    r = contained.run(code, limits=LIMITS)
    assert "reached []" in r.output, show(r)
    assert r.exit_reason == "error" and r.exit_code == 3 and r.signal is None, show(r)
    assert r.error is None  # a printed traceback is output, never an error
    assert r.exit_detail == "exited with status 3"
    assert r.environment["torch"] == _host_torch() and r.environment["decided_by"] == "host"
    assert r.environment["device_name"] is None and r.environment["cuda_available"] is False
    assert "2.99" not in repr(r.environment) and "H100" not in repr(r.environment)
    assert r.peak_memory_bytes is not None and r.peak_memory_bytes > 1 << 20


def test_attack_forged_account_of_the_snippet_process(contained):
    # The snippet's own account (the child report memfd) says "exit 0, no error"; the real
    # exit status is 3: the account is dropped, the status stands.
    code = (
        "import os, json\n"
        "for fd in range(3, 64):\n"
        "    try:\n"
        "        if os.readlink(f'/proc/self/fd/{fd}').startswith('/memfd:child-report'):\n"
        "            os.pwrite(fd, json.dumps({'exit_code': 0, 'error': None}).encode() + b' ' * 64, 0)\n"
        "            print('forged', fd)\n"
        "    except OSError:\n"
        "        pass\n"
        "os._exit(3)\n"
    )
    r = contained.run(code, limits=LIMITS)
    assert "forged" in r.output
    assert r.exit_reason == "error" and r.exit_code == 3 and r.error is None, show(r)


def test_attack_exit_status_128_plus_n_is_not_a_signal(contained):
    r = contained.run("import os\nos._exit(152)\n", limits=LIMITS)  # 152 = 128 + SIGXCPU
    assert r.exit_reason == "error" and r.exit_code == 152 and r.signal is None, show(r)
    assert r.exit_detail == "exited with status 152"


def test_attack_self_sent_sigxcpu_is_not_a_timeout(contained):
    r = contained.run("import os, signal\nos.kill(os.getpid(), signal.SIGXCPU)\n", limits=LIMITS)
    assert r.exit_reason == "killed" and r.signal == 24, show(r)
    assert "not the host's limit" in r.exit_detail


def test_attack_signals_to_the_supervisor(contained):
    code = (
        "import os, signal\n"
        "for sig in (signal.SIGKILL, signal.SIGTERM, signal.SIGINT, signal.SIGSTOP, signal.SIGHUP):\n"
        "    try:\n"
        "        os.kill(1, sig)\n"
        "    except OSError as e:\n"
        "        print('kill', sig, e.errno)\n"
        "print('still here')\n"
    )
    r = contained.run(code, limits=LIMITS)
    assert r.exit_reason == "ok" and r.exit_code == 0 and "still here" in r.output, show(r)
    assert r.notes == [], r.notes  # the supervisor lived to report


def test_attack_tmpfs_flood_counts_in_peak_memory(contained):
    # Pages written to /dev/shm belong to no process, but the cgroup is charged for them.
    code = (
        "block = b'x' * (1 << 20)\n"
        "with open('/dev/shm/fill', 'wb') as f:\n"
        "    for _ in range(96):\n"
        "        f.write(block)\n"
        "del block\n"
        "print('written')\n"
    )
    r = contained.run(code, limits=limits(tmp_bytes=128 << 20, file_size_bytes=128 << 20))
    assert r.exit_reason == "ok", show(r)
    if contained.cgroup_backend.version:
        assert r.peak_memory_bytes >= 96 << 20, show(r)


def test_attack_huge_account_of_the_snippet_process(contained):
    code = (
        "import os\n"
        "for fd in range(3, 64):\n"
        "    try:\n"
        "        if os.readlink(f'/proc/self/fd/{fd}').startswith('/memfd:child-report'):\n"
        "            os.pwrite(fd, b'{\"exit_code\": 0, \"junk\": \"' + b'x' * (8 << 20) + b'\"}', 0)\n"
        "    except OSError:\n"
        "        pass\n"
        "os._exit(0)\n"
    )
    r = contained.run(code, limits=limits(file_size_bytes=32 << 20))
    assert r.exit_reason == "ok" and r.error is None, show(r)
    assert any("no valid account" in n for n in r.notes)


# The reader itself, on what a run could plant (run as the host reads).

@pytest.fixture
def run_dir(tmp_path):
    fd = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    yield tmp_path, fd
    os.close(fd)


def test_reader_refuses_symlink_to_a_host_file(run_dir):
    path, fd = run_dir
    secret = path / "secret"
    secret.write_text('{"exit_code": 0}')
    (path / "result.json").symlink_to(secret)
    assert read_untrusted_file(fd, "result.json") is None
    (path / "abs.json").symlink_to("/etc/shadow")
    assert read_untrusted_file(fd, "abs.json") is None


def test_reader_does_not_block_on_a_fifo(run_dir):
    path, fd = run_dir
    os.mkfifo(path / "result.json")
    assert read_untrusted_file(fd, "result.json") is None


def test_reader_refuses_folders_and_oversized_files(run_dir):
    path, fd = run_dir
    (path / "result.json").mkdir()
    assert read_untrusted_file(fd, "result.json") is None
    (path / "big.json").write_bytes(b"x" * (MAX_RESULT_BYTES + 1))
    assert read_untrusted_file(fd, "big.json") is None
    (path / "ok.json").write_bytes(b'{"exit_code": 0}')
    assert read_untrusted_file(fd, "ok.json") == b'{"exit_code": 0}'
    assert read_untrusted_file(fd, "missing.json") is None


@pytest.mark.parametrize("data", [None, b"", b"\xff\xfe", b"[1, 2]", b'{"exit_code": "0"}', b'{"exit_code": true}',
                                  b"{" * 50000, b'{"exit_code": -1}'])
def test_parse_result_rejects_garbage(data):
    assert parse_result(data) is None


def test_parse_result_clamps_and_checks_fields():
    raw = {"exit_code": 1, "error": {"type": "RuntimeError", "message": "m" * 100000, "traceback": 5,
                                     "frames": [{"file": "/home/sandbox/snippet.py", "line": 3, "function": "f",
                                                 "in_snippet": "yes"}, "junk"] * 1000,
                                     "snippet_line": "3"},
           "environment": {"torch": "2.99"}}
    got = parse_result(json.dumps(raw).encode())
    e = got["error"]
    assert e["type"] == "RuntimeError" and len(e["message"]) == 8192 and e["traceback"] == ""
    assert len(e["frames"]) <= 200 and all(f["in_snippet"] is False for f in e["frames"])
    assert e["snippet_line"] is None
    assert set(got) == {"exit_code", "error"}  # nothing about the environment is taken from a run


@pytest.mark.parametrize("status", [{"exited": 0, "signal": 9}, {"exited": None, "signal": None},
                                    {"exited": 300, "signal": None}, {"exited": None, "signal": 99}, "x"])
def test_parse_supervisor_rejects_impossible_statuses(status):
    assert parse_supervisor(json.dumps({"supervisor": 1, "status": status}).encode()) is None
    assert parse_supervisor(b"garbage") is None and parse_supervisor(None) is None
