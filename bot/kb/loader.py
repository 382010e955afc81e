"""Load and validate the knowledge base.

Layout (see knowledge/README.md):
    knowledge/entries/**/*.yml    one structured entry per error class
    knowledge/articles/**/*.md    free-form articles, YAML front matter on top

Every problem is collected (not just the first) and names the file, the line,
the field and what to do about it, so `troubleshoot kb check` can list them all.
"""

from __future__ import annotations

import hashlib
import re
import threading
from dataclasses import dataclass
from pathlib import Path

from bot import settings
from bot.kb import model as m
from bot.kb import proofs
from bot.kb.glossary import GLOSSARY_FILE, load_glossary, variants_in
from bot.kb.yamlsrc import Located, YamlSourceError, load_located
from bot.text.lang import LANGUAGES
from bot.text.normalize import normalise_message
from bot.text.scripts import UNSPACED, join_unspaced

ID_RE = re.compile(r"^[a-z0-9][a-z0-9_.-]*/[a-z0-9][a-z0-9_.-]*$")
SLUG_RE = re.compile(r"^[a-z0-9][a-z0-9-]*$")
# What a draft entry says until it is complete (bot/kb/draft.py writes the skeleton).
DRAFT_NOTE = ("a draft made from a coverage gap by `troubleshoot kb draft`: it does not load until it is complete. "
              "Fill in every field reported below, then delete the `draft:` block")
PATCH_RE = re.compile(r"^[a-z0-9][a-z0-9-]*$")


@dataclass
class Problem:
    path: Path
    line: int | None
    field: str
    message: str
    hint: str = ""
    # "error": the file is wrong (kb check exits 1); "warning": it loads, but a reviewer
    # should look (a glossary variant, for example).
    severity: str = "error"

    @property
    def is_error(self) -> bool:
        return self.severity == "error"

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else f"{self.path}"
        text = f"{where}: {self.field}: {self.message}" if self.field else f"{where}: {self.message}"
        text = f"{text} ({self.hint})" if self.hint else text
        return text if self.is_error else f"warning: {text}"


def errors_only(problems: list[Problem]) -> list[Problem]:
    return [p for p in problems if p.is_error]


class KnowledgeError(Exception):
    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


# --- field descriptions -------------------------------------------------------
# Each object type's fields (name -> (required, kind)) come from the model's declarations
# (bot/kb/model.py, `yaml(...)`). Unknown fields are errors: a typo must not pass silently.

I18N, STR, STR_LIST, REGEX_LIST, IDS, ID, SLUG, PATCH, CODE = (
    m.I18N, m.STR, m.STR_LIST, m.REGEX_LIST, m.IDS, m.ID, m.SLUG, m.PATCH, m.CODE)

ENTRY_FIELDS = m.yaml_fields(m.Entry)
OBJECT_FIELDS = {kind: m.yaml_fields(cls) for kind, cls in m.OBJECT_KINDS.items()}
MIN_ITEMS = {"workarounds": 2, "dead_ends": 1, "sources": 1, "signatures": 1, "examples": 1}
ARTICLE_FIELDS = m.yaml_fields(m.Article)


def _fmt(path: tuple) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


