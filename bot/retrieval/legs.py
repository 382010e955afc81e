"""The three retrieval legs. Each ranks entries (not chunks) for one query.

- signature: the entries' regular expressions over the last exception (as pasted and
  normalised) and, weaker, over the rest of the paste (earlier exceptions of a chain);
- bm25: lexical match of the normalised error and the asker's words against chunks;
- dense: cosine similarity of the embedded error / question against chunks.

Chunk scores become entry scores by adding up each entry's best few chunks with
falling weights (1, 1/2, 1/4): an entry that several passages match beats one that
a single passage matches a little better. On eval/dev this lifted ko/zh questions
from 0.86 to 0.95 top-1 and left pasted errors at 1.0 (bench/retrieval_tune.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from bot.kb import model as m
from bot.retrieval.normalize import normalise_message
from bot.retrieval.query import Query
from bot.retrieval.tokenize import tokenize

LEGS = ("signature", "bm25", "dense")
DENSE_K = 100
ENTRY_AGGREGATION = (1.0, 0.5, 0.25)  # weights of an entry's best, second and third chunk
_AGGREGATE_CANDIDATES = 1000
_WHOLE_TEXT_CHARS = 30_000


@dataclass
class LegResult:
    """Entry scores of one leg, best first, and the chunk scores behind them."""

    name: str
    ranking: list[tuple[str, float]]  # (entry id, score), best first, score > 0
    chunk_scores: dict[int, float] = field(default_factory=dict)  # chunk index -> score
    detail: dict[str, str] = field(default_factory=dict)  # entry id -> why (the matched text)
    best: dict[str, float] = field(default_factory=dict)  # entry id -> its single best chunk's score

    def best_of(self, entry_id: str) -> float:
        return self.best.get(entry_id, self.score_of(entry_id))

    def rank_of(self, entry_id: str) -> int | None:
        for i, (eid, _) in enumerate(self.ranking):
            if eid == entry_id:
                return i + 1
        return None

    def score_of(self, entry_id: str) -> float:
        for eid, score in self.ranking:
            if eid == entry_id:
                return score
        return 0.0


# --- signature ----------------------------------------------------------------

PRIMARY, ELSEWHERE = 2.0, 1.0


def signature_leg(query: Query, entries: list[m.Entry]) -> LegResult:
    primary = [t for t in {query.error_text, query.normalised} if t]
    others: list[str] = []
    for exc in query.parsed.exceptions[:-1]:
        others.extend({exc.text(), normalise_message(exc.text()[:2000])})
    others.append(query.cleaned.text[-_WHOLE_TEXT_CHARS:])
    short_type = (query.error_type or "").rsplit(".", 1)[-1]
    scored: list[tuple[str, float]] = []
    detail: dict[str, str] = {}
    for entry in entries:
        best, why = 0.0, ""
        for tier, texts in ((PRIMARY, primary), (ELSEWHERE, others)):
            for sig in entry.signatures:
                for text in texts:
                    hit = sig.regex.search(text)
                    if hit:
                        # A longer match is a more specific pattern: it breaks ties between entries.
                        score = tier + min(len(hit.group(0)), 200) / 1000
                        if score > best:
                            best, why = score, hit.group(0)
            if best:
                break
        if best:
            if short_type and any(short_type == e.rsplit(".", 1)[-1] for e in entry.exception):
                best += 0.05
            scored.append((entry.id, best))
            detail[entry.id] = why
    scored.sort(key=lambda x: -x[1])
    return LegResult("signature", scored, detail=detail)


# --- chunk legs -----------------------------------------------------------------


class ChunkEntryMap:
    """Chunk index -> entry index pairs (an article chunk may serve several entries)."""

    def __init__(self, chunk_entries: list[list[str]], entry_ids: list[str]):
        self.entry_ids = entry_ids
        position = {eid: i for i, eid in enumerate(entry_ids)}
        pairs = [(ci, position[e]) for ci, entries in enumerate(chunk_entries) for e in entries if e in position]
        self.chunk_idx = np.array([p[0] for p in pairs], dtype=np.int64)
        self.entry_idx = np.array([p[1] for p in pairs], dtype=np.int64)

        # chunk index -> its entry indexes, for the aggregation below
        self.entries_of: dict[int, list[int]] = {}
        for ci, ei in pairs:
            self.entries_of.setdefault(ci, []).append(ei)

    def best_per_entry(self, chunk_scores: np.ndarray) -> np.ndarray:
        out = np.zeros(len(self.entry_ids), dtype=np.float32)
        if len(self.chunk_idx):
            np.maximum.at(out, self.entry_idx, chunk_scores[self.chunk_idx])
        return out

    def aggregate(self, chunk_scores: np.ndarray, weights=ENTRY_AGGREGATION) -> np.ndarray:
        """Per entry: weighted sum of its best len(weights) chunk scores."""
        out = np.zeros(len(self.entry_ids), dtype=np.float32)
        positive = np.flatnonzero(chunk_scores > 0)
        if len(positive) > _AGGREGATE_CANDIDATES:
            keep = np.argpartition(-chunk_scores[positive], _AGGREGATE_CANDIDATES)[:_AGGREGATE_CANDIDATES]
            positive = positive[keep]
        order = positive[np.argsort(-chunk_scores[positive], kind="stable")]
        taken = np.zeros(len(self.entry_ids), dtype=np.int64)
        for ci in order.tolist():
            for ei in self.entries_of.get(ci, ()):
                if taken[ei] < len(weights):
                    out[ei] += weights[taken[ei]] * chunk_scores[ci]
                    taken[ei] += 1
        return out

    def best_dict(self, chunk_scores: np.ndarray) -> dict[str, float]:
        best = self.best_per_entry(chunk_scores)
        return {self.entry_ids[i]: float(best[i]) for i in np.flatnonzero(best > 0)}

    def ranking(self, entry_scores: np.ndarray) -> list[tuple[str, float]]:
        order = np.argsort(-entry_scores, kind="stable")
        return [(self.entry_ids[i], float(entry_scores[i])) for i in order if entry_scores[i] > 0]


def bm25_query_tokens(query: Query) -> list[str]:
    tokens = tokenize(query.search_text)
    if query.prose and query.prose not in query.error_text:
        tokens += tokenize(query.prose)
    return tokens


def bm25_leg(query: Query, index, emap: ChunkEntryMap) -> LegResult:
    scores = index.bm25_scores(bm25_query_tokens(query))
    top = np.argsort(-scores)[:DENSE_K]
    return LegResult("bm25", emap.ranking(emap.aggregate(scores)),
                     {int(i): float(scores[i]) for i in top if scores[i] > 0}, best=emap.best_dict(scores))


def dense_leg(query: Query, index, emap: ChunkEntryMap, embedder, vectors: np.ndarray | None = None) -> LegResult:
    if vectors is None:
        vectors = embedder.encode(query.dense_texts())
    sims, ids = index.dense_search(vectors, DENSE_K)
    chunk_scores = np.zeros(len(index.chunks), dtype=np.float32)
    by_chunk: dict[int, float] = {}  # best over the query's views
    for row_s, row_i in zip(sims, ids):
        for s, i in zip(row_s, row_i):
            if i >= 0 and s > by_chunk.get(int(i), -1.0):
                by_chunk[int(i)] = float(s)
    for i, s in by_chunk.items():
        chunk_scores[i] = max(s, 0.0)
    return LegResult("dense", emap.ranking(emap.aggregate(chunk_scores)), by_chunk,
                     best=emap.best_dict(chunk_scores))
