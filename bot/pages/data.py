"""What the knowledge pages show: each entry with its evidence, as one JSON-ready dict.

`load_snapshot(store)` reads the evidence store once (outcomes and votes per item,
verifications per entry, answers, coverage gaps, a weekly history); `entry_doc(entry,
snap)` is an entry's page document with every human text in all its languages, and
`index_doc` / `stats_doc` those of the list and the dashboard. The renderers (html.py,
markdown.py) only pick a language and format; nothing here is escaped, they escape.

Rates follow bot.evidence.display: a percentage (`measured`) only where verified runs or
votes measured it, with its counts (`rate_text`); otherwise `rate_text` says "team
estimate, not yet verified" and no percentage is given. The team's prior is kept in
`prior` for the JSON reader, never as the number a page shows.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

from bot.answer.ranking import RankedFix, rank_fixes
from bot.evidence.display import Rate, evidence_text, measured_rate, rate_kind, rate_text, refuted_text, shown_rate_text
from bot.evidence.rates import EvidenceRates, Key, Observations, is_run, load_observations, torch_minor
from bot.kb import model as m
from bot.kb.proofs import Proof
from bot.pages.areas import ORDER as AREA_ORDER, area_of
from bot.pages.cut import end_at_word
from bot.store.models import CoverageGap, Verification, VerificationOutcome
from bot.store.models import Answer, Vote
from bot.text.lang import LANGUAGES
from bot.verify.report import Status

log = logging.getLogger(__name__)

WEEKS = 12  # the dashboard's history
TOP_ASKED = 15
TOP_GAPS = 20
SHOWN_LANGS = LANGUAGES


@dataclass
class EntryEvidence:
    """What the store says about one entry, apart from per-item outcomes."""

    answers: int = 0
    verifications: int = 0
    reproduced: int = 0
    askers: set[str] = field(default_factory=set)  # salted hashes of whoever ran a verification
    runs: dict[tuple[str, str], dict] = field(default_factory=dict)  # (torch minor, device) -> counts
    first_seen: datetime | None = None
    last_seen: datetime | None = None
    kb_verify: dict | None = None  # the latest `kb verify` run: {"at", "reproduced", "torch"}

    def seen(self, when: datetime | None) -> None:
        if when is None:
            return
        if when.tzinfo is None:
            when = when.replace(tzinfo=timezone.utc)
        self.first_seen = when if self.first_seen is None or when < self.first_seen else self.first_seen
        self.last_seen = when if self.last_seen is None or when > self.last_seen else self.last_seen


@dataclass
class Snapshot:
    """The evidence store read once; empty (priors only) when there is no store."""

    backend: str | None = None
    observations: dict[Key, Observations] = field(default_factory=dict)
    entries: dict[str, EntryEvidence] = field(default_factory=dict)
    gaps: list[dict] = field(default_factory=list)
    weekly: list[dict] = field(default_factory=list)  # [{"week", "fixed", "failed", "answers", "votes"}]
    totals: dict = field(default_factory=dict)
    error: str | None = None  # why the store could not be read (the pages show priors then)

    def entry(self, entry_id: str) -> EntryEvidence:
        return self.entries.get(entry_id) or EntryEvidence()


class SnapshotRates(EvidenceRates):
    """bot.answer's rate source over a snapshot already read (one read per page)."""

    def __init__(self, observations: dict[Key, Observations]):
        super().__init__(ttl=0)
        self._observations = observations

    def snapshot(self) -> dict[Key, Observations]:
        return self._observations


def _device(gpu: str | None) -> str:
    return gpu.strip() if gpu and gpu.strip() else "cpu"


def _week(when: datetime) -> str:
    monday = (when - timedelta(days=when.weekday())).date()
    return monday.isoformat()


def load_snapshot(store, *, now: datetime | None = None) -> Snapshot:
    """Everything the pages need from the store, in a few queries; a store that cannot be
    read gives an empty snapshot with the reason (pages then show the priors)."""
    if store is None:
        return Snapshot()
    try:
        return _load(store, now or datetime.now(timezone.utc))
    except Exception as exc:  # noqa: BLE001 - the pages stay up on the knowledge alone
        log.warning("evidence store unreadable for the pages (%s: %s)", type(exc).__name__, exc)
        return Snapshot(error=f"{type(exc).__name__}")