class _Validator:
    """Checks one parsed file against the field descriptions and builds model objects."""

    def __init__(self, file: Path, located: Located, problems: list[Problem], patch_names: set[str] | None):
        self.file = file
        self.located = located
        self.problems = problems
        self.patch_names = patch_names

    def problem(self, path: tuple, message: str, hint: str = "") -> None:
        self.problems.append(Problem(self.file, self.located.line_of(path), _fmt(path), message, hint))

    def obj(self, data, path: tuple, fields: dict, what: str) -> dict | None:
        if not isinstance(data, dict):
            self.problem(path, f"expected a mapping ({what}), found {type(data).__name__}")
            return None
        out, complete = {}, True
        for key in data:
            if key not in fields:
                close = [f for f in fields if f.startswith(str(key)[:3])]
                hint = f"did you mean {close[0]!r}?" if close else f"allowed fields: {', '.join(fields)}"
                self.problem(path + (key,), f"unknown field {key!r} in {what}", hint)
        for name, (required, kind) in fields.items():
            if name not in data or data[name] is None:
                if required:
                    self.problem(path, f"missing required field {name!r} in {what}", f"add `{name}:`")
                    complete = False
                continue
            value = self._value(data[name], path + (name,), kind)
            if value is None:
                complete = False
            else:
                minimum = MIN_ITEMS.get(name) if what == "entry" else None
                if minimum and isinstance(value, list) and len(value) < minimum:
                    self.problem(path + (name,), f"needs at least {minimum} item(s), found {len(value)}")
                out[name] = value
        return out if complete else None

    def _value(self, value, path: tuple, kind: m.Kind):
        """The checked value of one field, or None (with a problem recorded) when it is wrong."""
        if isinstance(kind, tuple) and kind[0] == "list":
            if not isinstance(value, list):
                self.problem(path, f"expected a list, found {type(value).__name__}")
                return None
            items = [self._value(item, path + (i,), kind[1]) for i, item in enumerate(value)]
            return [item for item in items if item is not None]
        if kind in OBJECT_FIELDS:
            data = self.obj(value, path, OBJECT_FIELDS[kind], kind.replace("_", " "))
            return None if data is None else m.OBJECT_KINDS[kind](**data)
        return self._CHECKS[kind](self, value, path, kind)

    def _text(self, value, path: tuple, kind: str):
        if not isinstance(value, str) or not value.strip():
            self.problem(path, "expected non-empty text")
            return None
        return value.strip("\n") if kind == CODE else value.strip()

    def _bool(self, value, path: tuple, kind: str):
        if not isinstance(value, bool):
            self.problem(path, "expected true or false")
            return None
        return value

    def _url(self, value, path: tuple, kind: str):
        if not isinstance(value, str) or not re.match(r"^https?://[^\s/]+\.[^\s]+$", value.strip()):
            self.problem(path, f"expected a public http(s) address, found {value!r}",
                         "cite a document without a public address by its title alone (no `url:`); "
                         "never an internal id")
            return None
        return value.strip()

    def _platform(self, value, path: tuple, kind: str):
        if value not in m.REPRO_PLATFORMS:
            self.problem(path, f"unknown platform {value!r}", f"use one of {', '.join(m.REPRO_PLATFORMS)}")
            return None
        return value

    def _lang(self, value, path: tuple, kind: str):
        if value not in LANGUAGES:
            self.problem(path, f"unknown language {value!r}", f"use one of {', '.join(LANGUAGES)}")
            return None
        return value

    def _rate(self, value, path: tuple, kind: str):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
            self.problem(path, f"expected a rate between 0 and 1, found {value!r}", "write 0.8 for 80%")
            return None
        return float(value)

    def _count(self, value, path: tuple, kind: str):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            self.problem(path, f"expected a whole number >= 0, found {value!r}")
            return None
        return value

    def _name(self, value, path: tuple, kind: str):
        regex = {ID: ID_RE, SLUG: SLUG_RE, PATCH: PATCH_RE}[kind]
        if not isinstance(value, str) or not regex.match(value):
            self.problem(path, f"malformed {kind} {value!r}", "lower-case words joined by '-', ids as 'group/name'")
            return None
        if kind == PATCH and self.patch_names is not None and value not in self.patch_names:
            self.problem(path, f"unknown patch {value!r}", "name one registered in bot/verify/patches")
            return None
        return value

    def _list(self, value, path: tuple, kind: str):
        if isinstance(value, str) and kind == STR_LIST:
            value = [value]
        if not isinstance(value, list):
            self.problem(path, f"expected a list, found {type(value).__name__}")
            return None
        out = []
        for i, item in enumerate(value):
            if kind == REGEX_LIST:
                built = self._regex(item, path + (i,))
            else:
                built = self._value(item, path + (i,), STR if kind == STR_LIST else ID)
            if built is not None:
                out.append(built)
        return out

    def _i18n_kind(self, value, path: tuple, kind: str):
        return self._i18n(value, path)

    # kind -> its check (object and list kinds are handled in _value)
    _CHECKS = {
        I18N: _i18n_kind, STR: _text, CODE: _text, m.BOOL: _bool, m.URL: _url, m.PLATFORM: _platform,
        m.LANG: _lang, m.RATE: _rate, m.COUNT: _count, ID: _name, SLUG: _name, PATCH: _name,
        STR_LIST: _list, IDS: _list, REGEX_LIST: _list,
    }

    def _i18n(self, value, path: tuple) -> m.I18n | None:
        if not isinstance(value, dict):
            self.problem(path, "expected texts per language (en, ko, zh)", "write `en: ...`, `ko: ...`, `zh: ...`")
            return None
        for lang in value:
            if lang not in LANGUAGES:
                self.problem(path + (lang,), f"unknown language {lang!r}", f"use {', '.join(LANGUAGES)}")
        for lang in LANGUAGES:
            text = value.get(lang)
            if not isinstance(text, str) or not text.strip():
                self.problem(path, f"missing language {lang!r}", f"add a {_LANG_NAMES[lang]} text under `{lang}:`")
        return m.I18n({k: join_unspaced(v.strip()) for k, v in value.items()
                       if k in LANGUAGES and isinstance(v, str) and v.strip()})

    def _regex(self, value, path: tuple) -> m.Signature | None:
        if not isinstance(value, str) or not value.strip():
            self.problem(path, "expected a regular expression")
            return None
        try:
            regex = re.compile(value, re.IGNORECASE)
        except re.error as exc:
            self.problem(path, f"invalid regular expression: {exc}", "escape ( ) [ ] . * + ? with a backslash")
            return None
        if regex.search("") is not None:
            self.problem(path, "regular expression matches empty text, so it would match every error")
            return None
        return m.Signature(value, regex)


