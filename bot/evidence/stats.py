"""The `troubleshoot stats` document: per entry and workaround, the evidence and the
rate; the most asked questions without a confident answer.

    {"store": {"backend", "verifications", "fix_runs", "answers", "votes", "coverage_gaps"},
     "model": {"vote_weight", "refuted_below", "refuted_min_failures"},
     "entries": [{"id", "title", "answers", "verifications", "reproduced",
                  "workarounds": [ITEM], "dead_ends": [ITEM]}],      own evidence first
     "unknown_items": [...],   evidence recorded for ids the knowledge base no longer has
     "coverage_gaps": [{"signature", "excerpt", "count", "language", "nearest_entry_id",
                        "nearest_confidence", "first_seen", "last_seen"}]}

    ITEM: {"id", "title", "fix_rate" (workarounds) or "fail_rate" (dead ends), "source",
           "prior": {"rate", "evidence"} or null, "runs", "fixed", "failed",
           "not_counted", "recorded", "askers_fixed", "askers_failed", "held",
           "not_evidence", "superseded", "held_back": {why: rows}, "torch": [...],
           "devices": [...], "up", "down", "evidence", "refuted", "summary"}

    `held_back` is every outcome row that is not in the public rate, by why (HELD_WORDS).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select

from bot.evidence.display import evidence_text, measured_rate, rate_text
from bot.evidence.rates import (MIN_ASKERS, MIN_SNIPPETS, QUORUM, REFUTED_BELOW,
                                REFUTED_MIN_FAILURES, SUPERSEDED, VOTE_WEIGHT, Observations, estimate, is_run,
                                item_rate, load_observations)
from bot.kb import model as m
from bot.store.models import Answer, CoverageGap, Verification, VerificationOutcome, Vote
from bot.store.models import VoteReason
from bot.store import Store
from bot.verify.report import HELD_WORDS as RUN_HELD_WORDS

TOP_GAPS = 20


def _item(item: m.Workaround | m.DeadEnd, prior: m.Prior | None, obs: Observations | None, *,
          dead_end: bool) -> dict[str, Any]:
    rate = item_rate(prior, obs, dead_end=dead_end)
    obs = obs or Observations()
    refuted = False if dead_end else estimate(prior, obs).refuted
    return {
        "id": item.id,
        "title": item.title.get_text("en"),
        "fail_rate" if dead_end else "fix_rate": None if rate.rate is None else round(rate.rate, 4),
        "source": rate.source,
        "prior": None if prior is None else {"rate": prior.rate, "evidence": prior.evidence},
        "runs": obs.runs, "fixed": obs.fixed, "failed": obs.failed, "not_counted": obs.not_counted,
        "recorded": obs.recorded,
        "askers_fixed": obs.askers_fixed, "askers_failed": obs.askers_failed, "held": obs.held,
        "not_evidence": obs.not_evidence, "superseded": obs.superseded,
        "held_back": dict(sorted(obs.held_back.items())),
        "torch": obs.verified()["torch"], "devices": sorted(obs.devices),
        "up": 0 if dead_end else obs.up, "down": 0 if dead_end else obs.down,
        "evidence": rate.evidence,
        "refuted": refuted,
        "summary": evidence_text(obs.verified() if not obs.empty() else None, "en", dead_end=dead_end),
        "measured": None if obs.empty() else measured_rate(obs.verified(), dead_end=dead_end),
        "rate_text": rate_text(None if obs.empty() else obs.verified(), "en", dead_end=dead_end),
    }


Counts = dict[str | None, int]  # per entry id


def _counts(store: Store) -> tuple[dict[str, int], Counts, Counts, Counts, list[dict[str, Any]]]:
    with store.session() as session:
        totals = {
            # runs only: a 👎 stored as a "feedback" verification by an old version is a vote
            "verifications": session.scalar(select(func.count()).select_from(Verification).where(is_run())) or 0,
            "fix_runs": session.scalar(select(func.count()).select_from(VerificationOutcome)
                                       .join(Verification, Verification.id == VerificationOutcome.verification_id)
                                       .where(is_run())) or 0,
            "answers": session.scalar(select(func.count()).select_from(Answer)) or 0,
            "votes": session.scalar(select(func.count()).select_from(Vote)) or 0,
            "coverage_gaps": session.scalar(select(func.count()).select_from(CoverageGap)) or 0,
        }

        totals["downvote_reasons"] = session.scalar(select(func.count()).select_from(VoteReason)) or 0
        answers = dict(session.execute(select(Answer.entry_id, func.count()).where(Answer.entry_id.is_not(None))
                                       .group_by(Answer.entry_id)).all())
        verifications = dict(session.execute(select(Verification.entry_id, func.count())
                                             .where(Verification.entry_id.is_not(None), is_run())
                                             .group_by(Verification.entry_id)).all())
        reproduced = dict(session.execute(select(Verification.entry_id, func.count())
                                          .where(Verification.entry_id.is_not(None), Verification.reproduced,
                                                 is_run())
                                          .group_by(Verification.entry_id)).all())
        gaps: list[dict[str, Any]]
        gaps = [{"signature": g.signature, "excerpt": g.excerpt, "count": g.count, "language": g.language,
                 "nearest_entry_id": g.nearest_entry_id,
                 "nearest_confidence": None if g.nearest_confidence is None else round(g.nearest_confidence, 3),
                 "first_seen": g.first_seen.isoformat(), "last_seen": g.last_seen.isoformat()}
                for g in session.scalars(select(CoverageGap).order_by(CoverageGap.count.desc(),
                                                                      CoverageGap.last_seen.desc(),
                                                                      CoverageGap.signature).limit(TOP_GAPS))]
    return totals, answers, verifications, reproduced, gaps


def build_stats(kb: m.KnowledgeBase, store: Store | None) -> dict[str, Any]:
    """The stats document; `store` may be None (no database yet: priors only)."""
    if store is not None:
        observations = load_observations(store)
        totals, answers, verifications, reproduced, gaps = _counts(store)
        backend = store.engine.dialect.name
        reasons = store.vote_reason_counts()
    else:
        reasons = {}
        observations, answers, verifications, reproduced, gaps = {}, {}, {}, {}, []
        totals = dict.fromkeys(("verifications", "fix_runs", "answers", "votes", "coverage_gaps",
                                "downvote_reasons"), 0)
        backend = None
    entries: list[dict[str, Any]] = []
    known: set[tuple[str, str]] = set()
    for entry in sorted(kb.entries.values(), key=lambda e: e.id):
        workarounds = []
        for w in entry.workarounds:
            known.add((entry.id, w.id))
            workarounds.append(_item(w, w.prior, observations.get((entry.id, w.id)), dead_end=False))
        dead_ends = []
        for d in entry.dead_ends:
            known.add((entry.id, d.id))
            dead_ends.append(_item(d, d.prior, observations.get((entry.id, d.id)), dead_end=True))
        workarounds.sort(key=lambda i: (-(i["fix_rate"] if i["fix_rate"] is not None else -1), i["id"]))
        entries.append({"id": entry.id, "title": entry.title.get_text("en"), "answers": answers.get(entry.id, 0),
                        "verifications": verifications.get(entry.id, 0), "reproduced": reproduced.get(entry.id, 0),
                        "workarounds": workarounds, "dead_ends": dead_ends,
                        "downvote_reasons": reasons.get(entry.id, {})})

    def own(e: dict[str, Any]) -> int:
        return sum(int(i["runs"] + i["up"] + i["down"]) for i in e["workarounds"] + e["dead_ends"])

    entries.sort(key=lambda e: (-own(e), -e["verifications"], -e["answers"], e["id"]))
    unknown = [{"entry_id": entry_id, "item_id": item_id, "runs": obs.runs, "fixed": obs.fixed,
                "failed": obs.failed, "up": obs.up, "down": obs.down}
               for (entry_id, item_id), obs in sorted(observations.items()) if (entry_id, item_id) not in known]
    return {"store": {"backend": backend, **totals},
            "model": {"vote_weight": VOTE_WEIGHT, "refuted_below": REFUTED_BELOW,
                      "refuted_min_failures": REFUTED_MIN_FAILURES, "min_askers": MIN_ASKERS,
                      "min_snippets": MIN_SNIPPETS},
            "entries": entries, "unknown_items": unknown, "coverage_gaps": gaps}


# --- as text -----------------------------------------------------------------------------------

def _has_evidence(entry: dict[str, Any]) -> bool:
    return bool(entry["answers"] or entry["verifications"] or entry.get("downvote_reasons")
                or any(i["runs"] or i["up"] or i["down"] for i in entry["workarounds"] + entry["dead_ends"]))


def _item_line(item: dict[str, Any]) -> str:
    """A measured percentage with its counts, or "team estimate, not yet verified": the
    prior is never printed as a percentage."""
    shown = f"{item['measured']:.0%}" if item.get("measured") is not None else "-"
    return f"    {shown:>4}  {item['id']}: {item['rate_text']}"


def _askers_suffix(item: dict[str, Any]) -> str:
    """How many askers stand behind the figure (issue 11), where there is evidence."""
    if not (item["askers_fixed"] or item["askers_failed"] or item["held_back"]):
        return ""
    return f" ({_askers_text(item)})"


# Why runs are held back from the public rates (rates.py's HELD reasons), in words.
HELD_WORDS = {
    QUORUM: f"against the knowledge base, held until {MIN_ASKERS} askers with {MIN_SNIPPETS} different "
            "snippets report it",
    SUPERSEDED: "an asker's earlier run (their latest stands)",
    **RUN_HELD_WORDS,  # READS_OWN_SOURCE, ENDED_EARLY, SUPERVISOR_LOST: the verify report's words
}


def _askers_text(item: dict[str, Any]) -> str:
    text = f"askers: {item['askers_fixed']} fixed, {item['askers_failed']} failed"
    for why, count in sorted(item["held_back"].items()):
        text += f"; {count} held: {HELD_WORDS.get(why, why)}"
    return text


REASON_WORDS = {"wrong_error": "a different error", "fix_failed": "the fix did not work", "unclear": "unclear",
                "other": "something else"}


def format_stats(doc: dict[str, Any]) -> str:
    s = doc["store"]
    out = []
    if s["backend"] is None:
        out.append("Evidence store: none yet (nothing recorded); every rate is a team estimate, not yet verified.")
    else:
        out.append(f"Evidence store ({s['backend']}): {s['verifications']} verification(s) with {s['fix_runs']} "
                   f"fix run(s), {s['answers']} answer(s), {s['votes']} vote(s), "
                   f"{s['coverage_gaps']} coverage gap(s), {s.get('downvote_reasons', 0)} 👎 reason(s).")
    shown = [e for e in doc["entries"] if _has_evidence(e)]
    for entry in shown:
        out.append("")
        out.append(f"{entry['id']} — {entry['title']}")
        out.append(f"  answers {entry['answers']} · verifications {entry['verifications']} "
                   f"(reproduced {entry['reproduced']})")
        if entry["workarounds"]:
            out.append("  workarounds (share of verified runs that fixed it):")
        for item in entry["workarounds"]:
            mark = "  REFUTED: shown as a dead end" if item["refuted"] else ""
            out.append(_item_line(item) + _askers_suffix(item) + mark)
        if entry["dead_ends"]:
            out.append("  dead ends (share of verified runs that still failed):")
        for item in entry["dead_ends"]:
            out.append(_item_line(item) + _askers_suffix(item))
        if entry.get("downvote_reasons"):
            out.append("  👎 reasons: " + ", ".join(f"{REASON_WORDS.get(r, r)} {n}"
                                                   for r, n in sorted(entry["downvote_reasons"].items(),
                                                                      key=lambda kv: (-kv[1], kv[0]))))
    rest = len(doc["entries"]) - len(shown)
    if rest:
        out.append("")
        out.append(f"{rest} {'entry has' if rest == 1 else 'entries have'} no evidence of their own yet: their "
                   "rates are team estimates, not yet verified (--json lists them).")
    if doc["unknown_items"]:
        out.append("")
        out.append("Evidence for ids the knowledge base no longer has: "
                   + ", ".join(f"{u['entry_id']}:{u['item_id']} ({u['runs']} runs)" for u in doc["unknown_items"]))
    out.append("")
    if doc["coverage_gaps"]:
        out.append("Top coverage gaps (asked, but no confident answer):")
        for gap in doc["coverage_gaps"]:
            near = (f"; nearest {gap['nearest_entry_id']} ({gap['nearest_confidence']:.2f})"
                    if gap["nearest_entry_id"] and gap["nearest_confidence"] is not None else "")
            out.append(f"  {gap['count']:4d}×  {gap['excerpt']}  (last {gap['last_seen'][:10]}{near})")
    else:
        out.append("No coverage gaps recorded.")
    return "\n".join(out)
