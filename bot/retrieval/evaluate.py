"""Retrieval evaluation: read a JSONL file of {"text", "expected"} lines and measure
top-1/top-3/MRR, honesty and latency over it (`troubleshoot eval`, bench/).

`"expected": null` marks a line the bot must NOT answer (another library's error, an
error no entry covers, a greeting, a question without an error). Each row says whether
the line was `answered` and with what `confidence`; the metrics count:

- `covered_right`: lines with an expected entry that were answered with it (top-1 and
  confident), `covered_wrong`: answered with another entry, `covered_declined`;
- `false_answers`: null lines that were answered (any entry), with their rate;
- the same per `kind` when the lines carry one (the eval sets do: `neg-install`, ...).

top-1/top-3/MRR rank the entries whatever the confidence, over the covered lines only.

Each row also carries its `tier` (answer / choices / decline, bot/retrieval/tiers.py)
and the ids offered as `choices`; the metrics add `offered_right` (the expected entry
is the answer or among the choices), and `by_tier`: per tier, how many lines got it
and how many of those were right, wrong (a covered line answered or offered without
its entry) or should have had nothing (a null line).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import NamedTuple

from bot.text import InputError
from bot.text.jsonin import loads as json_loads

PREDICTED = 5  # ids listed per eval row


class EvalFileError(ValueError):
    pass


class EvalLine(NamedTuple):
    number: int
    text: str
    expected: str | None  # None: the line must not be answered
    kind: str = ""


def read_eval_lines(path: Path, raw: bytes | None = None) -> list[EvalLine]:
    """Every line of an eval file; blank lines are skipped, extra keys ignored but `kind`.
    `raw`: the file's bytes when the caller read them already (bounded, or from stdin)."""
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
            item = json_loads(line)
        except ValueError as exc:
            raise EvalFileError(f"{path}:{number}: not a JSON object ({exc})") from None
        if not isinstance(item, dict):
            raise EvalFileError(f"{path}:{number}: expected a JSON object, found {type(item).__name__}")
        text = item.get("text")
        if not isinstance(text, str) or not text.strip():
            raise EvalFileError(f"{path}:{number}: \"text\" must be a non-empty string")
        if "expected" not in item:
            raise EvalFileError(f"{path}:{number}: \"expected\" must be an entry id (a string), or null for a "
                                f"line that must not be answered; it is missing")
        expected = item["expected"]
        if expected is not None and (not isinstance(expected, str) or not expected.strip()):
            raise EvalFileError(f"{path}:{number}: \"expected\" must be an entry id (a string) or null")
        kind = item.get("kind") if isinstance(item.get("kind"), str) else ""
        rows.append(EvalLine(number, text, expected.strip() if expected else None, kind))
    if not rows:
        raise EvalFileError(f"{path}: no evaluation lines")
    return rows


def read_eval_file(path: Path, raw: bytes | None = None) -> list[tuple[int, str, str | None]]:
    """(line number, text, expected id or None) per line."""
    return [(r.number, r.text, r.expected) for r in read_eval_lines(path, raw)]


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100
    lo, hi = int(pos), min(int(pos) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def _rate(count: int, n: int) -> float | None:
    return round(count / n, 4) if n else None


def _tally(rows: list[dict]) -> dict:
    covered = [r for r in rows if r["expected"] is not None]
    null = [r for r in rows if r["expected"] is None]
    right = sum(1 for r in covered if r["answered"] and r["predicted"][:1] == [r["expected"]])
    wrong = sum(1 for r in covered if r["answered"] and r["predicted"][:1] != [r["expected"]])
    false = sum(1 for r in null if r["answered"])
    offered = sum(1 for r in covered if r["expected"] == (r["predicted"][:1] or [None])[0] and r["answered"]
                  or r["expected"] in r.get("choices", []))
    by_tier = {}
    for tier in ("answer", "choices", "decline"):
        got = [r for r in rows if r.get("tier") == tier]
        if not got:
            continue
        good = sum(1 for r in got if r["expected"] is not None and (
            r["expected"] in r.get("choices", []) if tier == "choices" else
            tier == "answer" and r["predicted"][:1] == [r["expected"]]))
        unwanted = sum(1 for r in got if r["expected"] is None)
        by_tier[tier] = {"n": len(got), "right": good, "wrong": len(got) - good - unwanted if tier != "decline"
                         else 0, "null": unwanted}
    return {"n": len(rows), "covered": len(covered), "null": len(null),
            "offered_right": offered, "offered_right_rate": _rate(offered, len(covered)),
            "by_tier": by_tier,
            "covered_right": right, "covered_right_rate": _rate(right, len(covered)),
            "covered_wrong": wrong, "covered_wrong_rate": _rate(wrong, len(covered)),
            "covered_declined": len(covered) - right - wrong,
            "false_answers": false, "false_answer_rate": _rate(false, len(null))}


def run_eval(engine, rows, retriever: str = "hybrid", path: str = "", fusion_method: str = "scores") -> dict:
    """`rows`: EvalLine or (number, text, expected) tuples; expected None = must not be answered."""

    lines = [r if isinstance(r, EvalLine) else EvalLine(*r) for r in rows]
    resolved = []
    for line in lines:
        expected = None
        if line.expected is not None:
            entry = engine.kb.resolve(line.expected)
            if entry is None:
                raise EvalFileError(f"{path}:{line.number}: expected id {line.expected!r} is not an entry or alias "
                                    f"in {engine.kb.root}")
            expected = entry.id
        resolved.append((line, expected))
    out_rows, times, hits1, hits3, rr = [], [], 0, 0, 0.0
    for line, expected in resolved:
        started = time.perf_counter()
        try:
            result = engine.search(line.text, top=PREDICTED, retriever=retriever, fusion_method=fusion_method)
        except InputError as exc:
            raise EvalFileError(f"{path}:{line.number}: {exc}") from None
        times.append((time.perf_counter() - started) * 1000)
        predicted = [h.entry_id for h in result.hits]
        if expected is not None:
            hits1 += predicted[:1] == [expected]
            hits3 += expected in predicted[:3]
            rr += 1.0 / (predicted.index(expected) + 1) if expected in predicted else 0.0
        row = {"line": line.number, "expected": expected, "predicted": predicted, "answered": result.answered,
               "confidence": result.best.confidence if result.best else 0.0,
               "declined": getattr(result, "declined", None), "tier": result.tier,
               "choices": [h.entry_id for h in result.choices]}
        if line.kind:
            row["kind"] = line.kind
        out_rows.append(row)
    covered = sum(1 for _, e in resolved if e is not None)
    metrics = {"top1": _rate(hits1, covered), "top3": _rate(hits3, covered), "mrr": _rate(rr, covered),
               **_tally(out_rows),
               "p50_ms": round(percentile(times, 50), 2), "p95_ms": round(percentile(times, 95), 2)}
    kinds = sorted({r["kind"] for r in out_rows if r.get("kind")})
    if kinds:
        metrics["by_kind"] = {k: _tally([r for r in out_rows if r.get("kind") == k]) for k in kinds}
    return {"metrics": metrics, "rows": out_rows}
