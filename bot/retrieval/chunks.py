"""Cut the knowledge base into short chunks, one language each, for the index.

The default embedder (USE) averages over tokens, so a long passage blurs into
"something about PyTorch". We index what people search with: the error messages
themselves (examples, version messages, language-neutral), titles, and each prose
field of an entry split into a few sentences per chunk, in each language; article
bodies are cut by paragraph and sentence the same way.

A chunk knows the file it came from, so an incremental index build re-embeds only
the chunks of changed files.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

from bot.kb import model as m
from bot.text.lang import LANGUAGES, detect_language
from bot.text.normalize import normalise_for_search

# Bump when the chunking below changes: every file is then re-embedded.
CHUNKER_VERSION = "5"  # 5: article passages attributed to the entries they are about

MAX_CHARS = {"en": 320, "ko": 160, "zh": 120}


@dataclass
class Chunk:
    id: str  # "<file>#<n>"
    file: str  # path relative to the knowledge folder
    entries: list[str]  # entry ids this chunk is evidence for
    lang: str  # en, ko, zh
    kind: str  # message, title, symptoms, root_cause, diagnosis, scenario, workaround, dead_end, note, article
    text: str  # what a reader sees (an article passage is quoted from this)
    ref: str = ""  # workaround / dead-end id, or article id
    search_text: str = ""  # what is embedded and tokenised (text plus a short context header)

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> "Chunk":
        return cls(**data)


@dataclass
class FileChunks:
    file: str
    chunks: list[Chunk] = field(default_factory=list)

    def texts_hash(self) -> str:
        h = hashlib.sha256(CHUNKER_VERSION.encode())
        for c in self.chunks:
            h.update(b"\x00" + c.search_text.encode("utf-8"))
        return h.hexdigest()


_SENTENCE_END = {
    "en": re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'`(])"),
    "ko": re.compile(r"(?<=[.!?])\s+"),
    "zh": re.compile(r"(?<=[。！？；])|(?<=[.!?])\s+"),
}


def split_sentences(text: str, lang: str) -> list[str]:
    text = re.sub(r"\s+", " ", text).strip()
    if not text:
        return []
    parts = _SENTENCE_END.get(lang, _SENTENCE_END["en"]).split(text)
    return [p.strip() for p in parts if p and p.strip()]


def group_sentences(sentences: list[str], lang: str) -> list[str]:
    """Consecutive sentences joined up to the language's chunk size."""
    limit = MAX_CHARS.get(lang, 320)
    out: list[str] = []
    current = ""
    for sentence in sentences:
        if current and len(current) + 1 + len(sentence) > limit:
            out.append(current)
            current = sentence
        else:
            sep = "" if lang == "zh" else " "
            current = current + sep + sentence if current else sentence
    if current:
        out.append(current)
    return out


def entry_chunks(entry: m.Entry, file: str) -> FileChunks:
    out = FileChunks(file)
    seen: set[tuple[str, str]] = set()

    def add(lang: str, kind: str, text: str, ref: str = "", header: str = "") -> None:
        text = text.strip()
        if not text or (lang, text) in seen:
            return
        seen.add((lang, text))
        search = f"{header}: {text}" if header else text
        out.chunks.append(Chunk(id=f"{file}#{len(out.chunks)}", file=file, entries=[entry.id], lang=lang,
                                kind=kind, text=text, ref=ref, search_text=search))

    def prose(field_value: m.I18n | None, kind: str, ref: str = "", header: m.I18n | None = None) -> None:
        if not field_value:
            return
        for lang in LANGUAGES:
            text = field_value.get(lang)
            if not text:
                continue
            head = header.get_text(lang) if header else ""
            for piece in group_sentences(split_sentences(text, lang), lang):
                add(lang, kind, piece, ref, head)

    # Error messages as PyTorch prints them: the strongest evidence for a pasted error.
    for example in entry.examples:
        add("en", "message", normalise_for_search(example))
    for question in entry.questions:  # accepted in review (bot/evidence/learn.py), in any language
        add(detect_language(question), "question", normalise_for_search(question))
    for version in entry.affected_versions:
        if version.message:
            add("en", "message", normalise_for_search(version.message))
    for lang in LANGUAGES:
        if entry.title.get(lang):
            add(lang, "title", entry.title[lang])
    prose(entry.symptoms, "symptoms", header=entry.title)
    prose(entry.root_cause, "root_cause", header=entry.title)
    prose(entry.diagnosis, "diagnosis", header=entry.title)
    for scenario in entry.scenarios:
        prose(scenario.explanation, "scenario", header=scenario.title)
        prose(scenario.title, "scenario", header=entry.title)
    for w in entry.workarounds:
        prose(w.title, "workaround", w.id, header=entry.title)
        prose(w.explanation, "workaround", w.id, header=w.title)
    for d in entry.dead_ends:
        prose(d.title, "dead_end", d.id, header=entry.title)
        prose(d.why, "dead_end", d.id, header=d.title)
    for version in entry.affected_versions:
        prose(version.note, "note", header=entry.title)
    return out


_PARAGRAPH = re.compile(r"\n\s*\n")
_CODE_FENCE = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)


def article_chunks(article: m.Article, file: str) -> FileChunks:
    """Paragraphs cut into sentence groups; code blocks left out (they are not prose)."""
    out = FileChunks(file)
    # An article about no entry (a team's own thread on its cluster's error) is indexed
    # too: its passages count for no entry, and the engine offers it on its own
    # (Engine.team_articles) when nothing else fits.
    lang = article.language if article.language in LANGUAGES else "en"
    body = _CODE_FENCE.sub("\n\n", article.body)
    seen: set[str] = set()
    for paragraph in _PARAGRAPH.split(body):
        paragraph = paragraph.strip()
        if len(paragraph) < 15:
            continue
        for piece in group_sentences(split_sentences(paragraph, lang), lang):
            if piece in seen or len(piece) < 15:
                continue
            seen.add(piece)
            out.chunks.append(Chunk(id=f"{file}#{len(out.chunks)}", file=file, entries=list(article.entries),
                                    lang=lang, kind="article", text=piece, ref=article.id,
                                    search_text=f"{article.title}: {piece}"))
    return out


def knowledge_chunks(kb: m.KnowledgeBase) -> dict[str, FileChunks]:
    """Chunks per knowledge file (path relative to the knowledge folder)."""
    root = Path(kb.root)
    files: dict[str, FileChunks] = {}
    for entry in kb.entries.values():
        rel = _relative(entry.path, root)
        files[rel] = entry_chunks(entry, rel)
    for article in kb.articles:
        rel = _relative(article.path, root)
        files[rel] = article_chunks(article, rel)
    return dict(sorted(files.items()))


def _relative(path: Path, root: Path) -> str:
    try:
        return Path(path).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return Path(path).as_posix()
