"""The main text of a saved web page, for `kb add page.html`.

The extraction is trafilatura's (a kept, maintained extractor): it drops navigation,
ads, footers and comments, keeps headings and code blocks as Markdown, and reads the
title, author and date the page states. We only choose its options, read the source
address (canonical link first, then og:url) from the parsed tree, and undo the Markdown
escaping it adds to prose (`retain\\_graph`), which would hide the words an error
signature looks for.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field

import trafilatura

from bot.text.inputs import decode_bytes

# Its warnings ("discarding data: None") repeat, less clearly, what PageProblem says per file.
logging.getLogger("trafilatura").setLevel(logging.ERROR)

# Pages shorter than this after extraction are menus, link lists or empty shells.
MIN_MAIN_TEXT = 80
HTML_SUFFIXES = {".html", ".htm", ".xhtml"}

_FENCE = re.compile(r"^```")
_ESCAPED = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|<>~])")
_INLINE_CODE = re.compile(r"(`[^`\n]*`)")


class PageProblem(ValueError):
    """The page gave no article (no main text, not HTML); the message says which."""


@dataclass
class Page:
    title: str
    text: str  # Markdown: headings, paragraphs, code blocks fenced
    url: str | None = None
    author: str | None = None
    date: str | None = None
    headings: list[str] = field(default_factory=list)


def _unescape_prose(markdown: str) -> str:
    """Drop trafilatura's Markdown escapes outside code (fenced blocks and `inline`)."""
    out, in_code = [], False
    for line in markdown.splitlines():
        if _FENCE.match(line.strip()):
            in_code = not in_code
            out.append(line)
            continue
        if in_code:
            out.append(line)
            continue
        parts = _INLINE_CODE.split(line)
        out.append("".join(p if p.startswith("`") else _ESCAPED.sub(r"\1", p) for p in parts))
    return "\n".join(out)


def _headings(markdown: str) -> list[str]:
    """The Markdown headings, not a shell comment inside a code block."""
    out, in_code = [], False
    for line in markdown.splitlines():
        if _FENCE.match(line.strip()):
            in_code = not in_code
        elif not in_code and re.match(r"^#{1,6} ", line):
            out.append(line.lstrip("#").strip())
    return out


def _first(tree, xpath: str) -> str | None:
    for value in tree.xpath(xpath):
        value = str(value).strip()
        if value:
            return value
    return None


def extract_page(data: bytes) -> Page:
    """The article a saved page holds; PageProblem when it holds none."""
    html = decode_bytes(data)
    tree = trafilatura.load_html(html)
    if tree is None:
        raise PageProblem("not an HTML page (nothing could be parsed)")
    options = dict(include_comments=False, include_formatting=True, include_tables=True, favor_precision=True)
    text = trafilatura.extract(tree, output_format="markdown", **options)
    if not text or len(text.strip()) < MIN_MAIN_TEXT:
        raise PageProblem(f"no main text found (only navigation, links or under {MIN_MAIN_TEXT} characters of text)")
    meta = trafilatura.extract_metadata(tree)
    text = _unescape_prose(text.strip())
    # The source address: the canonical link, then og:url (what the page says it is).
    url = (_first(tree, '//link[@rel="canonical"]/@href')
           or _first(tree, '//meta[@property="og:url"]/@content'))
    if url is not None and not url.startswith(("http://", "https://")):
        url = None
    # trafilatura drops author names it cannot normalise (Hangul, Han): then the page's own meta tag.
    author = (meta.author if meta is not None else None) or _first(tree, '//meta[@name="author"]/@content')
    headings = _headings(text)
    title = (meta.title if meta is not None else None) or (headings[0] if headings else "")
    return Page(title=title.strip()[:200], text=text, url=url, author=author,
                date=meta.date if meta is not None else None, headings=headings)
