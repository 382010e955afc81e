"""Code-only questions, end to end: how many are recognised as code, run, and answered
with the right entry, and how long an answer takes.

For each line of a code-only set (eval/*/code_only.jsonl: `text`, `expected` an entry id
or null for a snippet that runs cleanly), the text goes through what `troubleshoot ask`
does with it: bot.verify.code_question.detect_code, the one verification path
(bot.verify.service.run_verification, real sandbox), then the answer from the error the
run raised (bot.answer.answer). A line is right when
  - `expected` is an id: the answer is given (answered) and its first match is that id;
  - `expected` is null: the snippet ran without an error and nothing was answered.
Times per line: until the original run's error was known (`error_s`), until the answer
was built (`answer_s`: the whole verification, fixes included, then the lookup).

    PYTHONPATH=. python bench/code_only.py eval/dev/code_only.jsonl [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path


def evaluate(rows: list[dict], *, log=print) -> dict:
    from bot.answer import answer
    from bot.verify.code_question import answer_from_report, detect_code
    from bot.verify.service import run_verification

    results = []
    for i, row in enumerate(rows, 1):
        expected = row.get("expected")
        question = detect_code(row["text"])
        out = {"line": i, "kind": row.get("kind"), "expected": expected, "detected": question is not None}
        if question is None or not question.runnable:
            out.update(right=False, predicted=None, why="not recognised as runnable code")
            results.append(out)
            log(f"{i:3d} {row.get('kind'):12s} MISSED detection")
            continue
        start = time.monotonic()
        first = []

        def progress(stage: str, done: int, total: int, *, first=first, start=start) -> None:
            if done >= 1 and not first:
                first.append(time.monotonic() - start)

        report = run_verification(question.code, progress=progress, lang=question.language)
        data = answer_from_report(report, question, answer, lang=question.language)
        elapsed = time.monotonic() - start
        matches = data.get("matches") or []
        predicted = matches[0]["id"] if matches else None
        if expected is None:
            right = report.exit_reason == "ok" and not data.get("answered")
        else:
            right = bool(data.get("answered")) and predicted == expected
        fixes = (data.get("verification") or {}).get("fixes") or []
        out.update(right=right, predicted=predicted, answered=bool(data.get("answered")),
                   confidence=matches[0].get("confidence") if matches else None,
                   exit_reason=report.exit_reason.value if report.exit_reason else None,
                   verify_entry=report.error.entry_id if report.error else None,
                   error_s=round(first[0] if first else elapsed, 2), answer_s=round(elapsed, 2),
                   fixes=len(fixes), fixed=sum(1 for f in fixes if f.get("status") == "fixed"))
        results.append(out)
        log(f"{i:3d} {row.get('kind'):12s} {'ok ' if right else 'BAD'} expected={expected} got={predicted} "
            f"answered={out['answered']} exit={out['exit_reason']} {out['error_s']:.1f}s/{out['answer_s']:.1f}s")
    ran = [r for r in results if "answer_s" in r]
    by_kind: dict[str, list[int]] = {}
    for r in results:
        by_kind.setdefault(r["kind"], [0, 0])
        by_kind[r["kind"]][0] += r["right"]
        by_kind[r["kind"]][1] += 1

    def med(key):
        return round(statistics.median(r[key] for r in ran), 2) if ran else None

    return {"n": len(results), "detected": sum(r["detected"] for r in results),
            "right": sum(r["right"] for r in results),
            "by_kind": {k: {"right": v[0], "n": v[1]} for k, v in sorted(by_kind.items())},
            "error_s_median": med("error_s"), "answer_s_median": med("answer_s"),
            "answer_s_max": max((r["answer_s"] for r in ran), default=None), "rows": results}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file")
    parser.add_argument("--json", help="write the whole report here")
    args = parser.parse_args(argv)
    rows = [json.loads(line) for line in Path(args.file).read_text(encoding="utf-8").splitlines() if line.strip()]
    report = evaluate(rows, log=lambda s: print(s, file=sys.stderr, flush=True))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2, ensure_ascii=False))
    print(json.dumps({k: v for k, v in report.items() if k != "rows"}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
