"""The answer document: what `troubleshoot ask --json` prints and the Slack answer is drawn
from (the contract other tools read; build.py fills it).

    {"answered", "language", "matches": [{"id", "title", "score", "confidence", "root_cause",
     "workarounds": [...], "dead_ends": [...], "sources": [...], "page_url"}, ...],
     "declined", "notice", "other_library"}

Keys are in field order; a field left ABSENT is not in the JSON (bot/contract.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bot.contract import ABSENT, Absent, Document


@dataclass
class WorkaroundItem(Document):
    """One workaround of a match, in the asker's language, with the rate behind it."""

    id: str
    title: str
    explanation: str
    code: str | None
    success_rate: float | None  # only where our runs or votes measured it
    rate_kind: str  # "measured" or "estimate"
    rate_text: str
    estimate: float | None  # the team's prior, never shown as a percentage
    evidence: int
    rate_source: str
    evidence_summary: str | None
    verified: dict | None  # our own evidence's counts (bot.evidence.display.Rate.verified)
    refuted: bool
    scenario: str | None  # "matched", "not mentioned", or None for a general fix
    caveats: str | None
    patch: str | None


@dataclass
class DeadEndItem(Document):
    """A dead end (or a workaround our runs keep refuting, `refuted` True)."""

    id: str
    title: str
    why: str
    code: str | None
    leads_to: str | None
    fail_rate: float | None
    rate_kind: str
    rate_text: str | None
    evidence: int | None
    rate_source: str | None
    evidence_summary: str | None
    verified: dict | None
    refuted: bool


@dataclass
class Source(Document):
    """A source of the entry, or an article passage the question matched (with `excerpt`)."""

    title: str
    url: str | None
    excerpt: str | Absent = ABSENT


@dataclass
class MeasuredVersion(Document):
    """One row of the entry's version table from real runs (`kb verify --torch`)."""

    version: str
    torch: str | None
    reproduced: bool | None
    error_type: str | None
    message: str | None
    fixes: dict
    checked_at: Any
    rate_kind: str = "measured"


@dataclass
class Match(Document):
    """One knowledge entry the question matched, best first."""

    id: str
    title: str
    score: float
    confidence: float
    root_cause: str
    workarounds: list[WorkaroundItem]
    dead_ends: list[DeadEndItem]
    sources: list[Source]
    page_url: str | None  # None unless TROUBLESHOOT_PUBLIC_URL is set
    versions_measured: list[MeasuredVersion] | Absent = ABSENT  # only where runs measured some


@dataclass
class OtherLibrary(Document):
    """The library that raised an error that is not PyTorch's."""

    library: str
    name: str
    evidence: str | None
    evidence_kind: str | None
    look_for: str


@dataclass
class AnswerDocument(Document):
    """The whole answer. `declined` says why no entry is offered (other-library, no-error,
    not-covered; None when answered), `notice` what to tell the asker then."""

    answered: bool
    language: str
    matches: list[Match] = field(default_factory=list)
    declined: str | None = None
    notice: str | None = None
    other_library: OtherLibrary | None = None
