"""The search engine: knowledge + index + embedder, loaded once per process.

    engine = get_engine()                    # builds or refreshes the index when needed
    result = engine.search(text, top=3)      # SearchResult: query, hits (by entry), answered
    entry_id, confidence = engine.classify("RuntimeError", "CUDA out of memory ...")

The Slack bot and the verifier call these on every message, so the engine, the
model and the index stay in memory; the knowledge folder is re-checked for changes
at most every few seconds.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from bot import settings
from bot.embed import load_embedder
from bot.kb import model as m
from bot.kb.loader import cached_knowledge, errors_only
from bot.retrieval import calibration, fusion
from bot.retrieval.chunks import Chunk
from bot.retrieval.index import IndexDamaged, IndexProblem, SearchIndex, build_index, staleness
from bot.retrieval.legs import LEGS, ChunkEntryMap, LegResult, bm25_leg, dense_leg, signature_leg
from bot.retrieval.query import Query, understand
from bot.retrieval.scope import Scope, decline_reason, judge
from bot.retrieval.tiers import ANSWER, CHOICES, TEAM_ARTICLE_FLOOR, Said, Tiering, decide
from bot.text.normalize import normalise_for_search

RETRIEVERS = ("hybrid",) + LEGS


@dataclass
class Hit:
    entry: m.Entry
    score: float
    confidence: float
    legs: dict[str, tuple[int | None, float]]
    passages: list[tuple[Chunk, float]] = field(default_factory=list)  # best article passages first
    signature_match: str = ""  # the text a signature matched, if any

    @property
    def entry_id(self) -> str:
        return self.entry.id


@dataclass
class SearchResult:
    query: Query
    hits: list[Hit]
    answered: bool
    retriever: str
    legs: dict[str, LegResult]
    # Why it is not answered (None when it is): "other-library" (scope.library raised it),
    # "no-error" (a greeting or a question without error text that no entry answers
    # with confidence), "not-covered" (an error no entry is confident about).
    declined: str | None = None
    scope: Scope | None = None
    guard: str | None = None  # a guard that refused the best entry despite its confidence
    # answer / choices / decline (bot/retrieval/tiers.py), what backs the answer tier,
    # and the hits offered as choices
    tier: str = "decline"
    evidence: str | None = None
    choices: list[Hit] = field(default_factory=list)
    # passages of articles about no entry (the team's own threads and pages) that match
    # the question closely, best first, one per article: offered beside (or instead of)
    # choices, never as the answer
    team: list[tuple[Chunk, float]] = field(default_factory=list)

    @property
    def best(self) -> Hit | None:
        return self.hits[0] if self.hits else None


class Engine:
    def __init__(self, kb: m.KnowledgeBase, index: SearchIndex, embedder, problems: list | None = None):
        self.kb = kb
        # The knowledge loader's errors: each names a file and a field whose entry or
        # article is left out of answers. Callers say them (ask: stderr; the bot: its log).
        self.problems = list(problems or [])
        self.index = index
        self.embedder = embedder
        self.entry_ids = sorted(kb.entries)
        self.entries = [kb.entries[e] for e in self.entry_ids]
        self.emap = ChunkEntryMap([c.entries for c in index.chunks], self.entry_ids, [c.kind for c in index.chunks])
        self.checked_at = time.monotonic()

    @classmethod
    def load(cls, kb_root: Path | None = None, index_dir: Path | None = None, embedder=None) -> "Engine":
        if embedder is None:
            embedder = get_embedder()

        kb, problems = cached_knowledge(kb_root or settings.knowledge_dir())
        index = SearchIndex.load(index_dir, embedder.name, embedder.dimension)
        embedder.encode(["warm up"])  # loads the model's weights now, not on the first question
        return cls(kb, index, embedder, errors_only(problems))

    # --- search -------------------------------------------------------------

    def run_legs(self, query: Query, retriever: str = "hybrid") -> dict[str, LegResult]:
        if retriever not in RETRIEVERS:
            raise ValueError(f"unknown retriever {retriever!r}; use one of {', '.join(RETRIEVERS)}")
        names = LEGS if retriever == "hybrid" else (retriever,)
        legs: dict[str, LegResult] = {}
        for name in names:
            if name == "signature":
                legs[name] = signature_leg(query, self.entries)
            elif name == "bm25":
                legs[name] = bm25_leg(query, self.index, self.emap)
            else:
                legs[name] = dense_leg(query, self.index, self.emap, self.embedder)
        return legs

    def search(self, text: str | Query, top: int = 5, retriever: str = "hybrid",
               fusion_method: str = "scores") -> SearchResult:
        """Raises bot.text.InputError for input that cannot be answered (empty, binary)."""
        query = text if isinstance(text, Query) else understand(text)
        legs = self.run_legs(query, retriever)
        fused = fusion.fuse(legs, fusion_method)
        sig = legs.get("signature") or signature_leg(query, self.entries)
        scope = judge(query, signature_primary=calibration.is_primary({"signature": sig}))
        threshold = fusion.ANSWER_THRESHOLD
        model = calibration.load_model() if retriever == "hybrid" and fusion_method == "scores" else None
        if model is not None and fused:
            feats = calibration.features(query, fused, legs)
            best = calibration.probability(model, feats)
            fused[0].confidence = round(best, 4)
            for f in fused[1:]:  # never surer of a runner-up than of the best match
                f.confidence = min(f.confidence, fused[0].confidence)
            threshold = calibration.threshold(model)
        hits = []
        for f in fused[:max(top, 1)]:
            entry = self.kb.entries.get(f.entry_id)
            if entry is None:
                continue
            hits.append(Hit(entry=entry, score=round(f.score, 4), confidence=f.confidence, legs=f.legs,
                            passages=self._passages(f.entry_id, legs),
                            signature_match=sig.detail.get(f.entry_id, "") if "signature" in legs else ""))
        guard = calibration.guard(model, hits[0].entry_id, feats) if model is not None and hits else None
        confident = bool(hits) and hits[0].confidence >= threshold and guard is None
        declined = decline_reason(scope, confident, query)
        team = self.team_articles(legs) if scope.kind != "other-library" else []
        tiering = self.tiering(hits, legs, declined, scope, query, team=bool(team))
        if tiering.tier != ANSWER and declined is None:
            declined = "not-sure"  # confident, but only similarity backs it, or two entries alike
        return SearchResult(query=query, hits=hits, answered=tiering.tier == ANSWER, retriever=retriever,
                            legs=legs, declined=declined, scope=scope, guard=guard, tier=tiering.tier,
                            evidence=tiering.evidence, choices=tiering.choices,
                            team=team if tiering.tier == CHOICES else [])

    def tiering(self, hits: list[Hit], legs: dict[str, LegResult], declined: str | None, scope: Scope,
                query: Query, team: bool = False) -> Tiering:
        said = Said(legs, self.index.chunks, query.parsed.chained,
                    (query.search_text, normalise_for_search(query.cleaned.text)))
        return decide(hits, said, declined=declined, scope_kind=scope.kind, text=query.cleaned.text, team=team)

    def team_articles(self, legs: dict[str, LegResult]) -> list[tuple[Chunk, float]]:
        """Passages of articles about no entry whose cosine to the question reaches
        TEAM_ARTICLE_FLOOR: the best passage of each article, best article first, at most 2."""
        dense = legs.get("dense")
        if dense is None:
            return []
        best: dict[str, tuple[Chunk, float]] = {}
        for ci, score in dense.chunk_scores.items():
            chunk = self.index.chunks[ci]
            if chunk.kind != "article" or chunk.entries or score < TEAM_ARTICLE_FLOOR:
                continue
            if score > best.get(chunk.ref, (chunk, -1.0))[1]:
                best[chunk.ref] = (chunk, round(score, 4))
        return sorted(best.values(), key=lambda pair: -pair[1])[:2]

    def _passages(self, entry_id: str, legs: dict[str, LegResult]) -> list[tuple[Chunk, float]]:
        """Article passages about this entry that the query matched, best first."""
        scores: dict[int, float] = {}
        dense = legs.get("dense")
        bm25 = legs.get("bm25")
        bm25_top = max(bm25.chunk_scores.values(), default=0.0) if bm25 else 0.0
        for leg, weight, scale in ((dense, 1.0, 1.0), (bm25, 0.5, bm25_top or 1.0)):
            if leg is None:
                continue
            for ci, s in leg.chunk_scores.items():
                chunk = self.index.chunks[ci]
                if chunk.kind == "article" and entry_id in chunk.entries:
                    scores[ci] = scores.get(ci, 0.0) + weight * s / scale
        ranked = sorted(scores.items(), key=lambda x: -x[1])
        return [(self.index.chunks[ci], round(s, 4)) for ci, s in ranked[:6]]

    def classify(self, error_type: str | None, message: str) -> tuple[str | None, float]:
        """The entry a captured exception belongs to, or None when not sure; and the confidence."""
        text = f"{error_type}: {message}" if error_type else (message or "")
        if not text.strip():
            return None, 0.0
        result = self.search(text, top=1)
        best = result.best
        if best is None:
            return None, 0.0
        return (best.entry_id if result.answered else None), best.confidence


# --- the process-wide engine -----------------------------------------------------

_LOCK = threading.RLock()
_EMBEDDERS: dict[str, object] = {}
_ENGINES: dict[tuple[str, str, str], Engine] = {}


def get_embedder(name: str | None = None):
    name = name or settings.embedder_name()
    with _LOCK:
        if name not in _EMBEDDERS:
            _EMBEDDERS[name] = load_embedder(name)
        return _EMBEDDERS[name]


_say = logging.getLogger(__name__).info  # index-building notices: the CLI's logging shows them


def get_engine(auto_build: bool = True, log=_say) -> Engine:
    """The cached engine for the current settings; (re)builds the index when missing or stale."""
    kb_root, index_dir, name = settings.knowledge_dir(), settings.index_dir(), settings.embedder_name()
    key = (str(kb_root), str(index_dir), name)
    with _LOCK:
        engine = _ENGINES.get(key)
        now = time.monotonic()
        if engine is not None and now - engine.checked_at < settings.get_settings().index_check_seconds:
            return engine
        reason = staleness(kb_root, index_dir, name)  # raises EmbedderMismatch
        if reason is not None:
            if not auto_build:
                raise IndexProblem(f"the index is out of date ({reason}); run `troubleshoot index build`")
            embedder = get_embedder(name)
            log(f"building the search index in {index_dir} ({reason})")
            report = build_index(kb_root, index_dir, embedder, progress=False, log=log)
            log(f"index ready: {report.chunks} chunks, {len(report.embedded_files)} file(s) embedded, "
                f"{report.reused_files} reused, {report.seconds:.1f} s")
            engine = None
        if engine is None:
            try:
                engine = Engine.load(kb_root, index_dir, get_embedder(name))
            except IndexDamaged as exc:
                # A damaged index file the size check missed: rebuilt once, then loaded.
                if not auto_build:
                    raise
                log(f"{str(exc).split('; rebuild it')[0]}; rebuilding it")
                build_index(kb_root, index_dir, get_embedder(name), progress=sys.stderr.isatty(), log=log,
                            repair=True)
                engine = Engine.load(kb_root, index_dir, get_embedder(name))
            _ENGINES[key] = engine
        engine.checked_at = now
        return engine


def reset() -> None:
    """Forget loaded engines (tests; after an index rebuild in the same process)."""
    with _LOCK:
        _ENGINES.clear()
