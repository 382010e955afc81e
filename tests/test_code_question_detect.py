"""Recognising a question that is Python code without error text (issue 13, item 5):
on the dev code-only set every line is code that can run; on the dev error pastes,
questions in words and negatives nothing is taken for runnable code; and the cases
at the edges (greetings that parse, error lines as comments, prompts, fragments)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.verify.code_question import detect_code, has_error_text, is_code, undefined_names

EVAL = Path(__file__).resolve().parent.parent / "eval" / "dev"


def rows(name: str) -> list[dict]:
    return [json.loads(line) for line in (EVAL / f"{name}.jsonl").read_text(encoding="utf-8").splitlines() if line]


def test_every_dev_code_only_line_is_runnable_code_with_the_askers_words_apart():
    lines = rows("code_only")
    assert len(lines) >= 40
    for row in lines:
        found = detect_code(row["text"])
        assert found is not None, row["text"][:200]
        assert found.runnable, (found.undefined, row["text"][:200])
        assert "```" not in found.code and is_code(found.code)
        # The asker's sentence is prose, never code; its language is the answer's.
        if row["kind"] in ("code-asked",):
            assert found.prose and found.prose not in found.code
            assert found.language == row["lang"], row["text"][:120]
        if row["kind"] == "code-bare":
            assert found.prose == "" and found.language == "en"


@pytest.mark.parametrize("name", ["pasted", "questions", "longtail", "longtail_questions", "negatives"])
def test_no_error_paste_or_question_of_the_dev_sets_is_taken_for_runnable_code(name):
    taken = [r["text"][:160] for r in rows(name) if (q := detect_code(r["text"])) is not None and q.runnable]
    assert taken == []


def test_a_fragment_in_a_fence_is_code_but_not_runnable():
    found = detect_code("```\nfor epoch in range(num_epochs):\n    train_one_epoch(model, loader, opt)\n```\n"
                        "should the scheduler step per batch or per epoch?")
    assert found is not None and not found.runnable
    assert set(found.undefined) == {"num_epochs", "train_one_epoch", "model", "loader", "opt"}


@pytest.mark.parametrize("text", [
    "hi", "thanks!", "안녕하세요", "你好", "not bad", "yes or no", "help",
    "how do I pick a learning rate for AdamW?",
    "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB",
    "ValueError: too many values to unpack",
    "Exception: data did not match any variant of untagged enum ModelWrapper",
    # code WITH its error: answered from the error text, not run
    "import torch\nx = torch.ones(2)\nx.view(3)\n# RuntimeError: shape '[3]' is invalid for input of size 2",
    'Traceback (most recent call last):\n  File "t.py", line 3, in <module>\n    y.backward()\n'
    "RuntimeError: Trying to backward through the graph a second time",
    "```python\nimport torch\nloss.backward()\n```\n```\nRuntimeError: element 0 of tensors does not require grad\n```",
    "import torch\nmodel.cuda()\nSegmentation fault (core dumped)",
])
def test_words_errors_and_code_with_its_error_are_not_code_questions(text):
    assert detect_code(text) is None


def test_unfenced_code_with_words_before_and_after():
    text = ("why does this fail?\nimport torch\nx = torch.ones(3, requires_grad=True)\ny = (x * x).sum()\n"
            "y.backward()\ny.backward()\nthanks\n")
    found = detect_code(text)
    assert found is not None and found.runnable and not found.fenced
    assert found.code.startswith("import torch") and found.code.rstrip().endswith("y.backward()")
    assert "why does this fail?" in found.prose and "thanks" in found.prose


def test_interactive_prompts_are_stripped():
    found = detect_code(">>> import torch\n>>> a = torch.ones(2, 3)\n>>> a @ a\n")
    assert found is not None and found.code == "import torch\na = torch.ones(2, 3)\na @ a\n"


def test_two_fences_of_one_program_run_together():
    found = detect_code("模型定义：\n```python\nimport torch\nnet = torch.nn.Linear(4, 2)\n```\n"
                        "训练：\n```python\nout = net(torch.ones(3, 5))\n```")
    assert found is not None and found.runnable and found.language == "zh"
    assert "net = torch.nn.Linear(4, 2)" in found.code and "out = net(" in found.code


def test_error_text_markers():
    assert has_error_text("  File \"/x/y.py\", line 3, in f")
    assert has_error_text("# torch.OutOfMemoryError: CUDA out of memory")
    assert not has_error_text("try:\n    f()\nexcept RuntimeError as exc:\n    raise ValueError('bad') from exc")


def test_undefined_names_know_builtins_imports_arguments_and_comprehensions():
    code = ("import torch as T\nfrom os import path\n"
            "def f(a, *rest, k=1, **kw):\n    return [i for i in range(a)] + list(rest)\n"
            "with open(__file__) as fh:\n    pass\ntry:\n    f(3)\nexcept Exception as e:\n    print(e)\n"
            "print(T, path, f, fh, missing)\n")
    assert undefined_names(code) == ("missing",)
    assert undefined_names("from torch import *\nx = tensor([1])") == ()  # a star import: unknown