_LANG_NAMES = {"en": "English", "ko": "Korean", "zh": "Chinese"}




# --- files --------------------------------------------------------------------


def _read(path: Path, problems: list[Problem]) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        problems.append(Problem(path, None, "", f"not UTF-8 text ({exc.reason} at byte {exc.start})",
                                "save the file as UTF-8"))
    except OSError as exc:
        problems.append(Problem(path, None, "", f"cannot read: {exc.strerror}"))
    return None


def load_entry_file(path: Path, problems: list[Problem], patch_names: set[str] | None = None) -> m.Entry | None:
    text = _read(path, problems)
    if text is None:
        return None
    try:
        located = load_located(text)
    except YamlSourceError as exc:
        problems.append(Problem(path, exc.line, "", str(exc), "fix the YAML syntax (indentation, quotes, colons)"))
        return None
    before = len(problems)
    v = _Validator(path, located, problems, patch_names)
    _check_cjk_spaces(path, text, problems)
    fields = located.data
    if isinstance(fields, dict) and "draft" in fields:
        # A skeleton from `troubleshoot kb draft` (bot/kb/draft.py): never loads; every
        # empty field is reported below with what to write.
        v.problem(("draft",), DRAFT_NOTE, "titles, prose and the fixes in en, ko and zh; see knowledge/README.md")
        fields = {k: val for k, val in fields.items() if k != "draft"}
    data = v.obj(fields, (), ENTRY_FIELDS, "entry")
    if data is None or len(problems) > before:
        return None
    entry = m.Entry(path=path, field_lines=located.lines, **data)
    _check_entry_consistency(entry, v)
    return entry if not errors_only(problems[before:]) else None


# A prior is the team's estimate. Its source says what the estimate rests on and must
# not dress it up as a measurement: measured rates come only from the evidence store.
_MEASUREMENT_CLAIM = re.compile(
    r"\d\s*%|\b(fix|success|failure|fail|error)\s+rates?\b|\bmeasured\b"
    r"|\b\d+\s+(evidence|observations?|runs?|reports?|users?|askers?)\b", re.IGNORECASE)
# "ran on torch 2.13", "reproduced here": a claim that a run backs, which is true only when
# `kb verify` runs it, i.e. when the item has a patch.
_RUN_CLAIM = re.compile(r"(?<!not )\b(run|ran|reproduced|checked|verified|tested)\b[^;]*\b(here|on torch)\b",
                        re.IGNORECASE)
# Internal ids must never reach users as a source: seed file names, `seed:` links.
_INTERNAL_ID = re.compile(r"\bseed\s*[:#]|\bseed\s+0\d\d\b|\b\d{3}_[0-9a-f]{16}\b", re.IGNORECASE)


def _check_priors_and_sources(entry: m.Entry, v: _Validator) -> None:
    for field_name in ("workarounds", "dead_ends"):
        for i, item in enumerate(getattr(entry, field_name)):
            prior = item.prior
            if prior is None:
                continue
            path = (field_name, i, "prior", "source")
            claim = _MEASUREMENT_CLAIM.search(prior.source)
            if claim:
                v.problem(path, f"the prior's source claims a measurement ({claim.group(0)!r})",
                          "a prior is a team estimate: say what it rests on (docs, source code, issue threads); "
                          "measured rates come from runs and votes in the evidence store")
            elif _RUN_CLAIM.search(prior.source) and not item.patch:
                v.problem(path, "the prior's source claims a run that no `kb verify` case backs "
                                "(this item has no `patch:`)",
                          "add a patch so `kb verify` runs it, or say what the estimate rests on")
    for i, source in enumerate(entry.sources):
        for part, text in (("title", source.title), ("url", source.url or "")):
            if _INTERNAL_ID.search(text):
                v.problem(("sources", i, part), f"internal id in a source users see ({text!r})",
                          "cite the document by its real title (and public URL where there is one)")