def _aware(when: datetime | None) -> datetime | None:
    if when is not None and when.tzinfo is None:
        return when.replace(tzinfo=timezone.utc)
    return when


def _load(store, now: datetime) -> Snapshot:
    from sqlalchemy import case, func, select


    snap = Snapshot(backend=store.engine.dialect.name, observations=load_observations(store))
    start = (now - timedelta(days=now.weekday())).replace(hour=0, minute=0, second=0, microsecond=0) \
        - timedelta(weeks=WEEKS - 1)
    weeks = {_week(start + timedelta(weeks=i)): {"week": _week(start + timedelta(weeks=i)), "fixed": 0,
                                                 "failed": 0, "answers": 0, "votes": 0} for i in range(WEEKS)}
    with store.session() as session:
        for entry_id, reproduced, torch, gpu, asker, created, surface in session.execute(
                select(Verification.entry_id, Verification.reproduced, Verification.torch, Verification.gpu,
                       Verification.asker, Verification.created_at, Verification.surface)
                .where(Verification.entry_id.is_not(None), Verification.counted.is_not(False), is_run())
                .order_by(Verification.id)):
            ev = snap.entries.setdefault(entry_id, EntryEvidence())
            ev.verifications += 1
            ev.reproduced += 1 if reproduced else 0
            if asker:
                ev.askers.add(asker)
            key = (torch_minor(torch) or "?", _device(gpu))
            cell = ev.runs.setdefault(key, {"runs": 0, "reproduced": 0})
            cell["runs"] += 1
            cell["reproduced"] += 1 if reproduced else 0
            ev.seen(created)
            if surface == "kb verify":
                ev.kb_verify = {"at": _aware(created), "reproduced": bool(reproduced), "torch": torch_minor(torch)}
        for entry_id, count, first, last in session.execute(
                select(Answer.entry_id, func.count(), func.min(Answer.created_at), func.max(Answer.created_at))
                .where(Answer.entry_id.is_not(None)).group_by(Answer.entry_id)):
            ev = snap.entries.setdefault(entry_id, EntryEvidence())
            ev.answers = int(count)
            ev.seen(first)
            ev.seen(last)
        # History: outcome rows of workarounds per week (repeats included: this is activity,
        # not the deduplicated rate), answers and votes per week.
        for created, status in session.execute(
                select(Verification.created_at, VerificationOutcome.status)
                .join(Verification, Verification.id == VerificationOutcome.verification_id)
                .where(VerificationOutcome.kind == "workaround", Verification.created_at >= start,
                       Verification.counted.is_not(False), is_run())):
            week = weeks.get(_week(_aware(created)))
            if week is not None and status in (Status.FIXED, Status.STILL_FAILS, Status.NEW_ERROR):
                week["fixed" if status == Status.FIXED else "failed"] += 1
        for (created,) in session.execute(select(Answer.created_at).where(Answer.created_at >= start)):
            week = weeks.get(_week(_aware(created)))
            if week is not None:
                week["answers"] += 1
        for (created,) in session.execute(select(Vote.created_at).where(Vote.created_at >= start)):
            week = weeks.get(_week(_aware(created)))
            if week is not None:
                week["votes"] += 1
        snap.gaps = [{"excerpt": g.excerpt, "count": g.count, "language": g.language,
                      "nearest_entry_id": g.nearest_entry_id, "last_seen": _aware(g.last_seen)}
                     for g in session.scalars(select(CoverageGap).order_by(CoverageGap.count.desc(),
                                                                           CoverageGap.last_seen.desc())
                                              .limit(TOP_GAPS))]
        snap.totals = {
            "verifications": session.scalar(select(func.count()).select_from(Verification).where(is_run())) or 0,
            "answers": session.scalar(select(func.count()).select_from(Answer)) or 0,
            "votes": session.scalar(select(func.count()).select_from(Vote)) or 0,
            "up": session.scalar(select(func.sum(case((Vote.vote > 0, 1), else_=0)))) or 0,
            "coverage_gaps": session.scalar(select(func.count()).select_from(CoverageGap)) or 0,
        }
    snap.weekly = [weeks[k] for k in sorted(weeks)]
    return snap


# --- one entry ----------------------------------------------------------------------------------

def _i18n(value: m.I18n | None) -> dict[str, str] | None:
    if not value:
        return None
    return {lang: value.get_text(lang) for lang in SHOWN_LANGS}


def _texts(fn) -> dict[str, str]:
    return {lang: fn(lang) for lang in SHOWN_LANGS}


