"""Retrieval before and after the knowledge base grew (issue 12: 25 -> 90 entries).

    PYTHONPATH=. python bench/knowledge_breadth.py --before 49332eb --split both --json out.json

For each knowledge base (a git revision's knowledge/ folder, or the working tree's) it
builds an index in a temporary folder, timing the build, then scores every positive
eval file (pasted errors, long-tail errors, questions) with hybrid retrieval and each
leg alone. Unlike bench/retrieval_eval.py, a line whose expected entry the knowledge
base lacks is NOT skipped: it counts as a miss, because that is what an asker got.

Per file and retriever: top-1 over all lines, answered-right (answered with the right
entry first) and confidently wrong (answered with another entry) rates. Plus answer
latency (p50/p95 over all lines, hybrid) and the process's peak memory. Held-out
texts are never printed.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
POSITIVE = ("pasted", "longtail", "questions", "longtail_questions")


def _rows(path: Path) -> list[tuple[str, str]]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            item = json.loads(line)
            if isinstance(item.get("expected"), str):
                out.append((item["text"], item["expected"]))
    return out


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    pos = (len(ordered) - 1) * q / 100
    lo, hi = int(pos), min(int(pos) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def score(splits: list[str]) -> dict:
    """Runs in a child process whose settings point at one knowledge base."""
    sys.path.insert(0, str(REPO))
    from bot.retrieval.engine import RETRIEVERS, get_engine

    started = time.perf_counter()
    engine = get_engine(log=lambda *_: None)
    build_s = time.perf_counter() - started
    out: dict = {"entries": len(engine.kb.entries), "index_build_s": round(build_s, 1), "files": {}}
    latencies: list[float] = []
    for split in splits:
        for name in POSITIVE:
            path = REPO / "eval" / split / f"{name}.jsonl"
            if not path.exists():
                continue
            rows = _rows(path)
            per: dict = {"n": len(rows)}
            for retriever in RETRIEVERS:
                top1 = right = wrong = 0
                for text, expected in rows:
                    entry = engine.kb.resolve(expected)
                    want = entry.id if entry else expected
                    t0 = time.perf_counter()
                    result = engine.search(text, top=3, retriever=retriever)
                    if retriever == "hybrid":
                        latencies.append((time.perf_counter() - t0) * 1000)
                    best = result.hits[0].entry.id if result.hits else None
                    top1 += best == want
                    if result.answered:
                        right += best == want
                        wrong += best != want
                n = max(1, len(rows))
                per[retriever] = {"top1": round(top1 / n, 3), "answered_right": round(right / n, 3),
                                  "confidently_wrong": round(wrong / n, 3)}
            out["files"][f"{split}/{name}"] = per
    out["hybrid_p50_ms"] = round(_percentile(latencies, 50), 1)
    out["hybrid_p95_ms"] = round(_percentile(latencies, 95), 1)
    out["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    return out


def _knowledge_at(revision: str, into: Path) -> Path:
    archive = subprocess.run(["git", "-C", str(REPO), "archive", revision, "knowledge"], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into / "knowledge"


def run_child(knowledge: Path, splits: list[str], tmp: Path) -> dict:
    env = dict(os.environ, TROUBLESHOOT_KNOWLEDGE_DIR=str(knowledge), TROUBLESHOOT_INDEX_DIR=str(tmp / "index"),
               TROUBLESHOOT_RECORD_ASK="0", PYTHONPATH=str(REPO))
    code = f"import json, sys; sys.path.insert(0, {str(REPO / 'bench')!r}); import knowledge_breadth as k; " \
           f"print(json.dumps(k.score({splits!r})))"
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", default="49332eb", help="git revision of the smaller knowledge base")
    parser.add_argument("--split", choices=("dev", "heldout", "both"), default="dev")
    parser.add_argument("--json", help="write both results to this file")
    args = parser.parse_args()
    splits = ["dev", "heldout"] if args.split == "both" else [args.split]
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        before_dir = Path(tmp) / "before"
        before_dir.mkdir()
        results["before"] = run_child(_knowledge_at(args.before, before_dir), splits, before_dir)
        after_dir = Path(tmp) / "after"
        after_dir.mkdir()
        results["after"] = run_child(REPO / "knowledge", splits, after_dir)
    for label, res in results.items():
        print(f"== {label}: {res['entries']} entries; index build {res['index_build_s']} s; hybrid p50 "
              f"{res['hybrid_p50_ms']} ms, p95 {res['hybrid_p95_ms']} ms; peak RSS {res['peak_rss_mb']} MB")
        for name, per in res["files"].items():
            legs = "  ".join(f"{r} {per[r]['top1']:.3f}" for r in ("hybrid", "signature", "bm25", "dense"))
            h = per["hybrid"]
            print(f"  {name:<28} n={per['n']:<4} top1: {legs}   hybrid answered-right {h['answered_right']:.3f}"
                  f" confidently-wrong {h['confidently_wrong']:.3f}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
