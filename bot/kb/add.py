"""`troubleshoot kb add FILE|DIR|ZIP...`: store articles beside the entries.

What each input becomes:
- a `.txt`/`.md` file with valid front matter is stored as it is; a raw one gets front
  matter written for it: its language (by script), the entries it is about (signature
  match over its text, plus explicit ids or aliases it names), a title and its source;
- a saved web page (`.html`) keeps its main text only (bot/kb/webpage.py), with its
  title, author, date and address;
- a folder is walked recursively: every text or HTML file in it, the rest skipped;
- a `.zip` is a Slack workspace export (bot/kb/slack_export.py: one article per thread
  that answers an error) or else a wiki export (its text and HTML files).

Every article keeps where it came from (`origin`): adding the same file again after it
changed replaces its article, and `--sync` removes the articles of files that are gone.
Each decision is reported, so the person adding can correct it in review.

Nothing is half-added: the articles of one input are written to a staging folder
inside the knowledge folder first and renamed into place only when the whole input was
read; a malformed export or a refused zip writes nothing. Nothing is written outside
`<knowledge>/articles`: zip members are read in memory, never unpacked.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import stat
import tempfile
import zipfile
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path, PurePosixPath
from typing import Callable

import yaml

from bot.kb import model as m
from bot.kb.loader import Problem, load_article_file, parse_front_matter
from bot.kb.slack_export import ExportProblem, is_slack_export, read_export
from bot.kb.webpage import HTML_SUFFIXES, PageProblem, extract_page
from bot.settings import get_settings
from bot.text.inputs import InputProblem, limit_text, read_bounded, read_text
from bot.text.lang import dominant_language, unserved_language
from bot.text.normalize import normalise_message

MAX_BYTES = 2_000_000  # the default of TROUBLESHOOT_MAX_ARTICLE_BYTES
ALLOWED_SUFFIXES = {".txt", ".md", ".markdown", ".log", ""}
ARTICLE_SUFFIXES = (ALLOWED_SUFFIXES - {""}) | HTML_SUFFIXES  # what a folder or a wiki export is read for


@dataclass
class AddResult:
    source: Path
    stored_as: Path | None
    language: str | None = None
    entries: list[str] = field(default_factory=list)
    evidence: dict[str, str] = field(default_factory=dict)  # entry id -> why it was linked
    title: str | None = None
    # stored | replaced | already-present (a duplicate) | removed (--sync) | skipped | rejected
    status: str = "stored"
    reason: str = ""
    origin: str | None = None  # the file (or zip member, or Slack thread) it was made from
    provenance: str | None = None  # what answers cite: an address, a file, "#channel, date"

    def describe(self) -> str:
        if self.status == "rejected":
            return f"{self.source}: not added: {self.reason}"
        if self.status == "skipped":
            return f"{self.source}: skipped: {self.reason}"
        if self.status == "already-present":
            return f"{self.source}: duplicate, already in the knowledge base as {self.stored_as}"
        if self.status == "removed":
            return f"{self.source}: removed {self.stored_as} ({self.reason})"
        linked = ", ".join(f"{e} ({self.evidence[e]})" for e in self.entries) or "no known entry (stored unlinked)"
        verb = "replaced its article" if self.status == "replaced" else "stored as"
        return (f"{self.source}: {verb} {self.stored_as}\n"
                f"  language: {self.language}\n  title: {self.title}\n  about: {linked}"
                + (f"\n  from: {self.provenance}" if self.provenance else ""))

    def as_json(self) -> dict:
        return {"file": str(self.source), "status": self.status,
                "stored_as": str(self.stored_as) if self.stored_as else None, "language": self.language,
                "entries": self.entries, "evidence": self.evidence, "title": self.title, "reason": self.reason,
                "origin": self.origin, "provenance": self.provenance}


@dataclass
class Options:
    source: str | None = None  # --source: where a single text came from
    dry_run: bool = False
    sync: bool = False
    channels: set[str] | None = None  # --channels of a Slack export
    names: str | None = None  # display | id (default: TROUBLESHOOT_SLACK_EXPORT_NAMES)
    workspace_url: str | None = None  # https://team.slack.com, for thread permalinks


@dataclass
class _Planned:
    """An article read and decided on, not yet written."""

    result: AddResult
    content: str
    body: str
    subdir: str  # under articles/: the language, or slack/<channel>
    stem: str


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


def _digest(body: str) -> str:
    return hashlib.sha256(body.strip().encode()).hexdigest()


def _rejection(problem: InputProblem, limit: int) -> str:
    """Why an article was not added, worded as `kb add` always has (its --json contract)."""
    if problem.problem == "too_large":
        return f"larger than the limit of {limit} bytes (TROUBLESHOOT_MAX_ARTICLE_BYTES)"
    if problem.problem in ("missing", "folder", "unreadable"):
        return f"cannot read: {problem.os_reason}"
    if problem.problem == "empty":
        return "empty file"
    return problem.reason  # binary, not UTF-8


def _front(meta: dict) -> str:
    meta = {k: v for k, v in meta.items() if v not in (None, [], False)}
    return "---\n" + yaml.safe_dump(meta, allow_unicode=True, sort_keys=False) + "---\n"


# --- one article: text or page -> _Planned ------------------------------------------------


def _plan_text(name: str, text: str, kb: m.KnowledgeBase, *, source: str | None, origin: str | None,
               page: dict | None = None) -> AddResult | _Planned:
    """An article from text (a page's main text when `page` holds its metadata)."""
    result = AddResult(source=Path(name), stored_as=None, origin=origin)
    text = text.replace("\r\n", "\n")
    front, body, _ = parse_front_matter(text)
    stem = PurePosixPath(name).stem
    if front is not None:
        # Curated file: keep its metadata, but validate it like `kb check` would.
        problems: list[Problem] = []
        tmp_article = load_article_file_from_text(Path(name), text, problems)
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
        if origin and tmp_article.origin is None:  # a person's file: its words kept, where it came from added
            text = f"---\norigin: {json.dumps(origin, ensure_ascii=False)}\n" + text.split("\n", 1)[1]
        result.origin = tmp_article.origin or origin
        http = tmp_article.source.startswith(("http://", "https://"))
        result.provenance = tmp_article.source if http else (result.origin or tmp_article.source)
        return _Planned(result, text, body, result.language or "en", stem)
    other = unserved_language(body)
    if other is not None:
        result.status, result.reason = "rejected", (
            f"written in {other}; the knowledge base serves English, Korean and Chinese (translate it, or "
            f"add front matter with `language:` if it is one of those)")
        return result
    result.language = dominant_language(body)
    result.entries, result.evidence = find_entries(body, kb)
    page = page or {}
    result.title = page.get("title") or _title_of(
        body, stem, kb.entries.get(result.entries[0]) if result.entries else None)
    meta = {
        "title": result.title,
        "language": result.language,
        "source": page.get("url") or source or f"file:{PurePosixPath(name).name}",
        "entries": result.entries,
        "detected": True,
        "added": date.today().isoformat(),
        "origin": origin,
        "author": page.get("author"),
        "published": page.get("date"),
    }
    result.provenance = meta["source"] if str(meta["source"]).startswith(("http://", "https://")) else (
        origin or meta["source"])
    content = _front(meta) + body.strip() + "\n"
    return _Planned(result, content, body, result.language, stem)


def _plan_bytes(name: str, data: bytes | None, kb: m.KnowledgeBase, *, source: str | None, origin: str | None,
                explicit: bool) -> AddResult | _Planned:
    """One text or HTML file (`data`: its bytes when already read; else `name` is read)."""
    cfg = get_settings()
    limit = cfg.max_article_bytes
    suffix = PurePosixPath(name).suffix.lower()
    result = AddResult(source=Path(name), stored_as=None, origin=origin)
    if suffix not in ALLOWED_SUFFIXES | HTML_SUFFIXES:
        if explicit:
            result.status, result.reason = "rejected", f"unsupported file type {suffix!r} (use .txt, .md or .html)"
        else:
            result.status, result.reason = "skipped", f"not a text or HTML file ({suffix or 'no suffix'})"
        return result
    try:
        if suffix in HTML_SUFFIXES:
            if data is None:
                data = read_bounded(name, what="article", limit=limit, setting="TROUBLESHOOT_MAX_ARTICLE_BYTES").data
            elif len(data) > limit:
                raise InputProblem("", where=name, problem="too_large", reason="")
            page = extract_page(data)
            return _plan_text(name, page.text, kb, source=source, origin=origin,
                              page={"title": page.title, "url": page.url, "author": page.author, "date": page.date})
        text = read_text(name, what="article", limit=limit, setting="TROUBLESHOOT_MAX_ARTICLE_BYTES",
                         idle_seconds=cfg.stdin_idle_seconds, data=data).text
    except InputProblem as exc:
        result.status, result.reason = "rejected", _rejection(exc, limit)
        return result
    except PageProblem as exc:
        result.status, result.reason = "rejected", str(exc)
        return result
    return _plan_text(name, text, kb, source=source, origin=origin)


# --- inputs: a file, a folder, a zip --------------------------------------------------------


class ZipProblem(ValueError):
    """A zip refused whole: too large, unsafe members, or not a zip."""


def _open_zip(path: Path, cap: int) -> zipfile.ZipFile:
    """The zip, once its size and every member's name and kind were checked."""
    size = path.stat().st_size
    if size > cap:
        raise ZipProblem(f"{size} bytes, larger than the limit of {limit_text(cap, 'TROUBLESHOOT_MAX_IMPORT_BYTES')}")
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise ZipProblem(f"not a readable zip archive ({exc})") from None
    unpacked = 0
    for info in archive.infolist():
        name = info.filename
        parts = PurePosixPath(name.replace("\\", "/")).parts
        if name.startswith(("/", "\\")) or ".." in parts or re.match(r"^[A-Za-z]:", name):
            archive.close()
            raise ZipProblem(f"member {name!r} points outside the archive (an absolute or '../' path); "
                             "nothing was added from it")
        if stat.S_ISLNK(info.external_attr >> 16):
            archive.close()
            raise ZipProblem(f"member {name!r} is a symbolic link; nothing was added from it")
        unpacked += info.file_size
        if unpacked > cap:
            archive.close()
            raise ZipProblem(f"unpacks to more than {limit_text(cap, 'TROUBLESHOOT_MAX_IMPORT_BYTES')}; "
                             "nothing was added from it")
    return archive


def _member_names(archive: zipfile.ZipFile) -> list[str]:
    return sorted(i.filename for i in archive.infolist() if not i.is_dir())


def _hidden(parts: tuple[str, ...]) -> bool:
    return any(p.startswith(".") or p == "__MACOSX" for p in parts)


def _walk(folder: Path) -> list[Path]:
    """Every file under `folder`, sorted; hidden folders (.git) left out, symbolic links to
    folders not followed."""
    found = []
    for top, dirs, files in os.walk(folder, followlinks=False):
        found += [Path(top) / d for d in dirs if (Path(top) / d).is_symlink()]  # said, not followed
        dirs[:] = [d for d in dirs if not d.startswith(".") and d != "__MACOSX"]
        found += [Path(top) / f for f in files if not f.startswith(".")]
    return sorted(found)


def _plan_input(name: str, kb: m.KnowledgeBase, opts: Options,
                raw: bytes | None) -> tuple[list[AddResult | _Planned], Callable[[str], bool] | None]:
    """The articles of one command-line input, and (for --sync) which origins it covers."""
    if raw is not None:  # stdin: named stdin.md (its title and file name), no file to come back to
        return [_plan_bytes("stdin.md", raw, kb, source=opts.source or "stdin", origin=None, explicit=True)], None
    path = Path(name)
    if path.is_dir():
        root = path.resolve()
        out: list[AddResult | _Planned] = []
        for p in _walk(path):
            if p.is_symlink():  # it may point anywhere on this machine: never read into the knowledge base
                out.append(AddResult(p, None, status="skipped", reason="a symbolic link (add what it points to)"))
            elif p.is_file():
                out.append(_plan_bytes(str(p), None, kb, source=opts.source, origin=str(p.resolve()), explicit=False))
        return out, lambda origin: origin.startswith(f"{root}{os.sep}") and not Path(origin).exists()
    if path.suffix.lower() != ".zip" or not path.exists():
        origin = str(path.resolve()) if path.exists() else None
        return [_plan_bytes(name, None, kb, source=opts.source, origin=origin, explicit=True)], None
    cfg = get_settings()
    zip_origin = str(path.resolve())
    try:
        archive = _open_zip(path, cfg.max_import_bytes)
    except ZipProblem as exc:
        return [AddResult(Path(name), None, status="rejected", reason=str(exc))], None
    with archive:
        names = _member_names(archive)
        if is_slack_export(set(names)):
            return _plan_slack(name, archive, names, kb, opts)
        out = []
        for member in names:
            if _hidden(PurePosixPath(member).parts):
                continue
            if PurePosixPath(member).suffix.lower() not in ARTICLE_SUFFIXES:
                out.append(AddResult(Path(f"{name}:{member}"), None, status="skipped",
                                     reason=f"not a text or HTML file ({PurePosixPath(member).suffix or 'no suffix'})"))
                continue
            info = archive.getinfo(member)
            if info.file_size > cfg.max_article_bytes:
                out.append(AddResult(Path(f"{name}:{member}"), None, status="rejected",
                                     reason=f"larger than the limit of {cfg.max_article_bytes} bytes "
                                            "(TROUBLESHOOT_MAX_ARTICLE_BYTES)"))
                continue
            out.append(_plan_bytes(f"{name}:{member}", archive.read(member), kb, source=opts.source,
                                   origin=f"{zip_origin}:{member}", explicit=False))
        if not out:
            out.append(AddResult(Path(name), None, status="rejected",
                                 reason="neither a Slack export (channels.json and <channel>/YYYY-MM-DD.json) "
                                        "nor a wiki export (no .md, .txt or .html file in it)"))
        members = set(names)
        return out, lambda origin: origin.startswith(f"{zip_origin}:") and origin[len(zip_origin) + 1:] not in members


def _plan_slack(name: str, archive: zipfile.ZipFile, names: list[str], kb: m.KnowledgeBase,
                opts: Options) -> tuple[list[AddResult | _Planned], Callable[[str], bool] | None]:
    cfg = get_settings()
    try:
        export = read_export(archive.read, set(names), channels=opts.channels,
                             name_mode=opts.names or cfg.slack_export_names, workspace_url=opts.workspace_url)
    except (ExportProblem, zipfile.BadZipFile) as exc:
        return [AddResult(Path(name), None, status="rejected",
                          reason=f"malformed Slack export: {exc}; nothing was added from it")], None
    out: list[AddResult | _Planned] = []
    for thread in export.kept:
        entries, evidence = find_entries(thread.body, kb)
        result = AddResult(source=Path(f"{name}:#{thread.channel}/{thread.date}"), stored_as=None,
                           language=thread.language, entries=entries, evidence=evidence, title=thread.title,
                           origin=thread.origin, provenance=f"#{thread.channel}, {thread.date}")
        meta = {"title": thread.title, "language": thread.language,
                "source": thread.permalink or f"Slack #{thread.channel}, {thread.date}",
                "entries": entries, "detected": True, "added": date.today().isoformat(), "origin": thread.origin,
                "published": thread.date, "channel": thread.channel, "answered_by": thread.answered_by,
                "solved": thread.solved}
        out.append(_Planned(result, _front(meta) + thread.body, thread.body,
                            f"slack/{_slug(thread.channel, thread.channel_id)}",
                            f"{thread.date}-{thread.ts.replace('.', '-')}"))
    for skip in export.skipped:
        out.append(AddResult(Path(f"{name}:{skip.where}"), None, status="skipped", reason=skip.reason))
    prefixes = tuple(f"slack:{cid}/" for cid, _ in export.channels)
    kept = {t.origin for t in export.kept}
    return out, lambda origin: origin.startswith(prefixes) and origin not in kept


# --- writing: staged, then renamed into place -------------------------------------------------


class _Staging:
    """The writes and removals of one input: files staged in a folder inside the knowledge
    folder (same file system, so a rename), moved into place by `commit`."""

    def __init__(self, kb_root: Path, articles_root: Path, dry_run: bool):
        self.kb_root, self.articles_root, self.dry_run = kb_root, articles_root.resolve(), dry_run
        self.folder: Path | None = None
        self.writes: list[tuple[Path, Path]] = []
        self.removals: list[Path] = []

    def _inside(self, target: Path) -> Path:
        resolved = target.resolve()
        if not resolved.is_relative_to(self.articles_root):
            raise ValueError(f"refusing to write {target}: outside {self.articles_root}")
        return resolved

    def write(self, target: Path, content: str) -> None:
        self._inside(target)
        if self.dry_run:
            return
        if self.folder is None:
            self.kb_root.mkdir(parents=True, exist_ok=True)
            self.folder = Path(tempfile.mkdtemp(prefix=".kb-add-", dir=self.kb_root))
        staged = self.folder / f"{len(self.writes)}.md"
        staged.write_text(content, encoding="utf-8")
        self.writes.append((staged, target))

    def remove(self, path: Path) -> None:
        self.removals.append(self._inside(path))

    def commit(self) -> None:
        try:
            targets = set()
            for staged, target in self.writes:
                target.parent.mkdir(parents=True, exist_ok=True)
                os.replace(staged, target)
                targets.add(target.resolve())
            for path in self.removals:
                if path not in targets:
                    path.unlink(missing_ok=True)
        finally:
            self.discard()

    def discard(self) -> None:
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None


def add_inputs(names: list[str], kb: m.KnowledgeBase, opts: Options,
               stdin: bytes | None = None) -> list[AddResult]:
    """Add every input (a file, a folder, a zip; '-' is `stdin`), each one whole or not at all."""
    articles_root = kb.root / "articles"
    by_digest = {_digest(a.body): a.path for a in kb.articles}
    by_origin = {a.origin: a for a in kb.articles if a.origin}
    taken = {a.path.resolve() for a in kb.articles}
    results: list[AddResult] = []
    for name in names:
        planned, covers = _plan_input(name, kb, opts, stdin if name == "-" else None)
        staging = _Staging(kb.root, articles_root, opts.dry_run)
        seen: set[str] = set()
        out: list[AddResult] = []
        for item in planned:
            if isinstance(item, AddResult):
                out.append(item)
                continue
            result, digest = item.result, _digest(item.body)
            previous = by_origin.get(result.origin) if result.origin else None
            if result.origin:
                seen.add(result.origin)
            if digest in by_digest:
                result.status, result.stored_as = "already-present", by_digest[digest]
                out.append(result)
                continue
            target_dir = articles_root / item.subdir
            if previous is not None and previous.path.parent.resolve() == target_dir.resolve():
                target = previous.path  # a changed file: its article is rewritten where it is
            else:
                target = target_dir / f"{_slug(item.stem, digest)}.md"
                if target.resolve() in taken:
                    target = target_dir / f"{_slug(item.stem, digest)}-{digest[:8]}.md"
            if previous is not None:
                result.status = "replaced"
                if previous.path != target:
                    staging.remove(previous.path)
            result.stored_as = target
            taken.add(target.resolve())
            by_digest[digest] = target
            staging.write(target, item.content)
            out.append(result)
        if opts.sync and covers is not None:
            for origin, article in sorted(by_origin.items()):
                if origin not in seen and covers(origin):
                    staging.remove(article.path)
                    out.append(AddResult(Path(origin), article.path, status="removed", origin=origin,
                                         reason="its source is gone (--sync)"))
        if opts.dry_run:
            staging.discard()
        else:
            staging.commit()
        results.extend(out)
    return results


def add_file(path: Path, kb: m.KnowledgeBase, source: str | None = None, dry_run: bool = False,
             raw: bytes | None = None) -> AddResult:
    """Store one article (`raw`: its bytes when the caller read them from stdin)."""
    name = "-" if raw is not None else str(path)
    return add_inputs([name], kb, Options(source=source, dry_run=dry_run), stdin=raw)[0]


def load_article_file_from_text(path: Path, text: str, problems: list[Problem]) -> m.Article | None:
    """Validate front matter of a file that is not (yet) under knowledge/articles."""
    with tempfile.TemporaryDirectory() as tmp:
        probe = Path(tmp) / "articles" / path.name
        probe.parent.mkdir(parents=True)
        probe.write_text(text, encoding="utf-8")
        article = load_article_file(probe, probe.parent, problems)
    for p in problems:
        p.path = path
    return article
