"""Turn a Slack message event into what the bot needs: the asker's text, code blocks
and attached files.

Slack's `text` field escapes `&`, `<` and `>` as `&amp;`, `&lt;` and `&gt;` and
wraps mentions, channels and links in `<...>`. bot.retrieval.clean resolves the
tokens and decodes each entity exactly once (`&amp;lt;` becomes the four characters
`&lt;`, not `<`). Rich-text blocks carry raw text, so `rich_text_preformatted` code
is taken as it is.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from bot.retrieval.clean import decode_entities_once, strip_slack_tokens

_FENCE = re.compile(r"```(.*?)```", re.DOTALL)
_LANG_TAG = re.compile(r"\A(?:python3?|py|pycon|text|txt|bash|sh|shell|console|log)[ \t]*\n", re.IGNORECASE)
_TRACEBACK = re.compile(r"Traceback \(most recent call last\)|^\s*File \".*\", line \d+|^\w*(?:Error|Exception)\b.*:",
                        re.MULTILINE)


def slack_text_to_plain(text: str) -> str:
    """Decode Slack's mrkdwn `text` into what the user typed: tokens resolved or
    dropped, entities decoded once."""
    return decode_entities_once(strip_slack_tokens(text or ""))


def _strip_lang_tag(code: str) -> str:
    code = code.strip("\n")
    return _LANG_TAG.sub("", code, count=1)


def code_fences(plain: str) -> list[str]:
    return [c for c in (_strip_lang_tag(m.group(1)) for m in _FENCE.finditer(plain)) if c.strip()]


def _rich_text_plain(elements: list[dict]) -> str:
    parts = []
    for el in elements or []:
        kind = el.get("type")
        if kind == "text":
            parts.append(el.get("text", ""))
        elif kind == "link":
            parts.append(el.get("text") or el.get("url", ""))
        elif kind == "channel":
            parts.append("")
        elif kind == "emoji":
            parts.append(f":{el.get('name', '')}:")
        elif "elements" in el:
            parts.append(_rich_text_plain(el["elements"]))
    return "".join(parts)


def preformatted_blocks(blocks: list[dict] | None) -> list[str]:
    """Code from `rich_text_preformatted` elements, at any depth of rich_text blocks."""
    found: list[str] = []

    def walk(elements):
        for el in elements or []:
            if el.get("type") == "rich_text_preformatted":
                code = _strip_lang_tag(_rich_text_plain(el.get("elements", [])))
                if code.strip():
                    found.append(code)
            elif isinstance(el.get("elements"), list):
                walk(el["elements"])

    walk(blocks)
    return found


def looks_like_traceback(code: str) -> bool:
    return bool(_TRACEBACK.search(code))


def looks_like_snippet(code: str) -> bool:
    """A piece of Python we could run: it parses, has a statement or two, and is not a
    pasted traceback or a bare error line."""
    if looks_like_traceback(code) and "Traceback" in code:
        return False
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return False
    statements = tree.body
    if not statements:
        return False
    # A lone name or expression ("RuntimeError") is not a program.
    return len(statements) > 1 or not isinstance(statements[0], ast.Expr)


@dataclass
class ParsedMessage:
    text: str                                  # everything the user wrote, as plain text (code included)
    prose: str                                 # the text outside code blocks (for the asker's language)
    code_blocks: list[str] = field(default_factory=list)
    files: list[dict] = field(default_factory=list)

    @property
    def snippets(self) -> list[str]:
        return [c for c in self.code_blocks if looks_like_snippet(c)]

    @property
    def has_question(self) -> bool:
        return bool(self.text.strip()) or bool(self.files)


def parse_message(event: dict) -> ParsedMessage:
    plain = slack_text_to_plain(event.get("text") or "")
    code = preformatted_blocks(event.get("blocks")) or code_fences(plain)
    prose = _FENCE.sub("\n", plain)
    # Fences are markup, their content is the user's: keep it in the text we search.
    text = _FENCE.sub(lambda m: "\n" + _strip_lang_tag(m.group(1)) + "\n", plain)
    text = re.sub(r"[ \t]+\n", "\n", text).strip()
    return ParsedMessage(text=text, prose=prose.strip(), code_blocks=code, files=list(event.get("files") or []))
