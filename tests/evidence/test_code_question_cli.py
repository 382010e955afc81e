"""`troubleshoot ask` on code without error text (issue 13, item 5), through the real
CLI, the real sandbox and the knowledge slice's real index: the snippet runs through
the one verification path and the answer comes from the error it raised; a clean
snippet gets "it ran without an error on torch X (CPU)"; --no-run only says it is code;
an error no entry covers becomes a coverage gap under the real error."""

from __future__ import annotations

import json

import pytest

from .conftest import troubleshoot

NO_GRAD = ("import torch\nimport torch.nn as nn\n\nmodel = nn.Linear(4, 1)\nx = torch.randn(8, 4)\n"
           "with torch.no_grad():\n    pred = model(x)\nloss = pred.pow(2).mean()\nloss.backward()\n")
CLEAN = "import torch\n\nx = torch.ones(2, 3)\nprint((x @ x.T).sum().item())\n"
UNCOVERED = ("import torch\n\ndist = torch.distributions.Normal(torch.zeros(3), torch.tensor([1.0, -1.0, 1.0]))\n")


def sandbox_or_skip():
    from bot.sandbox import sandbox_available

    ok, why = sandbox_available()
    if not ok:
        pytest.skip(f"the sandbox cannot run here: {why}")


def test_no_run_only_says_it_is_code(use_kb, tmp_path):
    snippet = tmp_path / "train.py"
    snippet.write_text(NO_GRAD)
    proc = troubleshoot("ask", str(snippet), "--no-run", "--json", env=use_kb)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["input"] == "code" and data["run"] is None and data["answered"] is False and data["matches"] == []
    assert "not run (--no-run)" in data["note"] and "9 lines" in data["note"]
    text = troubleshoot("ask", str(snippet), "--no-run", env=use_kb)
    assert "Python code without an error message" in text.stdout


def test_a_fragment_is_not_run_and_says_which_names_are_missing(use_kb):
    proc = troubleshoot("ask", "-", "--json", env=use_kb,
                        stdin="```\nfor batch in loader:\n    loss = model(batch).mean()\n```\n왜 안 되나요?")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["run"] is None and data["language"] == "ko" and set(data["undefined"]) == {"loader", "model"}
    assert "`loader`" in data["note"]


@pytest.mark.slow
def test_code_on_stdin_runs_and_is_answered_from_its_real_error(use_kb):
    sandbox_or_skip()
    proc = troubleshoot("ask", "--json", env=use_kb,
                        stdin=f"why does this fail?\n\n```python\n{NO_GRAD}```\n")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["input"] == "code" and data["run"]["exit_reason"] == "error"
    assert data["run"]["error"]["type"] == "RuntimeError"
    assert "does not require grad" in data["run"]["error"]["message"]
    assert data["run"]["device"] == "CPU" and data["run"]["torch"]
    assert data["answered"] and data["matches"][0]["id"] == "pytorch/no-grad-fn"
    ver = data["verification"]
    assert ver["entry_id"] == "pytorch/no-grad-fn" and ver["fixes"]
    fixed = [f["workaround"] for f in ver["fixes"] if f["status"] == "fixed"]
    assert fixed, ver  # the no_grad block is the cause here: removing it fixes the snippet
    listed = {w["id"] for w in data["matches"][0]["workarounds"]}
    assert [f["workaround"] for f in data["verified_fixes"]] == [f for f in fixed if f in listed]
    marked = {w["id"]: w.get("on_your_code") for w in data["matches"][0]["workarounds"]}
    assert any(v == "fixed" for v in marked.values()), marked
    # The run is evidence like `troubleshoot verify`'s; the answer is recorded too.
    stats = json.loads(troubleshoot("stats", "--json", env=use_kb).stdout)
    assert stats["store"]["verifications"] == 1 and stats["store"]["answers"] == 1


@pytest.mark.slow
def test_a_clean_snippet_file_says_it_ran_without_an_error(use_kb, tmp_path):
    sandbox_or_skip()
    snippet = tmp_path / "ok.py"
    snippet.write_text(CLEAN)
    proc = troubleshoot("ask", str(snippet), env=use_kb)
    assert proc.returncode == 0, proc.stderr
    assert "It ran without an error on torch 2." in proc.stdout and "(CPU)" in proc.stdout
    assert "running it in the sandbox" in proc.stderr


@pytest.mark.slow
def test_an_uncovered_error_from_code_becomes_a_gap_and_a_draft(use_kb, tmp_path):
    sandbox_or_skip()
    proc = troubleshoot("ask", "--json", env=use_kb, stdin=f"이 코드가 왜 실패하죠?\n```python\n{UNCOVERED}```")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["run"]["error"]["type"] == "ValueError" and data["answered"] is False
    gaps = json.loads(troubleshoot("gaps", "--json", env=use_kb).stdout)
    assert len(gaps) == 1
    gap = gaps[0]
    assert gap["count"] == 1 and gap["languages"] == ["ko"] and gap["error_type"] == "ValueError"
    assert "constraint" in gap["example"]
    draft = troubleshoot("kb", "draft", "1", "--dir", str(tmp_path / "drafts"), env=use_kb)
    assert draft.returncode == 0, draft.stderr
    check = troubleshoot("kb", "check", "--dir", str(tmp_path / "drafts"), env=use_kb)
    assert check.returncode == 1 and "a draft made from a coverage gap" in check.stderr
