"""Build the long-tail evaluation set (the 65 classes after the first 25) and split it.

    python -m eval.build_longtail            # (re)write eval/{dev,heldout}/longtail*.jsonl
    python -m eval.build_longtail --check    # exit 1 if the committed files differ from what it builds

The texts live in eval/longtail_*.py; the torch 2.13 messages they quote come from
eval/messages_longtail_torch213.json (written by eval/capture_longtail.py). The split is the
one eval/build_sets.py uses (stratified by class, about 60/40, balanced over the kinds of
paste, no clock and no random generator), applied to the long-tail classes only and keeping
every class in both parts (so the questions, two per class, split 1/1), so the two
sets can be run separately or together as the knowledge base grows from 25 to 90 entries.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from . import (build_sets, longtail_autograd, longtail_cuda, longtail_data, longtail_dist, longtail_questions,
               longtail_shapes, longtail_values)

HERE = Path(__file__).resolve().parent
MIN_PASTED = 6
SETS = {
    "longtail": (longtail_shapes.ITEMS + longtail_values.ITEMS + longtail_autograd.ITEMS + longtail_data.ITEMS
                 + longtail_cuda.ITEMS + longtail_dist.ITEMS),
    "longtail_questions": longtail_questions.ITEMS,
}


def core_ids() -> list[str]:
    """The classes the first sets (eval/build_sets.py) cover, in the order of required-ids.txt."""
    covered = {item["expected"] for item in build_sets.SETS["pasted"]}
    return [i for i in build_sets.required_ids() if i in covered]


# required-ids.txt lists the 90 taxonomy classes first; the classes found in real traffic
# (issue 25) follow them and are measured on eval/real, not on these hand-written sets.
TAXONOMY_CLASSES = 90


def longtail_ids() -> list[str]:
    """Every taxonomy class after the first 25, in the taxonomy's order."""
    ids = build_sets.required_ids()
    core = core_ids()
    if ids[:len(core)] != core:
        raise SystemExit(f"{build_sets.REQUIRED_IDS}: the first {len(core)} ids are not the classes of eval/build_sets.py")
    return ids[len(core):TAXONOMY_CLASSES]


def check(name: str, items: list[dict], ids: list[str]) -> None:
    """Known ids, no duplicate text (also against the first sets), every class covered."""
    build_sets.check_items(name, items, ids)
    earlier = {item["text"] for items_ in build_sets.SETS.values() for item in items_}
    for n, item in enumerate(items):
        if item["text"] in earlier:
            raise SystemExit(f"{name} item {n}: the same text is already in the first sets")
    counts = Counter(item["expected"] for item in items)
    need = MIN_PASTED if name == "longtail" else 2
    short = [f"{c} ({counts[c]})" for c in ids if counts[c] < need]
    if short:
        raise SystemExit(f"{name}: fewer than {need} lines for {', '.join(short)}")


def build() -> dict[Path, str]:
    """Every output file and its content."""
    ids = longtail_ids()
    files = {}
    for name, items in SETS.items():
        check(name, items, ids)
        # two questions per class: 1/1, so every class is in both parts (50/50 overall)
        dev, heldout = build_sets.split(items, ids, both_parts=True)
        files[HERE / "dev" / f"{name}.jsonl"] = build_sets.to_jsonl(dev)
        files[HERE / "heldout" / f"{name}.jsonl"] = build_sets.to_jsonl(heldout)
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with the files on disk instead of writing")
    args = parser.parse_args(argv)
    files = build()
    if args.check:
        stale = [p for p, text in files.items() if not p.exists() or p.read_text(encoding="utf-8") != text]
        for p in stale:
            print(f"out of date: {p.relative_to(HERE.parent)} (run python -m eval.build_longtail)", file=sys.stderr)
        return 1 if stale else 0
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path.relative_to(HERE.parent)}: {text.count(chr(10))} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
