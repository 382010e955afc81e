"""Retrieval evaluation: read a JSONL file of {"text", "expected"} lines and measure
top-1/top-3/MRR and latency over it (`troubleshoot eval`, bench/)."""

from __future__ import annotations

import json
import time
from pathlib import Path

from bot.text import InputError

PREDICTED = 5  # ids listed per eval row


class EvalFileError(ValueError):
    pass


def read_eval_file(path: Path, raw: bytes | None = None) -> list[tuple[int, str, str]]:
    """(line number, text, expected id) per line; blank lines are skipped. `raw`: the
    file's bytes when the caller read them already (bounded, or from stdin)."""
    try:
        raw = Path(path).read_bytes() if raw is None else raw
    except OSError as exc:
        raise EvalFileError(f"cannot read {path}: {exc.strerror}") from None
    try:
        content = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        raise EvalFileError(f"{path}:{line}: not UTF-8 text") from None
    rows = []
    for number, line in enumerate(content.splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except ValueError as exc:
            raise EvalFileError(f"{path}:{number}: not a JSON object ({exc})") from None
        if not isinstance(item, dict):
            raise EvalFileError(f"{path}:{number}: expected a JSON object, found {type(item).__name__}")
        text, expected = item.get("text"), item.get("expected")
        if not isinstance(text, str) or not text.strip():
            raise EvalFileError(f"{path}:{number}: \"text\" must be a non-empty string")
        if not isinstance(expected, str) or not expected.strip():
            raise EvalFileError(f"{path}:{number}: \"expected\" must be an entry id (a string)")
        rows.append((number, text, expected.strip()))
    if not rows:
        raise EvalFileError(f"{path}: no evaluation lines")
    return rows


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100
    lo, hi = int(pos), min(int(pos) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def run_eval(engine, rows: list[tuple[int, str, str]], retriever: str = "hybrid", path: str = "",
             fusion_method: str = "scores") -> dict:
    resolved = []
    for number, text, expected in rows:
        entry = engine.kb.resolve(expected)
        if entry is None:
            raise EvalFileError(f"{path}:{number}: expected id {expected!r} is not an entry or alias "
                                f"in {engine.kb.root}")
        resolved.append((number, text, entry.id))
    out_rows, times, hits1, hits3, rr = [], [], 0, 0, 0.0
    for number, text, expected in resolved:
        started = time.perf_counter()
        try:
            result = engine.search(text, top=PREDICTED, retriever=retriever, fusion_method=fusion_method)
            predicted = [h.entry_id for h in result.hits]
        except InputError as exc:
            raise EvalFileError(f"{path}:{number}: {exc}") from None
        times.append((time.perf_counter() - started) * 1000)
        if predicted[:1] == [expected]:
            hits1 += 1
        if expected in predicted[:3]:
            hits3 += 1
        if expected in predicted:
            rr += 1.0 / (predicted.index(expected) + 1)
        out_rows.append({"expected": expected, "predicted": predicted})
    n = len(out_rows)
    metrics = {"n": n, "top1": round(hits1 / n, 4), "top3": round(hits3 / n, 4), "mrr": round(rr / n, 4),
               "p50_ms": round(percentile(times, 50), 2), "p95_ms": round(percentile(times, 95), 2)}
    return {"metrics": metrics, "rows": out_rows}
