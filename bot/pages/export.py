"""The pages as static files (`troubleshoot kb export DIR`), linked to each other by
relative paths, so the folder works on any static host, in a wiki or from disk:

    DIR/index.html, index.ko.html, index.zh.html         the list
    DIR/stats.html (.ko, .zh), stats.json                 the dashboard
    DIR/<id>.html, <id>.ko.html, <id>.zh.html             each entry (e.g. pytorch/backward-twice.html)
    DIR/<id>.md, <id>.ko.md, <id>.zh.md                   as Markdown
    DIR/<id>.json                                         the entry with its evidence

Every file is replaced atomically (written to a new temporary file in its folder, then
renamed over the old one) and nothing under DIR is followed as a symlink: a link planted
in the folder (a file, or a sub-folder like `pytorch`) is replaced or refused, never
written through, so an export cannot overwrite a file outside DIR.
"""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path

from bot.kb.links import StaticLinks
from bot.pages import data, html, markdown
from bot.text.lang import LANGUAGES

FORMATS = ("html", "md", "json")


def export_pages(kb, snap: data.Snapshot, out: Path, formats=FORMATS) -> list[Path]:
    """Write the pages of `formats` under `out`; returns the files written."""
    out = Path(out)
    written: list[Path] = []

    out.mkdir(parents=True, exist_ok=True)

    def write(name: str, text: str) -> None:
        write_inside(out, name, text.encode("utf-8"))
        written.append(out / name)

    for entry in sorted(kb.entries.values(), key=lambda e: e.id):
        doc = data.entry_doc(entry, snap, kb)
        if "json" in formats:
            write(StaticLinks.file(entry.id, "en", "json"), json.dumps(doc, ensure_ascii=False, indent=2) + "\n")
        for lang in LANGUAGES:
            for fmt in ("html", "md"):
                if fmt not in formats:
                    continue
                name = StaticLinks.file(entry.id, lang, fmt)
                links = StaticLinks(name)
                text = html.entry_page(doc, lang, links) if fmt == "html" else markdown.entry_markdown(doc, lang, links)
                write(name, text)
    if "html" in formats:
        index = data.index_doc(kb, snap)
        stats = data.stats_doc(kb, snap)
        for lang in LANGUAGES:
            name = StaticLinks.file("index", lang, "html")
            write(name, html.index_page(index, lang, StaticLinks(name)))
            name = StaticLinks.file("stats", lang, "html")
            write(name, html.stats_page(stats, lang, StaticLinks(name)))
    if "json" in formats:
        write("stats.json", json.dumps(data.stats_doc(kb, snap), ensure_ascii=False, indent=2) + "\n")
    return written


_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def write_inside(root: Path, name: str, data: bytes) -> None:
    """Replace `root/name` with `data` atomically, following no symlink below `root`:
    each folder of `name` is opened with O_NOFOLLOW (a symlinked one is an OSError), the
    data goes to a fresh file (O_EXCL) that is renamed over the name, which replaces a
    planted symlink itself rather than its target."""
    parts = name.split("/")
    if any(part in ("", ".", "..") for part in parts):
        raise OSError(f"{name!r} is not a plain relative path")
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for part in parts[:-1]:
            try:
                os.mkdir(part, 0o755, dir_fd=fd)
            except FileExistsError:
                pass
            try:
                inner = os.open(part, _DIR_FLAGS, dir_fd=fd)
            except OSError as exc:  # ELOOP, ENOTDIR: a symlink or a file where a folder belongs
                where = "/".join(parts[:parts.index(part) + 1])
                raise OSError(exc.errno, f"{where} is a symlink or not a folder; not written through") from None
            os.close(fd)
            fd = inner
        temp = f".{parts[-1]}.{secrets.token_hex(6)}.tmp"
        out = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644, dir_fd=fd)
        try:
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(out, view):]
            finally:
                os.close(out)
            os.replace(temp, parts[-1], src_dir_fd=fd, dst_dir_fd=fd)
        except BaseException:
            try:
                os.unlink(temp, dir_fd=fd)
            except OSError:
                pass
            raise
    finally:
        os.close(fd)