def _rate_fields(rate: Rate | None, prior: m.Prior | None, *, dead_end: bool, proof: Proof | None = None) -> dict:
    """`proof`: the knowledge base's own proof of the item (knowledge/proofs.json), shown
    as proven (`rate_kind` "proven", `proven`) where our evidence measured nothing."""
    verified = rate.verified if rate is not None else None
    measured = measured_rate(verified, dead_end=dead_end)
    return {
        "measured": None if measured is None else round(measured, 4),
        "rate_kind": rate_kind(verified, proof, dead_end=dead_end),
        "rate_text": _texts(lambda lang: shown_rate_text(verified, proof, lang, dead_end=dead_end)),
        "evidence_text": _texts(lambda lang: evidence_text(verified, lang, dead_end=dead_end)),
        "verified": verified,
        "proven": None if proof is None else proof.as_json(),
        "prior": None if prior is None else {"rate": prior.rate, "evidence": prior.evidence, "source": prior.source},
    }


def kb_status(entry: m.Entry, ev: EntryEvidence) -> dict:
    """Whether `kb verify` proved the entry: its latest run here, or why it cannot run here."""
    if ev.kb_verify is not None:
        return {"status": "reproduced" if ev.kb_verify["reproduced"] else "not_reproduced",
                "at": ev.kb_verify["at"].isoformat() if ev.kb_verify["at"] else None,
                "torch": ev.kb_verify["torch"]}
    if entry.repro is None:
        return {"status": "no_repro", "at": None, "torch": None}
    if entry.repro.runs_on != "cpu":
        return {"status": "needs_" + entry.repro.runs_on, "at": None, "torch": None}
    return {"status": "not_run", "at": None, "torch": None}


def _workaround(fix: RankedFix) -> dict:
    w = fix.workaround
    return {"id": w.id, "title": _i18n(w.title), "explanation": _i18n(w.explanation), "code": w.code,
            "caveats": _i18n(w.caveats), "patch": w.patch, "refuted": bool(fix.rate.refuted),
            "applies_when": [s.pattern for s in w.applies_when],
            **_rate_fields(fix.rate, w.prior, dead_end=False, proof=fix.proof)}


def entry_doc(entry: m.Entry, snap: Snapshot, kb: m.KnowledgeBase | None = None) -> dict:
    """An entry and its evidence (the `/kb/<id>.json` document; the pages render it)."""
    rates = SnapshotRates(snap.observations)
    ev = snap.entry(entry.id)
    # The one order of bot/answer/ranking.py (the answer's; no question text here, so
    # scenario-specific fixes follow the general ones).
    ranked = rank_fixes(entry, rates)
    workarounds = [_workaround(fix) for fix in ranked.workarounds]
    dead_ends = []
    for w in (_workaround(fix) for fix in ranked.refuted):
        dead_ends.append({"id": w["id"], "title": w["title"], "why": _texts(refuted_text), "code": w["code"],
                          "leads_to": None, "leads_to_title": None, "refuted": True,
                          "measured": None if w["measured"] is None else round(1 - w["measured"], 4),
                          "rate_kind": w["rate_kind"],
                          "rate_text": _texts(lambda lang, v=w["verified"]: rate_text(v, lang, dead_end=True)),
                          "evidence_text": w["evidence_text"], "verified": w["verified"], "prior": w["prior"]})
    for d in entry.dead_ends:
        rate = rates.dead_end_rate(entry.id, d)
        dead_ends.append({"id": d.id, "title": _i18n(d.title), "why": _i18n(d.why), "code": d.code,
                          "leads_to": d.leads_to, "refuted": False,
                          "leads_to_title": _leads_to_title(kb, d.leads_to),
                          **_rate_fields(rate, d.prior, dead_end=True, proof=entry.proofs.get(f"dead_end:{d.id}"))})
    best = next((w for w in workarounds if w["measured"] is not None), None)
    votes_up = sum(snap.observations.get((entry.id, w.id), Observations()).up for w in entry.workarounds)
    votes_down = sum(snap.observations.get((entry.id, w.id), Observations()).down for w in entry.workarounds)
    return {
        "id": entry.id,
        "aliases": list(entry.aliases),
        "area": area_of(entry.id),
        "title": _i18n(entry.title),
        "languages": entry.languages,
        "exception": list(entry.exception),
        "signatures": [s.pattern for s in entry.signatures],
        "examples": list(entry.examples),
        "symptoms": _i18n(entry.symptoms),
        "root_cause": _i18n(entry.root_cause),
        "diagnosis": _i18n(entry.diagnosis),
        "scenarios": [{"title": _i18n(s.title), "explanation": _i18n(s.explanation), "code": s.code}
                      for s in entry.scenarios],
        "workarounds": workarounds,
        "dead_ends": dead_ends,
        "sources": [{"title": s.title, "url": s.url} for s in entry.sources],
        "related": [{"id": r, "title": _leads_to_title(kb, r)} for r in entry.related],
        "affected_versions": [{"versions": v.versions, "message": v.message, "note": _i18n(v.note)}
                              for v in entry.affected_versions],
        "repro": None if entry.repro is None else {"runs_on": entry.repro.runs_on,
                                                    "not_reproducible": _i18n(entry.repro.not_reproducible)},
        "evidence": {
            "answers": ev.answers,
            "verifications": ev.verifications,
            "reproduced": ev.reproduced,
            "askers": len(ev.askers),
            "votes": {"up": votes_up, "down": votes_down},
            "runs": [{"torch": t, "device": d, **cell} for (t, d), cell in
                     sorted(ev.runs.items(), key=lambda kv: (_version_sort(kv[0][0]), kv[0][1]))],
            "first_seen": ev.first_seen.isoformat() if ev.first_seen else None,
            "last_seen": ev.last_seen.isoformat() if ev.last_seen else None,
            "kb_verify": kb_status(entry, ev),
            "store": snap.backend,
            "store_error": snap.error,
        },
        "best_fix": None if best is None else {"id": best["id"], "measured": best["measured"],
                                               "rate_text": best["rate_text"]},
    }


