"""The knowledge pages as a WSGI application under /kb (the bot's HTTP server mounts it):

    /kb/                 the entries by area; ?q= searches them (best match first), ?lang=en|ko|zh
    /kb/<id>             an entry (HTML), ?lang=en|ko|zh
    /kb/<id>.json        the entry with its evidence
    /kb/<id>.md          the entry as Markdown, ?lang=
    /kb/stats            the dashboard (HTML, SVG charts), /kb/stats.json its data

GET and HEAD only. An alias id redirects to the entry's own id. Pages carry a
Content-Security-Policy that allows no script at all: they need none, and escaping
is then not the only wall against markup smuggled into the knowledge.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from urllib.parse import parse_qs, quote

from bot.kb.links import BASE, ServerLinks
from bot.kb.loader import cached_knowledge
from bot.pages import data, html, markdown
from bot.settings import get_settings
from bot.text.lang import LANGUAGES

log = logging.getLogger(__name__)

CSP = ("default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; "
       "form-action 'self'; frame-ancestors 'none'")
HTML = "text/html; charset=utf-8"
JSON = "application/json; charset=utf-8"
MARKDOWN = "text/markdown; charset=utf-8"


def handles(path: str) -> bool:
    return path == BASE or path.startswith(BASE + "/")


class KnowledgePages:
    """Serves the pages from the knowledge base (re-read when a file changes) and the
    evidence store `store` (None: the priors only), read at most every TROUBLESHOOT_RATES_TTL s."""

    def __init__(self, store=None, knowledge_dir=None):
        self.store = store
        self.knowledge_dir = knowledge_dir
        self.links = ServerLinks()
        self._lock = threading.Lock()
        self._snap: tuple[float, data.Snapshot] | None = None

    # --- sources ---------------------------------------------------------------------------
    def knowledge(self):
        kb, _problems = cached_knowledge(self.knowledge_dir)  # invalid files are left out
        return kb

    def snapshot(self) -> data.Snapshot:
        ttl = get_settings().rates_ttl
        with self._lock:
            if self._snap is not None and time.monotonic() - self._snap[0] < ttl:
                return self._snap[1]
        snap = data.load_snapshot(self.store)
        with self._lock:
            self._snap = (time.monotonic(), snap)
        return snap

    # --- WSGI ------------------------------------------------------------------------------
    def __call__(self, environ, start_response):
        method = environ.get("REQUEST_METHOD", "GET")
        path = environ.get("PATH_INFO") or "/"
        params = parse_qs(environ.get("QUERY_STRING") or "")
        lang = (params.get("lang") or ["en"])[0]
        lang = lang if lang in LANGUAGES else "en"
        if method not in ("GET", "HEAD"):
            return _respond(start_response, "405 Method Not Allowed", "text/plain; charset=utf-8",
                            b"GET or HEAD\n", method, extra=[("Allow", "GET, HEAD")])
        try:
            status, ctype, body, extra = self.route(path, lang, params)
        except Exception:  # noqa: BLE001 - one broken page must not take the server down
            log.exception("knowledge page %s failed", path)
            status, ctype, body, extra = "500 Internal Server Error", "text/plain; charset=utf-8", \
                b"the page could not be rendered (see the bot's log)\n", []
        return _respond(start_response, status, ctype, body, method, extra=extra)

    def route(self, path: str, lang: str, params: dict) -> tuple[str, str, bytes, list]:
        if path == BASE:
            return _redirect(self.links.index(lang))
        rest = path[len(BASE) + 1:]
        if rest == "":
            query = (params.get("q") or [""])[0].strip()[:200]
            doc = data.index_doc(self.knowledge(), self.snapshot(), query or None)
            return "200 OK", HTML, html.index_page(doc, lang, self.links).encode(), []
        if rest in ("stats", "stats.json"):
            doc = data.stats_doc(self.knowledge(), self.snapshot())
            if rest.endswith(".json"):
                return "200 OK", JSON, _json(doc), []
            return "200 OK", HTML, html.stats_page(doc, lang, self.links).encode(), []
        fmt = "html"
        for suffix in ("json", "md"):
            if rest.endswith("." + suffix):
                rest, fmt = rest[: -len(suffix) - 1], suffix
        kb = self.knowledge()
        entry = kb.resolve(rest)
        if entry is None:
            page = html.not_found_page(lang, self.links, rest)
            return "404 Not Found", HTML, page.encode(), []
        if entry.id != rest:  # an alias: the page lives at the entry's own id
            return _redirect(self.links.entry(entry.id, lang, fmt))
        doc = data.entry_doc(entry, self.snapshot(), kb)
        if fmt == "json":
            return "200 OK", JSON, _json(doc), []
        if fmt == "md":
            return "200 OK", MARKDOWN, markdown.entry_markdown(doc, lang, self.links).encode(), []
        return "200 OK", HTML, html.entry_page(doc, lang, self.links).encode(), []


def _json(doc: dict) -> bytes:
    return (json.dumps(doc, ensure_ascii=False, indent=2) + "\n").encode()


def _redirect(location: str) -> tuple[str, str, bytes, list]:
    return "301 Moved Permanently", "text/plain; charset=utf-8", b"", [("Location", quote(location, safe="/?=&%"))]


def _respond(start_response, status: str, ctype: str, body: bytes, method: str, *, extra=()):
    headers = [("Content-Type", ctype), ("Content-Length", str(len(body))), ("X-Content-Type-Options", "nosniff"),
               ("Cache-Control", "no-cache"), *extra]
    if ctype.startswith("text/html"):
        headers += [("Content-Security-Policy", CSP), ("Referrer-Policy", "no-referrer")]
    start_response(status, headers)
    return [b"" if method == "HEAD" else body]
