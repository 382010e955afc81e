"""An entry as the `ask` JSON describes it, in one language (English where a field is missing)."""

from __future__ import annotations

from bot.answer.rates import RateSource
from bot.kb import model as m
from bot.retrieval.engine import Hit, SearchResult

EXCERPT_CHARS = 320
MAX_PASSAGES = 2


def _text(value: m.I18n | None, lang: str) -> str:
    return value.get_text(lang) if value else ""


def workaround_items(entry: m.Entry, lang: str, rates: RateSource) -> list[dict]:
    items = []
    for order, w in enumerate(entry.workarounds):
        rate = rates.workaround_rate(entry.id, w)
        items.append((order, rate, {
            "id": w.id,
            "title": _text(w.title, lang),
            "explanation": _text(w.explanation, lang),
            "code": w.code,
            "success_rate": None if rate.rate is None else round(rate.rate, 3),
            "evidence": rate.evidence,
            "rate_source": rate.source,
            "caveats": _text(w.caveats, lang) or None,
            "patch": w.patch,
        }))
    # Best rate first; with equal rates the one backed by more evidence; then the author's order.
    items.sort(key=lambda t: (-(t[1].rate if t[1].rate is not None else -1.0), -t[1].evidence, t[0]))
    return [item for _, _, item in items]


def dead_end_items(entry: m.Entry, lang: str) -> list[dict]:
    return [{"id": d.id, "title": _text(d.title, lang), "why": _text(d.why, lang), "code": d.code,
             "leads_to": d.leads_to} for d in entry.dead_ends]


def source_items(hit: Hit, kb: m.KnowledgeBase, lang: str) -> list[dict]:
    sources = [{"title": s.title, "url": s.url} for s in hit.entry.sources]
    # The article passages the question matched, in the asker's language first.
    articles = {a.id: a for a in kb.articles}
    passages = sorted(hit.passages, key=lambda p: (p[0].lang != lang, -p[1]))
    used: set[str] = set()  # one passage per article: the best one
    for chunk, _score in passages:
        article = articles.get(chunk.ref)
        if article is None or article.id in used:
            continue
        used.add(article.id)
        excerpt = chunk.text if len(chunk.text) <= EXCERPT_CHARS else chunk.text[:EXCERPT_CHARS - 1].rstrip() + "…"
        sources.append({"title": article.title, "url": article.source, "excerpt": excerpt})
        if len(used) >= MAX_PASSAGES:
            break
    return sources


def match_item(hit: Hit, kb: m.KnowledgeBase, lang: str, rates: RateSource) -> dict:
    entry = hit.entry
    return {
        "id": entry.id,
        "title": _text(entry.title, lang),
        "score": hit.score,
        "confidence": hit.confidence,
        "root_cause": _text(entry.root_cause, lang),
        "workarounds": workaround_items(entry, lang, rates),
        "dead_ends": dead_end_items(entry, lang),
        "sources": source_items(hit, kb, lang),
    }


def answer_dict(result: SearchResult, kb: m.KnowledgeBase, lang: str, top: int, rates: RateSource) -> dict:
    return {
        "answered": result.answered,
        "language": lang,
        "matches": [match_item(hit, kb, lang, rates) for hit in result.hits[:top]],
    }
