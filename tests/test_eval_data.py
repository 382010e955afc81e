"""The retrieval evaluation sets under eval/ are well formed, cover every class, keep
dev and held-out apart, and match what eval/build_sets.py builds."""

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
         for split in ("dev", "heldout") for name in ("pasted", "questions")}
KEYS = {"text", "expected", "kind", "lang", "note"}
PASTED_KINDS = {"traceback", "line", "truncated", "prose-en", "prose-ko", "prose-zh"}
QUESTION_KINDS = {"question-ko", "question-zh"}
KIND_LANG = {"prose-en": "en", "prose-ko": "ko", "prose-zh": "zh", "question-ko": "ko", "question-zh": "zh"}
HANGUL = re.compile(f"[{HANGUL_SYLLABLES}]")
HAN = re.compile(f"[{HAN_UNIFIED}]")

# English error text that a question must not quote: the taxonomy's signals and other
# distinctive fragments of the same messages.
ERROR_TEXT = [
    "Trying to backward through the graph", "retain_graph=True when calling backward",
    "modified by an inplace operation", "leaf Variable that requires grad", "does not require grad",
    "does not have a grad_fn", "implicitly created only for scalar", "Can't call numpy()",
    "detach().numpy() instead", "CUDA out of memory", "OutOfMemoryError", "Tried to allocate",
    "same device", "should be the same", "expected scalar type", "must have the same dtype",
    "shapes cannot be multiplied", "view size is not compatible", "Use .reshape(...) instead",
    "index out of range", "device-side assert", "t >= 0 && t < n_classes", "illegal memory access",
    "CUDNN_STATUS", "not compiled with CUDA", "Found no NVIDIA driver", "DataLoader worker (pid",
    "killed by signal", "exited unexpectedly", "NCCL error", "unhandled system error",
    "Watchdog caught collective", "finished reduction in the prior iteration", "find_unused_parameters=True",
    "Error(s) in loading state_dict", "Missing key(s)", "Unexpected key(s)", "size mismatch for",
    "Weights only load failed", "we changed the default value of the `weights_only`",
    "not implemented for 'Half'", "multi-target not supported", "target tensor expected",
    "Expected target size", "Expected object of scalar type", "Expected input batch_size",
    "to match target batch_size",
]


def required_ids() -> list[str]:
    text = (REPO / "knowledge" / "required-ids.txt").read_text(encoding="utf-8")
    return [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]


# These sets cover the first 25 classes of the taxonomy; the 65 after them have their own
# long-tail set (tests/test_eval_longtail.py).
CORE_CLASSES = 25


def core_ids() -> list[str]:
    return required_ids()[:CORE_CLASSES]


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
    assert not missing, f"missing evaluation files {missing}; run python -m eval.build_sets"
    return {key: load(path) for key, path in FILES.items()}


def both(sets, name: str) -> list[dict]:
    return sets[("dev", name)] + sets[("heldout", name)]


def test_every_line_names_a_required_id_a_known_kind_and_a_matching_language(sets):
    ids = set(required_ids())
    for (split, name), rows in sets.items():
        kinds = PASTED_KINDS if name == "pasted" else QUESTION_KINDS
        for row in rows:
            where = f"{split}/{name}.jsonl: {row['text'][:60]!r}"
            assert row["expected"] in ids, f"{where}: {row['expected']} is not in knowledge/required-ids.txt"
            assert row["kind"] in kinds, f"{where}: kind {row['kind']!r} does not belong in {name}"
            assert row["lang"] == KIND_LANG.get(row["kind"], "en"), \
                f"{where}: lang {row['lang']} for kind {row['kind']}"
            if row["lang"] == "ko":
                assert HANGUL.search(row["text"]), f"{where}: marked Korean but has no Hangul"
            if row["lang"] == "zh":
                assert HAN.search(row["text"]) and not HANGUL.search(row["text"]), f"{where}: marked Chinese"