def _leads_to_title(kb: m.KnowledgeBase | None, entry_id: str | None) -> dict[str, str] | None:
    if kb is None or not entry_id:
        return None
    target = kb.resolve(entry_id)
    return _i18n(target.title) if target is not None else None


def _version_sort(version: str) -> tuple:
    try:
        return (0, *(int(p) for p in version.split(".")))
    except ValueError:
        return (1,)


# --- the list and the dashboard ----------------------------------------------------------------

def _haystack(entry: m.Entry) -> str:
    parts = [entry.id, *entry.aliases, *entry.exception, *entry.examples, *(s.pattern for s in entry.signatures),
             *entry.title.values()]
    return "\n".join(parts).casefold()


def matches_query(entry: m.Entry, query: str | None) -> bool:
    """Every word of the query is in the entry's id, titles, exception, messages or patterns,
    or the query is an error message one of the entry's patterns recognises."""
    words = (query or "").casefold().split()
    hay = _haystack(entry)
    return all(word in hay for word in words) or bool(query and entry.matches(query))


# How much a hit counts, by where it is: the title says what the entry is about, an
# example message is what people paste, the rest is the machinery.
_WEIGHTS = {"title": 4, "examples": 2, "id": 2, "patterns": 1}


def _fields(entry: m.Entry) -> dict[str, list[str]]:
    return {"title": [" ".join(t.split()).casefold() for t in entry.title.values()],
            "examples": [" ".join(x.split()).casefold() for x in entry.examples],
            "id": [entry.id.casefold(), *(a.casefold() for a in entry.aliases)],
            "patterns": [*(s.pattern.casefold() for s in entry.signatures), *(x.casefold() for x in entry.exception)]}


def _has_word(text: str, word: str) -> bool:
    """`word` as a word of `text` (not inside a longer one: "out" is not in "outside");
    CJK text has no spaces, so there any occurrence counts."""
    if not word.isascii():
        return word in text
    return re.search(rf"(?<![\w]){re.escape(word)}(?![\w])", text) is not None


def relevance(entry: m.Entry, query: str) -> int:
    """How well `entry` answers the search `query`: an exact hit (the id, an alias, a title,
    or an error message the entry's patterns recognise) first, then the whole phrase in a
    title, an example message or a pattern, then its words one by one, by field."""
    phrase = " ".join(query.split()).casefold()
    if not phrase:
        return 0
    fields = _fields(entry)
    name = entry.id.split("/", 1)[-1]
    if phrase in fields["title"] or phrase in fields["id"] or phrase == name or entry.matches(query):
        return 10_000
    score = 0
    for kind, texts in fields.items():
        if any(_has_word(t, phrase) for t in texts):
            score += 100 * _WEIGHTS[kind]
        for word in phrase.split():
            if any(_has_word(t, word) for t in texts):
                score += 10 * _WEIGHTS[kind]
            elif any(word in t for t in texts):
                score += 2 * _WEIGHTS[kind]  # inside a longer word
    return score


