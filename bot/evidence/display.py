"""What an answer shows of the evidence behind a workaround or dead end: its `Rate`,
and the words for it in each language (counts of verified runs and votes, or "team
estimate, not yet verified"; the words are `evidence_*` in bot/text/ui.py).

A `RateSource` gives the rates: `PriorRates` (the entry's own `prior`) or the evidence
store (bot.evidence.rates.EvidenceRates, which also keeps the source answers use).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, TypedDict

from bot.kb import model as m
from bot.kb import proofs
from bot.kb.proofs import Proof
from bot.text.ui import t

# Fewer votes than this give no percentage: one 👍 and one 👎 are two opinions, not "50%".
# The votes are still shown, as votes ("👍 1 👎 1 on answers"), and still move the ranking
# through the posterior (rates.py), with their small weight.
MIN_VOTES = 5


class Verified(TypedDict):
    """What our own evidence says about one item (bot.evidence.rates.Observations), as
    answers and pages read it (a dict: it is part of the answer document's JSON)."""

    runs: int  # distinct verified runs counted
    fixed: int
    failed: int
    torch: list[str]  # torch versions (major.minor) of counted runs, oldest first
    up: int  # votes on answers that listed the item first
    down: int
    askers_fixed: int
    askers_failed: int
    held: int  # failures not counted (yet)


@dataclass(frozen=True)
class Rate:
    rate: float | None  # fix rate for a workaround (fail rate for a dead end); None when unknown
    evidence: int  # how many observations it stands for
    source: str  # short label: "prior", "verified", "votes"
    verified: Verified | None = None  # what our own evidence says; None when there is none
    refuted: bool = False  # a workaround that verified runs keep refuting: shown as a dead end


def evidence_text(verified: Verified | None, lang: str = "en", *, dead_end: bool = False) -> str | None:
    """One line of our own evidence for an item, e.g. "fixed 14 of 15 verified runs on
    torch 2.3 to 2.13; 👍 3 👎 1 on answers"; None when there is none."""
    if not verified:
        return None
    parts = []
    runs = int(verified.get("runs") or 0)
    if runs:
        k = verified.get("failed", 0) if dead_end else verified.get("fixed", 0)
        text = t("evidence_failed" if dead_end else "evidence_fixed", lang, k=k, n=runs, s="" if runs == 1 else "s")
        versions = list(verified.get("torch") or [])
        if versions:
            shown = versions[0] if len(versions) == 1 else t("evidence_range", lang, low=versions[0], high=versions[-1])
            text += t("evidence_on", lang, versions=shown)
        parts.append(text)
    elif not dead_end and _vote_share(verified) is None:
        # "not verified yet" only where no percentage stands beside it: a share of votes
        # is shown as votes, never next to "not verified yet" (nor called "measured").
        parts.append(t("evidence_none", lang))
    if verified.get("up") or verified.get("down"):
        parts.append(t("evidence_votes", lang, up=verified.get("up", 0), down=verified.get("down", 0)))
    return "; ".join(parts) or None


def measured_rate(verified: Verified | None, *, dead_end: bool = False) -> float | None:
    """The rate our own evidence shows, with nothing of the prior in it: the share of
    verified runs that fixed it (failed, for a dead end), else the share of 👍 among
    at least MIN_VOTES votes; None while there is neither."""
    if not verified:
        return None
    runs = int(verified.get("runs") or 0)
    if runs:
        return int((verified.get("failed") if dead_end else verified.get("fixed")) or 0) / runs
    return None if dead_end else _vote_share(verified)


def _vote_share(verified: Verified) -> float | None:
    """The share of 👍 among the votes, once there are MIN_VOTES of them."""
    up, down = int(verified.get("up") or 0), int(verified.get("down") or 0)
    return up / (up + down) if up + down >= MIN_VOTES else None


def rate_text(verified: Verified | None, lang: str = "en", *, dead_end: bool = False) -> str:
    """What a user reads next to an item: our measured evidence with its counts, or that
    the rate is the team's estimate and nothing has verified it yet (with the votes,
    as votes, where there are too few for a percentage)."""
    if measured_rate(verified, dead_end=dead_end) is not None:
        return evidence_text(verified, lang, dead_end=dead_end) or ""
    text = t("evidence_estimate", lang)
    if verified and not dead_end and (verified.get("up") or verified.get("down")):
        text += "; " + t("evidence_votes", lang, up=verified.get("up", 0), down=verified.get("down", 0))
    return text


def proof_text(proof: Proof | None, lang: str = "en", *, dead_end: bool = False) -> str | None:
    """What the shipped proofs say about an item, e.g. "fix proven on torch 2.13.0 and
    2.9.1, CPU, by the knowledge base's own repro" (newest release first); None without one.
    A proof is the knowledge base's claim checked on its own repro: it is never counted as a
    run of ours nor shown as a percentage."""
    if proof is None or not proof.torch:
        return None
    versions = sorted(proof.torch, key=proofs.version_key, reverse=True)
    shown = ", ".join(versions[:-1]) + t("proof_and", lang) + versions[-1] if len(versions) > 1 else versions[0]
    device = ", ".join(d.upper() if d == "cpu" else d for d in proof.devices) or "CPU"
    return t("proof_failed" if dead_end else "proof_fixed", lang, versions=shown, device=device)


def shown_rate_text(verified: Verified | None, proof: Proof | None, lang: str = "en", *,
                    dead_end: bool = False) -> str:
    """`rate_text` where the shipped proofs may say more than the team's estimate: our
    measured evidence first (with the proof beside it), else the proof (with the votes,
    as votes), else the estimate."""
    said = proof_text(proof, lang, dead_end=dead_end)
    if said is None:
        return rate_text(verified, lang, dead_end=dead_end)
    if measured_rate(verified, dead_end=dead_end) is not None:
        return f"{evidence_text(verified, lang, dead_end=dead_end)}; {said}"
    if verified and not dead_end and (verified.get("up") or verified.get("down")):
        said += "; " + t("evidence_votes", lang, up=verified.get("up", 0), down=verified.get("down", 0))
    return said


def rate_kind(verified: Verified | None, proof: Proof | None, *, dead_end: bool = False) -> str:
    """"measured" (our runs or votes measured a rate), "proven" (no rate of ours, but the
    shipped proofs hold), else "estimate"."""
    if measured_rate(verified, dead_end=dead_end) is not None:
        return "measured"
    return "proven" if proof is not None and proof.torch else "estimate"


def refuted_text(lang: str = "en") -> str:
    return t("evidence_refuted", lang)


class RateSource(Protocol):
    def workaround_rate(self, entry_id: str, workaround: m.Workaround) -> Rate: ...

    def dead_end_rate(self, entry_id: str, dead_end: m.DeadEnd) -> Rate | None: ...


class PriorRates:
    """The rates written in the knowledge base, before any evidence of our own."""

    def workaround_rate(self, entry_id: str, workaround: m.Workaround) -> Rate:
        prior = workaround.prior
        return Rate(prior.rate, prior.evidence, "prior")

    def dead_end_rate(self, entry_id: str, dead_end: m.DeadEnd) -> Rate | None:
        if dead_end.prior is None:
            return None
        return Rate(dead_end.prior.rate, dead_end.prior.evidence, "prior")
