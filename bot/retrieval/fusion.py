"""Fuse the legs' entry rankings into one, and say how sure we are.

Two fusions are implemented and measured by bench/retrieval_eval.py:

- `rrf`: weighted reciprocal rank fusion, sum of w / (k + rank) over the legs;
- `scores` (the default): a weighted sum of per-leg scores put on one scale: the
  signature tier (a pattern matched the last exception, or only elsewhere), the
  dense score (cosines of the entry's best three chunks, weighted 1, 1/2, 1/4), and
  the BM25 score relative to the query's best. Ranks throw away how far apart two
  candidates are; scores keep it, which matters when one leg is sure and the others
  are lukewarm. Measured on eval/dev: the same on pasted errors (1.000), better on
  ko/zh questions (0.950 against 0.900 top-1 for RRF).

The confidence of an entry is a logistic function of the evidence for it (signature
tier, best cosine and its lead over other entries, BM25 share, agreement of the legs,
margin over the runner-up, and two penalties: a pasted exception that no signature
knows, an exception type the entry does not raise). The coefficients come from a
logistic fit on eval/dev plus our own negatives (bench/retrieval_calibrate.py),
rounded, with the signature weight set higher by hand: the fit could not see its
value because every dev line with a signature hit is also easy for the other legs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from bot.retrieval.legs import ELSEWHERE, PRIMARY, LegResult

RRF_K = 60
RRF_WEIGHTS = {"signature": 2.0, "bm25": 1.0, "dense": 1.0}
SCORE_WEIGHTS = {"signature": 1.0, "bm25": 0.6, "dense": 1.0}
# Below this a single leg (`--retriever signature|bm25|dense`) says it is not sure. The
# hybrid answer uses the calibrated confidence and its threshold instead
# (bot/retrieval/calibration.py, calibration.json, fitted by bench/retrieval_calibrate.py);
# this value stays the fallback when that file is missing. Historical note: On eval/dev plus
# bench/retrieval_negatives.jsonl (bench/retrieval_calibrate.py): at 0.6, 99% of pasted errors
# and 85% of ko/zh questions are answered and right, and 14% of errors no entry covers are
# wrongly answered (16% at 0.5, 7% at 0.65 where only 78% of the questions are still answered).
ANSWER_THRESHOLD = 0.6

# Logistic confidence: bias + sum(coef * feature); see the module docstring.
CONFIDENCE_COEF = {
    "bias": -4.6, "sig_primary": 3.0, "sig_elsewhere": 1.5, "dense": 3.6, "dense_margin": 2.7,
    "bm25_share": 3.0, "bm25_per_term": -0.3, "agree": 1.7, "margin": 1.0, "unmatched_error": -1.5,
    "type_mismatch": -1.6,
}


@dataclass
class Fused:
    entry_id: str
    score: float
    confidence: float = 0.0
    legs: dict[str, tuple[int | None, float]] = field(default_factory=dict)  # leg -> (rank, score)


def _tier(score: float) -> tuple[float, float]:
    """(primary, elsewhere) indicator of a signature score."""
    if score >= PRIMARY:
        return 1.0, 0.0
    if score >= ELSEWHERE:
        return 0.0, 1.0
    return 0.0, 0.0


def _features(entry_id: str, legs: dict[str, LegResult]) -> dict[str, float]:
    """The evidence for one entry, on scales that do not depend on the query's length."""
    sig = legs.get("signature")
    bm25 = legs.get("bm25")
    dense = legs.get("dense")
    primary, elsewhere = _tier(sig.score_of(entry_id)) if sig else (0.0, 0.0)
    cos = dense.best_of(entry_id) if dense else 0.0  # the best single chunk: a real cosine
    other_cos = dense.runner_up_best(entry_id) if dense else 0.0
    bm25_top = bm25.ranking[0][1] if bm25 and bm25.ranking else 0.0
    share = (bm25.score_of(entry_id) / bm25_top) if bm25_top > 0 else 0.0
    per_term = (bm25.best_of(entry_id) / bm25.query_terms) if bm25 and bm25.query_terms else 0.0
    tops = [leg.ranking[0][0] for leg in legs.values() if leg.ranking]
    agree = sum(1 for t in tops if t == entry_id) / max(len(legs), 1)
    # A pasted exception that no pattern of any entry recognises is most likely not in the
    # knowledge base at all; its type not being one the entry raises says the same.
    unmatched = 1.0 if sig is not None and sig.has_exception and not sig.ranking else 0.0
    type_mismatch = 1.0 if sig is not None and entry_id in sig.type_mismatch else 0.0
    return {"sig_primary": primary, "sig_elsewhere": elsewhere, "dense": cos, "dense_margin": cos - other_cos,
            "bm25_share": share, "bm25_per_term": min(per_term, 3.0), "agree": agree,
            "unmatched_error": unmatched, "type_mismatch": type_mismatch}


