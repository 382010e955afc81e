"""The long-tail evaluation set (the 65 taxonomy classes after the first 25) is well formed,
covers every class in both splits, keeps dev and held-out apart, says where each error text
came from, and matches what eval/build_longtail.py builds."""

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
FILES = {(split, name): EVAL / split / f"{name}.jsonl"
         for split in ("dev", "heldout") for name in ("longtail", "longtail_questions")}
FIRST_SETS = [EVAL / split / f"{name}.jsonl" for split in ("dev", "heldout") for name in ("pasted", "questions")]
KEYS = {"text", "expected", "kind", "lang", "note"}
PASTED_KINDS = {"traceback", "line", "truncated", "prose-en", "prose-ko", "prose-zh"}
QUESTION_KINDS = {"question-ko", "question-zh"}
KIND_LANG = {"prose-en": "en", "prose-ko": "ko", "prose-zh": "zh", "question-ko": "ko", "question-zh": "zh"}
HANGUL = re.compile(f"[{HANGUL_SYLLABLES}]")
HAN = re.compile(f"[{HAN_UNIFIED}]")
CORE_CLASSES = 25  # the first sets (tests/test_eval_data.py) cover the taxonomy's first 25 classes

# Every pasted line says where its error text came from (eval/longtail_common.py).
SOURCES = {
    "thread": re.compile(r"^error text from a public thread https://\S+"),
    "ran": re.compile(r"^(message|message and PyTorch frames|output) ran on torch 2\.13 CPU"),
    "known": re.compile(r"^written from the known PyTorch "),
}
QUESTION_NOTE = "question written by hand; contains no English error text"

# English error text a question must not quote: the taxonomy's signals for these classes and
# other distinctive fragments of the same messages.
ERROR_TEXT = [
    "Given groups=", "to have 3 channels", "channels instead", "The size of tensor a",
    "must match the size of tensor b", "at non-singleton dimension", "stack expects each tensor",
    "Sizes of tensors must match", "is invalid for input of size",
    "The expanded size of the tensor", "must match the existing size", "Dimension out of range",
    "(unbatched) or", "(batched) input to conv", "Kernel size can't be greater", "Output size is too small",
    "Expected more than 1 value per channel", "Using a target size", "that is different to the input size",
    "must be the same as input size", "must be equal to input_size", "Expected hidden size", "Expected hidden[0] size",
    "must be sorted in decreasing order", "1D CPU int64 tensor", "Index tensor must have the same number of dimensions",
    "Class values must be", "tensors used as indices must be", "indices should be either on cpu",
    "Boolean value of Tensor", "is ambiguous", "cannot be converted to Scalar", "only one element tensors",
    "can't convert cuda", "Use Tensor.cpu() to copy", "np.ndarray of type numpy.object_",
    "only integer tensors of a single element", "floating point and complex dtype can require gradients",
    "Cannot copy out of meta tensor", "returned nan values", "Inference tensors cannot be saved",
    "Inplace update to inference tensor", "is not a leaf Tensor is being accessed",
    "optimizer got an empty parameter list", "can't optimize a non-leaf", "Mismatch in shape", "is not implemented",
    "does not have a deterministic implementation",
    "Attempting to unscale FP16", "has already been called on this optimizer", "is non-finite, so it cannot be clipped",
    "None of the inputs have requires_grad", "Detected call of", "batch must contain tensors",
    "insufficient shared memory", "Unexpected bus error", "received 0 items of ancdata", "Too many open files",
    "Can't pickle local object", "Can't get attribute", "Ran out of input", "mutually exclusive with shuffle",
    "Sum of input lengths does not equal", "bootstrapping phase", "CUBLAS_STATUS", "invalid device ordinal",
    "Cannot re-initialize CUDA", "devices are busy or unavailable", "unspecified launch failure", "misaligned address",
    "No available kernel", "FlashAttention only supports", "not currently implemented for the MPS device",
    "Cannot convert a MPS Tensor", "WinError", "The specified module could not be found", "or one of its dependencies",
    "undefined symbol", "torchvision::nms does not exist", "compiled using NumPy 1.x", "Numpy is not available",
    "Default process group has not been initialized", "server socket has failed", "address already in use",
    "mark a variable ready only once", "ChildFailedError", "SyncBatchNorm expected input tensor",
    "failed finding central directory", "PytorchStreamReader", "storage has wrong size", "No module named",
    "hasRecord", "BackendCompilerFailed", "Cannot find a working triton", "torch._dynamo.exc", "recompile_limit",
    "to ONNX opset version", "NotSupportedError", "UnsupportedNodeError", "is currently not supported in Torchscript",
]


