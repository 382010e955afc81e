"""The answer confidence: the probability that the best entry is the right one, from two
small logistic models fitted on eval/dev (one for pastes whose last exception a
signature recognises, one for the rest: a signature match is evidence of another
order, and one line through both regimes could not be fitted to either) (bench/retrieval_calibrate.py writes
`calibration.json` beside this file; the held-out split is never used to fit it).

Features of the best entry (all on scales that do not depend on the query's length):
the signature tier and how much of the error message the matched pattern covers, the
best cosine and its lead over other entries, the BM25 share, how many legs agree,
the fused margin to the runner-up, whether a pasted exception is one no signature
knows or one the entry does not raise, and whether the paste holds an error at all.

The threshold in the JSON was chosen on dev for at most 3% false answers on the
negatives with at least 97% of covered errors answered right (see the bench script
and the report it prints).
"""

from __future__ import annotations

import math
from functools import lru_cache
from pathlib import Path

from bot.retrieval import fusion
from bot.retrieval.legs import PRIMARY, LegResult
from bot.retrieval.scope import has_error_text
from bot.text.jsonin import loads as json_loads

MODEL_PATH = Path(__file__).with_name("calibration.json")

FEATURES = ("sig_primary", "sig_elsewhere", "sig_cover", "dense", "dense_margin", "bm25_share", "bm25_per_term",
            "agree", "margin", "unmatched_error", "type_mismatch", "has_exception", "torch_frames", "error_text")


def features(query, fused: list, legs: dict[str, LegResult]) -> dict[str, float]:
    """The evidence for the best fused entry."""
    if not fused:
        return {k: 0.0 for k in FEATURES}
    top = fused[0]
    feats = fusion._features(top.entry_id, legs)
    runner_up = fused[1].score if len(fused) > 1 else 0.0
    feats["margin"] = max(0.0, (top.score - runner_up) / abs(top.score)) if top.score else 0.0
    sig = legs.get("signature")
    matched = sig.detail.get(top.entry_id, "") if sig else ""
    message = query.error_text or ""
    feats["sig_cover"] = min(1.0, len(matched) / max(len(message), 1)) if matched and feats["sig_primary"] else 0.0
    feats["has_exception"] = 1.0 if query.has_exception else 0.0
    feats["torch_frames"] = 1.0 if any(f.is_torch for f in query.frames) else 0.0

    feats["error_text"] = 1.0 if has_error_text(query) else 0.0
    return {k: float(feats.get(k, 0.0)) for k in FEATURES}


@lru_cache(maxsize=4)
def load_model(path: Path = MODEL_PATH) -> dict | None:
    """The stored model, or None when there is none (the hand-set confidence is used)."""
    try:
        model = json_loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(model, dict) or not {"signature", "other", "threshold"} <= set(model):
        return None
    return model


SIGNATURE_FEATURES = ("sig_cover", "dense", "dense_margin", "bm25_share", "agree", "margin", "type_mismatch",
                      "torch_frames")
OTHER_FEATURES = ("sig_elsewhere", "dense", "dense_margin", "bm25_share", "bm25_per_term", "agree", "margin",
                  "unmatched_error", "type_mismatch", "has_exception", "torch_frames", "error_text")


def regime(feats: dict[str, float]) -> str:
    return "signature" if feats.get("sig_primary") else "other"


def probability(model: dict, feats: dict[str, float]) -> float:
    part = model[regime(feats)]
    z = float(part["bias"]) + sum(float(c) * feats.get(k, 0.0) for k, c in part["coef"].items())
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


def threshold(model: dict | None = None) -> float:
    model = model if model is not None else load_model()
    return float(model["threshold"]) if model else fusion.ANSWER_THRESHOLD


def guard(model: dict, entry_id: str, feats: dict[str, float]) -> str | None:
    """Why an answer is refused despite its confidence, or None. Entries that absorbed
    their neighbours' errors on dev (listed in the model) are only answered when a
    signature recognises the message itself."""
    needs_signature = set(model.get("needs_signature") or ())
    if entry_id in needs_signature and feats.get("has_exception") and not feats.get("sig_primary"):
        return f"{entry_id} answers a pasted error only when its signature matches"
    return None


def is_primary(legs: dict[str, LegResult]) -> bool:
    sig = legs.get("signature")
    return bool(sig and sig.ranking and sig.ranking[0][1] >= PRIMARY)
