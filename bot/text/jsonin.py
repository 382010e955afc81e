"""The one JSON reader for what comes from outside (files, stdin, Redis, Slack, a worker,
the sandbox): json.loads, plus a depth limit. A document nested deeper than MAX_DEPTH
(`[[[[...]]]]` 200,000 deep) is refused with an InputError naming where it came from,
never a RecursionError from the decoder or from whatever walks the document next.
InputError is a ValueError, so every reader that refuses malformed JSON refuses this too.

    loads(text, where="eval.jsonl:3") -> the document; InputError when nested too deeply
"""

from __future__ import annotations

import json
from typing import Any

from bot.errors import InputError

MAX_DEPTH = 100  # far beyond any document of ours (a report is about 6 levels deep)


class TooDeep(InputError):
    pass


def loads(data: str | bytes | bytearray, *, where: str = "") -> Any:
    try:
        doc = json.loads(data)
    except RecursionError:
        raise TooDeep(_too_deep(where)) from None
    if depth(doc) > MAX_DEPTH:
        raise TooDeep(_too_deep(where))
    return doc


def depth(doc: Any) -> int:
    """How deeply lists and objects nest in `doc` (a scalar is 0), without recursion."""
    deepest = 0
    stack = [(doc, 1)]
    while stack:
        node, level = stack.pop()
        if isinstance(node, dict):
            children: Any = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        deepest = max(deepest, level)
        if deepest > MAX_DEPTH:
            return deepest
        stack.extend((child, level + 1) for child in children if isinstance(child, (dict, list)))
    return deepest


def _too_deep(where: str) -> str:
    return (f"{where}: " if where else "") + f"the JSON nests more than {MAX_DEPTH} levels deep"
