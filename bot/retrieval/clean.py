"""Clean pasted text as it arrives from Slack, terminals and notebooks.

What we undo, in order:
- Slack markup: `<@U123>` mentions, `<#C123|name>` channels, `<!here>`, `<http://x|label>`
  links (Slack escapes a literal `<` as `&lt;`, so these are the only raw angle brackets
  it sends);
- HTML entities, decoded once (`&amp;lt;` becomes `&lt;`, not `<`);
- ANSI colour codes;
- code fences and inline backticks (the content stays; we remember what was fenced);
- notebook markup: `----> 12` arrows and numbered context lines (Jupyter), `[/path](url)`
  links (Colab), separator rules;
- rich-style boxed tracebacks: `╭─ ... ─╮` borders, `│ ... │` sides, `❱ 12 │` gutters.

Bad input raises `InputError` with what was wrong: empty text, binary data.
Huge input is cut to its head and tail (the last exception sits at the end).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from bot.text import InputError
from bot.text.inputs import check_binary
from bot.text.normalize import ANSI_RE

MAX_CHARS = 60_000  # what we keep of a huge paste: its head and, mostly, its tail
_HEAD_CHARS = 10_000


@dataclass
class Cleaned:
    text: str  # the whole cleaned text
    code_blocks: list[str] = field(default_factory=list)  # fenced or preformatted parts
    truncated: bool = False
    original_chars: int = 0


# --- Slack --------------------------------------------------------------------

# Every variable part stops at the next "<" (Slack sends a literal "<" as "&lt;", so a
# token never holds one): a scan that finds no closing ">" ends where the next token may
# begin, so a line of ten thousand unclosed "<@U1|" costs linear time, not quadratic.
_SLACK_USER = re.compile(r"<@[UW][A-Z0-9]+(?:\|[^<>\n]*)?>")
_SLACK_CHANNEL = re.compile(r"<#C[A-Z0-9]+(?:\|([^<>\n]*))?>")
_SLACK_SPECIAL = re.compile(r"<!(?:here|channel|everyone|subteam\^[A-Z0-9]+|date\^[^<>\n|]*)(?:\|([^<>\n]*))?>")
_SLACK_LINK = re.compile(r"<((?:https?|mailto|ftp|file|slack):[^|<>\s]*)(?:\|([^<>\n]*))?>")

# Only the entities Slack and HTML exporters produce; `html.unescape` would also turn
# `&not` inside code such as `a&notation` into `¬ation`.
_ENTITY = re.compile(r"&(lt|gt|amp|quot|apos|nbsp|#\d{1,7}|#[xX][0-9a-fA-F]{1,6});")
_NAMED = {"lt": "<", "gt": ">", "amp": "&", "quot": '"', "apos": "'", "nbsp": " "}


def strip_slack_tokens(text: str) -> str:
    text = _SLACK_USER.sub("", text)
    text = _SLACK_CHANNEL.sub(lambda m: "#" + m.group(1) if m.group(1) else "", text)
    text = _SLACK_SPECIAL.sub(lambda m: m.group(1) or "", text)
    text = _SLACK_LINK.sub(lambda m: m.group(2) or m.group(1), text)
    return text


def _entity(match: re.Match) -> str:
    name = match.group(1)
    if name in _NAMED:
        return _NAMED[name]
    try:
        code = int(name[2:], 16) if name[1] in "xX" else int(name[1:])
        return chr(code) if 0 < code < 0x110000 else match.group(0)
    except ValueError:
        return match.group(0)


def decode_entities_once(text: str) -> str:
    return _ENTITY.sub(_entity, text)


# --- fences -------------------------------------------------------------------

# "```python\n..." names a language; in "```RuntimeError: x```" the first word is content.
_FENCE = re.compile(r"```(?:[ \t]*[\w+#.-]+[ \t]*\n|[ \t]*\n)?(.*?)(?:```|\Z)", re.DOTALL)
_INLINE_CODE = re.compile(r"`([^`\n]+)`")


def _unfence(text: str, code_blocks: list[str]) -> str:
    def block(m: re.Match) -> str:
        body = m.group(1).strip("\n")
        code_blocks.append(body)
        return "\n" + body + "\n\n"  # a blank line: whatever follows the fence is not the message

    text = _FENCE.sub(block, text)
    return _INLINE_CODE.sub(r"\1", text)


# --- notebooks and rich -------------------------------------------------------

_RULE_LINE = re.compile(r"^\s*[-=─━_]{10,}\s*$")
_JUPYTER_ARROW = re.compile(r"^(\s*)-{2,}>\s*(\d+)\s?(.*)$")
_JUPYTER_CONTEXT = re.compile(r"^\s{2,}(\d+)\s(.*)$")
_MD_LINK = re.compile(r"\[([^\[\]\n]{1,500})\]\((?:https?://|file:|/)[^)\s]{0,2000}\)")
_JUPYTER_HEADER = re.compile(r"^(\S+)\s{3,}(Traceback \(most recent call last\))\s*$")

_BOX_CHARS = "│┃║╭╮╰╯┌┐└┘├┤┬┴┼─━═╴╶╷╵"
_HAS_BOX = re.compile("[" + _BOX_CHARS + "]")
_BORDER_OPEN = "╭╰┌└┏┗╔╚"
_BORDER_CLOSE = "╮╯┐┘┓┛╗╝"
_BORDER_FILL = "─━═ \t\f\v"
_SIDES = "│┃║"
# One optional marker and its blanks, then the line number: no two adjacent runs of
# blanks, so a line of blanks costs linear time.
_RICH_GUTTER = re.compile(r"^\s*(?:[❱>]\s*)?\d+\s*[│┃|]\s?(.*)$")


def _unbox(line: str) -> str | None:
    """Strip a rich box from one line; None drops the line (a pure border).

    String operations rather than regular expressions with lazy groups and trailing
    blanks, which cost quadratic time on a long line of blanks."""
    stripped = line.strip()
    if len(stripped) >= 2 and stripped[0] in _BORDER_OPEN and stripped[-1] in _BORDER_CLOSE:
        title = stripped[1:-1].strip(_BORDER_FILL).strip()
        return title if title else None
    if stripped and stripped[0] in _SIDES:
        inner = line.lstrip()[1:].rstrip()
        if inner and inner[-1] in _SIDES:
            inner = inner[:-1]
        line = inner.rstrip()
        # The source lines inside a rich frame: "❱ 12 │     loss.backward()"
        gutter = _RICH_GUTTER.match(line)
        if gutter:
            line = "    " + gutter.group(1).strip()
        # What is left of the box inside a line: rich's indent guides and markers.
        return re.sub(r"[│┃║❱]", " ", line).rstrip()
    return line


def _notebook_line(line: str) -> str | None:
    if _RULE_LINE.match(line):
        return None
    header = _JUPYTER_HEADER.match(line)
    if header:
        return header.group(2) + ":"
    line = _MD_LINK.sub(r"\1", line)
    arrow = _JUPYTER_ARROW.match(line)
    if arrow:
        return "    " + arrow.group(3).strip()
    ctx = _JUPYTER_CONTEXT.match(line)
    if ctx and not line.lstrip().startswith(("File ", "at ")):
        return "    " + ctx.group(2).strip()
    return line


def clean(text: str) -> Cleaned:
    if text is None or not str(text).strip():
        raise InputError("the input is empty; paste an error message or a question")
    text = str(text)
    original = len(text)
    check_binary(text)
    truncated = False
    if len(text) > MAX_CHARS:
        head = text[:_HEAD_CHARS]
        tail = text[-(MAX_CHARS - _HEAD_CHARS):]
        text = head + "\n...\n" + tail
        truncated = True

    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\u00a0", " ")
    text = strip_slack_tokens(text)
    text = decode_entities_once(text)
    text = ANSI_RE.sub("", text)
    code_blocks: list[str] = []
    text = _unfence(text, code_blocks)

    lines = []
    for line in text.split("\n"):
        line = line.expandtabs(4)
        if _HAS_BOX.search(line):
            line = _unbox(line)
            if line is None:
                continue
        line = _notebook_line(line)
        if line is None:
            continue
        lines.append(line.rstrip())
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip("\n")
    if not text.strip():
        raise InputError("the input has no text left once markup is removed; paste the error message itself")
    return Cleaned(text=text, code_blocks=code_blocks, truncated=truncated, original_chars=original)
