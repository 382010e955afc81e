"""Explore fusion and aggregation settings on eval/dev (never the held-out split).

    PYTHONPATH=. python bench/retrieval_tune.py

Legs are computed once per dev line (all chunk scores, not just the top ones), then
each setting is scored in numpy. Prints top-1 on the pasted and the question sets
for each setting, best first. What it found is written down in bot/retrieval/fusion.py.
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import bm25s  # noqa: E402

from bot.retrieval.evaluate import read_eval_file  # noqa: E402
from bot.retrieval.engine import get_engine  # noqa: E402
from bot.retrieval.legs import PRIMARY, signature_leg  # noqa: E402
from bot.retrieval.query import understand  # noqa: E402
from bot.retrieval import tokenize as tok  # noqa: E402


def zh_bigrams_only(text: str) -> list[str]:
    out = []
    for t in tok.tokenize(text):
        if len(t) == 1 and "\u3400" <= t <= "\u9fff":
            continue
        out.append(t)
    return out


AGGREGATIONS = {"max": (1.0,), "max+2nd": (1.0, 0.5), "max+.3": (1.0, 0.3), "max+.7": (1.0, 0.7),
                "top3": (1.0, 0.5, 0.25), "top3flat": (1.0, 0.7, 0.5), "top5": (1.0, 0.6, 0.4, 0.3, 0.2)}
TOKENIZERS = {"uni+bi": tok.tokenize, "zh-bi": zh_bigrams_only}


def main() -> int:
    engine = get_engine()
    chunks = engine.index.chunks
    n_chunks = len(chunks)
    vectors = engine.index.vectors.reconstruct_n(0, n_chunks)
    entry_ids = engine.entry_ids
    pos = {e: i for i, e in enumerate(entry_ids)}
    chunk_entry = np.array([pos.get(c.entries[0], -1) for c in chunks])
    chunk_lang = np.array([c.lang for c in chunks])
    chunk_kind = np.array([c.kind for c in chunks])

    bm25_models = {}
    for name, fn in TOKENIZERS.items():
        model = bm25s.BM25()
        model.index([fn(c.search_text) for c in chunks], show_progress=False)
        bm25_models[name] = (model, fn)

    data = []
    for split_file in ("pasted", "questions"):
        for _number, text, expected in read_eval_file(REPO / "eval" / "dev" / f"{split_file}.jsonl"):
            entry = engine.kb.resolve(expected)
            if entry is None:
                continue
            q = understand(text)
            sig = signature_leg(q, engine.entries)
            sig_vec = np.zeros(len(entry_ids))
            for eid, s in sig.ranking:
                sig_vec[pos[eid]] = 1.0 if s >= PRIMARY else 0.5
            qv = engine.embedder.encode(q.dense_texts())
            dense = (qv @ vectors.T)  # views x chunks
            bm = {}
            for name, (model, fn) in bm25_models.items():
                toks = fn(q.search_text) + (fn(q.prose) if q.prose and q.prose not in q.error_text else [])
                toks = [t for t in toks if t in model.vocab_dict]
                bm[name] = np.asarray(model.get_scores(toks)) if toks else np.zeros(n_chunks)
            data.append((split_file, pos[entry.id], q.language, sig_vec, dense, bm))

    def per_entry(chunk_scores, agg, mask=None):
        """An entry's score from its chunks: weights for its best, second, third chunk."""
        s = chunk_scores if mask is None else np.where(mask, chunk_scores, 0)
        weights = AGGREGATIONS[agg]
        order = np.argsort(-s)[:600]
        out = np.zeros(len(entry_ids))
        seen = np.zeros(len(entry_ids), dtype=int)
        for ci in order:
            e = chunk_entry[ci]
            if seen[e] < len(weights) and s[ci] > 0:
                out[e] += weights[seen[e]] * s[ci]
                seen[e] += 1
        return out

    results = []
    grid = itertools.product(["uni+bi"], list(AGGREGATIONS), ["all"],
                             [0.3, 0.6, 1.0], [1.0, 2.0], ["raw", "share"])
    for tokname, agg, langmode, w_bm, w_de, dnorm in grid:
        hits = {"pasted": 0, "questions": 0}
        total = {"pasted": 0, "questions": 0}
        for split_file, gold, lang, sig_vec, dense, bm in data:
            mask = None
            if langmode == "samelang" and lang != "en":
                mask = (chunk_lang == lang) | (chunk_kind == "message")
            d = per_entry(dense.max(axis=0), agg, mask)
            b = per_entry(bm[tokname], agg)
            b = b / b.max() if b.max() > 0 else b
            if dnorm == "share":
                d = d / d.max() if d.max() > 0 else d
            score = sig_vec + w_bm * b + w_de * d
            hits[split_file] += int(np.argmax(score) == gold)
            total[split_file] += 1
        results.append(((hits["pasted"] / total["pasted"], hits["questions"] / total["questions"]),
                        (tokname, agg, langmode, w_bm, w_de, dnorm)))
    results.sort(key=lambda r: (-(r[0][0] >= 0.99), -r[0][1], -r[0][0]))
    print("pasted  questions  setting (tokeniser, aggregation, dense chunks, w_bm25, w_dense, dense scale)")
    for (p, qq), setting in results[:40]:
        print(f"{p:6.3f}  {qq:9.3f}  {setting}")
    current = [r for r in results if r[1] == ("uni+bi", "max", "all", 0.6, 1.0, "raw")]
    print("current:", current)
    return 0


if __name__ == "__main__":
    sys.exit(main())
