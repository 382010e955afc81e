"""The answer document: what `troubleshoot ask --json` prints and the Slack answer is drawn
from (the contract other tools read; build.py fills it).

    {"answered", "language", "matches": [{"id", "title", "score", "confidence", "root_cause",
     "workarounds": [...], "dead_ends": [...], "sources": [...], "page_url"}, ...],
     "tier", "choices": [{"id", "title", "confidence", "line"}], "declined", "notice", "other_library",
     "evidence" (the answer tier only)}

Keys are in field order; a field left ABSENT is not in the JSON (bot/contract.py). The
extras a surface adds are declared here too, ABSENT until set: the Slack answer's
`leads_to_title`, `diagnosis` and `version_notes` (bot/slack/services/answering.py), and
a code question's run and what each fix did to the asker's snippet (bot/answer/code.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bot.evidence.display import Verified
from bot.contract import ABSENT, Absent, Document


@dataclass
class WorkaroundItem(Document):
    """One workaround of a match, in the asker's language, with the rate behind it."""

    id: str
    title: str
    explanation: str
    code: str | None
    success_rate: float | None  # only where our runs or votes measured it
    rate_kind: str  # "measured", "proven" (knowledge/proofs.json) or "estimate"
    rate_text: str
    estimate: float | None  # the team's prior, never shown as a percentage
    evidence: int
    rate_source: str
    evidence_summary: str | None
    verified: Verified | None  # our own evidence's counts (bot.evidence.display.Rate.verified)
    refuted: bool
    scenario: str | None  # "matched", "not mentioned", or None for a general fix
    caveats: str | None
    patch: str | None
    on_your_code: str | Absent = ABSENT  # a code question: the fix's status on the asker's snippet
    # The knowledge base's own proof of it (knowledge/proofs.json): releases, devices, date;
    # apart from `verified` (our runs), never a rate.
    proven: dict[str, Any] | Absent = ABSENT


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
    verified: Verified | None
    refuted: bool
    leads_to_title: str | Absent = ABSENT  # Slack: the title of the entry `leads_to` names
    on_your_code: str | Absent = ABSENT  # a code question: its status on the asker's snippet
    proven: dict[str, Any] | Absent = ABSENT  # the knowledge base's own proof (as WorkaroundItem.proven)


@dataclass
class Source(Document):
    """A source of the entry, or an article passage the question matched (with `excerpt`)."""

    title: str
    url: str | None
    excerpt: str | Absent = ABSENT
    # A team article's origin when its address does not say it: "#ml-help, 2026-03-02" for a
    # Slack thread, the file it was added from (`kb add`); `solved` for a thread marked solved.
    provenance: str | Absent = ABSENT
    solved: bool | Absent = ABSENT


@dataclass
class MeasuredVersion(Document):
    """One row of the entry's version table from real runs (`kb verify --torch`)."""

    version: str
    torch: str | None
    reproduced: bool | None
    error_type: str | None
    message: str | None
    fixes: dict[str, Any]
    checked_at: Any
    rate_kind: str = "measured"


@dataclass
class VersionNote(Document):
    """One of the entry's affected_versions, in the asker's language."""

    versions: str
    message: str | None
    note: str | None


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
    diagnosis: str | Absent = ABSENT  # Slack, the best match: how to tell this error apart
    version_notes: list[VersionNote] | Absent = ABSENT  # Slack, the best match: the entry's affected versions


@dataclass
class OtherLibrary(Document):
    """The library that raised an error that is not PyTorch's."""

    library: str
    name: str
    evidence: str | None
    evidence_kind: str | None
    look_for: str


@dataclass
class Choice(Document):
    """A candidate of the choices tier: "is it one of these?" (bot/retrieval/tiers.py)."""

    id: str
    title: str
    confidence: float
    line: str  # the entry's root cause, its first sentence


@dataclass
class AnswerDocument(Document):
    """The whole answer. `declined` says why no entry is offered (other-library, no-error,
    not-covered; None when answered), `notice` what to tell the asker then.

    A code question's answer (bot/answer/code.py) adds what the run did: `input` ("code"),
    `run`, `undefined` (names the code never defines), `note`, `verification`,
    `verified_fixes` and `seconds`; when no error was looked up it has no `declined`,
    `notice` or `other_library` (ABSENT)."""

    answered: bool
    language: str
    matches: list[Match] = field(default_factory=list)
    # answer (an entry the message's own evidence backs), choices (candidates to pick
    # from), decline (nothing to offer): bot/retrieval/tiers.py
    tier: str = "decline"
    choices: list[Choice] = field(default_factory=list)
    declined: str | None | Absent = None
    notice: str | None | Absent = None
    other_library: OtherLibrary | None | Absent = None
    evidence: str | Absent = ABSENT  # the answer tier: signature, example, run or picked
    # the exception that only reported this one (ChildFailedError after a rank's own
    # traceback): the answer is about the cause (bot/retrieval/query.py WRAPPERS)
    wrapper: str | Absent = ABSENT
    # the choices tier: the team's own articles about no entry that match closely (a Slack
    # thread, a saved page), cited with where they came from; never a proven fix
    team_articles: list[Source] | Absent = ABSENT
    # Slack, a choices answer: what a pick keeps for review (bot/evidence/learn.py
    # example_text: the error line or the asker's words, normalised, secrets redacted)
    question: str | Absent = ABSENT
    input: str | Absent = ABSENT
    run: dict[str, Any] | None | Absent = ABSENT  # bot.verify.code_question.run_summary
    undefined: list[str] | Absent = ABSENT
    note: str | Absent = ABSENT
    verification: dict[str, Any] | Absent = ABSENT  # {"entry_id", "confidence", "fixes", "summary"}
    verified_fixes: list[dict[str, Any]] | Absent = ABSENT
    seconds: float | Absent = ABSENT

    @property
    def best(self) -> Match | None:
        """The entry offered: the first match of an answered question."""
        return self.matches[0] if self.answered and self.matches else None
