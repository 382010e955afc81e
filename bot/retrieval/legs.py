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
from bot.text.normalize import normalise_message
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
    query_terms: int = 0  # bm25: how many query tokens the vocabulary knows (scales its scores)
    # signature: entries that declare exception types other than the pasted one (a KeyError
    # pasted against entries that only raise RuntimeError), and whether any pattern matched
    type_mismatch: set[str] = field(default_factory=set)
    has_exception: bool = False

    def best_of(self, entry_id: str) -> float:
        return self.best.get(entry_id, self.score_of(entry_id))

    def _index(self) -> dict[str, tuple[int, float]]:
        cached = self.__dict__.get("_by_entry")
        if cached is None or len(cached) != len(self.ranking):
            cached = {eid: (i + 1, score) for i, (eid, score) in enumerate(self.ranking)}
            self.__dict__["_by_entry"] = cached
        return cached

    def rank_of(self, entry_id: str) -> int | None:
        hit = self._index().get(entry_id)
        return hit[0] if hit else None

    def score_of(self, entry_id: str) -> float:
        hit = self._index().get(entry_id)
        return hit[1] if hit else 0.0

    def runner_up_best(self, entry_id: str) -> float:
        """The best single-chunk score of any other entry."""
        top2 = self.__dict__.get("_top2")
        if top2 is None:
            top2 = sorted(self.best.items(), key=lambda x: -x[1])[:2]
            self.__dict__["_top2"] = top2
        return next((s for e, s in top2 if e != entry_id), 0.0)


# --- signature ----------------------------------------------------------------

PRIMARY, ELSEWHERE = 2.0, 1.0


def _with_frames(query: Query) -> tuple[str, int]:
    """The last exception under the frames printed above it, and where its message starts.

    Some messages name a cause only in context: `No module named 'models'` is an
    unpickled class's module when torch.load's frames are above it, and anything else
    without them. A pattern that spans those frames into the message recognises the
    last exception as surely as one over the message alone."""
    frames = "\n".join(f'  File "{f.path}", in {f.function}\n    {f.code}' for f in query.frames)
    return (frames + "\n" + query.error_text, len(frames) + 1) if frames else ("", 0)


def signature_leg(query: Query, entries: list[m.Entry]) -> LegResult:
    primary = [t for t in {query.error_text, query.normalised} if t]
    framed, message_at = _with_frames(query)
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
                if tier == PRIMARY and framed:
                    hit = sig.regex.search(framed)
                    if hit and hit.end() > message_at:  # it reaches into the message, not frames alone
                        score = tier + min(len(hit.group(0)), 200) / 1000
                        if score > best:
                            best, why = score, hit.group(0)
            if best:
                break
        if best:
            # Types compare without case: askers retype `RunTimeError`.
            if short_type and any(short_type.lower() == e.rsplit(".", 1)[-1].lower() for e in entry.exception):
                best += 0.05
            scored.append((entry.id, best))
            detail[entry.id] = why
    scored.sort(key=lambda x: -x[1])
    mismatch: set[str] = set()
    if short_type:
        for entry in entries:
            declared = {e.rsplit(".", 1)[-1].lower() for e in entry.exception}
            if declared and short_type.lower() not in declared:
                mismatch.add(entry.id)
    return LegResult("signature", scored, detail=detail, type_mismatch=mismatch, has_exception=bool(short_type))


# --- chunk legs -----------------------------------------------------------------


# How much a chunk of each kind counts towards its entry in the BM25 and dense legs.
# What an entry says about other situations (its dead ends, its fixes, the diagnosis of
# neighbouring causes) names its neighbours' symptoms; at 90 entries those passages made
# a question about a neighbour rank this entry first. Tuned on eval/dev questions
# (0.767 -> 0.833 top-1; long-tail questions 0.892 -> 0.923; pasted errors unchanged).
KIND_WEIGHTS = {"dead_end": 0.5, "workaround": 0.7, "diagnosis": 0.85, "scenario": 0.85}


class ChunkEntryMap:
    """Chunk index -> entry index pairs (an article chunk may serve several entries)."""

    def __init__(self, chunk_entries: list[list[str]], entry_ids: list[str], kinds: list[str] | None = None):
        self.kind_weight = (np.array([KIND_WEIGHTS.get(k, 1.0) for k in kinds], dtype=np.float32)
                            if kinds is not None else None)
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
        """Per entry: weighted sum of its best len(weights) chunk scores (each chunk's
        score first weighted by its kind, KIND_WEIGHTS)."""
        if self.kind_weight is not None and len(self.kind_weight) == len(chunk_scores):
            chunk_scores = chunk_scores * self.kind_weight
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
    """The normalised error, the asker's words, and the PyTorch frames' function names
    (`cross_entropy`, `_engine_run_backward`): the user's own frames are noise."""
    tokens = tokenize(query.search_text)
    if query.prose and query.prose not in query.error_text:
        tokens += tokenize(query.prose)
    for function in dict.fromkeys(query.torch_functions):
        tokens += tokenize(function.rsplit(".", 1)[-1])
    return tokens


def bm25_leg(query: Query, index, emap: ChunkEntryMap) -> LegResult:
    tokens = bm25_query_tokens(query)
    scores = index.bm25_scores(tokens)
    top = np.argsort(-scores)[:DENSE_K]
    known = len({t for t in tokens if t in index.bm25.vocab_dict})
    return LegResult("bm25", emap.ranking(emap.aggregate(scores)),
                     {int(i): float(scores[i]) for i in top if scores[i] > 0}, best=emap.best_dict(scores),
                     query_terms=known)


def dense_leg(query: Query, index, emap: ChunkEntryMap, embedder, vectors: np.ndarray | None = None) -> LegResult:
    if vectors is None:
        vectors = embedder.encode(query.dense_texts())
    sims, ids = index.dense_search(vectors, DENSE_K)
    chunk_scores = np.zeros(len(index.chunks), dtype=np.float32)
    by_chunk: dict[int, float] = {}  # best over the query's views
    for row_s, row_i in zip(sims, ids, strict=True):
        for s, i in zip(row_s, row_i, strict=True):
            if i >= 0 and s > by_chunk.get(int(i), -1.0):
                by_chunk[int(i)] = float(s)
    for i, s in by_chunk.items():
        chunk_scores[i] = max(s, 0.0)
    return LegResult("dense", emap.ranking(emap.aggregate(chunk_scores)), by_chunk,
                     best=emap.best_dict(chunk_scores))
