"""Build the retrieval evaluation sets and split them into dev and held-out.

    python -m eval.build_sets            # (re)write eval/dev/*.jsonl and eval/heldout/*.jsonl
    python -m eval.build_sets --check    # exit 1 if the committed files differ from what it builds

The texts live in eval/pasted_*.py and eval/questions.py; the real PyTorch messages they
quote come from eval/messages_torch213.json (written by eval/capture_messages.py). The
output is deterministic: no clock, no random generator. The split is stratified by class:
within a class the lines are ordered by a hash of their text, and each class gives about
60% of its lines to dev (largest-remainder rounding so the whole set is 60/40).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

from . import pasted_autograd, pasted_cuda, pasted_infra, pasted_shapes, questions

HERE = Path(__file__).resolve().parent
REQUIRED_IDS = HERE.parent / "knowledge" / "required-ids.txt"
DEV_SHARE = 0.6
SETS = {
    "pasted": pasted_autograd.ITEMS + pasted_cuda.ITEMS + pasted_shapes.ITEMS + pasted_infra.ITEMS,
    "questions": questions.ITEMS,
}


def required_ids() -> list[str]:
    lines = REQUIRED_IDS.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def check_items(name: str, items: list[dict], ids: list[str]) -> None:
    seen: dict[str, int] = {}
    for n, item in enumerate(items):
        if item["expected"] not in ids:
            raise SystemExit(f"{name} item {n}: expected id {item['expected']!r} is not in {REQUIRED_IDS}")
        if item["text"] in seen:
            raise SystemExit(f"{name} item {n}: same text as item {seen[item['text']]}")
        seen[item["text"]] = n


def text_key(item: dict) -> str:
    return hashlib.sha1(item["text"].encode("utf-8")).hexdigest()


def split(items: list[dict], ids: list[str], both_parts: bool = False) -> tuple[list[dict], list[dict]]:
    """Stratified by class, and balanced over the kinds of paste.

    Each class gives ~60% of its lines to dev; the leftover fractions are given out by
    largest remainder (ties broken by a hash of the class id, not by its position) so the
    whole set is 60/40. Within a class the held-out lines are picked one at a time from
    the kind that is furthest below its 40% share of held-out lines so far (ties broken by
    a hash of the text), so both parts get every kind in about the same proportion.
    With both_parts, a class keeps at least one line in each part even where that moves the
    share away from 60/40 (a class with two lines splits 1/1).
    """
    by_class: dict[str, list[dict]] = defaultdict(list)
    for item in items:
        by_class[item["expected"]].append(item)
    classes = [c for c in ids if c in by_class]
    exact = {c: DEV_SHARE * len(by_class[c]) for c in classes}
    quota = {c: int(exact[c]) for c in classes}
    left = round(DEV_SHARE * len(items)) - sum(quota.values())
    tie = {c: hashlib.sha1(c.encode()).hexdigest() for c in classes}
    for c in sorted(classes, key=lambda c: (-(exact[c] - quota[c]), tie[c]))[:left]:
        quota[c] += 1
    if both_parts:
        quota = {c: min(max(q, 1), len(by_class[c]) - 1) for c, q in quota.items()}

    kind_total = Counter(item["kind"] for item in items)
    kind_held: Counter = Counter()
    held_texts: set[str] = set()

    def deficit(item: dict) -> float:
        """How far the item's kind is below its held-out share so far (relative)."""
        k = item["kind"]
        return ((1 - DEV_SHARE) * kind_total[k] - kind_held[k]) / kind_total[k]

    for c in sorted(classes, key=tie.get):
        candidates = sorted(by_class[c], key=text_key)
        for _ in range(len(candidates) - quota[c]):
            pick = max((i for i in candidates if i["text"] not in held_texts), key=deficit)  # first max wins
            held_texts.add(pick["text"])
            kind_held[pick["kind"]] += 1
    dev, heldout = [], []
    for c in classes:
        for item in sorted(by_class[c], key=text_key):
            (heldout if item["text"] in held_texts else dev).append(item)
    return dev, heldout


def to_jsonl(items: list[dict]) -> str:
    keys = ("text", "expected", "kind", "lang", "note")
    return "".join(json.dumps({k: item[k] for k in keys}, ensure_ascii=False) + "\n" for item in items)


def build() -> dict[Path, str]:
    """Every output file and its content."""
    ids = required_ids()
    files = {}
    for name, items in SETS.items():
        check_items(name, items, ids)
        dev, heldout = split(items, ids)
        files[HERE / "dev" / f"{name}.jsonl"] = to_jsonl(dev)
        files[HERE / "heldout" / f"{name}.jsonl"] = to_jsonl(heldout)
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with the files on disk instead of writing")
    args = parser.parse_args(argv)
    files = build()
    if args.check:
        stale = [p for p, text in files.items() if not p.exists() or p.read_text(encoding="utf-8") != text]
        for p in stale:
            print(f"out of date: {p.relative_to(HERE.parent)} (run python -m eval.build_sets)", file=sys.stderr)
        return 1 if stale else 0
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path.relative_to(HERE.parent)}: {text.count(chr(10))} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
