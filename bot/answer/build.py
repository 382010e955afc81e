"""An entry as the `ask` JSON describes it, in one language (English where a field is missing):
the typed document of bot/answer/document.py (its JSON only at the edges: `as_json()`)."""

from __future__ import annotations

import re

from bot.answer.document import (AnswerDocument, Choice, DeadEndItem, Match, MeasuredVersion, OtherLibrary, Source,
                                 WorkaroundItem)
from bot.answer.ranking import RankedFix, rank_fixes, ranked_fix
from bot.contract import ABSENT
from bot.evidence.display import (RateSource, evidence_text, measured_rate, rate_kind, refuted_text,
                                  shown_rate_text)
from bot.kb import model as m
from bot.kb.links import public_page_url
from bot.retrieval.chunks import Chunk
from bot.retrieval.engine import Hit, SearchResult
from bot.verify.versions import VersionTable
from bot.answer.notices import look_for, no_error_notice, other_library_notice
from bot.retrieval.tiers import ANSWER, CHOICES, DECLINE, mentions_screenshot
from bot.text.ui import t

EXCERPT_CHARS = 320
PROOF_SOURCE = "kb-proof"  # rate_source of an item only the shipped proofs back (knowledge/proofs.json)
MAX_PASSAGES = 2


def _text(value: m.I18n | None, lang: str) -> str:
    return value.get_text(lang) if value else ""


def workaround_item(fix: RankedFix, lang: str) -> WorkaroundItem:
    """A ranked workaround in the asker's language. A percentage appears only where our
    evidence measured one (`success_rate`, with its counts in `rate_text`); the team's
    prior stays an estimate (`estimate`, never shown as a percentage)."""
    w, rate, measured = fix.workaround, fix.rate, fix.measured
    kind = rate_kind(rate.verified, fix.proof)
    item = WorkaroundItem(
        id=w.id,
        title=_text(w.title, lang),
        explanation=_text(w.explanation, lang),
        code=w.code,
        success_rate=None if measured is None else round(measured, 3),
        rate_kind=kind,
        rate_text=shown_rate_text(rate.verified, fix.proof, lang),
        estimate=round(w.prior.rate, 3) if w.prior and w.prior.rate is not None else None,
        evidence=rate.evidence,
        rate_source=PROOF_SOURCE if kind == "proven" else rate.source,
        evidence_summary=evidence_text(rate.verified, lang),
        verified=rate.verified,
        refuted=bool(rate.refuted),
        scenario=None if fix.scenario is None else ("matched" if fix.scenario else "not mentioned"),
        caveats=_text(w.caveats, lang) or None,
        patch=w.patch,
    )
    if fix.proof is not None:
        item.proven = fix.proof.as_json()
    return item


def workarounds(entry: m.Entry, lang: str, rates: RateSource, asked: str = "") -> list[WorkaroundItem]:
    """The fixes an answer shows, ranked (bot/answer/ranking.py); refuted ones are dead ends."""
    return [workaround_item(fix, lang) for fix in rank_fixes(entry, rates, asked).workarounds]


def dead_ends(entry: m.Entry, lang: str, rates: RateSource | None = None) -> list[DeadEndItem]:
    items = []
    for d in entry.dead_ends:
        rate = rates.dead_end_rate(entry.id, d) if rates is not None else None
        measured = measured_rate(rate.verified, dead_end=True) if rate is not None else None
        verified = rate.verified if rate is not None else None
        proof = entry.proofs.get(f"dead_end:{d.id}")
        kind = rate_kind(verified, proof, dead_end=True)
        item = DeadEndItem(
            id=d.id, title=_text(d.title, lang), why=_text(d.why, lang), code=d.code, leads_to=d.leads_to,
            fail_rate=None if measured is None else round(measured, 3),
            rate_kind=kind,
            rate_text=shown_rate_text(verified, proof, lang, dead_end=True),
            evidence=rate.evidence if rate is not None else None,
            rate_source=PROOF_SOURCE if kind == "proven" else rate.source if rate is not None else None,
            evidence_summary=evidence_text(rate.verified, lang, dead_end=True) if rate else None,
            verified=verified, refuted=False)
        if proof is not None:
            item.proven = proof.as_json()
        items.append(item)
    return items