def required_ids() -> list[str]:
    text = (REPO / "knowledge" / "required-ids.txt").read_text(encoding="utf-8")
    return [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]


TAXONOMY_CLASSES = 90  # required-ids.txt lists the taxonomy first, then classes found in real traffic (issue 25)


def longtail_ids() -> list[str]:
    return required_ids()[CORE_CLASSES:TAXONOMY_CLASSES]


def load(path: Path) -> list[dict]:
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            pytest.fail(f"{path.relative_to(REPO)}:{n}: not valid JSON ({exc})")
        assert isinstance(row, dict), f"{path.relative_to(REPO)}:{n}: not a JSON object"
        assert set(row) == KEYS, f"{path.relative_to(REPO)}:{n}: keys {sorted(row)}, want {sorted(KEYS)}"
        assert all(isinstance(row[k], str) and row[k].strip() for k in KEYS), \
            f"{path.relative_to(REPO)}:{n}: empty field"
        rows.append(row)
    return rows


@pytest.fixture(scope="module")
def sets() -> dict[tuple[str, str], list[dict]]:
    missing = [str(p.relative_to(REPO)) for p in FILES.values() if not p.exists()]
    assert not missing, f"missing evaluation files {missing}; run python -m eval.build_longtail"
    return {key: load(path) for key, path in FILES.items()}


def both(sets, name: str) -> list[dict]:
    return sets[("dev", name)] + sets[("heldout", name)]


def test_required_ids_list_the_90_taxonomy_classes_in_order():
    taxonomy = REPO.parent.parent / "shared" / "taxonomy.yml"  # /work/shared when run from a worktree
    ids = required_ids()
    assert len(set(ids)) == len(ids), f"{len(ids)} ids, {len(set(ids))} distinct"
    ids = ids[:TAXONOMY_CLASSES]
    assert len(ids) == TAXONOMY_CLASSES, f"{len(ids)} ids"
    if taxonomy.exists():
        assert ids == re.findall(r"^- id: (\S+)", taxonomy.read_text(encoding="utf-8"), re.M)


def test_every_line_names_a_longtail_id_a_known_kind_and_a_matching_language(sets):
    ids = set(longtail_ids())
    for (split, name), rows in sets.items():
        kinds = PASTED_KINDS if name == "longtail" else QUESTION_KINDS
        for row in rows:
            where = f"{split}/{name}.jsonl: {row['text'][:60]!r}"
            assert row["expected"] in ids, f"{where}: {row['expected']} is not one of the 65 long-tail classes"
            assert row["kind"] in kinds, f"{where}: kind {row['kind']!r} does not belong in {name}"
            assert row["lang"] == KIND_LANG.get(row["kind"], "en"), \
                f"{where}: lang {row['lang']} for kind {row['kind']}"
            if row["lang"] == "ko":
                assert HANGUL.search(row["text"]), f"{where}: marked Korean but has no Hangul"
            if row["lang"] == "zh":
                assert HAN.search(row["text"]) and not HANGUL.search(row["text"]), f"{where}: marked Chinese"


def test_every_class_has_enough_lines_and_one_question_per_language(sets):
    pasted = Counter(r["expected"] for r in both(sets, "longtail"))
    asked = Counter((r["expected"], r["lang"]) for r in both(sets, "longtail_questions"))
    for cls in longtail_ids():
        assert pasted[cls] >= 6, f"{cls}: {pasted[cls]} pasted errors, want at least 6"
        assert asked[(cls, "ko")] >= 1 and asked[(cls, "zh")] >= 1, f"{cls}: a Korean and a Chinese question"


def test_pasted_lines_have_the_shapes_users_paste(sets):
    texts = [r["text"] for r in both(sets, "longtail")]
    kinds = Counter(r["kind"] for r in both(sets, "longtail"))
    assert all(kinds[k] >= 30 for k in PASTED_KINDS), kinds
    markers = {
        "linux path": r'File "/(home|opt|usr|mnt|srv|workspace|data|root)/',
        "windows path": r"[A-Z]:\\\\?(Users|ProgramData|AI|ai|anaconda|ComfyUI|Python|python|envs|Anaconda)",
        "macos path": r"/Users/\w+/",
        "colab link": r"\]\(https://localhost:8080/#\)",
        "jupyter cell": r"^(Cell In\[\d+\]|<ipython-input-)",
        "rich box": r"^│ .* │$",
        "chained": r"During handling of the above exception|The above exception was the direct cause",
        "rank prefix": r"^\[rank\d+\]:",
        "caret line": r"^\s+\^{5,}$",
        "slack entities": r"&lt;|&gt;|&amp;",
        "slack mention": r"<@U[0-9A-Z]+>",
        "code fence": r"^```",
        "library frames": r"site-packages/(transformers|accelerate|lightning|pytorch_lightning|timm|torchvision)/",
    }
    for name, pattern in markers.items():
        found = sum(1 for t in texts if re.search(pattern, t, re.M))
        assert found >= 2, f"only {found} long-tail lines show a {name}"


