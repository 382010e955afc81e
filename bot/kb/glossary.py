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
    """Every human-readable field of an entry with its field path: every field the model
    declares as texts per language (bot/kb/model.py), nested objects and lists included,
    so a new prose field is checked without being listed here."""
    yield from _i18n_in(entry, ())


def _i18n_in(obj, path: tuple):
    for name, (_required, kind) in m.yaml_fields(type(obj)).items():
        value = getattr(obj, name)
        if value is None:
            continue
        if kind == m.I18N:
            yield path + (name,), value
        elif isinstance(kind, tuple):  # ("list", object kind)
            for i, item in enumerate(value):
                yield from _i18n_in(item, path + (name, i))
        elif kind in m.OBJECT_KINDS:
            yield from _i18n_in(value, path + (name,))


def variants_in(entry: m.Entry, terms: list[Term]):
    """(field path, lang, variant, term) for each avoided variant an entry uses."""
    for path, texts in i18n_fields(entry):
        for lang in CHECKED_LANGS:
            text = texts.get(lang) or ""
            for term in terms:
                for variant in term.avoid.get(lang, ()):
                    if variant in text:
                        yield path, lang, variant, term