_CJK_SPACE_IN_LINE = re.compile(f"[{UNSPACED}] +[{UNSPACED}]")


def _check_cjk_spaces(path: Path, text: str, problems: list[Problem]) -> None:
    """A space typed between two Chinese characters (folded line breaks are joined by
    the loader; this is a space inside one line)."""
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("#"):
            continue
        found = _CJK_SPACE_IN_LINE.search(line)
        if found:
            problems.append(Problem(path, number, "", f"space between two CJK characters ({found.group(0)!r})",
                                    "Chinese text has no spaces between characters: remove it"))


def _check_entry_consistency(entry: m.Entry, v: _Validator) -> None:
    _check_priors_and_sources(entry, v)
    for field_name in ("workarounds", "dead_ends"):
        seen: set[str] = set()
        for i, item in enumerate(getattr(entry, field_name)):
            if item.id in seen:
                v.problem((field_name, i, "id"), f"duplicate {field_name[:-1].replace('_', ' ')} id {item.id!r}")
            seen.add(item.id)
    for i, example in enumerate(entry.examples):
        if not entry.matches(example, normalise_message(example)):
            v.problem(("examples", i), "no signature of this entry matches this example",
                      "widen a pattern under `signatures:` or fix the example")


def parse_front_matter(text: str) -> tuple[str | None, str, int]:
    """Split `---\\nyaml\\n---\\nbody`. Returns (yaml or None, body, line where the body starts)."""
    if not text.startswith("---"):
        return None, text, 1
    lines = text.split("\n")
    if lines[0].strip() != "---":
        return None, text, 1
    for i in range(1, len(lines)):
        if lines[i].strip() == "---":
            return "\n".join(lines[1:i]), "\n".join(lines[i + 1:]).strip("\n"), i + 2
    return None, text, 1


def load_article_file(path: Path, articles_root: Path, problems: list[Problem]) -> m.Article | None:
    text = _read(path, problems)
    if text is None:
        return None
    front, body, _ = parse_front_matter(text)
    if front is None:
        problems.append(Problem(path, 1, "", "article has no YAML front matter",
                                "add it with `troubleshoot kb add FILE`, "
                                "or write `---` title/language/source `---` on top"))
        return None
    try:
        located = load_located(front)
    except YamlSourceError as exc:
        line = exc.line + 1 if exc.line else None  # front matter starts on line 2
        problems.append(Problem(path, line, "", str(exc), "fix the YAML syntax of the front matter"))
        return None
    located.lines = {k: v + 1 for k, v in located.lines.items()}
    before = len(problems)
    data = _Validator(path, located, problems, None).obj(located.data, (), ARTICLE_FIELDS, "article front matter")
    if not body.strip():
        problems.append(Problem(path, None, "", "article has no text below its front matter"))
    if data is None or len(problems) > before:
        return None
    article_id = str(path.relative_to(articles_root).with_suffix(""))
    return m.Article(id=article_id, body=body, path=path, **data)