def refuted_item(fix: RankedFix, lang: str) -> DeadEndItem:
    """A workaround that verified runs keep refuting, shown among the dead ends with that evidence."""
    w = workaround_item(fix, lang)
    return DeadEndItem(id=w.id, title=w.title, why=refuted_text(lang), code=w.code, leads_to=None,
                       fail_rate=None if w.success_rate is None else round(1 - w.success_rate, 3),
                       rate_kind=w.rate_kind, rate_text=evidence_text(w.verified, lang, dead_end=True) or "",
                       evidence=w.evidence, rate_source=w.rate_source,
                       evidence_summary=evidence_text(w.verified, lang, dead_end=True), verified=w.verified,
                       refuted=True)


def _solved(article: m.Article | None) -> bool:
    return article is not None and article.solved


def sources(hit: Hit, kb: m.KnowledgeBase, lang: str) -> list[Source]:
    found = [Source(title=s.title, url=s.url) for s in hit.entry.sources]
    # The article passages the question matched, in the asker's language first.
    articles = {a.id: a for a in kb.articles}
    # A Slack thread marked solved before one that is not (articles without the mark keep their order).
    passages = sorted(hit.passages, key=lambda p: (p[0].lang != lang, not _solved(articles.get(p[0].ref)), -p[1]))
    used: set[str] = set()  # one passage per article: the best one
    for chunk, _score in passages:
        article = articles.get(chunk.ref)
        if article is None or article.id in used:
            continue
        used.add(article.id)
        found.append(article_source(article, chunk))
        if len(used) >= MAX_PASSAGES:
            break
    return found


def article_source(article: m.Article, chunk: Chunk) -> Source:
    """A passage of an article as a source: its excerpt, and where the article came from."""
    excerpt = chunk.text if len(chunk.text) <= EXCERPT_CHARS else chunk.text[:EXCERPT_CHARS - 1].rstrip() + "…"
    source = Source(title=article.title, url=article.source, excerpt=excerpt)
    if article.provenance != article.source:
        source.provenance = article.provenance
    if article.solved:
        source.solved = True
    return source


def team_sources(result: SearchResult, kb: m.KnowledgeBase) -> list[Source]:
    """The team's own articles (about no entry) the question matched closely."""
    articles = {a.id: a for a in kb.articles}
    return [article_source(articles[chunk.ref], chunk) for chunk, _score in result.team if chunk.ref in articles]


def match(hit: Hit, kb: m.KnowledgeBase, lang: str, rates: RateSource, asked: str = "") -> Match:
    entry = hit.entry
    ranked = rank_fixes(entry, rates, asked)
    found = Match(
        id=entry.id,
        title=_text(entry.title, lang),
        score=hit.score,
        confidence=hit.confidence,
        root_cause=_text(entry.root_cause, lang),
        workarounds=[workaround_item(fix, lang) for fix in ranked.workarounds],
        dead_ends=[refuted_item(fix, lang) for fix in ranked.refuted] + dead_ends(entry, lang, rates),
        sources=sources(hit, kb, lang),
        page_url=public_page_url(entry.id, lang),  # None unless TROUBLESHOOT_PUBLIC_URL is set
    )
    measured = measured_version_rows(entry.id)
    if measured:
        found.versions_measured = measured
    return found


def measured_version_rows(entry_id: str) -> list[MeasuredVersion]:
    """The entry's version table from real runs (`kb verify --torch`), newest release
    first; empty where none was measured (the entry's own affected_versions are claims)."""

    try:
        rows = VersionTable().rows(entry_id)
    except Exception:  # noqa: BLE001 - an unreadable table must not cost the answer
        return []
    return [MeasuredVersion(version=r["version"], torch=r.get("torch"), reproduced=r.get("reproduced"),
                            error_type=r.get("error_type"), message=r.get("message"), fixes=r.get("fixes") or {},
                            checked_at=r.get("checked_at"), rate_kind="measured") for r in rows if r.get("ran")]


