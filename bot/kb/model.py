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
    rate: float  # fix rate for a workaround; failure rate for a dead end
    evidence: int  # how many observations the prior stands for (its weight)
    source: str  # where the number came from


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
    url: str


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
