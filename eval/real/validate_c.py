"""Check collector C's corpus files (see README_C.md).

Every line parses, posts and labels are one to one, each label is well formed, `expected` ids exist in
knowledge/required-ids.txt, and no url is shared with A's or B's posts (posts_A.jsonl / posts_B.jsonl in
this folder, or paths given on the command line).
Usage: python3 eval/real/validate_c.py [other_posts.jsonl ...]
"""
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
LABELS = ("entry", "outside", "other-library", "no-error")


def read_jsonl(path: Path, errs: list[str]) -> list[dict]:
    rows = []
    for num, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        try:
            rows.append(json.loads(line))
        except ValueError as exc:
            errs.append(f"{path.name} line {num}: {exc}")
    return rows


def check_label(row: dict, known: set[str]) -> list[str]:
    where, label, expected, kind = row["id"], row["label"], row["expected"], row["kind"]
    if label not in LABELS:
        return [f"{where}: label {label!r} is not one of {LABELS}"]
    if label == "entry" and (expected not in known or kind is not None):
        return [f"{where}: entry needs an expected id from required-ids.txt and no kind (got {expected}, {kind})"]
    if label in ("outside", "other-library") and (not kind or expected is not None):
        return [f"{where}: {label} needs a kind and no expected id"]
    if label == "no-error" and (expected is not None or kind is not None):
        return [f"{where}: no-error takes no expected id and no kind"]
    return [] if row.get("why") else [f"{where}: empty why"]


def main(others: list[str]) -> int:
    errs: list[str] = []
    known = {line.strip() for line in (ROOT / "knowledge/required-ids.txt").read_text().splitlines()
             if line.strip() and not line.startswith("#")}
    posts = read_jsonl(HERE / "posts_C.jsonl", errs)
    labels = read_jsonl(HERE / "labels_C.jsonl", errs)
    ids = [p["id"] for p in posts]
    if len(set(ids)) != len(ids) or len({p["url"] for p in posts}) != len(posts):
        errs.append("posts_C.jsonl: duplicate id or url")
    if sorted(ids) != sorted(row["id"] for row in labels):
        errs.append("labels_C.jsonl: ids do not match posts_C.jsonl one to one")
    for post in posts:
        missing = [k for k in ("id", "url", "repo", "title", "date", "source", "query", "text", "lang") if k not in post]
        if missing or post["lang"] not in ("en", "ko", "zh") or post["source"] != "github-issues":
            errs.append(f"{post.get('id')}: missing {missing} or bad lang/source")
    for row in labels:
        errs += check_label(row, known)
    paths = [Path(p) for p in others] or [HERE / "posts_A.jsonl", HERE / "posts_B.jsonl"]
    seen = {row["url"] for path in paths if path.exists() for row in read_jsonl(path, errs)}
    errs += [f"{p['id']}: url also in A or B" for p in posts if p["url"] in seen]
    print("\n".join(errs) if errs else f"OK: {len(posts)} posts, {len(labels)} labels, checked against {len(seen)} other urls")
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
