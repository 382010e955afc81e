"""The real-traffic eval sets (eval/real/, built by eval/build_real.py): every post has
one label, labels name real entries, dev and held-out share no repository, and the
committed eval files are what the builder makes from the posts and labels."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval import build_real

REPO = Path(__file__).resolve().parent.parent
EVAL = REPO / "eval"


def _ids() -> set[str]:
    return {line.strip() for line in (REPO / "knowledge" / "required-ids.txt").read_text().splitlines()
            if line.strip() and not line.startswith("#")}


def _lines(split: str) -> list[dict]:
    path = EVAL / split / "real.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_the_corpus_loads_and_every_label_names_a_real_entry():
    rows = build_real.load(build_real.REAL, _ids())
    assert len(rows) >= 500
    assert {r["label"] for r in rows} == set(build_real.LABELS)
    assert all(r["expected"] in _ids() for r in rows if r["label"] == "entry")


def test_dev_and_held_out_share_no_repository():
    dev, held = _lines("dev"), _lines("heldout")
    repos = {split: {json.loads(json.dumps(line))["id"].split("#")[0] for line in lines}
             for split, lines in (("dev", dev), ("held", held))}
    assert repos["dev"] and repos["held"] and not repos["dev"] & repos["held"]


def test_the_committed_eval_files_are_what_the_builder_makes():
    rows = build_real.load(build_real.REAL, _ids())
    for split, keep in (("dev", False), ("heldout", True)):
        expected = [build_real.eval_line(r) for r in rows if build_real.held_out(r["repo"]) == keep]
        assert _lines(split) == expected, f"eval/{split}/real.jsonl is stale: run python -m eval.build_real"


@pytest.mark.parametrize("broken, message", [
    ('{"id": "x", "label": "entry", "expected": null}', "exactly when the label is entry"),
    ('{"id": "x", "label": "maybe", "expected": null}', "must be one of"),
    ('not json', "not JSON"),
])
def test_a_malformed_label_names_its_file_and_line(tmp_path, broken, message):
    (tmp_path / "posts_T.jsonl").write_text(json.dumps({"id": "x", "url": "u", "repo": "r/r", "text": "t",
                                                        "lang": "en"}) + "\n", encoding="utf-8")
    (tmp_path / "labels_T.jsonl").write_text(broken + "\n", encoding="utf-8")
    with pytest.raises(build_real.CorpusError, match=rf"labels_T.jsonl:1: .*{message}"):
        build_real.load(tmp_path, _ids())


def test_a_post_without_a_label_is_refused(tmp_path):
    (tmp_path / "posts_T.jsonl").write_text(json.dumps({"id": "x", "url": "u", "repo": "r/r", "text": "t",
                                                        "lang": "en"}) + "\n", encoding="utf-8")
    (tmp_path / "labels_T.jsonl").write_text("", encoding="utf-8")
    with pytest.raises(build_real.CorpusError, match="posts_T.jsonl:1: post x has no label"):
        build_real.load(tmp_path, _ids())
