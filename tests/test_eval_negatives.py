"""The negative set and the code-only set under eval/ are well formed, have every kind in
both parts with the minimum counts, keep dev and held-out apart, name only taxonomy ids,
and match what eval/build_negatives.py builds (the slow test re-runs every snippet)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from bot.text.scripts import HAN_UNIFIED, HANGUL_SYLLABLES

REPO = Path(__file__).resolve().parent.parent
EVAL = REPO / "eval"
SPLITS = ("dev", "heldout")
BASE_KEYS = {"text", "expected", "kind", "lang", "note"}
NEGATIVE_MINIMUMS = {  # over both parts together
    ("neg-pytorch-uncovered",): 50,
    ("neg-other-library",): 70,
    ("neg-install",): 25,
    ("neg-question", "neg-greeting"): 30,
}
NEGATIVE_KINDS = {"neg-pytorch-uncovered", "neg-other-library", "neg-install", "neg-question",
                  "neg-greeting", "neg-python"}
POSITIVE_KIND = "pos-through-library"
CODE_KINDS = {"code-bare", "code-fenced", "code-asked", "code-clean"}
HANGUL = re.compile(f"[{HANGUL_SYLLABLES}]")
HAN = re.compile(f"[{HAN_UNIFIED}]")

# Distinctive wording of covered classes (facts from the taxonomy's signals). A negative line
# quoting one of them would belong to a covered class, not to the negatives.
COVERED_FRAGMENTS = [
    "Trying to backward through the graph a second time", "modified by an inplace operation",
    "leaf Variable that requires grad", "does not require grad and does not have a grad_fn",
    "grad can be implicitly created only for scalar", "Can't call numpy() on Tensor that requires grad",
    "CUDA out of memory", "OutOfMemoryError", "Expected all tensors to be on the same device",
    "expected scalar type Float but found Double", "must have the same dtype", "shapes cannot be multiplied",
    "view size is not compatible", "index out of range in self", "device-side assert triggered",
    "illegal memory access", "CUDNN_STATUS", "Torch not compiled with CUDA enabled", "Found no NVIDIA driver",
    "DataLoader worker (pid", "NCCL error", "finished reduction in the prior iteration",
    "Error(s) in loading state_dict", "Weights only load failed", "not implemented for 'Half'",
    "multi-target not supported", "Expected input batch_size", "Given groups=1, weight of size",
    "must match the size of tensor b", "stack expects each tensor to be equal size",
    "Sizes of tensors must match except in dimension", "is invalid for input of size",
    "The expanded size of the tensor", "Dimension out of range", "Kernel size can't be greater",
    "Expected more than 1 value per channel", "must be the same as input size",
    "input.size(-1) must be equal to input_size", "must be sorted in decreasing order",
    "Index tensor must have the same number of dimensions", "Class values must be smaller than num_classes",
    "tensors used as indices must be long", "Boolean value of Tensor with more than one value",
    "elements cannot be converted to Scalar", "can't convert cuda:0 device type tensor to numpy",
    "can't convert np.ndarray of type numpy.object_", "only one element tensors can be converted",
    "floating point and complex dtype can require gradients", "Cannot copy out of meta tensor",
    "returned nan values in its", "Inference tensors cannot be saved for backward",
    "is not a leaf Tensor is being accessed", "optimizer got an empty parameter list",
    "can't optimize a non-leaf Tensor", "Mismatch in shape: grad_output",
    "does not have a deterministic implementation",
    "Attempting to unscale FP16 gradients", "so it cannot be clipped", "None of the inputs have requires_grad=True",
    "Detected call of `lr_scheduler.step()` before", "default_collate: batch must contain",
    "insufficient shared memory (shm)", "received 0 items of ancdata", "Too many open files",
    "Can't pickle local object", "mutually exclusive with shuffle", "Sum of input lengths does not equal",
    "current process has finished its bootstrapping phase", "CUBLAS_STATUS", "invalid device ordinal",
    "Cannot re-initialize CUDA in forked subprocess", "all CUDA-capable devices are busy",
    "unspecified launch failure", "misaligned address", "FlashAttention only supports Ampere",
    "not currently implemented for the MPS device", "Cannot convert a MPS Tensor to float64",
    "[WinError 126]", "undefined symbol:", "operator torchvision::nms does not exist",
    "A module that was compiled using NumPy 1.x", "Numpy is not available",
    "Default process group has not been initialized", "failed to listen on any local network address",
    "Expected to mark a variable ready only once", "ChildFailedError",
    "SyncBatchNorm expected input tensor to be on GPU",
    "failed finding central directory", "No module named '__torch__'", "BackendCompilerFailed",
    "Cannot find a working triton installation", "torch._dynamo.exc.Unsupported", "to ONNX opset version",
    "NotSupportedError", "is currently not supported in Torchscript",
]


def required_ids() -> list[str]:
    text = (REPO / "knowledge" / "required-ids.txt").read_text(encoding="utf-8")
    return [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]


def load(path: Path) -> list[dict]:
    rel = path.relative_to(REPO)
    assert path.exists(), f"missing {rel}; run python -m eval.build_negatives"
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            pytest.fail(f"{rel}:{n}: not valid JSON ({exc})")
        assert isinstance(row, dict), f"{rel}:{n}: not a JSON object"
        row["_where"] = f"{rel}:{n}"
        rows.append(row)
    return rows


@pytest.fixture(scope="module")
def sets() -> dict[tuple[str, str], list[dict]]:
    return {(split, name): load(EVAL / split / f"{name}.jsonl")
            for split in SPLITS for name in ("negatives", "code_only")}


def both(sets, name: str) -> list[dict]:
    return sets[("dev", name)] + sets[("heldout", name)]


def check_common(row: dict, ids: set[str]) -> None:
    where = row["_where"]
    for key in ("text", "kind", "lang", "note"):
        assert isinstance(row.get(key), str) and row[key].strip(), f"{where}: empty or missing {key}"
    assert row["expected"] is None or row["expected"] in ids, \
        f"{where}: expected {row['expected']!r} is not in knowledge/required-ids.txt"
    assert row["lang"] in {"en", "ko", "zh"}, f"{where}: lang {row['lang']!r}"
    if row["lang"] == "ko":
        assert HANGUL.search(row["text"]), f"{where}: marked Korean but has no Hangul"
    if row["lang"] == "zh":
        assert HAN.search(row["text"]) and not HANGUL.search(row["text"]), f"{where}: marked Chinese"


def test_negative_lines_are_well_formed(sets):
    ids = set(required_ids())
    for row in both(sets, "negatives"):
        where = row["_where"]
        check_common(row, ids)
        kind = row["kind"]
        assert kind in NEGATIVE_KINDS | {POSITIVE_KIND}, f"{where}: kind {kind!r}"
        wants_library = kind in {"neg-other-library", POSITIVE_KIND}
        assert set(row) - {"_where"} == BASE_KEYS | ({"library"} if wants_library else set()), \
            f"{where}: keys {sorted(set(row) - {'_where'})}"
        if wants_library:
            assert isinstance(row["library"], str) and row["library"].strip(), f"{where}: empty library"
            assert row["library"].lower() not in {"torch", "pytorch"}, f"{where}: library must be another library"
        if kind == POSITIVE_KIND:
            assert row["expected"] in ids, f"{where}: a through-library positive needs its taxonomy id"
            assert any(f in row["text"] for f in COVERED_FRAGMENTS), f"{where}: quotes no covered PyTorch error"
        else:
            assert row["expected"] is None, f"{where}: a negative must have expected null"


def test_negatives_do_not_quote_a_covered_class(sets):
    for row in both(sets, "negatives"):
        if row["kind"] == POSITIVE_KIND:
            continue
        for fragment in COVERED_FRAGMENTS:
            assert fragment not in row["text"], f"{row['_where']}: negative quotes {fragment!r} of a covered class"


def test_code_only_lines_are_well_formed(sets):
    ids = set(required_ids())
    for row in both(sets, "code_only"):
        where = row["_where"]
        check_common(row, ids)
        assert set(row) - {"_where"} == BASE_KEYS | {"observed"}, f"{where}: keys {sorted(set(row) - {'_where'})}"
        assert row["kind"] in CODE_KINDS, f"{where}: kind {row['kind']!r}"
        observed = row["observed"]
        assert isinstance(observed, dict) and set(observed) == {"type", "message", "torch"}, f"{where}: observed"
        assert isinstance(observed["torch"], str) and observed["torch"], f"{where}: observed torch version"
        if row["kind"] == "code-clean":
            assert row["expected"] is None and observed["type"] is None, f"{where}: a clean snippet raised"
        else:
            assert row["expected"] in ids, f"{where}: a raising snippet needs its taxonomy id"
            assert observed["type"] and isinstance(observed["message"], str), f"{where}: nothing observed"
        # pasted code without any error text: the observed message is not in the question
        if observed["message"]:
            first = observed["message"].splitlines()[0][:60]
            assert first not in row["text"], f"{where}: the text quotes the error it should make the bot find"
        if row["kind"] == "code-fenced":
            assert row["text"].startswith("```") and row["text"].endswith("```"), f"{where}: not only a fenced block"
        if row["kind"] == "code-bare":
            assert "```" not in row["text"], f"{where}: bare code with a fence"


def test_minimum_counts(sets):
    negatives = both(sets, "negatives")
    kinds = Counter(r["kind"] for r in negatives)
    for group, minimum in NEGATIVE_MINIMUMS.items():
        assert sum(kinds[k] for k in group) >= minimum, f"{group}: {sum(kinds[k] for k in group)} lines, want {minimum}"
    assert sum(1 for r in negatives if r["expected"] is None) >= 200, kinds
    assert kinds[POSITIVE_KIND] >= 20, kinds
    assert len({r["library"] for r in negatives if r["kind"] == "neg-other-library"}) >= 10
    code = both(sets, "code_only")
    assert sum(1 for r in code if r["expected"] is not None) >= 40
    assert sum(1 for r in code if r["kind"] == "code-clean") >= 10
    for name, rows in (("negatives", negatives), ("code_only", code)):
        langs = Counter(r["lang"] for r in rows)
        assert langs["ko"] >= 5 and langs["zh"] >= 5, f"{name}: too few ko/zh lines {langs}"


def test_every_kind_in_both_parts_and_about_sixty_forty(sets):
    for name in ("negatives", "code_only"):
        dev, heldout = sets[("dev", name)], sets[("heldout", name)]
        share = len(dev) / (len(dev) + len(heldout))
        assert 0.55 <= share <= 0.65, f"{name}: dev share {share:.2f}"
        kinds = {r["kind"] for r in dev + heldout}
        for part, rows in (("dev", dev), ("held-out", heldout)):
            missing = kinds - {r["kind"] for r in rows}
            assert not missing, f"{name}: {part} has no line of kind {sorted(missing)}"


def test_no_duplicate_texts_within_or_across_parts_and_files(sets):
    texts = [r["text"] for rows in sets.values() for r in rows]
    dupes = [t[:60] for t, n in Counter(texts).items() if n > 1]
    assert not dupes, f"duplicate texts: {dupes}"


def test_files_match_the_builder():
    proc = subprocess.run([sys.executable, "-m", "eval.build_negatives", "--check", "--no-run"], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.slow
def test_every_snippet_still_raises_what_its_line_says():
    """Runs all code-only snippets again on this torch (each in a fresh process with a time limit)."""
    proc = subprocess.run([sys.executable, "-m", "eval.build_negatives", "--check"], cwd=REPO,
                          capture_output=True, text=True, timeout=280)
    assert proc.returncode == 0, proc.stderr