def fuse(legs: dict[str, LegResult], method: str = "scores") -> list[Fused]:
    candidates: set[str] = set()
    for leg in legs.values():
        candidates.update(eid for eid, _ in leg.ranking)
    out: list[Fused] = []
    for eid in candidates:
        detail = {name: (leg.rank_of(eid), leg.score_of(eid)) for name, leg in legs.items()}
        if method == "rrf" or len(legs) == 1:
            score = sum(RRF_WEIGHTS.get(name, 1.0) / (RRF_K + rank)
                        for name, (rank, _) in detail.items() if rank is not None)
            if len(legs) == 1:  # a single leg keeps its own order and scale
                score = next(iter(detail.values()))[1]
        elif method == "scores":
            f = _features(eid, legs)
            dense = legs.get("dense")
            score = (SCORE_WEIGHTS["signature"] * (f["sig_primary"] + 0.5 * f["sig_elsewhere"])
                     + SCORE_WEIGHTS["bm25"] * f["bm25_share"]
                     + SCORE_WEIGHTS["dense"] * (dense.score_of(eid) if dense else 0.0))
            sig = legs.get("signature")
            if sig:  # the specificity bonus orders two entries whose patterns both matched
                s = sig.score_of(eid)
                score += (s - math.floor(s)) if s else 0.0
        else:
            raise ValueError(f"unknown fusion {method!r} (rrf or scores)")
        out.append(Fused(eid, score, legs=detail))
    out.sort(key=lambda f: (-f.score, f.entry_id))
    _confidence(out, legs)
    return out


def _single_leg_confidence(f: Fused, leg: LegResult, runner_up: float) -> float:
    """One leg alone (`--retriever signature|bm25|dense`, for comparison and debugging)."""
    score = leg.score_of(f.entry_id)
    if leg.name == "signature":
        return 0.95 if score >= PRIMARY else (0.6 if score >= ELSEWHERE else 0.0)
    if leg.name == "dense":
        return 1.0 / (1.0 + math.exp(-(12.0 * (score - 0.6))))
    margin = (score - runner_up) / score if score > 0 else 0.0  # bm25: only its margin is comparable
    return 1.0 / (1.0 + math.exp(-(8.0 * (margin - 0.4))))


def _confidence(fused: list[Fused], legs: dict[str, LegResult]) -> None:
    if not fused:
        return
    if len(legs) == 1:
        leg = next(iter(legs.values()))
        for i, f in enumerate(fused):
            runner_up = fused[i + 1].score if i + 1 < len(fused) else 0.0
            confidence = _single_leg_confidence(f, leg, runner_up)
            f.confidence = round(min(confidence, fused[i - 1].confidence) if i else confidence, 4)
        return
    top = fused[0].score
    for i, f in enumerate(fused):
        feats = _features(f.entry_id, legs)
        runner_up = fused[1].score if i == 0 and len(fused) > 1 else top
        scale = abs(top) if top else 1.0
        feats["margin"] = max(0.0, (f.score - runner_up) / scale) if i == 0 else 0.0
        z = CONFIDENCE_COEF["bias"] + sum(CONFIDENCE_COEF[k] * v for k, v in feats.items() if k in CONFIDENCE_COEF)
        confidence = 1.0 / (1.0 + math.exp(-z))
        if i:  # never surer of a runner-up than of the best match
            confidence = min(confidence, fused[i - 1].confidence)
        f.confidence = round(confidence, 4)
