"""Retrieval accuracy: top-1, top-3, MRR and latency for hybrid and each leg alone.

    PYTHONPATH=. python bench/retrieval_eval.py                 # eval/dev (tuning set)
    PYTHONPATH=. python bench/retrieval_eval.py --split heldout # final numbers only
    PYTHONPATH=. python bench/retrieval_eval.py --fusion rrf    # compare fusions
    PYTHONPATH=. python bench/retrieval_eval.py --misses        # dev misses, to study them

Runs on the project's knowledge/ and index/ (built or refreshed first). Held-out
files are only scored: their texts and per-line results are never printed, so
nobody tunes on them by accident (--misses refuses the held-out split).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bot.retrieval.evaluate import read_eval_file, run_eval  # noqa: E402
from bot.retrieval.engine import RETRIEVERS, get_engine  # noqa: E402
from bot.retrieval.query import understand  # noqa: E402


def language_accuracy(path: Path) -> tuple[int, int]:
    """How often the answer language (from the asker's own words) equals the line's `lang`."""
    right = total = 0
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            item = json.loads(line)
            if "lang" in item:
                total += 1
                right += understand(item["text"]).language == item["lang"]
    return right, total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", choices=("dev", "heldout", "both"), default="dev")
    parser.add_argument("--fusion", choices=("scores", "rrf", "both"), default="scores")
    parser.add_argument("--misses", action="store_true", help="print the dev lines hybrid gets wrong")
    parser.add_argument("--json", help="write the metrics to this file")
    args = parser.parse_args()
    if args.misses and args.split != "dev":
        parser.error("--misses only works on the dev split: held-out lines are never shown")

    engine = get_engine()
    splits = ["dev", "heldout"] if args.split == "both" else [args.split]
    fusions = ["scores", "rrf"] if args.fusion == "both" else [args.fusion]
    results: dict = {}
    for split in splits:
        for path in sorted((REPO / "eval" / split).glob("*.jsonl")):
            rows = read_eval_file(path)
            known = [r for r in rows if engine.kb.resolve(r[2]) is not None]
            skipped = len(rows) - len(known)
            rows = known
            note = f", {skipped} skipped: their entry is not in the knowledge base yet" if skipped else ""
            print(f"\n{split}/{path.name}  (n={len(rows)}{note})")
            print(f"  {'retriever':<16} {'top1':>6} {'top3':>6} {'mrr':>6} {'p50 ms':>7} {'p95 ms':>7}")
            for retriever in RETRIEVERS:
                for fusion in (fusions if retriever == "hybrid" else ["scores"]):
                    report = run_eval(engine, rows, retriever=retriever, path=str(path), fusion_method=fusion)
                    m = report["metrics"]
                    name = f"{retriever}/{fusion}" if retriever == "hybrid" and len(fusions) > 1 else retriever
                    print(f"  {name:<16} {m['top1']:>6.3f} {m['top3']:>6.3f} {m['mrr']:>6.3f} "
                          f"{m['p50_ms']:>7.1f} {m['p95_ms']:>7.1f}")
                    results[f"{split}/{path.stem}/{name}"] = m
                    if args.misses and retriever == "hybrid" and fusion == fusions[0]:
                        for (number, text, _), row in zip(rows, report["rows"], strict=True):
                            if row["predicted"][:1] != [row["expected"]]:
                                short = text.replace("\n", " ⏎ ")[-160:]
                                print(f"     miss line {number}: want {row['expected']} got {row['predicted'][:3]}\n"
                                      f"        …{short}")
            right, total = language_accuracy(path)
            if total:
                print(f"  answer language = the line's lang: {right}/{total} ({right / total:.3f})")
                results[f"{split}/{path.stem}/language"] = {"right": right, "n": total}
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
