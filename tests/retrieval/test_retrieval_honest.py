"""Honest answers (issue 13): lines that must not be answered in `troubleshoot eval`,
another library's errors, messages without an error, the calibrated confidence.
The engine, the embedder and the index are real (the fixture knowledge base)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.answer import answer
from bot.retrieval import calibration
from bot.retrieval.query import understand
from bot.retrieval.scope import NO_ERROR, OTHER_LIBRARY, PYTORCH, is_greeting, judge

REPO = Path(__file__).resolve().parents[2]
OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 15.77 GiB"
GRAD = "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn"


def tb(frames: list[tuple[str, str]], last: str) -> str:
    lines = ["Traceback (most recent call last):"]
    for path, code in frames:
        lines += [f'  File "{path}", line 12, in f', f"    {code}"]
    return "\n".join(lines + [last])


SITE = "/home/u/venv/lib/python3.10/site-packages"
OTHER = [
    ("tensorflow", tb([("train.py", "sess.run(op)"), (f"{SITE}/tensorflow/python/client/session.py", "return fn()")],
                      "tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating tensor "
                      "with shape[32,256,256]")),
    ("keras", 'ValueError: Input 0 of layer "sequential" is incompatible with the layer: '
              'expected shape=(None, 28, 28), found shape=(None, 784)'),
    ("jax", tb([("model.py", "y = f(x)"), (f"{SITE}/jax/_src/core.py", "raise TracerArrayConversionError(self)")],
               "jax.errors.TracerArrayConversionError: The numpy.ndarray conversion method __array__() was called on "
               "traced array")),
    ("pandas", tb([("prep.py", "df = df.reindex(idx)"),
                   (f"{SITE}/pandas/core/indexes/base.py", "raise ValueError(msg)")],
                  "ValueError: cannot reindex on an axis with duplicate labels")),
    ("numpy", "ValueError: numpy.dtype size changed, may indicate binary incompatibility. Expected 96 from C header, "
              "got 88 from PyObject"),
    ("scikit-learn", "sklearn.exceptions.NotFittedError: This StandardScaler instance is not fitted yet. Call 'fit' "
                     "with appropriate arguments before using this estimator."),
    ("transformers", "OSError: We couldn't connect to 'https://huggingface.co' to load this file, couldn't find it in "
                     "the cached files"),
    ("pip", "ERROR: Could not find a version that satisfies the requirement tensorflow==2.3.0 (from versions: 2.12.0)\n"
            "ERROR: No matching distribution found for tensorflow==2.3.0"),
    ("opencv", "cv2.error: OpenCV(4.8.0) /io/opencv/modules/imgproc/src/color.cpp:182: error: (-215:Assertion failed) "
               "!_src.empty() in function 'cvtColor'"),
]


# --- eval: lines that must not be answered ------------------------------------------------


def _eval(tmp_path, items):
    path = tmp_path / "set.jsonl"
    path.write_text("\n".join(json.dumps(i, ensure_ascii=False) for i in items) + "\n", encoding="utf-8")
    return path


def test_eval_counts_false_answers_and_covered_right_per_kind(engine, tmp_path):
    from bot.retrieval.evaluate import read_eval_lines, run_eval

    path = _eval(tmp_path, [
        {"text": OOM, "expected": "pytorch/cuda-oom", "kind": "traceback"},
        {"text": "안녕하세요", "expected": None, "kind": "neg-greeting"},
        {"text": OTHER[0][1], "expected": None, "kind": "neg-other-library"},
        {"text": GRAD, "expected": None, "kind": "neg-pytorch-uncovered"},  # answered: a false answer
    ])
    report = run_eval(engine, read_eval_lines(path))
    m = report["metrics"]
    assert (m["n"], m["covered"], m["null"]) == (4, 1, 3)
    assert m["covered_right"] == 1 and m["covered_right_rate"] == 1.0 and m["top1"] == 1.0
    assert m["false_answers"] == 1 and m["false_answer_rate"] == round(1 / 3, 4)
    assert m["by_kind"]["neg-pytorch-uncovered"]["false_answers"] == 1
    assert m["by_kind"]["neg-greeting"]["false_answers"] == 0
    rows = report["rows"]
    assert [r["answered"] for r in rows] == [True, False, False, True]
    assert [r["declined"] for r in rows] == [None, "no-error", "other-library", None]
    assert all(0.0 <= r["confidence"] <= 1.0 for r in rows) and rows[0]["confidence"] >= calibration.threshold()


def test_eval_cli_names_the_null_lines_it_answered(use_fixture_env, capsys, tmp_path):
    from bot.cli import main

    path = _eval(tmp_path, [{"text": OOM, "expected": None}, {"text": "thanks!", "expected": None}])
    assert main(["eval", str(path)]) == 0
    out = capsys.readouterr().out
    assert "n=2 (0 covered, 2 must not be answered)" in out and "false answers 1/2 (0.500)" in out
    assert "line 1: must not be answered, answered pytorch/cuda-oom" in out and "line 2" not in out


def test_eval_rejects_a_line_without_expected(use_fixture_env, capsys, tmp_path):
    from bot.cli import main

    path = tmp_path / "x.jsonl"
    path.write_text('{"text": "hi"}\n', encoding="utf-8")
    assert main(["eval", str(path)]) != 0
    assert 'or null for a line that must not be answered' in capsys.readouterr().err


# --- other libraries ------------------------------------------------------------------------


@pytest.mark.parametrize("library, text", OTHER, ids=[k for k, _ in OTHER])
def test_another_librarys_error_is_named_not_answered(use_fixture_env, library, text):
    data = answer(text)
    assert data.answered is False and data.declined == "other-library" and data.matches == []
    assert data.other_library and data.other_library.library == library and data.notice
    assert data.other_library.name in data.notice and "PyTorch" in data.notice
    assert data.other_library.look_for in data.notice


@pytest.mark.parametrize("lang, prose, words", [("ko", "텐서플로에서 학습하다가 이렇게 나와요", "발생했습니다"),
                                                ("zh", "用 TensorFlow 训练时报这个错", "不是 PyTorch")])
def test_the_other_library_notice_is_in_the_askers_language(use_fixture_env, lang, prose, words):
    data = answer(prose + "\n" + OTHER[0][1])
    assert data.language == lang and data.declined == "other-library" and data.notice and words in data.notice


def test_a_pytorch_error_raised_through_another_library_is_pytorchs(use_fixture_env):
    through = tb([("train.py", "out = model(**batch)"),
                  (f"{SITE}/transformers/models/llama/modeling_llama.py", "hidden = self.mlp(hidden)"),
                  (f"{SITE}/torch/nn/modules/module.py", "return forward_call(*args, **kwargs)")], OOM)
    scope = judge(understand(through))
    assert scope.kind == PYTORCH and scope.evidence == "torch/nn/modules/module.py"
    data = answer(through)
    assert data.answered and data.matches[0].id == "pytorch/cuda-oom" and data.other_library is None
    # the torch frames cut off, only the library's frames left: the message is still PyTorch's own
    trimmed = tb([(f"{SITE}/transformers/trainer.py", "loss = self.compute_loss(model, inputs)")], OOM)
    sig = engine_signature_primary(trimmed)
    assert judge(understand(trimmed), signature_primary=sig).kind == PYTORCH and sig


def engine_signature_primary(text: str) -> bool:
    from bot.retrieval.engine import get_engine

    engine = get_engine()
    return calibration.is_primary(engine.run_legs(understand(text), "signature"))


def test_a_library_named_only_in_the_askers_words_does_not_decide(use_fixture_env):
    data = answer("after upgrading pandas and tensorflow my torch script fails:\n" + OOM)
    assert data.declined is None and data.matches[0].id == "pytorch/cuda-oom"


def test_frames_of_another_library_below_torch_frames_make_it_that_librarys():
    text = tb([("train.py", "x = torch.from_numpy(np.stack(arrays))"),
               (f"{SITE}/numpy/core/shape_base.py", "raise ValueError('all input arrays must have the same shape')")],
              "ValueError: all input arrays must have the same shape")
    scope = judge(understand(text))
    assert scope.kind == OTHER_LIBRARY and scope.library.key == "numpy" and scope.evidence_kind == "frame"


# --- no error at all -------------------------------------------------------------------------


@pytest.mark.parametrize("text, lang", [("hi there!", "en"), ("<@U02TROUBLE> 안녕하세요~", "ko"), ("你好", "zh"),
                                        ("thanks, that fixed it", "en"), ("감사합니다!", "ko")])
def test_a_greeting_gets_a_request_for_the_error_not_guesses(use_fixture_env, text, lang):
    assert is_greeting(text) and judge(understand(text)).kind == NO_ERROR
    data = answer(text)
    assert data.answered is False and data.declined == "no-error" and data.matches == []
    assert data.language == lang and data.notice
    assert {"en": "traceback", "ko": "트레이스백", "zh": "traceback"}[lang] in data.notice


@pytest.mark.slow
def test_a_question_without_error_text_that_no_entry_answers_gets_the_request(real_engine):
    for text in ("what batch size do people use for fine-tuning a ViT on 8 GPUs?",
                 "is AdamW better than SGD for ResNet-50 on ImageNet?"):
        result = real_engine.search(text, top=3)
        assert result.declined == "no-error" and not result.answered


# --- the real knowledge base: the dev negatives --------------------------------------------------


@pytest.fixture(scope="module")
def real_engine(embedder, tmp_path_factory):
    """The project's 90-entry knowledge base with its index (built into a temporary folder
    when the project's own index is missing or stale)."""
    from bot import settings
    from bot.retrieval.engine import Engine
    from bot.retrieval.index import build_index, staleness

    kb, index_dir = settings.REPO_ROOT / "knowledge", settings.REPO_ROOT / "index"
    if staleness(kb, index_dir, embedder.name) is not None:
        index_dir = tmp_path_factory.mktemp("real-index")
        build_index(kb, index_dir, embedder, progress=False, log=lambda msg: None)
    return Engine.load(kb, index_dir, embedder)


