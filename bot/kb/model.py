"""The knowledge base as Python objects: entries, workarounds, dead ends, articles.

Human-readable fields are `I18n` dicts keyed by language (`en`, `ko`, `zh`);
`I18n.get(lang)` falls back to English when a language is missing (articles and
newer entries may not have all three).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path


class I18n(dict):
    def get_text(self, lang: str) -> str:
        return self.get(lang) or self.get("en") or next(iter(self.values()), "")


@dataclass
class Prior:
    """The team's estimate before any evidence: never shown as a measurement.

    `rate` (fix rate for a workaround, failure rate for a dead end) and `evidence`
    (how many observations the estimate is worth, its weight against real outcomes)
    only rank and seed the fix-rate model; users see "team estimate, not yet
    verified" until runs or votes exist. `source` says what the estimate rests on.
    """

    rate: float
    evidence: int
    source: str


@dataclass
class Signature:
    pattern: str
    regex: re.Pattern


@dataclass
class Workaround:
    id: str
    title: I18n
    explanation: I18n
    code: str
    prior: Prior
    caveats: I18n | None = None
    patch: str | None = None
    # Regular expressions over the asker's text and code: a scenario-specific fix (GAN,
    # RNN, DDP...) ranks first only when one of them matches. Empty: a general fix.
    applies_when: list[Signature] = field(default_factory=list)

    def applies_to(self, text: str) -> bool | None:
        """True/False for a scenario-specific fix, None for a general one."""
        if not self.applies_when:
            return None
        return any(sig.regex.search(text) for sig in self.applies_when)


@dataclass
class DeadEnd:
    id: str
    title: I18n
    why: I18n
    code: str | None = None
    patch: str | None = None
    prior: Prior | None = None
    leads_to: str | None = None  # the entry id of the error this attempt raises instead


@dataclass
class Scenario:
    title: I18n
    explanation: I18n
    code: str | None = None


@dataclass
class VersionNote:
    versions: str
    message: str | None = None
    note: I18n | None = None


@dataclass
class Source:
    title: str
    url: str | None = None  # a public http(s) address; None for a document without one


REPRO_PLATFORMS = ("cpu", "cuda", "distributed", "windows", "install", "mps")


@dataclass
class Repro:
    """A minimal snippet that raises the entry's error (`troubleshoot kb verify` runs it).

    `runs_on` says where it can: `cpu` (this project's CPU torch, checked in CI), or
    only on a GPU worker, several processes, Windows, a broken installation or Apple
    MPS. `not_reproducible` explains why a `cpu` repro no longer raises on the current
    torch (the entry stays, the claim is withdrawn).
    """

    runs_on: str
    code: str
    not_reproducible: I18n | None = None


@dataclass
class Entry:
    id: str
    title: I18n
    signatures: list[Signature]
    examples: list[str]
    root_cause: I18n
    workarounds: list[Workaround]
    dead_ends: list[DeadEnd]
    sources: list[Source]
    path: Path
    aliases: list[str] = field(default_factory=list)
    exception: list[str] = field(default_factory=list)
    symptoms: I18n | None = None
    diagnosis: I18n | None = None
    affected_versions: list[VersionNote] = field(default_factory=list)
    scenarios: list[Scenario] = field(default_factory=list)
    related: list[str] = field(default_factory=list)
    repro: Repro | None = None
    # Line of each field path in the source file, for error messages.
    field_lines: dict = field(default_factory=dict, repr=False, compare=False)

    def line_of(self, *path) -> int | None:
        return self.field_lines.get(tuple(path))

    @property
    def languages(self) -> list[str]:
        return sorted(set(self.title) & set(self.root_cause))

    def matches(self, *texts: str) -> bool:
        return any(sig.regex.search(t) for sig in self.signatures for t in texts if t)


@dataclass
class Article:
    id: str  # the file's path under knowledge/articles, without suffix
    title: str
    language: str
    source: str
    entries: list[str]
    body: str
    path: Path
    detected: bool = False  # language/entries were decided by `kb add`, not by a person


@dataclass
class KnowledgeBase:
    root: Path
    entries: dict[str, Entry]
    articles: list[Article]
    aliases: dict[str, str]  # alias -> entry id

    def resolve(self, entry_id: str) -> Entry | None:
        entry_id = self.aliases.get(entry_id, entry_id)
        return self.entries.get(entry_id)

    def articles_for(self, entry_id: str) -> list[Article]:
        return [a for a in self.articles if entry_id in a.entries]
