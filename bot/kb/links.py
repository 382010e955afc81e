"""Where a page links to: the served pages (`/kb/<id>?lang=ko`) or static files
(`pytorch/backward-twice.ko.html`, relative to the page that links)."""

from __future__ import annotations

import posixpath
from urllib.parse import quote, urlencode

from bot.settings import get_settings

BASE = "/kb"


class ServerLinks:
    """Links of the pages the bot's HTTP server serves under /kb."""

    static = False

    def __init__(self, base: str = BASE):
        self.base = base.rstrip("/")

    def entry(self, entry_id: str, lang: str = "en", fmt: str = "html") -> str:
        path = f"{self.base}/{quote(entry_id)}"
        if fmt != "html":
            return f"{path}.{fmt}" + (f"?lang={lang}" if fmt == "md" and lang != "en" else "")
        return path + (f"?lang={lang}" if lang != "en" else "")

    def index(self, lang: str = "en", query: str | None = None) -> str:
        params = {k: v for k, v in (("lang", lang if lang != "en" else None), ("q", query)) if v}
        return f"{self.base}/" + (f"?{urlencode(params)}" if params else "")

    def stats(self, lang: str = "en", fmt: str = "html") -> str:
        if fmt == "json":
            return f"{self.base}/stats.json"
        return f"{self.base}/stats" + (f"?lang={lang}" if lang != "en" else "")


class StaticLinks:
    """Links between exported files, relative to the file being written (`here`, a path
    below the export folder), so the folder works anywhere: a wiki, a static site, disk."""

    static = True

    def __init__(self, here: str):
        self.here = posixpath.dirname(here)

    @staticmethod
    def file(name: str, lang: str, fmt: str) -> str:
        return f"{name}.{fmt}" if lang == "en" or fmt == "json" else f"{name}.{lang}.{fmt}"

    def _rel(self, target: str) -> str:
        return quote(posixpath.relpath(target, self.here or "."))

    def entry(self, entry_id: str, lang: str = "en", fmt: str = "html") -> str:
        return self._rel(self.file(entry_id, lang, fmt))

    def index(self, lang: str = "en", query: str | None = None) -> str:
        return self._rel(self.file("index", lang, "html"))

    def stats(self, lang: str = "en", fmt: str = "html") -> str:
        return self._rel(self.file("stats", lang, fmt))


def public_page_url(entry_id: str, lang: str = "en") -> str | None:
    """The entry's page under TROUBLESHOOT_PUBLIC_URL, for answers to link to; None when unset."""
    base = get_settings().public_url
    if not base:
        return None
    return base.rstrip("/") + ServerLinks().entry(entry_id, lang)