def _index_row(entry: m.Entry, snap: Snapshot, kb: m.KnowledgeBase) -> dict:
    doc = entry_doc(entry, snap, kb)
    return {"id": entry.id, "title": doc["title"], "exception": doc["exception"], "area": doc["area"],
            "kb_verify": doc["evidence"]["kb_verify"], "best_fix": doc["best_fix"],
            "answers": doc["evidence"]["answers"], "verifications": doc["evidence"]["verifications"],
            "workarounds": len(doc["workarounds"]), "dead_ends": len(doc["dead_ends"])}


def index_doc(kb: m.KnowledgeBase, snap: Snapshot, query: str | None = None) -> dict:
    """Every entry grouped by area, with its proven status (kb verify) and best measured
    fix; with a `query`, the entries that match it, best first (`results`)."""
    areas: dict[str, list[dict]] = {}
    found: list[tuple[int, str, dict]] = []
    for entry in sorted(kb.entries.values(), key=lambda e: e.id):
        if not matches_query(entry, query):
            continue
        row = _index_row(entry, snap, kb)
        areas.setdefault(row["area"], []).append(row)
        if query:
            found.append((relevance(entry, query), entry.id, row))
    found.sort(key=lambda t: (-t[0], t[1]))
    rows = [row for group in areas.values() for row in group]
    return {"entries": len(rows), "total": len(kb.entries), "query": query or None,
            "areas": [{"area": a, "entries": areas[a]} for a in AREA_ORDER if a in areas],
            "results": [row for _, _, row in found] if query else None,
            # What most rows would repeat, said once above the list (the rows say only the rest).
            "not_run": sum(1 for row in rows if row["kb_verify"]["status"] == "not_run"),
            "unmeasured": sum(1 for row in rows if row["best_fix"] is None),
            "store": snap.backend, "store_error": snap.error}


def stats_doc(kb: m.KnowledgeBase, snap: Snapshot) -> dict:
    """The dashboard: most asked entries, unanswered questions, fixes by evidence, history."""
    asked = sorted(((ev.answers, eid) for eid, ev in snap.entries.items() if ev.answers and eid in kb.entries),
                   key=lambda t: (-t[0], t[1]))[:TOP_ASKED]
    fixes = []
    for (entry_id, item_id), obs in snap.observations.items():
        entry = kb.entries.get(entry_id)
        item = next((w for w in entry.workarounds if w.id == item_id), None) if entry else None
        if item is None or not obs.runs and not (obs.up or obs.down):
            continue
        verified = obs.verified()
        measured = measured_rate(verified)  # None for a few votes: shown as votes, without a percentage
        fixes.append({"entry_id": entry_id, "id": item_id, "title": _i18n(item.title),
                      "measured": None if measured is None else round(measured, 4), "runs": obs.runs,
                      "fixed": obs.fixed, "failed": obs.failed, "up": obs.up, "down": obs.down, "held": obs.held,
                      "rate_text": _texts(lambda lang, v=verified: rate_text(v, lang))})
    fixes.sort(key=lambda f: (-(f["runs"] + f["up"] + f["down"]), f["entry_id"], f["id"]))
    unproven = [e.id for e in sorted(kb.entries.values(), key=lambda e: e.id)
                if not any((e.id, w.id) in snap.observations and snap.observations[(e.id, w.id)].runs
                           for w in e.workarounds)]
    return {
        "store": snap.backend, "store_error": snap.error,
        "totals": {**dict.fromkeys(("verifications", "answers", "votes", "up", "coverage_gaps"), 0), **snap.totals},
        "entries": len(kb.entries),
        "most_asked": [{"id": eid, "title": _i18n(kb.entries[eid].title), "answers": n} for n, eid in asked],
        "unanswered": [{**g, "excerpt": end_at_word(g["excerpt"]),
                        "last_seen": g["last_seen"].isoformat() if g["last_seen"] else None} for g in snap.gaps],
        "fixes": fixes,
        "weekly": snap.weekly,
        "without_runs": unproven,
    }
