"""The one order of an entry's fixes, for every surface: `ask`, Slack, the knowledge pages
and `kb export` all call `rank_fixes`, so a page never orders fixes differently from the
answer, and the same refuted fixes become dead ends everywhere.

    ranked = rank_fixes(entry, rates, asked=question_text)
    ranked.workarounds  # best first, shown as fixes
    ranked.refuted      # fixes our runs keep refuting, in the same order: shown as dead ends
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.evidence.display import Rate, RateSource, measured_rate
from bot.kb import model as m
from bot.kb.proofs import Proof


@dataclass
class RankedFix:
    """One workaround with the evidence it was ranked by."""

    workaround: m.Workaround
    rate: Rate
    measured: float | None  # what our own runs or votes measured; None where they measured nothing
    scenario: bool | None  # its scenario shows in the asker's text (True/False); None for a general fix
    order: int  # the author's position
    # The shipped proof of this fix on the knowledge base's own repro (bot/kb/proofs.py),
    # None where there is none: shown apart from our evidence, never ranked as a rate.
    proof: Proof | None = None


@dataclass
class RankedFixes:
    workarounds: list[RankedFix]
    refuted: list[RankedFix]


def testable(fix: RankedFix) -> bool:
    """A fix Verify can run (it has a patch) or that our evidence measured: one the
    answer can lead with and then back up."""
    return bool(fix.workaround.patch) or fix.measured is not None


def _key(fix: RankedFix) -> tuple[int, int, int, float, int, int]:
    """Best first:
    1. a scenario-specific fix whose scenario the asker's text shows, then the general
       fixes, then scenario-specific fixes for situations the asker did not mention;
    2. fixes our own runs or votes back (measured at least one half), then the team's
       estimates, then fixes our evidence mostly contradicts;
    3. a fix Verify can test (a patch) or that is measured, then the untested prior-only
       ones: the answer leads with what Verify checks;
    4. the rate behind it (the prior updated by the evidence), more evidence, the
       author's order."""
    group = 0 if fix.scenario is True else 1 if fix.scenario is None else 2
    evidence = 1 if fix.measured is None else 0 if fix.measured >= 0.5 else 2
    untested = 0 if testable(fix) else 1
    rate = fix.rate.rate if fix.rate.rate is not None else -1.0
    return (group, evidence, untested, -rate, -fix.rate.evidence, fix.order)


def ranked_fix(entry: m.Entry, w: m.Workaround, rates: RateSource, order: int, asked: str = "") -> RankedFix:
    """One workaround with the evidence behind it: its rate, the measured share, and
    whether its scenario is the asker's (None: a general fix)."""
    rate = rates.workaround_rate(entry.id, w)
    return RankedFix(workaround=w, rate=rate, measured=measured_rate(rate.verified), scenario=w.applies_to(asked),
                     order=order, proof=entry.proofs.get(f"workaround:{w.id}"))


def rank_fixes(entry: m.Entry, rates: RateSource, asked: str = "") -> RankedFixes:
    """The entry's workarounds ranked (see `_key`), the refuted ones apart. `asked` is the
    question's text (scenario-specific fixes match it); pages and exports pass none."""
    fixes = [ranked_fix(entry, w, rates, order, asked) for order, w in enumerate(entry.workarounds)]
    fixes.sort(key=_key)
    return RankedFixes(workarounds=[f for f in fixes if not f.rate.refuted],
                       refuted=[f for f in fixes if f.rate.refuted])
