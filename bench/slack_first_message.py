"""How long the Slack bot's first answer is, for the 25 most common errors.

For each of the first 25 ids of knowledge/required-ids.txt (the error classes the team
ranked as most common), asks the real answer path (bot.answer, the project's index)
with the entry's first example message, in English, Korean and Chinese, renders the
first Slack message (bot/slack/blocks.py: answer_message after the Slack extras) and
counts its visible characters (bot.slack.blocks.visible_chars: section, context and
button texts without mrkdwn markup). Also the same for the details view, for scale.

    PYTHONPATH=. python bench/slack_first_message.py [--json] [--n 25]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=25)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    from bot.answer import answer
    from bot.kb.loader import cached_knowledge
    from bot.slack.blocks import FIRST_MESSAGE_LIMIT, answer_message, details_message, visible_chars
    from bot.slack.services.answering import enrich

    kb = cached_knowledge()[0]
    ids = [line.strip() for line in (REPO / "knowledge" / "required-ids.txt").read_text().splitlines()
           if line.strip() and not line.startswith("#")][:args.n]
    rows = []
    for entry_id in ids:
        entry = kb.resolve(entry_id)
        if entry is None or not entry.examples:
            rows.append({"id": entry_id, "missing": True})
            continue
        for lang in ("en", "ko", "zh"):
            result = enrich(answer(entry.examples[0], lang=lang, top=3))
            first = answer_message(result, answer_id=1)
            payload = first.payload()
            rows.append({"id": entry_id, "lang": lang, "matched": (result["matches"] or [{}])[0].get("id"),
                         "answered": result["answered"], "first_chars": visible_chars(first),
                         "first_blocks": len(payload["blocks"]),
                         "details_chars": visible_chars(details_message(result, 1))})
    done = [r for r in rows if not r.get("missing")]
    firsts = [r["first_chars"] for r in done]
    summary = {"entries": len(ids), "messages": len(done), "limit": FIRST_MESSAGE_LIMIT,
               "first_max": max(firsts), "first_median": statistics.median(firsts),
               "first_min": min(firsts), "over_limit": sum(c > FIRST_MESSAGE_LIMIT for c in firsts),
               "first_blocks_max": max(r["first_blocks"] for r in done),
               "details_median": statistics.median(r["details_chars"] for r in done),
               "details_max": max(r["details_chars"] for r in done),
               "top1_is_entry": sum(r["matched"] == r["id"] for r in done),
               "by_lang": {lang: {"max": max(r["first_chars"] for r in done if r["lang"] == lang),
                                  "median": statistics.median(r["first_chars"] for r in done if r["lang"] == lang)}
                           for lang in ("en", "ko", "zh")}}
    if args.json:
        print(json.dumps({"summary": summary, "rows": rows}, indent=1, ensure_ascii=False))
    else:
        for r in rows:
            if r.get("missing"):
                print(f"{r['id']:40s} missing")
            else:
                print(f"{r['id']:40s} {r['lang']} first {r['first_chars']:5d} chars ({r['first_blocks']} blocks), "
                      f"details {r['details_chars']:6d}  top1={r['matched']}")
        print(json.dumps(summary, ensure_ascii=False))
    return 0 if summary["over_limit"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
