"""Ordinary runs: results, line numbers, environment, files, input checks."""

from __future__ import annotations

import json
import signal
import threading

import pytest

from bot.sandbox import EXIT_REASONS, Limits, RunResult, SandboxUnavailable, run_snippet
from bot.sandbox import runner

from .sandbox_helpers import LIMITS, show


def test_torch_snippet_runs_and_reports_environment(sandbox):
    r = sandbox.run("import torch\nprint(torch.__version__)\nprint(torch.ones(3).sum().item())\n",
                    limits=Limits(wall_seconds=60))
    assert r.exit_reason == "ok", show(r)
    import torch
    assert r.output.splitlines() == [torch.__version__, "3.0"]
    assert r.environment["torch"] == torch.__version__
    assert r.environment["cuda_available"] is False
    assert r.environment["gpu"] is None and r.environment["device_name"] is None
    assert r.peak_gpu_memory_bytes is None
    assert r.peak_memory_bytes and r.peak_memory_bytes > 50 * 2**20  # torch itself is big


def test_run_snippet_public_api_and_json_shape(sandbox):
    r = run_snippet("print('hello')", limits=LIMITS)
    assert isinstance(r, RunResult)
    d = json.loads(json.dumps(r.to_dict()))
    assert d["exit_reason"] == "ok" and d["exit_code"] == 0 and d["signal"] is None and d["error"] is None
    assert d["output"] == "hello\n" and d["output_truncated"] is False
    for key in ("wall_seconds", "peak_memory_bytes", "peak_gpu_memory_bytes", "environment", "limits", "sandbox"):
        assert key in d
    assert set(d["environment"]) >= {"python", "torch", "cuda_available", "device_name", "gpu", "cuda_visible_devices"}
    assert d["sandbox"]["version"].startswith("bubblewrap")


def test_exception_reports_snippet_line_and_frames(sandbox):
    code = (
        "import torch\n"
        "def f(x):\n"
        "    return x.view(3, 5)\n"
        "\n"
        "f(torch.ones(2, 2))\n"
    )
    r = sandbox.run(code, limits=Limits(wall_seconds=60))
    assert r.exit_reason == "error", show(r)
    assert r.exit_code == 1
    e = r.error
    assert e["type"] == "RuntimeError"
    assert "shape '[3, 5]' is invalid" in e["message"]
    assert e["snippet_line"] == 3
    snippet_frames = [(f["line"], f["function"]) for f in e["frames"] if f["in_snippet"]]
    assert snippet_frames == [(5, "<module>"), (3, "f")]
    assert "harness" not in e["traceback"]
    assert 'snippet.py", line 3, in f' in e["traceback"]
    assert "RuntimeError: shape" in r.output  # the traceback is printed too, as python would


def test_exception_inside_torch_marks_torch_frames_as_not_snippet(sandbox):
    code = "import torch\nx = torch.ones(2, requires_grad=True)\ny = (x * 2).sum()\ny.backward()\ny.backward()\n"
    r = sandbox.run(code, limits=Limits(wall_seconds=60))
    assert r.exit_reason == "error", show(r)
    assert "backward through the graph a second time" in r.error["message"]
    assert r.error["snippet_line"] == 5
    frames = r.error["frames"]
    assert frames[0]["in_snippet"] and frames[0]["line"] == 5
    assert any("torch" in f["file"] and not f["in_snippet"] for f in frames)


def test_syntax_error_reports_line(sandbox):
    r = sandbox.run("x = 1\ny = (\nprint(x\n", limits=LIMITS)
    assert r.exit_reason == "error"
    assert r.error["type"] == "SyntaxError"
    assert r.error["snippet_line"] in (2, 3)


@pytest.mark.parametrize("code, reason, exit_code", [
    ("import sys; sys.exit(0)", "ok", 0),
    ("import sys; sys.exit(3)", "error", 3),
    ("import sys; sys.exit('bye')", "error", 1),
    ("import os; os._exit(5)", "error", 5),
])
def test_exit_codes(sandbox, code, reason, exit_code):
    r = sandbox.run(code, limits=LIMITS)
    assert (r.exit_reason, r.exit_code) == (reason, exit_code), show(r)


def test_snippet_killed_by_signal_is_reported_as_killed(sandbox):
    r = sandbox.run("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n", limits=LIMITS)
    assert r.exit_reason == "killed", show(r)
    assert r.signal == signal.SIGKILL and r.exit_code is None


def test_files_are_beside_the_snippet(sandbox):
    files = {"data.txt": b"payload-123", "helper.py": b"def answer():\n    return 42\n"}
    r = sandbox.run("import helper\nprint(open('data.txt').read(), helper.answer())\n", limits=LIMITS, files=files)
    assert r.exit_reason == "ok", show(r)
    assert r.output == "payload-123 42\n"