@pytest.mark.slow
def test_dev_negatives_are_declined_and_through_library_errors_answered(real_engine):
    from bot.retrieval.evaluate import read_eval_lines, run_eval

    m = run_eval(real_engine, read_eval_lines(REPO / "eval" / "dev" / "negatives.jsonl"))["metrics"]
    kinds = m["by_kind"]
    for kind in ("neg-other-library", "neg-install", "neg-greeting", "neg-python"):
        assert kinds[kind]["false_answers"] == 0, kind
    # the uncovered-PyTorch ones are "no kernel image", which cuda-not-available's signature covers;
    # the rest are questions about training that read like an entry
    assert kinds["neg-pytorch-uncovered"]["false_answers"] <= 3 and kinds["neg-question"]["false_answers"] <= 2
    assert m["false_answer_rate"] <= 0.045
    assert kinds["pos-through-library"]["covered_right"] == kinds["pos-through-library"]["covered"]


def test_an_error_greeted_is_still_answered(use_fixture_env):
    assert not is_greeting("hi, my training dies with this:\n" + OOM) or judge(understand(OOM)).kind == PYTORCH
    data = answer("hi, my training dies with this:\n" + OOM)
    assert data.answered and data.matches[0].id == "pytorch/cuda-oom"


def test_ask_prints_the_notice(use_fixture_env, capsys):
    from bot.cli import main

    assert main(["ask", "안녕하세요"]) == 0
    out = capsys.readouterr().out
    assert "붙여 넣어" in out and "pytorch/" not in out


