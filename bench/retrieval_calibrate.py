"""Fit the confidence (a logistic function of the evidence for the top entry) on eval/dev.

    PYTHONPATH=. python bench/retrieval_calibrate.py

Positives: eval/dev lines (label 1 when hybrid's top entry is the expected one, 0 when
it is not). Negatives: bench/retrieval_negatives.jsonl, errors and questions that no
entry answers (label 0). Prints the coefficients to paste into bot/retrieval/fusion.py
and, with the coefficients currently there, how often dev is answered and how often a
negative is wrongly answered. The held-out split is never read here.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bot.retrieval import fusion  # noqa: E402
from bot.retrieval.evaluate import read_eval_file  # noqa: E402
from bot.retrieval.engine import get_engine  # noqa: E402
from bot.retrieval.query import understand  # noqa: E402

FEATURES = [k for k in fusion.CONFIDENCE_COEF if k != "bias"]


def top_features(engine, text):
    query = understand(text)
    legs = engine.run_legs(query)
    fused = fusion.fuse(legs)
    top = fused[0]
    feats = fusion._features(top.entry_id, legs)
    runner_up = fused[1].score if len(fused) > 1 else 0.0
    feats["margin"] = max(0.0, (top.score - runner_up) / abs(top.score)) if top.score else 0.0
    return top.entry_id, top.confidence, [feats.get(k, 0.0) for k in FEATURES]


def fit(x, y, l2=0.05, steps=20000, lr=0.1):
    mean, std = x.mean(0), x.std(0) + 1e-6
    z = (x - mean) / std
    w, b = np.zeros(z.shape[1]), 0.0
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(z @ w + b)))
        w -= lr * (z.T @ (p - y) / len(y) + l2 * w)
        b -= lr * float(np.mean(p - y))
    coef = w / std
    return float(b - (coef * mean).sum()), coef


def main() -> int:
    engine = get_engine()
    rows, labels, kinds, current = [], [], [], []
    for name in ("pasted", "questions"):
        for _, text, expected in read_eval_file(REPO / "eval" / "dev" / f"{name}.jsonl"):
            entry = engine.kb.resolve(expected)
            if entry is None:
                continue
            top, conf, feats = top_features(engine, text)
            rows.append(feats)
            labels.append(1.0 if top == entry.id else 0.0)
            kinds.append(name)
            current.append(conf)
    for line in (REPO / "bench" / "retrieval_negatives.jsonl").read_text(encoding="utf-8").splitlines():
        _, conf, feats = top_features(engine, json.loads(line)["text"])
        rows.append(feats)
        labels.append(0.0)
        kinds.append("negative")
        current.append(conf)
    x, y = np.array(rows), np.array(labels)
    bias, coef = fit(x, y)
    print("fitted coefficients (paste into CONFIDENCE_COEF):")
    print("    " + json.dumps({"bias": round(bias, 2), **{k: round(float(c), 2) for k, c in zip(FEATURES, coef)}}))
    conf = np.array(current)
    threshold = fusion.ANSWER_THRESHOLD
    for kind in ("pasted", "questions", "negative"):
        mask = np.array([k == kind for k in kinds])
        answered = conf[mask] >= threshold
        correct = y[mask] == 1
        if kind == "negative":
            print(f"{kind:10s} n={mask.sum():3d}  wrongly answered {answered.mean():.3f}  "
                  f"max confidence {conf[mask].max():.3f}")
        else:
            print(f"{kind:10s} n={mask.sum():3d}  answered {answered.mean():.3f}  "
                  f"answered and right {np.mean(answered & correct):.3f}  "
                  f"answered but wrong {np.mean(answered & ~correct):.3f}  "
                  f"min confidence when right {conf[mask][correct].min():.3f}")
    print("threshold sweep: answered-and-right on pasted / questions, wrongly answered negatives")
    kinds_arr = np.array(kinds)
    for t in (0.4, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75):
        parts = []
        for kind in ("pasted", "questions", "negative"):
            mask = kinds_arr == kind
            ans = conf[mask] >= t
            parts.append(np.mean(ans & (y[mask] == 1)) if kind != "negative" else np.mean(ans))
        print(f"  {t:.2f}  {parts[0]:.3f}  {parts[1]:.3f}  {parts[2]:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
