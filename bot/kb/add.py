"""`troubleshoot kb add FILE...`: store raw articles beside the entries.

A file with valid front matter is stored as it is. A raw `.txt`/`.md` file gets
front matter written for it: its language (by script), the entries it is about
(signature match over its text, plus explicit ids or aliases it names), a title
(its first line) and its source. Each decision is reported, so the person adding
the file can correct it in review.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

import yaml

from bot.kb import model as m
from bot.kb.loader import Problem, load_article_file, parse_front_matter
from bot.settings import get_settings
from bot.text.inputs import InputProblem, read_text
from bot.text.lang import dominant_language, unserved_language
from bot.text.normalize import normalise_message

MAX_BYTES = 2_000_000  # the default of TROUBLESHOOT_MAX_ARTICLE_BYTES
ALLOWED_SUFFIXES = {".txt", ".md", ".markdown", ".log", ""}


@dataclass
class AddResult:
    source: Path
    stored_as: Path | None
    language: str | None = None
    entries: list[str] = field(default_factory=list)
    evidence: dict[str, str] = field(default_factory=dict)  # entry id -> why it was linked
    title: str | None = None
    status: str = "stored"  # stored | already-present | rejected
    reason: str = ""

    def describe(self) -> str:
        if self.status == "rejected":
            return f"{self.source}: not added: {self.reason}"
        if self.status == "already-present":
            return f"{self.source}: already in the knowledge base as {self.stored_as}"
        linked = ", ".join(f"{e} ({self.evidence[e]})" for e in self.entries) or "no known entry (stored unlinked)"
        return (f"{self.source}: stored as {self.stored_as}\n"
                f"  language: {self.language}\n  title: {self.title}\n  about: {linked}")


def find_entries(text: str, kb: m.KnowledgeBase) -> tuple[list[str], dict[str, str]]:
    """Entries an article is about, most evident first."""
    hits: dict[str, tuple[int, str]] = {}
    lines = [line for line in text.splitlines() if line.strip()]
    normalised = [normalise_message(line) for line in lines]
    for entry in kb.entries.values():
        count = sum(1 for raw, norm in zip(lines, normalised, strict=True) if entry.matches(raw, norm))
        if count:
            hits[entry.id] = (count, f"signature matched {count} line(s)")
        for name in [entry.id, *entry.aliases]:
            if re.search(rf"(?<![\w/-]){re.escape(name)}(?![\w/-])", text):
                previous = hits.get(entry.id, (0, ""))[0]
                why = f"names {name!r}" + (f"; {hits[entry.id][1]}" if entry.id in hits else "")
                hits[entry.id] = (previous + 10, why)
    ranked = sorted(hits, key=lambda k: -hits[k][0])
    return ranked, {k: hits[k][1] for k in ranked}


def _title_of(text: str, fallback: str, entry: m.Entry | None) -> str:
    """The first line, unless one of the first few lines is the error message itself."""
    lines = [line.strip().lstrip("#").strip() for line in text.splitlines()]
    lines = [line for line in lines if line]
    if entry is not None:
        for line in lines[:5]:
            if entry.matches(line, normalise_message(line)):
                return line[:200]
    return lines[0][:200] if lines else fallback


def _slug(name: str, digest: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:60]
    return slug or f"article-{digest[:12]}"


def _rejection(problem: InputProblem, limit: int) -> str:
    """Why an article was not added, worded as `kb add` always has (its --json contract)."""
    if problem.problem == "too_large":
        return f"larger than the limit of {limit} bytes (TROUBLESHOOT_MAX_ARTICLE_BYTES)"
    if problem.problem in ("missing", "folder", "unreadable"):
        return f"cannot read: {problem.os_reason}"
    if problem.problem == "empty":
        return "empty file"
    return problem.reason  # binary, not UTF-8


def add_file(path: Path, kb: m.KnowledgeBase, source: str | None = None, dry_run: bool = False,
             raw: bytes | None = None) -> AddResult:
    """Store one article. `raw`: its bytes when the caller read them (stdin), `path`
    then only names it."""
    path = Path(path)
    result = AddResult(source=path, stored_as=None)
    if raw is None and path.suffix.lower() not in ALLOWED_SUFFIXES:
        result.status, result.reason = "rejected", f"unsupported file type {path.suffix!r} (use .txt or .md)"
        return result
    cfg = get_settings()
    limit = cfg.max_article_bytes
    try:
        text = read_text(str(path), what="article", limit=limit, setting="TROUBLESHOOT_MAX_ARTICLE_BYTES",
                         idle_seconds=cfg.stdin_idle_seconds, data=raw).text
    except InputProblem as exc:
        result.status, result.reason = "rejected", _rejection(exc, limit)
        return result
    text = text.replace("\r\n", "\n")

    articles_root = kb.root / "articles"
    front, body, _ = parse_front_matter(text)
    digest = hashlib.sha256(body.strip().encode()).hexdigest()
    for article in kb.articles:
        if hashlib.sha256(article.body.strip().encode()).hexdigest() == digest:
            result.status, result.stored_as = "already-present", article.path
            return result

    if front is not None:
        # Curated file: keep its metadata, but validate it like `kb check` would.
        problems: list[Problem] = []
        tmp_article = load_article_file_from_text(path, text, articles_root, problems)
        if problems or tmp_article is None:
            result.status = "rejected"
            result.reason = "; ".join(str(p) for p in problems) or "invalid front matter"
            return result
        unknown = [e for e in tmp_article.entries if kb.resolve(e) is None]
        if unknown:
            result.status, result.reason = "rejected", f"front matter names unknown entries: {', '.join(unknown)}"
            return result
        result.language, result.title = tmp_article.language, tmp_article.title
        result.entries = [kb.resolve(e).id for e in tmp_article.entries]
        result.evidence = {e: "given in front matter" for e in tmp_article.entries}
        content = text
    else:
        other = unserved_language(body)
        if other is not None:
            result.status, result.reason = "rejected", (
                f"written in {other}; the knowledge base serves English, Korean and Chinese (translate it, or "
                f"add front matter with `language:` if it is one of those)")
            return result
        result.language = dominant_language(body)
        result.entries, result.evidence = find_entries(body, kb)
        result.title = _title_of(body, path.stem, kb.entries.get(result.entries[0]) if result.entries else None)
        meta = {
            "title": result.title,
            "language": result.language,
            "source": source or f"file:{path.name}",
            "entries": result.entries,
            "detected": True,
            "added": date.today().isoformat(),
        }
        content = "---\n" + yaml.safe_dump(meta, allow_unicode=True, sort_keys=False) + "---\n" + body.strip() + "\n"

    target_dir = articles_root / (result.language or "en")
    target = target_dir / f"{_slug(path.stem, digest)}.md"
    if target.exists():
        target = target_dir / f"{_slug(path.stem, digest)}-{digest[:8]}.md"
    result.stored_as = target
    if not dry_run:
        target_dir.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")
    return result


def load_article_file_from_text(path: Path, text: str, articles_root: Path,
                                 problems: list[Problem]) -> m.Article | None:
    """Validate front matter of a file that is not (yet) under knowledge/articles."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        probe = Path(tmp) / "articles" / path.name
        probe.parent.mkdir(parents=True)
        probe.write_text(text, encoding="utf-8")
        article = load_article_file(probe, probe.parent, problems)
    for p in problems:
        p.path = path
    return article