def test_error_in_a_helper_file_is_in_snippet(sandbox):
    files = {"helper.py": b"def boom():\n    raise ValueError('bad')\n"}
    r = sandbox.run("import helper\nhelper.boom()\n", limits=LIMITS, files=files)
    assert r.error["type"] == "ValueError" and r.error["snippet_line"] == 2
    assert [f["in_snippet"] for f in r.error["frames"]] == [True, True]


@pytest.mark.parametrize("files, what", [
    ({"../x": b""}, "bad file name"),
    ({"a/b.py": b""}, "bad file name"),
    ({".hidden": b""}, "bad file name"),
    ({"snippet.py": b""}, "bad file name"),
    ({"x.py": "text"}, "must be bytes"),
])
def test_bad_files_are_rejected_with_a_clear_error(sandbox, files, what):
    with pytest.raises((ValueError, TypeError), match=what):
        sandbox.run("pass", limits=LIMITS, files=files)


def test_bad_limits_name_the_field():
    with pytest.raises(ValueError, match="Limits.memory_bytes must be a positive integer"):
        Limits(memory_bytes=-1)
    with pytest.raises(ValueError, match="Limits.wall_seconds"):
        Limits(wall_seconds=0)
    assert Limits(wall_seconds=10).cpu_seconds == 80


def test_code_must_be_text(sandbox):
    with pytest.raises(TypeError, match="code must be str"):
        sandbox.run(b"print(1)", limits=LIMITS)


def test_environment_is_from_the_allow_list(sandbox, monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    monkeypatch.setenv("SOME_WORKER_SETTING", "x")
    r = sandbox.run("import os, json\nprint(json.dumps(dict(os.environ)))\n", limits=LIMITS)
    env = json.loads(r.output)
    assert env["HOME"] == "/home/sandbox" and env["OMP_NUM_THREADS"] == "1"
    assert env["CUDA_VISIBLE_DEVICES"] == ""
    assert "SOME_WORKER_SETTING" not in env
    allowed = {"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "TMPDIR", "OMP_NUM_THREADS",
               "CUDA_VISIBLE_DEVICES", "PWD", "LC_CTYPE", "TORCHINDUCTOR_COMPILE_THREADS"}
    assert env["TORCHINDUCTOR_COMPILE_THREADS"] == "1"  # no pool of compile workers against the process limit
    assert {k for k in env if not k.startswith("PYTHON")} <= allowed, env


def test_limits_name_what_is_enforced_here(sandbox):
    r = sandbox.run("pass", limits=LIMITS)
    text = "\n".join(r.limits)
    assert "wall clock 10 s" in text
    assert "memory 512.0 MiB (cgroup v1" in text or "memory 512.0 MiB (cgroup v2" in text
    assert "processes 64 (cgroup" in text
    assert "RLIMIT_CPU" in text and "RLIMIT_FSIZE" in text and "RLIMIT_NOFILE" in text and "RLIMIT_CORE=1" in text
    assert "seccomp (39 syscalls denied" in text
    assert "network: an empty net namespace" in text and "AF_UNIX, AF_INET, AF_INET6, AF_NETLINK only" in text
    assert "RLIMIT_AS" not in text


def test_parallel_runs_do_not_see_each_other(sandbox):
    results = {}

    def one(i):
        code = (f"import os, time\nopen('/tmp/me', 'w').write('{i}')\ntime.sleep(0.3)\n"
                "print(open('/tmp/me').read(), os.listdir('/tmp'))\n")
        results[i] = sandbox.run(code, limits=LIMITS)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i, r in results.items():
        assert r.output == f"{i} ['me']\n", show(r)


def test_every_exit_reason_is_one_of_the_contract():
    assert EXIT_REASONS == ("ok", "error", "timeout", "memory", "output_limit", "killed")


def test_missing_bubblewrap_raises_sandbox_unavailable(monkeypatch):
    monkeypatch.setattr(runner, "_cached", None)
    monkeypatch.setattr(runner, "_default", None)
    monkeypatch.setattr(runner.bwrap, "find_bwrap", lambda: None)
    ok, why = runner.sandbox_available()
    assert not ok and "bubblewrap not found" in why
    with pytest.raises(SandboxUnavailable, match="bubblewrap not found"):
        run_snippet("print(1)")


def test_broken_setup_raises_instead_of_running_unsandboxed(sandbox, run_dir_base):
    import dataclasses
    broken = dataclasses.replace(sandbox.layout, python_exe="/nonexistent/python3")
    box = runner.Sandbox(layout=broken, run_dir_base=str(run_dir_base), use_cgroups=False, allow_rlimit_fallback=True)
    with pytest.raises(SandboxUnavailable, match="could not be set up"):
        box.run("print(1)", limits=LIMITS)
    assert list(run_dir_base.iterdir()) == []
