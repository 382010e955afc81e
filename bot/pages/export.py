"""The pages as static files (`troubleshoot kb export DIR`), linked to each other by
relative paths, so the folder works on any static host, in a wiki or from disk:

    DIR/index.html, index.ko.html, index.zh.html         the list
    DIR/stats.html (.ko, .zh), stats.json                 the dashboard
    DIR/<id>.html, <id>.ko.html, <id>.zh.html             each entry (e.g. pytorch/backward-twice.html)
    DIR/<id>.md, <id>.ko.md, <id>.zh.md                   as Markdown
    DIR/<id>.json                                         the entry with its evidence
"""

from __future__ import annotations

import json
from pathlib import Path

from bot.kb.links import StaticLinks
from bot.pages import data, html, markdown
from bot.text.lang import LANGUAGES

FORMATS = ("html", "md", "json")


def export_pages(kb, snap: data.Snapshot, out: Path, formats=FORMATS) -> list[Path]:
    """Write the pages of `formats` under `out`; returns the files written."""
    out = Path(out)
    written: list[Path] = []

    def write(name: str, text: str) -> None:
        path = out / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)

    for entry in sorted(kb.entries.values(), key=lambda e: e.id):
        doc = data.entry_doc(entry, snap, kb)
        if "json" in formats:
            write(StaticLinks.file(entry.id, "en", "json"), json.dumps(doc, ensure_ascii=False, indent=2) + "\n")
        for lang in LANGUAGES:
            for fmt in ("html", "md"):
                if fmt not in formats:
                    continue
                name = StaticLinks.file(entry.id, lang, fmt)
                links = StaticLinks(name)
                text = html.entry_page(doc, lang, links) if fmt == "html" else markdown.entry_markdown(doc, lang, links)
                write(name, text)
    if "html" in formats:
        index = data.index_doc(kb, snap)
        stats = data.stats_doc(kb, snap)
        for lang in LANGUAGES:
            name = StaticLinks.file("index", lang, "html")
            write(name, html.index_page(index, lang, StaticLinks(name)))
            name = StaticLinks.file("stats", lang, "html")
            write(name, html.stats_page(stats, lang, StaticLinks(name)))
    if "json" in formats:
        write("stats.json", json.dumps(data.stats_doc(kb, snap), ensure_ascii=False, indent=2) + "\n")
    return written
