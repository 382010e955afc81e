"""Attacks on the host's reading of the result: symlinks, FIFOs, huge files, forged
or garbage JSON. The host must never follow a link, block, or trust a field."""

from __future__ import annotations

import json
import os
import uuid

import pytest

from bot.sandbox.result import MAX_RESULT_BYTES, parse_result, read_untrusted_file

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


def test_attack_forged_and_garbage_result(contained):
    code = (
        "import os\n"
        "fd = os.open('/run/troubleshoot/result.json', os.O_WRONLY | os.O_TRUNC)\n"
        "os.write(fd, b'{\"exit_code\": 0, \"error\": ' + b'[' * 100000)\n"
        "os._exit(3)\n"
    )
    r = contained.run(code, limits=LIMITS)
    assert r.exit_reason == "error" and r.exit_code == 3 and r.error is None, show(r)
    assert any("no valid result" in n for n in r.notes)


def test_attack_huge_result_file(contained):
    code = (
        "import os\n"
        "fd = os.open('/run/troubleshoot/result.json', os.O_WRONLY | os.O_TRUNC)\n"
        "os.write(fd, b'{\"exit_code\": 0, \"junk\": \"' + b'x' * (8 << 20) + b'\"}')\n"
        "os._exit(0)\n"
    )
    r = contained.run(code, limits=limits(file_size_bytes=32 << 20))
    assert r.exit_reason == "ok" and r.error is None
    assert any("no valid result" in n for n in r.notes)


def test_attack_wrong_types_in_result(contained):
    forged = {"exit_code": 0, "error": {"type": ["not", "a", "str"], "frames": "x"},
              "peak_rss_bytes": -5, "environment": {"torch": 12, "cuda_available": "yes"}}
    code = (
        "import os, json\n"
        "fd = os.open('/run/troubleshoot/result.json', os.O_WRONLY | os.O_TRUNC)\n"
        f"os.write(fd, json.dumps({forged!r}).encode())\n"
        "os._exit(0)\n"
    )
    r = contained.run(code, limits=LIMITS)
    assert r.exit_reason == "ok"
    assert r.error is None  # an error without a str type is no error
    assert r.environment["torch"] is None and r.environment["cuda_available"] is None
    assert r.peak_memory_bytes is None or r.peak_memory_bytes > 0


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
           "snippet_seconds": 1e30, "peak_gpu_memory_bytes": True}
    got = parse_result(json.dumps(raw).encode())
    e = got["error"]
    assert e["type"] == "RuntimeError" and len(e["message"]) == 8192 and e["traceback"] == ""
    assert len(e["frames"]) <= 200 and all(f["in_snippet"] is False for f in e["frames"])
    assert e["snippet_line"] is None
    assert got["snippet_seconds"] is None and got["peak_gpu_memory_bytes"] is None