def test_counts_per_class(sets):
    ids = core_ids()
    pasted = Counter(r["expected"] for r in both(sets, "pasted"))
    questions = Counter(r["expected"] for r in both(sets, "questions"))
    assert sum(pasted.values()) >= 160
    assert sum(questions.values()) >= 60
    for cls in ids:
        assert pasted[cls] >= 6, f"{cls}: {pasted[cls]} pasted errors, want at least 6"
        assert questions[cls] >= 2, f"{cls}: {questions[cls]} questions, want at least 2"
    langs = Counter(r["lang"] for r in both(sets, "questions"))
    assert min(langs["ko"], langs["zh"]) >= 0.4 * sum(langs.values()), f"questions not about half ko/zh: {langs}"


def test_pasted_set_has_the_shapes_users_paste(sets):
    texts = [r["text"] for r in both(sets, "pasted")]
    kinds = Counter(r["kind"] for r in both(sets, "pasted"))
    assert all(kinds[k] >= 10 for k in PASTED_KINDS), kinds
    markers = {
        "linux path": r'File "/(home|opt|usr|mnt|srv|workspace|data)/',
        "windows path": r'[A-Z]:\\\\?Users|[A-Z]:\\\\?(envs|projects)',
        "colab link": r"\]\(https://localhost:8080/#\)",
        "jupyter arrow": r"^-+(>|&gt;) +\d+ ",
        "rich box": r"^│ .* │$",
        "ansi colour": "\x1b\\[",
        "chained": r"During handling of the above exception|The above exception was the direct cause",
        "rank prefix": r"^\[rank\d+\]:",
        "slack entities": r"&lt;|&gt;|&amp;",
        "slack mention": r"<@U[0-9A-Z]+>|&lt;@U[0-9A-Z]+&gt;",
        "code fence": r"^```",
    }
    for name, pattern in markers.items():
        found = sum(1 for t in texts if re.search(pattern, t, re.M))
        assert found >= 2, f"only {found} pasted errors show a {name}"


def test_questions_do_not_quote_the_english_error(sets):
    for row in both(sets, "questions"):
        lowered = row["text"].lower()
        for fragment in ERROR_TEXT:
            assert fragment.lower() not in lowered, f"question quotes {fragment!r}: {row['text']}"


def test_no_duplicate_texts_and_dev_heldout_disjoint(sets):
    all_texts = [r["text"] for rows in sets.values() for r in rows]
    dupes = [t[:60] for t, n in Counter(all_texts).items() if n > 1]
    assert not dupes, f"duplicate texts: {dupes}"
    for name in ("pasted", "questions"):
        dev = {r["text"] for r in sets[("dev", name)]}
        heldout = {r["text"] for r in sets[("heldout", name)]}
        assert not dev & heldout, f"{name}: dev and held-out share {len(dev & heldout)} texts"


def test_split_is_about_sixty_forty_and_stratified(sets):
    for name in ("pasted", "questions"):
        dev, heldout = sets[("dev", name)], sets[("heldout", name)]
        share = len(dev) / (len(dev) + len(heldout))
        assert 0.55 <= share <= 0.65, f"{name}: dev share {share:.2f}"
        kinds = {r["kind"] for r in dev + heldout}
        for part, rows in (("dev", dev), ("held-out", heldout)):
            missing = kinds - {r["kind"] for r in rows}
            assert not missing, f"{name}: {part} has no line of kind {sorted(missing)}"
        dev_classes = Counter(r["expected"] for r in dev)
        heldout_classes = Counter(r["expected"] for r in heldout)
        for cls in core_ids():
            assert dev_classes[cls] >= 1 and heldout_classes[cls] >= 1, f"{name}: {cls} missing from a split"
            total = dev_classes[cls] + heldout_classes[cls]
            assert abs(dev_classes[cls] - 0.6 * total) < 1, f"{name}: {cls} split {dev_classes[cls]}/{total}"


@pytest.mark.slow
def test_committed_files_match_the_generator():
    proc = subprocess.run([sys.executable, "-m", "eval.build_sets", "--check"], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
