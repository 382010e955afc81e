"""Build the real-traffic eval sets from the collected posts and their labels.

    python -m eval.build_real            # writes eval/dev/real.jsonl and eval/heldout/real.jsonl
    python -m eval.build_real --check    # only validates, writes nothing (the tests run this)

Input (eval/real/, see eval/real/README.md): `posts_*.jsonl` (real posts as their
askers wrote them, with where they came from) and `labels_*.jsonl` (one label per post,
given by a person reading the post, never by running the bot). A post is split into
dev or held-out by its repository (or site), so that no repository's wording is on
both sides: sha256 of the repository name, held-out when its first byte mod 10 < 4.

Each output line is an eval line (eval/README.md): `text` is the post's title and
body as the asker wrote them, `expected` the entry id for an `entry` label and null
otherwise (must not be answered), `kind` is `real-<label>`, plus `label`, `why`,
`id` and `note` (the source URL).

It prints the label counts per split and language, and the coverage (the share of
PyTorch error posts, `entry` + `outside`, that an entry covers) with a 95% Wilson
interval.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
REAL = HERE / "real"
LABELS = ("entry", "outside", "other-library", "no-error")
HELD_OUT_SHARE = 4  # of 10 hash buckets


class CorpusError(ValueError):
    pass


def _read_jsonl(path: Path) -> list[dict]:
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except ValueError as exc:
            raise CorpusError(f"{path.name}:{number}: not JSON ({exc})") from None
        if not isinstance(item, dict):
            raise CorpusError(f"{path.name}:{number}: not a JSON object")
        item["_where"] = f"{path.name}:{number}"
        rows.append(item)
    return rows


def held_out(repo: str) -> bool:
    return hashlib.sha256(repo.lower().encode("utf-8")).digest()[0] % 10 < HELD_OUT_SHARE


def load(real: Path = REAL, known_ids: set[str] | None = None) -> list[dict]:
    """Posts joined with their labels; CorpusError names the file and line of anything wrong."""
    posts: dict[str, dict] = {}
    urls: set[str] = set()
    for path in sorted(real.glob("posts_*.jsonl")):
        for post in _read_jsonl(path):
            for key in ("id", "url", "repo", "text", "lang"):
                if not isinstance(post.get(key), str) or not post[key].strip():
                    raise CorpusError(f"{post['_where']}: \"{key}\" must be a non-empty string")
            if post["lang"] not in ("en", "ko", "zh"):
                raise CorpusError(f"{post['_where']}: \"lang\" must be en, ko or zh, not {post['lang']!r}")
            if post["id"] in posts or post["url"] in urls:
                continue  # the other collector has it: first one wins
            posts[post["id"]] = post
            urls.add(post["url"])
    labels: dict[str, dict] = {}
    for path in sorted(real.glob("labels_*.jsonl")):
        for label in _read_jsonl(path):
            if label.get("label") not in LABELS:
                raise CorpusError(f"{label['_where']}: \"label\" must be one of {', '.join(LABELS)}")
            expected = label.get("expected")
            if (label["label"] == "entry") != isinstance(expected, str):
                raise CorpusError(f"{label['_where']}: \"expected\" is an entry id exactly when the label is entry")
            if expected is not None and known_ids is not None and expected not in known_ids:
                raise CorpusError(f"{label['_where']}: \"expected\" {expected!r} is not an entry id")
            labels.setdefault(label.get("id"), label)
    joined = []
    for post_id, post in posts.items():
        label = labels.get(post_id)
        if label is None:
            raise CorpusError(f"{post['_where']}: post {post_id} has no label")
        joined.append({**post, "label": label["label"], "expected": label.get("expected"),
                       "kind_slug": label.get("kind"), "why": label.get("why") or ""})
    return joined


def eval_line(row: dict) -> dict:
    title = (row.get("title") or "").strip()
    body = row["text"].strip()
    text = f"{title}\n{body}" if title and title not in body else body
    return {"text": text, "expected": row["expected"], "kind": f"real-{row['label']}", "lang": row["lang"],
            "label": row["label"], "why": row["why"], "id": row["id"], "note": row["url"]}


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 0.0
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def report(rows: list[dict]) -> str:
    out = []
    for name, part in (("all", rows), ("dev", [r for r in rows if not held_out(r["repo"])]),
                       ("held-out", [r for r in rows if held_out(r["repo"])])):
        labels = Counter(r["label"] for r in part)
        langs = Counter(r["lang"] for r in part)
        covered = labels["entry"]
        torch_errors = labels["entry"] + labels["outside"]
        lo, hi = wilson(covered, torch_errors)
        out.append(f"{name}: {len(part)} posts from {len({r['repo'] for r in part})} repositories/sites; "
                   + ", ".join(f"{k} {labels[k]}" for k in LABELS) + "; "
                   + ", ".join(f"{k} {v}" for k, v in sorted(langs.items())))
        if torch_errors:
            out.append(f"  coverage: {covered}/{torch_errors} PyTorch error posts = {covered / torch_errors:.1%} "
                       f"(95% Wilson {lo:.1%} to {hi:.1%})")
    outside = Counter(r["kind_slug"] for r in rows if r["label"] == "outside")
    out.append("outside kinds (all): " + ", ".join(f"{k} {v}" for k, v in outside.most_common()))
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="validate only; write nothing")
    args = parser.parse_args(argv)
    ids = {line.strip() for line in (HERE.parent / "knowledge" / "required-ids.txt").read_text().splitlines()
           if line.strip() and not line.startswith("#")}
    ids |= {p.stem and f"pytorch/{p.stem}" for p in (HERE.parent / "knowledge" / "entries").rglob("*.yml")}
    try:
        rows = load(REAL, ids)
    except CorpusError as exc:
        print(f"eval/real: {exc}", file=sys.stderr)
        return 1
    print(report(rows))
    if args.check:
        return 0
    for name, keep in (("dev", False), ("heldout", True)):
        path = HERE / name / "real.jsonl"
        lines = [eval_line(r) for r in rows if held_out(r["repo"]) == keep]
        path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
        print(f"wrote {path.relative_to(HERE.parent)} ({len(lines)} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
