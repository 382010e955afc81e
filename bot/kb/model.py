"""The knowledge base as Python objects: entries, workarounds, dead ends, articles, and
the one description of the files they are read from.

Human-readable fields are `I18n` dicts keyed by language (`en`, `ko`, `zh`);
`I18n.get(lang)` falls back to English when a language is missing (articles and
newer entries may not have all three).

Every field a knowledge file may have is declared here once, with `yaml(KIND)`: the
loader (bot/kb/loader.py) derives what it accepts from these declarations (`yaml_fields`),
so a new field is one line here plus how it is shown. A field without a default is
required in the file; the declaration order is the order problems are reported in.
Fields without `yaml(...)` (an entry's path, its line table) are filled by the loader.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# What a field holds in the YAML, checked by the loader's validator (one check per kind).
I18N, STR, STR_LIST, REGEX_LIST, PRIOR, IDS, ID, SLUG, PATCH, CODE = (
    "i18n", "str", "str_list", "regex_list", "prior", "ids", "id", "slug", "patch", "code")
URL, PLATFORM, LANG, RATE, COUNT, BOOL = "url", "platform", "lang", "rate", "count", "bool"
# An object kind names the dataclass it builds (OBJECT_KINDS below); ("list", KIND) a list of them.
Kind = str | tuple[str, str]
_REQUIRED: Any = dataclasses.MISSING


def yaml(kind: Kind, default: Any = _REQUIRED, *, factory: Any = _REQUIRED) -> Any:
    """A field read from the knowledge files, of the given kind (required unless it has a default)."""
    if factory is not _REQUIRED:
        return field(default_factory=factory, metadata={"kind": kind})
    return field(default=default, metadata={"kind": kind})


def yaml_fields(cls: type) -> dict[str, tuple[bool, Kind]]:
    """name -> (required, kind) of every field of `cls` read from the files, in order."""
    out = {}
    for f in dataclasses.fields(cls):
        if "kind" in f.metadata:
            required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
            out[f.name] = (required, f.metadata["kind"])
    return out


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

    rate: float = yaml(RATE)
    evidence: int = yaml(COUNT)
    source: str = yaml(STR)


@dataclass
class Signature:
    pattern: str
    regex: re.Pattern


@dataclass(kw_only=True)
class Workaround:
    id: str = yaml(SLUG)
    title: I18n = yaml(I18N)
    explanation: I18n = yaml(I18N)
    code: str = yaml(CODE)
    prior: Prior = yaml("prior")
    caveats: I18n | None = yaml(I18N, None)
    patch: str | None = yaml(PATCH, None)
    # Regular expressions over the asker's text and code: a scenario-specific fix (GAN,
    # RNN, DDP...) ranks first only when one of them matches. Empty: a general fix.
    applies_when: list[Signature] = yaml(REGEX_LIST, factory=list)

    def applies_to(self, text: str) -> bool | None:
        """True/False for a scenario-specific fix, None for a general one."""
        if not self.applies_when:
            return None
        return any(sig.regex.search(text) for sig in self.applies_when)


@dataclass(kw_only=True)
class DeadEnd:
    id: str = yaml(SLUG)
    title: I18n = yaml(I18N)
    why: I18n = yaml(I18N)
    code: str | None = yaml(CODE, None)
    patch: str | None = yaml(PATCH, None)
    prior: Prior | None = yaml("prior", None)
    leads_to: str | None = yaml(ID, None)  # the entry id of the error this attempt raises instead


@dataclass(kw_only=True)
class Scenario:
    title: I18n = yaml(I18N)
    explanation: I18n = yaml(I18N)
    code: str | None = yaml(CODE, None)


@dataclass(kw_only=True)
class VersionNote:
    versions: str = yaml(STR)
    message: str | None = yaml(STR, None)
    note: I18n | None = yaml(I18N, None)


@dataclass(kw_only=True)
class Source:
    title: str = yaml(STR)
    url: str | None = yaml(URL, None)  # a public http(s) address; None for a document without one


REPRO_PLATFORMS = ("cpu", "cuda", "distributed", "windows", "install", "mps")


@dataclass(kw_only=True)
class Repro:
    """A minimal snippet that raises the entry's error (`troubleshoot kb verify` runs it).

    `runs_on` says where it can: `cpu` (this project's CPU torch, checked in CI), or
    only on a GPU worker, several processes, Windows, a broken installation or Apple
    MPS. `not_reproducible` explains why a `cpu` repro no longer raises on the current
    torch (the entry stays, the claim is withdrawn).
    """

    runs_on: str = yaml(PLATFORM)
    code: str = yaml(CODE)
    not_reproducible: I18n | None = yaml(I18N, None)


@dataclass(kw_only=True)
class Entry:
    id: str = yaml(ID)
    aliases: list[str] = yaml(IDS, factory=list)
    title: I18n = yaml(I18N)
    exception: list[str] = yaml(STR_LIST, factory=list)
    signatures: list[Signature] = yaml(REGEX_LIST)
    examples: list[str] = yaml(STR_LIST)
    # Questions askers tied to this entry in their own words, accepted in review
    # (`troubleshoot kb learn`): searched like examples, no signature needs to match them.
    questions: list[str] = yaml(STR_LIST, factory=list)
    symptoms: I18n | None = yaml(I18N, None)
    affected_versions: list[VersionNote] = yaml(("list", "version"), factory=list)
    root_cause: I18n = yaml(I18N)
    diagnosis: I18n | None = yaml(I18N, None)
    scenarios: list[Scenario] = yaml(("list", "scenario"), factory=list)
    workarounds: list[Workaround] = yaml(("list", "workaround"))
    dead_ends: list[DeadEnd] = yaml(("list", "dead_end"))
    related: list[str] = yaml(IDS, factory=list)
    sources: list[Source] = yaml(("list", "source"))
    repro: Repro | None = yaml("repro", None)
    path: Path
    # Line of each field path in the source file, for error messages.
    field_lines: dict = field(default_factory=dict, repr=False, compare=False)
    # The shipped proofs that still hold (bot/kb/proofs.py attach): claim -> Proof.
    proofs: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def line_of(self, *path) -> int | None:
        return self.field_lines.get(tuple(path))

    @property
    def languages(self) -> list[str]:
        return sorted(set(self.title) & set(self.root_cause))

    def matches(self, *texts: str) -> bool:
        return any(sig.regex.search(t) for sig in self.signatures for t in texts if t)


@dataclass(kw_only=True)
class Article:
    # The front matter:
    title: str = yaml(STR)
    language: str = yaml(LANG)
    source: str = yaml(STR)
    entries: list[str] = yaml(IDS, factory=list)
    detected: bool = yaml(BOOL, False)  # language/entries were decided by `kb add`, not by a person
    added: str | None = yaml(STR, None)  # when `kb add` added it
    # Where it came from (`kb add` fills these in; answers cite `provenance`):
    origin: str | None = yaml(STR, None)  # the file it was made from; "export.zip:member" for one inside a zip
    author: str | None = yaml(STR, None)  # as the page states it
    published: str | None = yaml(STR, None)  # the page's date, or a Slack thread's (YYYY-MM-DD)
    channel: str | None = yaml(STR, None)  # a Slack thread's channel, without '#'
    answered_by: list[str] = yaml(STR_LIST, factory=list)  # a Slack thread: who replied (names or user ids)
    solved: bool = yaml(BOOL, False)  # a Slack thread: a reply was marked ✅/👍 or says it solved it
    # Filled by the loader:
    id: str  # the file's path under knowledge/articles, without suffix
    body: str
    path: Path

    @property
    def provenance(self) -> str:
        """Where a reader can find it: "#channel, date" for a Slack thread, else its address or file."""
        if self.channel:
            return f"#{self.channel}, {self.published}" if self.published else f"#{self.channel}"
        if self.source.startswith(("http://", "https://")) or not self.origin:
            return self.source
        return self.origin


@dataclass
class KnowledgeBase:
    root: Path
    entries: dict[str, Entry]
    articles: list[Article]
    aliases: dict[str, str]  # alias -> entry id
    # Rows of knowledge/proofs.json that no longer hold (bot/kb/proofs.py Stale): `kb check` names them.
    stale_proofs: list[Any] = field(default_factory=list)

    def resolve(self, entry_id: str) -> Entry | None:
        entry_id = self.aliases.get(entry_id, entry_id)
        return self.entries.get(entry_id)

    def articles_for(self, entry_id: str) -> list[Article]:
        return [a for a in self.articles if entry_id in a.entries]


# The object kinds of the files: kind -> the dataclass a mapping of that kind builds.
OBJECT_KINDS: dict[str, type] = {
    "workaround": Workaround, "dead_end": DeadEnd, "scenario": Scenario, "version": VersionNote,
    "source": Source, "repro": Repro, "prior": Prior,
}
