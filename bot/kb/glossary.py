"""The glossary: one Korean and one Chinese term per PyTorch concept.

`knowledge/glossary.yml` lists, for each concept, the term answers use in each
language and the variants to avoid (a synonym the team did not pick, a calque, a
word that means something else in this context). `kb check` warns where an entry's
Korean or Chinese text uses a variant, naming the field and the preferred term.
Warnings, not errors: a variant can be right in a sentence the list did not foresee.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from bot.kb import model as m
from bot.kb.yamlsrc import YamlSourceError, load_located
from bot.text.lang import LANGUAGES

GLOSSARY_FILE = "glossary.yml"
CHECKED_LANGS = tuple(lang for lang in LANGUAGES if lang != "en")  # English names the concept


@dataclass
class Term:
    concept: str  # the English name of the concept
    preferred: dict[str, str]  # lang -> the term to use
    avoid: dict[str, list[str]]  # lang -> variants (literal substrings)


def load_glossary(root: Path) -> tuple[list[Term], list[tuple[int | None, str]]]:
    """The terms, and (line, message) for every malformed part of the file."""
    path = root / GLOSSARY_FILE
    if not path.is_file():
        return [], []
    try:
        located = load_located(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        return [], [(None, f"cannot read the glossary: {exc}")]
    except YamlSourceError as exc:
        return [], [(exc.line, str(exc))]
    data = located.data
    if not isinstance(data, dict) or not isinstance(data.get("terms"), list):
        return [], [(1, "expected `terms:` with a list of concepts")]
    terms, problems = [], []
    for i, item in enumerate(data["terms"]):
        line = located.line_of(("terms", i))
        if not isinstance(item, dict) or not isinstance(item.get("en"), str):
            problems.append((line, f"terms[{i}]: expected a mapping with `en:` (the concept)"))
            continue
        preferred = {lang: item[lang] for lang in CHECKED_LANGS if isinstance(item.get(lang), str)}
        avoid_raw = item.get("avoid") or {}
        avoid: dict[str, list[str]] = {}
        if not isinstance(avoid_raw, dict):
            problems.append((line, f"terms[{i}].avoid: expected `ko:` / `zh:` lists"))
        else:
            for lang, variants in avoid_raw.items():
                if lang not in CHECKED_LANGS or not isinstance(variants, list) \
                        or not all(isinstance(x, str) and x for x in variants):
                    problems.append((located.line_of(("terms", i, "avoid", lang)),
                                     f"terms[{i}].avoid.{lang}: expected a list of words in ko or zh"))
                    continue
                avoid[lang] = variants
        terms.append(Term(item["en"], preferred, avoid))
    return terms, problems


def i18n_fields(entry: m.Entry):
    """Every human-readable field of an entry with its field path."""
    yield ("title",), entry.title
    for name in ("symptoms", "root_cause", "diagnosis"):
        if getattr(entry, name) is not None:
            yield (name,), getattr(entry, name)
    for i, note in enumerate(entry.affected_versions):
        if note.note is not None:
            yield ("affected_versions", i, "note"), note.note
    for i, sc in enumerate(entry.scenarios):
        yield ("scenarios", i, "title"), sc.title
        yield ("scenarios", i, "explanation"), sc.explanation
    for i, w in enumerate(entry.workarounds):
        yield ("workarounds", i, "title"), w.title
        yield ("workarounds", i, "explanation"), w.explanation
        if w.caveats is not None:
            yield ("workarounds", i, "caveats"), w.caveats
    for i, d in enumerate(entry.dead_ends):
        yield ("dead_ends", i, "title"), d.title
        yield ("dead_ends", i, "why"), d.why
    if entry.repro is not None and entry.repro.not_reproducible is not None:
        yield ("repro", "not_reproducible"), entry.repro.not_reproducible


def variants_in(entry: m.Entry, terms: list[Term]):
    """(field path, lang, variant, term) for each avoided variant an entry uses."""
    for path, texts in i18n_fields(entry):
        for lang in CHECKED_LANGS:
            text = texts.get(lang) or ""
            for term in terms:
                for variant in term.avoid.get(lang, ()):
                    if variant in text:
                        yield path, lang, variant, term
