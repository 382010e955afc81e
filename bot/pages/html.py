"""The pages as HTML: Jinja2 templates (templates/), every value escaped by autoescape.

Knowledge text may hold `code` in backticks: `inline` escapes the text first and only
then turns backtick spans into <code>, so nothing from the YAML becomes markup.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from markupsafe import Markup, escape

from bot.pages import charts
from bot.pages.areas import NAMES as AREA_NAMES
from bot.text.lang import LANGUAGES
from bot.text.ui import LANG_NAMES, WORDS, kb_status_text, labels, t

TEMPLATES = Path(__file__).resolve().parent / "templates"
_TICKS = re.compile(r"`([^`\n]+)`")
_SAFE_URL = re.compile(r"^https?://", re.IGNORECASE)


def pick(value, lang: str) -> str:
    """The text of an {en, ko, zh} dict in `lang`, English where it is missing."""
    if value is None:
        return ""
    if isinstance(value, dict):
        return value.get(lang) or value.get("en") or next(iter(value.values()), "") or ""
    return str(value)


def inline(text: str) -> Markup:
    escaped = str(escape(text))
    return Markup(_TICKS.sub(lambda mt: f"<code>{mt.group(1)}</code>", escaped))


def safe_url(url: str | None) -> str | None:
    """Only http(s) addresses become links (never javascript: or data:)."""
    return url if url and _SAFE_URL.match(url.strip()) else None


def pct(value: float | None) -> str:
    return "" if value is None else f"{value:.0%}"


def count_text(key: str, n: int, lang: str, **values) -> str:
    """A counted word: "1 time", "2 times", "1 entry" (the word `<key>_one` where English
    has a form of its own for one); Korean and Chinese have no plural."""
    if n == 1 and f"{key}_one" in WORDS:
        return t(f"{key}_one", lang, **values) if values else t(f"{key}_one", lang)
    return t(key, lang, n=n, s="" if n == 1 else "s", **values)


@lru_cache(maxsize=1)
def environment() -> Environment:
    env = Environment(loader=FileSystemLoader(str(TEMPLATES)), autoescape=select_autoescape(default=True),
                      undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.filters.update(inline=inline, pct=pct, safe_url=safe_url)
    env.globals.update(pick=pick, LANG_NAMES=LANG_NAMES, LANGUAGES=LANGUAGES, AREA_NAMES=AREA_NAMES,
                       kb_status_text=kb_status_text, count_text=count_text)
    return env


def _render(template: str, lang: str, links, **context) -> str:
    return environment().get_template(template).render(lang=lang, L=labels(lang), links=links, **context)


def entry_page(doc: dict, lang: str, links) -> str:
    return _render("entry.html", lang, links, e=doc, title=pick(doc["title"], lang))


def index_page(doc: dict, lang: str, links) -> str:
    query = doc.get("query") or ""
    return _render("index.html", lang, links, d=doc, query=query, title=f"“{query}”" if query else "")


def stats_page(doc: dict, lang: str, links) -> str:
    L = labels(lang)
    asked = charts.hbar_chart([(f"{pick(r['title'], lang)} ({r['id']})", r["answers"],
                                count_text("times", r["answers"], lang)) for r in doc["most_asked"]],
                              title=L["most_asked"])
    fixes = charts.stacked_rate_chart(
        [(f"{pick(f['title'], lang)} ({f['entry_id']})", f["fixed"], f["failed"],
          f"{f['fixed']}/{f['runs']}" if f["runs"] else f"👍{f['up']} 👎{f['down']}")
         for f in doc["fixes"][:20]], title=L["fixes_by_evidence"], labels=L)
    weekly = charts.weekly_chart(doc["weekly"], title=L["history"], labels=L)
    return _render("stats.html", lang, links, d=doc, title=L["dashboard"], asked_chart=asked, fixes_chart=fixes,
                   weekly_chart=weekly)


def not_found_page(lang: str, links, what: str) -> str:
    return _render("not_found.html", lang, links, what=what, title="404")
