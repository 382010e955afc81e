"""Text cleaning must cost linear time: a 1 MB paste of each adversarial shape (unclosed
Slack tokens, unterminated ANSI/OSC sequences, rich boxes with long runs of blanks,
unclosed fences, markdown links, a normal traceback; every shape of
tests/retrieval/test_retrieval_clean_linear.py) through `clean()` and the whole
query understanding (`understand()`), at 1/4, 1/2 and 1 MB: time grows about linearly.

    PYTHONPATH=. python bench/clean_linear.py          # prints a table
    PYTHONPATH=. python bench/clean_linear.py --json   # the same as JSON

(clean() keeps the head and tail of a paste over 60,000 characters, so the shapes are
also measured inside one 60,000-character line, the size that cost seconds before.)
"""

from __future__ import annotations

import json
import sys
import time

from bot.retrieval.clean import MAX_CHARS, clean
from bot.retrieval.query import understand

TRACEBACK = ('Traceback (most recent call last):\n  File "train.py", line 12, in <module>\n    loss.backward()\n'
             "RuntimeError: Trying to backward through the graph a second time\n")

SHAPES = {
    "slack users unclosed": "<@U1|x ",
    "slack links unclosed": "<http://a|b ",
    "slack channels unclosed": "<#C1|general ",
    "osc unterminated": "\x1b]0;title ",
    "box side + blanks": "│" + " " * 40,
    "box border unclosed": "╭" + "─" * 20 + " x ",
    "rich gutter blanks": "│ " + " " * 30 + "x",
    "one side, then blanks": "│" + " " * 59_000 + "x ",
    "border, then blanks": "╭" + " " * 59_000 + "x ",
    "markdown brackets": "[a",
    "fence unclosed": "``` x ",
    "markdown links": "[a](http://x/" + "y" * 30 + " ",
    "entities": "&amp;lt;&#x41;",
    "traceback": TRACEBACK,
    "frames + unclosed mentions": '  File "train.py", line 12, in <module>\n    loss.backward()\n<@U1|x ',
}


def _paste(unit: str, size: int, one_line: bool) -> str:
    text = unit * (size // len(unit) + 1)
    if not one_line:
        text = text.replace(" x", "\nx")
    return text[:size] + "\nRuntimeError: CUDA out of memory"


def _time(fn, text: str) -> float:
    started = time.perf_counter()
    fn(text)
    return time.perf_counter() - started


def main() -> None:
    rows = []
    for name, unit in SHAPES.items():
        for one_line in (False, True):
            sizes = (MAX_CHARS // 4, MAX_CHARS // 2, MAX_CHARS) if one_line else (1 << 18, 1 << 19, 1 << 20)
            clean_s = [_time(clean, _paste(unit, n, one_line)) for n in sizes]
            query_s = _time(understand, _paste(unit, sizes[-1], one_line))
            rows.append({"shape": name, "one_line": one_line, "sizes": list(sizes),
                         "clean_seconds": [round(s, 4) for s in clean_s], "understand_seconds": round(query_s, 4),
                         "growth_last_double": round(clean_s[2] / max(clean_s[1], 1e-6), 2)})
    if "--json" in sys.argv:
        print(json.dumps(rows, indent=1))
        return
    print(f"{'shape':<26} {'layout':<9} {'clean at 1/4, 1/2, 1 of the size (s)':<38} {'x per doubling':>14} "
          f"{'understand (s)':>15}")
    for r in rows:
        layout = "one line" if r["one_line"] else "1 MB"
        times = ", ".join(f"{s:.4f}" for s in r["clean_seconds"])
        print(f"{r['shape']:<26} {layout:<9} {times:<38} {r['growth_last_double']:>14} {r['understand_seconds']:>15}")
    worst = max(max(r["clean_seconds"]) for r in rows)
    print(f"slowest clean(): {worst:.3f} s")


if __name__ == "__main__":
    main()
