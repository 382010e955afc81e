"""`troubleshoot verify` as a command: the seed's example through the real sandbox
(JSON and the human report with --fixed), and clear errors for bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


REPO = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "data"
SEED = DATA / "seed000_backward_twice.py"


def troubleshoot(*args: str, knowledge: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    if knowledge is not None:
        env["TROUBLESHOOT_KNOWLEDGE_DIR"] = str(knowledge)
    return subprocess.run([sys.executable, "-m", "bot.cli", *args], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=600)


def test_verify_the_seed_example_json(sandbox_runner, knowledge_dir, tmp_path):
    fixed = tmp_path / "fixed.py"
    fixed.write_text(SEED.read_text().replace("loss.backward()\nloss.backward()",
                                              "loss.backward(retain_graph=True)\nloss.backward()"))
    proc = troubleshoot("verify", str(SEED), "--fixed", str(fixed), "--json", knowledge=knowledge_dir)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert {"reproduced", "exit_reason", "output", "error", "environment", "fixes"} <= set(report)
    assert report["reproduced"] is True and report["exit_reason"] == "error"
    assert set(report["error"]) == {"type", "message", "entry_id"}
    assert report["error"]["entry_id"] == "pytorch/backward-twice"
    status = {row["workaround"]: (row["status"], (row["error"] or {}).get("entry_id")) for row in report["fixes"]}
    assert status == {
        "retain-graph-all-but-last": ("fixed", None),
        "recompute-forward": ("fixed", None),
        "detach-before-backward": ("new_error", "pytorch/no-grad-fn"),
        "no-grad-forward": ("new_error", "pytorch/no-grad-fn"),
        "move-model-to-new-device": ("still_fails", "pytorch/backward-twice"),
        "user-fixed": ("fixed", None),
    }
    for row in report["fixes"]:
        assert row["status"] in {"fixed", "still_fails", "new_error", "not_applicable", "timeout"}
        assert {"workaround", "status", "error", "seconds", "peak_memory_bytes"} <= set(row)


def test_verify_human_report_for_a_snippet_that_does_not_fail(sandbox_runner, tmp_path):
    snippet = tmp_path / "works.py"
    snippet.write_text("print('all good')\n")
    proc = troubleshoot("verify", str(snippet))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("Original run: ok (")
    assert "Output (last lines):\n  all good" in proc.stdout
    assert "Summary: does not reproduce on torch" in proc.stdout


@pytest.mark.parametrize("args, message, code", [
    (["verify", "no/such/file.py"], "snippet no/such/file.py: no such file", 1),
    (["verify", str(SEED), "--fixed", "missing.py"], "--fixed missing.py: no such file", 1),
    (["verify", str(SEED), "--queue"], "no broker configured", 2),
])
def test_bad_input_gets_a_clear_error(args, message, code):
    proc = troubleshoot(*args)
    assert proc.returncode == code
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr


def test_an_empty_or_binary_file(tmp_path):
    empty = tmp_path / "empty.py"
    empty.write_text("\n")
    binary = tmp_path / "binary.py"
    binary.write_bytes(b"\xff\xfe\x00x = 1")
    assert "the file is empty" in troubleshoot("verify", str(empty)).stderr
    proc = troubleshoot("verify", str(binary))
    assert proc.returncode == 1 and "not UTF-8 text" in proc.stderr