def answer_document(result: SearchResult, kb: m.KnowledgeBase, lang: str, top: int,
                    rates: RateSource) -> AnswerDocument:
    """The `ask` document. Besides answered/language/matches: `declined` says why an entry is
    not offered (other-library, no-error, not-covered; null when answered), `notice` what
    to tell the asker then, and `other_library` which library raised the error. Another
    library's error and a message without an error list no matches: guesses would mislead."""

    declined = result.declined
    scope = result.scope
    other = None
    notice = None
    if declined == "other-library" and scope is not None and scope.library is not None:
        lib = scope.library
        notice = other_library_notice(lib.key, lib.name, scope.evidence, scope.evidence_kind, lang)
        other = OtherLibrary(library=lib.key, name=lib.name, evidence=scope.evidence,
                             evidence_kind=scope.evidence_kind, look_for=look_for(lib.key, lang))
    elif declined == "no-error" or (result.tier == DECLINE and mentions_screenshot(result.query.raw)):
        notice = no_error_notice(lang)
        if mentions_screenshot(result.query.raw):
            notice += " " + t("screenshot_note", lang)
    nothing = result.tier == DECLINE and declined in ("other-library", "no-error")
    hits = [] if nothing else result.hits[:top]
    return AnswerDocument(
        answered=result.tier == ANSWER,
        language=lang,
        matches=[match(hit, kb, lang, rates, result.query.raw) for hit in hits],
        tier=result.tier,
        choices=[choice(hit, lang) for hit in result.choices] if result.tier == CHOICES else [],
        declined=declined,
        notice=notice,
        other_library=other,
        # the answer tier: what backs it; choices: a signature that fits several entries alike
        evidence=result.evidence if result.tier != DECLINE and result.evidence else ABSENT,
        wrapper=result.query.wrapper if result.query.wrapper and hits else ABSENT,
        team_articles=team_sources(result, kb) if result.team else ABSENT,
    )


def choice(hit: Hit, lang: str) -> Choice:
    cause = _text(hit.entry.root_cause, lang).strip()
    first = re.split(r"(?<=[.!?])\s+|(?<=[。！？])", cause, maxsplit=1)[0] if cause else ""
    return Choice(id=hit.entry_id, title=_text(hit.entry.title, lang), confidence=hit.confidence,
                  line=first if len(first) <= 200 else first[:199].rstrip() + "…")


def picked_document(result: SearchResult, number: int, kb: m.KnowledgeBase, lang: str,
                    rates: RateSource) -> AnswerDocument:
    """The answer once the asker picked choice `number` (1-based) of a choices answer:
    that entry, answered because the asker said so (evidence "picked"). Raises
    ValueError naming the numbers there are when `number` is not one of them."""
    if result.tier != CHOICES or not result.choices:
        raise ValueError("this message has no choices to pick from (its answer is not a list of candidates)")
    if not 1 <= number <= len(result.choices):
        raise ValueError(f"--pick {number}: the choices are numbered 1 to {len(result.choices)}")
    hit = result.choices[number - 1]
    return AnswerDocument(answered=True, language=lang, tier=ANSWER, evidence="picked",
                          matches=[match(hit, kb, lang, rates, result.query.raw)], declined=None, notice=None,
                          other_library=None)


_RATE_FIELDS = ("success_rate", "rate_kind", "rate_text", "evidence", "rate_source", "evidence_summary", "verified",
                "refuted")
_DEAD_END_RATE_FIELDS = ("fail_rate", "rate_kind", "rate_text", "evidence", "rate_source", "evidence_summary",
                         "verified")


def refresh_rates(doc: AnswerDocument, kb: m.KnowledgeBase, rates: RateSource) -> AnswerDocument:
    """The document with each shown fix's and dead end's evidence as it stands now (after
    a verification was recorded), in the order it was shown: the evidence lines move, the
    fixes do not jump around under the reader. Items the knowledge base no longer has, and
    refuted fixes shown as dead ends, keep what they said."""
    lang = doc.language or "en"
    for found in doc.matches:
        entry = kb.resolve(found.id)
        if entry is None:
            continue
        fixes = {w.id: w for w in entry.workarounds}
        for order, item in enumerate(found.workarounds):
            fix = fixes.get(item.id)
            if fix is None:
                continue
            fresh = workaround_item(ranked_fix(entry, fix, rates, order), lang)
            for name in _RATE_FIELDS:
                setattr(item, name, getattr(fresh, name))
        now = {d.id: d for d in dead_ends(entry, lang, rates)}
        for dead in found.dead_ends:
            current = None if dead.refuted else now.get(dead.id)
            if current is None:
                continue
            for name in _DEAD_END_RATE_FIELDS:
                setattr(dead, name, getattr(current, name))
    return doc