def test_every_note_names_its_source(sets):
    counts = Counter()
    for row in both(sets, "longtail"):
        source = [name for name, pattern in SOURCES.items() if pattern.match(row["note"])]
        assert len(source) == 1, f"note does not name one source: {row['note']!r}"
        counts[source[0]] += 1
    for row in both(sets, "longtail_questions"):
        assert row["note"] == QUESTION_NOTE
    assert counts["thread"] >= counts["known"], f"more lines from known wording than from real threads: {counts}"
    assert counts["ran"] >= 30, counts


def digits_free(text: str) -> str:
    return re.sub(r"\d+", "#", text)


def test_lines_said_to_have_run_on_213_quote_a_captured_message(sets):
    """A line whose note says torch 2.13 printed it contains what the capture recorded
    (numbers aside: shapes, pids and ports vary from line to line)."""
    captured = json.loads((EVAL / "messages_longtail_torch213.json").read_text(encoding="utf-8"))
    assert captured["torch"].startswith("2.13"), captured["torch"]
    first = [e["message"].splitlines()[0] for e in captured["errors"].values()]
    first += [w["message"] for w in captured["warnings"].values()]
    first += [log.strip().splitlines()[-1] for log in captured["logs"].values()]
    heads = {digits_free(m)[:40] for m in first if m.strip()}
    for row in both(sets, "longtail"):
        if SOURCES["ran"].match(row["note"]):
            text = digits_free(row["text"])
            assert any(h in text for h in heads), f"no captured 2.13 message in {row['text'][:80]!r}"


def test_questions_do_not_quote_the_english_error(sets):
    for row in both(sets, "longtail_questions"):
        lowered = row["text"].lower()
        for fragment in ERROR_TEXT:
            assert fragment.lower() not in lowered, f"question quotes {fragment!r}: {row['text']}"


def test_no_duplicate_texts_and_dev_heldout_disjoint(sets):
    all_texts = [r["text"] for rows in sets.values() for r in rows]
    dupes = [t[:60] for t, n in Counter(all_texts).items() if n > 1]
    assert not dupes, f"duplicate texts: {dupes}"
    first = {json.loads(line)["text"] for path in FIRST_SETS for line in path.read_text(encoding="utf-8").splitlines()}
    assert not first & set(all_texts), "a long-tail line repeats a line of the first sets"
    for name in ("longtail", "longtail_questions"):
        dev = {r["text"] for r in sets[("dev", name)]}
        heldout = {r["text"] for r in sets[("heldout", name)]}
        assert not dev & heldout, f"{name}: dev and held-out share {len(dev & heldout)} texts"


def test_split_is_stratified_sixty_forty_and_keeps_every_class_in_both_parts(sets):
    # pasted lines split about 60/40; the questions (one Korean, one Chinese per class) 1/1
    for name, low, high, share_per_class in (("longtail", 0.55, 0.65, 0.6), ("longtail_questions", 0.5, 0.5, 0.5)):
        dev, heldout = sets[("dev", name)], sets[("heldout", name)]
        share = len(dev) / (len(dev) + len(heldout))
        assert low <= share <= high, f"{name}: dev share {share:.2f}"
        kinds = {r["kind"] for r in dev + heldout}
        for part, rows in (("dev", dev), ("held-out", heldout)):
            missing = kinds - {r["kind"] for r in rows}
            assert not missing, f"{name}: {part} has no line of kind {sorted(missing)}"
        dev_classes = Counter(r["expected"] for r in dev)
        heldout_classes = Counter(r["expected"] for r in heldout)
        for cls in longtail_ids():
            assert dev_classes[cls] >= 1 and heldout_classes[cls] >= 1, f"{name}: {cls} missing from a split"
            total = dev_classes[cls] + heldout_classes[cls]
            assert abs(dev_classes[cls] - share_per_class * total) < 1, \
                f"{name}: {cls} split {dev_classes[cls]}/{total}"


def test_committed_files_match_the_generator():
    proc = subprocess.run([sys.executable, "-m", "eval.build_longtail", "--check"], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