def check_knowledge(root: Path | None = None, patch_names: set[str] | None = None
                    ) -> tuple[m.KnowledgeBase, list[Problem]]:
    """Load everything that is valid and report every problem found. `patch_names`: the
    machine-applicable patches a `patch:` field may name (the caller knows them: `kb check`
    passes bot.verify.patches.registry.names()); None leaves patch names unchecked."""
    root = Path(root or settings.knowledge_dir())
    problems: list[Problem] = []
    entries_dir, articles_dir = root / "entries", root / "articles"
    if not entries_dir.is_dir():
        problems.append(Problem(entries_dir, None, "", "knowledge entries folder is missing"))

    entries: dict[str, m.Entry] = {}
    aliases: dict[str, str] = {}
    owner_of_name: dict[str, tuple[str, Path]] = {}
    entry_files = sorted(entries_dir.rglob("*.yml")) + sorted(entries_dir.rglob("*.yaml")) \
        if entries_dir.is_dir() else []
    for path in entry_files:
        entry = load_entry_file(path, problems, patch_names)
        if entry is None:
            continue
        clash = False
        for name, kind in [(entry.id, "id")] + [(a, "alias") for a in entry.aliases]:
            if name in owner_of_name:
                other_kind, other_path = owner_of_name[name]
                what = "duplicate id" if kind == other_kind == "id" else f"{kind} clashes with an {other_kind}"
                field_path = ("aliases", entry.aliases.index(name)) if kind == "alias" else ("id",)
                problems.append(Problem(path, entry.line_of(*field_path), _fmt(field_path),
                                        f"{what} {name!r}, already used in {other_path}",
                                        "every id and alias must be unique across the knowledge base"))
                clash = True
            else:
                owner_of_name[name] = (kind, path)
        if clash:
            continue
        entries[entry.id] = entry
        for alias in entry.aliases:
            aliases[alias] = entry.id

    def known(name: str) -> bool:
        return name in entries or name in aliases

    terms, glossary_problems = load_glossary(root)
    for line, message in glossary_problems:
        problems.append(Problem(root / GLOSSARY_FILE, line, "", message))
    for entry in entries.values():
        for path, lang, variant, term in variants_in(entry, terms):
            preferred = term.preferred.get(lang)
            problems.append(Problem(
                entry.path, entry.line_of(*path, lang) or entry.line_of(*path), f"{_fmt(path)}.{lang}",
                f"{variant!r} for '{term.concept}'",
                f"the glossary prefers {preferred!r}" if preferred else "the glossary lists it as a variant to avoid",
                severity="warning"))

    for entry in entries.values():
        for i, name in enumerate(entry.related):
            if not known(name):
                problems.append(Problem(entry.path, entry.line_of("related", i), f"related[{i}]",
                                        f"related id {name!r} is not an entry or alias",
                                        "fix the id or write that entry"))
        for i, dead in enumerate(entry.dead_ends):
            if dead.leads_to and not known(dead.leads_to):
                problems.append(Problem(entry.path, entry.line_of("dead_ends", i, "leads_to"),
                                        f"dead_ends[{i}].leads_to", f"{dead.leads_to!r} is not an entry or alias"))

    articles: list[m.Article] = []
    if articles_dir.is_dir():
        for path in sorted(articles_dir.rglob("*.md")) + sorted(articles_dir.rglob("*.txt")):
            article = load_article_file(path, articles_dir, problems)
            if article is None:
                continue
            for name in article.entries:
                if not known(name):
                    problems.append(Problem(path, _line_of_value(path, name), "entries",
                                            f"entry id {name!r} does not exist"))
            article.entries = [aliases.get(n, n) for n in article.entries]
            articles.append(article)
    kb = m.KnowledgeBase(root=root, entries=entries, articles=articles, aliases=aliases)
    proofs.attach(kb)  # the shipped proofs that still hold, on their entries
    return kb, problems


def _line_of_value(path: Path, value: str) -> int | None:
    try:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if value in line:
                return number
    except OSError:
        pass
    return None


_cache_lock = threading.Lock()
_cache: dict[str, tuple[str, m.KnowledgeBase, list[Problem]]] = {}


def _fingerprint(root: Path) -> str:
    """A hash of every knowledge file's path and bytes: reading them costs a millisecond
    or two, parsing them most of a second (and mtimes can miss a same-size edit)."""
    digest = hashlib.sha256()
    for sub in ("entries", "articles"):
        folder = root / sub
        if folder.is_dir():
            for path in sorted(folder.rglob("*")):
                if path.is_file():
                    digest.update(str(path).encode() + b"\0")
                    try:
                        digest.update(path.read_bytes())
                    except OSError:
                        digest.update(b"<unreadable>")
                    digest.update(b"\0")
    try:  # the shipped proofs: a new run's file changes what answers show
        digest.update(proofs.proofs_path(root).read_bytes())
    except OSError:
        digest.update(b"<no proofs>")
    return digest.hexdigest()


def cached_knowledge(root: Path | None = None) -> tuple[m.KnowledgeBase, list[Problem]]:
    """`check_knowledge`, parsed again only when a file under `root` changed. The search
    engine, the index build and verification share it, so a process parses the YAML
    once (it takes most of a second) and still sees edits. Treat the result as read-only."""
    root = Path(root or settings.knowledge_dir())
    key = str(root.resolve())
    fingerprint = _fingerprint(root)
    with _cache_lock:
        hit = _cache.get(key)
        if hit is not None and hit[0] == fingerprint:
            return hit[1], hit[2]
        kb, problems = check_knowledge(root)
        _cache[key] = (fingerprint, kb, problems)
        return kb, problems


def current_knowledge() -> m.KnowledgeBase:
    """The project's knowledge base as retrieval, verification and the evidence share it
    (re-read when a file changes). Entries with problems are left out (`troubleshoot kb
    check` reports them), so one bad file does not stop the bot."""
    return cached_knowledge()[0]


def load_knowledge(root: Path | None = None) -> m.KnowledgeBase:
    kb, problems = check_knowledge(root)
    if errors_only(problems):
        raise KnowledgeError(errors_only(problems))
    return kb