# --- the calibrated confidence ------------------------------------------------------------------


def test_the_stored_model_is_small_and_complete():
    model = calibration.load_model()
    assert model is not None and 0.3 <= model["threshold"] <= 0.95
    assert set(model["signature"]["coef"]) == set(calibration.SIGNATURE_FEATURES)
    assert set(model["other"]["coef"]) == set(calibration.OTHER_FEATURES)
    assert len(calibration.MODEL_PATH.read_bytes()) < 4000


def test_confidence_rises_with_the_evidence():
    model = calibration.load_model()
    weak = {k: 0.0 for k in calibration.FEATURES} | {"dense": 0.5, "bm25_share": 0.8, "margin": 0.02,
                                                     "has_exception": 1.0, "error_text": 1.0, "unmatched_error": 1.0}
    strong = weak | {"dense": 0.95, "margin": 0.4, "agree": 1.0}
    signature = strong | {"sig_primary": 1.0, "sig_cover": 0.8, "unmatched_error": 0.0}
    p_weak, p_strong, p_sig = (calibration.probability(model, f) for f in (weak, strong, signature))
    assert p_weak < calibration.threshold(model) < p_strong and p_sig > calibration.threshold(model)


def test_the_guard_refuses_an_absorbing_entry_without_its_signature():
    model = {"needs_signature": ["pytorch/shape-matmul"]}
    feats = {"has_exception": 1.0, "sig_primary": 0.0}
    assert calibration.guard(model, "pytorch/shape-matmul", feats)
    assert calibration.guard(model, "pytorch/shape-matmul", feats | {"sig_primary": 1.0}) is None
    assert calibration.guard(model, "pytorch/cuda-oom", feats) is None


def test_search_answers_only_above_the_threshold(engine):
    result = engine.search(OOM, top=3)
    assert result.answered and result.best.confidence >= calibration.threshold()
    assert all(h.confidence <= result.best.confidence for h in result.hits)
    vague = engine.search("RuntimeError: something about the fused kernel went wrong in module foo", top=3)
    assert not vague.answered and vague.declined == "not-covered"
    assert vague.best is None or vague.best.confidence < calibration.threshold()
