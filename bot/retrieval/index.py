"""The search index under index/: FAISS vectors, a BM25 model, the chunk table, a manifest.

    index/manifest.json     embedder name and dimension, a content hash per knowledge
                            file, the chunker version, the vector index type, build time
    index/chunks.jsonl      one chunk per line, in vector order
    index/vectors.faiss     the dense index (flat inner product; HNSW when large)
    index/bm25/             the bm25s model over the same chunks
    index/embeddings/*.npy  each knowledge file's chunk embeddings, reused by the next
                            build while that file's chunks do not change

A build re-embeds only the files whose chunks changed; an index made with another
embedder (or dimension) is refused with a message saying how to rebuild it.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from bot import settings
from bot.embed import load_embedder
from bot.kb.loader import cached_knowledge
from bot.retrieval.chunks import CHUNKER_VERSION, Chunk, knowledge_chunks
from bot.retrieval.tokenize import tokenize
from bot.text.jsonin import loads as json_loads

FORMAT = 1
MANIFEST = "manifest.json"
CHUNKS = "chunks.jsonl"
VECTORS = "vectors.faiss"
BM25_DIR = "bm25"
EMBEDDINGS = "embeddings"
HNSW_M = 32
HNSW_EF_SEARCH = 128


class IndexProblem(RuntimeError):
    """The index cannot be used or built; the message says what to do."""


class EmbedderMismatch(IndexProblem):
    pass


class IndexDamaged(IndexProblem):
    """An index file is missing, malformed or inconsistent: a rebuild repairs it."""


def _chunk(data, number: int) -> Chunk:
    if not isinstance(data, dict):
        raise ValueError(f"{CHUNKS} line {number} is not a JSON object")
    try:
        chunk = Chunk.from_json(data)
    except Exception as exc:  # noqa: BLE001
        raise ValueError(f"{CHUNKS} line {number}: {type(exc).__name__}: {exc}") from None
    for name in ("id", "file", "lang", "kind", "text", "ref", "search_text"):
        if not isinstance(getattr(chunk, name), str):
            raise ValueError(f"{CHUNKS} line {number}: \"{name}\" must be text")
    if not isinstance(chunk.entries, list) or not all(isinstance(e, str) for e in chunk.entries):
        raise ValueError(f"{CHUNKS} line {number}: \"entries\" must be a list of entry ids")
    return chunk


def approx_threshold() -> int:
    """Above this many chunks the dense index is approximate (HNSW) instead of flat."""
    return settings.get_settings().approx_threshold


# --- knowledge files and the manifest -----------------------------------------


# path -> ((mtime, ctime, size, inode), sha256): the bot checks for knowledge changes every few
# seconds; only files whose size or time changed are read and hashed again.
_HASH_CACHE: dict[str, tuple[tuple[int, int, int, int], str]] = {}


def _sha256(path: Path) -> str:
    stat = path.stat()
    signature = (stat.st_mtime_ns, stat.st_ctime_ns, stat.st_size, stat.st_ino)
    cached = _HASH_CACHE.get(str(path))
    if cached and cached[0] == signature:
        return cached[1]
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    _HASH_CACHE[str(path)] = (signature, digest)
    return digest


def knowledge_files(root: Path) -> dict[str, str]:
    """sha256 of every file the knowledge loader reads, by path relative to `root`."""
    root = Path(root)
    found: dict[str, str] = {}
    for sub, patterns in (("entries", ("*.yml", "*.yaml")), ("articles", ("*.md", "*.txt"))):
        base = root / sub
        if not base.is_dir():
            continue
        for pattern in patterns:
            for path in base.rglob(pattern):
                if path.is_file():
                    found[path.relative_to(root).as_posix()] = _sha256(path)
    return dict(sorted(found.items()))


def manifest_problem(data) -> str | None:
    """What is wrong with a manifest's form (a field missing or of the wrong type), or None."""
    if not isinstance(data, dict):
        return f"{MANIFEST} is not a JSON object"
    embedder = data.get("embedder")
    if not isinstance(embedder, dict) or not isinstance(embedder.get("name"), str) \
            or not isinstance(embedder.get("dimension"), int):
        return f"{MANIFEST}: \"embedder\" must be {{\"name\": text, \"dimension\": number}}"
    if not isinstance(data.get("chunks"), int) or isinstance(data.get("chunks"), bool) or data["chunks"] < 0:
        return f"{MANIFEST}: \"chunks\" must be a count"
    files = data.get("files")
    if not isinstance(files, dict) or not all(
            isinstance(k, str) and isinstance(v, dict) and isinstance(v.get("sha256"), str)
            and isinstance(v.get("vectors", ""), str) for k, v in files.items()):
        return f"{MANIFEST}: \"files\" must map each knowledge file to its sha256 and vectors"
    artifacts = data.get("artifacts", {})
    if not isinstance(artifacts, dict) or not all(
            isinstance(v, dict) and isinstance(v.get("size"), int) and isinstance(v.get("sha256"), str)
            for v in artifacts.values()):
        return f"{MANIFEST}: \"artifacts\" must map each index file to its size and sha256"
    if not isinstance(data.get("vector_index", "flat"), str):
        return f"{MANIFEST}: \"vector_index\" must be text"
    return None


def read_manifest_checked(index_dir: Path) -> tuple[dict | None, str | None]:
    """(the manifest, None), or (None, why it cannot be used): missing, unreadable, of
    another format, or with fields of the wrong type."""
    path = Path(index_dir) / MANIFEST
    if not path.is_file():
        return None, f"no index in {index_dir}"
    try:
        data = json_loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return None, f"{MANIFEST} is damaged ({type(exc).__name__})"
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return None, f"{MANIFEST} is of another format"
    problem = manifest_problem(data)
    if problem:
        return None, f"{problem} (damaged)"
    return data, None


def read_manifest(index_dir: Path) -> dict | None:
    return read_manifest_checked(index_dir)[0]


def _artifact_paths(index_dir: Path) -> dict[str, Path]:
    """The files a load reads, by their name relative to the index folder."""
    paths = {CHUNKS: index_dir / CHUNKS, VECTORS: index_dir / VECTORS}
    bm25_dir = index_dir / BM25_DIR
    if bm25_dir.is_dir():
        for path in sorted(bm25_dir.iterdir()):
            if path.is_file():
                paths[f"{BM25_DIR}/{path.name}"] = path
    return paths


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def artifact_problem(index_dir: Path, manifest: dict, *, hashes: bool = False) -> str | None:
    """Whether the index files are those the manifest recorded: present, of the same size
    (cheap, checked every few seconds by a running bot) and, with `hashes`, the same
    sha256 (`index build`). An index of an older build without records passes."""
    recorded = manifest.get("artifacts") or {}
    for name in (CHUNKS, VECTORS):
        if not (index_dir / name).is_file():
            return f"{name} is missing"
    for name, info in recorded.items():
        path = index_dir / name
        try:
            size = path.stat().st_size
        except OSError:
            return f"{name} is missing"
        if size != info["size"]:
            return f"{name} is damaged ({size} bytes, the build wrote {info['size']})"
        if hashes:
            try:
                digest = _file_sha256(path)
            except OSError as exc:
                return f"{name} cannot be read ({exc.strerror})"
            if digest != info["sha256"]:
                return f"{name} is damaged (its sha256 differs from the build's)"
    return None


def check_embedder(manifest: dict, name: str, dimension: int | None = None) -> None:
    built = manifest.get("embedder") or {}
    if built.get("name") != name or (dimension is not None and built.get("dimension") != dimension):
        have = f"{name!r}" + (f" ({dimension}-d)" if dimension else "")
        raise EmbedderMismatch(
            f"the index in {manifest.get('_dir', 'index/')} was built with the embedder {built.get('name')!r} "
            f"({built.get('dimension')}-d) but the configured embedder is {have} (TROUBLESHOOT_EMBEDDER). "
            f"Rebuild it with `troubleshoot index build --full`, or set TROUBLESHOOT_EMBEDDER={built.get('name')}."
        )


def staleness(kb_root: Path | None = None, index_dir: Path | None = None, embedder_name: str | None = None,
              *, hashes: bool = False) -> str | None:
    """Why the index must be (re)built, or None when it is fresh: missing, damaged (a
    malformed manifest, index files whose size, or with `hashes` whose sha256, differ
    from the build's), or out of date. Raises EmbedderMismatch."""
    kb_root = Path(kb_root or settings.knowledge_dir())
    index_dir = Path(index_dir or settings.index_dir())
    manifest, why = read_manifest_checked(index_dir)
    if manifest is None:
        return why
    manifest["_dir"] = str(index_dir)
    check_embedder(manifest, embedder_name or settings.embedder_name())
    if manifest.get("chunker") != CHUNKER_VERSION:
        return "the chunker changed"
    damage = artifact_problem(index_dir, manifest, hashes=hashes)
    if damage:
        return damage
    built = {rel: info.get("sha256") for rel, info in manifest.get("files", {}).items()}
    current = knowledge_files(kb_root)
    if built != current:
        changed = sorted(set(built) ^ set(current) | {r for r in set(built) & set(current) if built[r] != current[r]})
        more = ", ..." if len(changed) > 3 else ""
        return f"{len(changed)} knowledge file(s) changed ({', '.join(changed[:3])}{more})"
    return None


# --- building -------------------------------------------------------------------


@dataclass
class BuildReport:
    files: int
    chunks: int
    embedded_files: list[str] = field(default_factory=list)
    embedded_chunks: int = 0
    reused_files: int = 0
    index_type: str = "flat"
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)
    up_to_date: bool = False  # nothing had changed: nothing was rewritten


def make_vector_index(vectors: np.ndarray, kind: str = "auto"):
    """Flat inner product while small; HNSW (graph, approximate) beyond the threshold."""
    import faiss

    n, dim = vectors.shape if vectors.ndim == 2 else (0, 0)
    if kind == "auto":
        kind = "hnsw" if n > approx_threshold() else "flat"
    if kind == "hnsw":
        index = faiss.IndexHNSWFlat(dim, HNSW_M, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = 80
        index.hnsw.efSearch = HNSW_EF_SEARCH
    elif kind == "flat":
        index = faiss.IndexFlatIP(dim)
    else:
        raise ValueError(f"unknown vector index kind {kind!r} (flat or hnsw)")
    if n:
        index.add(np.ascontiguousarray(vectors, dtype=np.float32))
    return index, kind


class IndexNotWritable(IndexProblem):
    pass


@contextlib.contextmanager
def _build_lock(index_dir: Path):
    try:
        index_dir.mkdir(parents=True, exist_ok=True)
        handle = open(index_dir / ".lock", "w")
    except OSError as exc:
        raise IndexNotWritable(f"cannot write the index folder {index_dir} ({exc.strerror}); make it writable "
                               f"or point TROUBLESHOOT_INDEX_DIR at a writable folder") from None
    with handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _atomic_write(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def _cache_name(rel: str) -> str:
    return hashlib.sha1(rel.encode("utf-8")).hexdigest()[:16] + ".npy"


def build_index(kb_root: Path | None = None, index_dir: Path | None = None, embedder=None, full: bool = False,
                progress: bool = True, log=None, repair: bool = False) -> BuildReport:
    """Build or refresh the index; only files whose chunks changed are re-embedded.

    What is there is verified first (the manifest's form, each index file's size and
    sha256); a damaged index is rebuilt (`repair` forces that, for a load that failed),
    still reusing the embeddings of unchanged files whose cache has the right shape."""
    import bm25s
    import faiss
    from tqdm import tqdm

    started = time.perf_counter()
    kb_root = Path(kb_root or settings.knowledge_dir())
    index_dir = Path(index_dir or settings.index_dir())
    log = log or logging.getLogger(__name__).info
    if embedder is None:
        embedder = load_embedder()

    def up_to_date() -> BuildReport | None:
        if full or repair or staleness(kb_root, index_dir, embedder.name, hashes=True) is not None:
            return None
        manifest = read_manifest(index_dir) or {}
        check_embedder({**manifest, "_dir": str(index_dir)}, embedder.name, embedder.dimension)
        files = manifest.get("files", {})
        return BuildReport(files=len(files), chunks=int(manifest.get("chunks", 0)), reused_files=len(files),
                           index_type=manifest.get("vector_index", "flat"), up_to_date=True,
                           seconds=time.perf_counter() - started)

    fresh = up_to_date()  # read-only: an index folder that cannot be written still answers
    if fresh is not None:
        return fresh
    with _build_lock(index_dir):
        fresh = up_to_date()  # another process may have built it while we waited for the lock
        if fresh is not None:
            return fresh
        damage = staleness(kb_root, index_dir, embedder.name, hashes=True) if not full else None
        if damage and ("damaged" in damage or "missing" in damage) or repair:
            log(f"index: rebuilding in {index_dir} ({damage or 'it could not be loaded'})")
        kb, problems = cached_knowledge(kb_root)
        if not kb.entries:
            detail = f" ({problems[0]})" if problems else ""
            raise IndexProblem(f"no valid knowledge entries under {kb_root}{detail}; run `troubleshoot kb check`")
        hashes = knowledge_files(kb_root)
        per_file = knowledge_chunks(kb)

        old = read_manifest(index_dir)
        if old is not None and not full:
            old["_dir"] = str(index_dir)
            check_embedder(old, embedder.name, embedder.dimension)
        reusable = old if (old is not None and not full and old.get("chunker") == CHUNKER_VERSION) else None

        emb_dir = index_dir / EMBEDDINGS
        emb_dir.mkdir(parents=True, exist_ok=True)
        report = BuildReport(files=len(hashes), chunks=sum(len(f.chunks) for f in per_file.values()),
                             problems=[str(p) for p in problems])
        files_meta: dict[str, dict] = {}
        all_chunks: list[Chunk] = []
        all_vectors: list[np.ndarray] = []
        bar = tqdm(total=report.chunks, unit="chunk", desc="index", disable=not progress, file=sys.stderr,
                   dynamic_ncols=True, leave=True)
        try:
            for rel, sha in hashes.items():
                fc = per_file.get(rel)
                chunks = fc.chunks if fc else []
                texts_hash = fc.texts_hash() if fc else ""
                cache = emb_dir / _cache_name(rel)
                vectors = None
                previous = (reusable or {}).get("files", {}).get(rel)
                if previous and previous.get("texts") == texts_hash and cache.is_file():
                    try:
                        vectors = np.load(cache)
                        if vectors.shape != (len(chunks), embedder.dimension):
                            vectors = None
                    except (OSError, ValueError):
                        vectors = None
                if vectors is None:
                    vectors = embedder.encode([c.search_text for c in chunks]) if chunks else \
                        np.zeros((0, embedder.dimension), dtype=np.float32)
                    _atomic_write(cache, _npy_bytes(vectors))
                    report.embedded_files.append(rel)
                    report.embedded_chunks += len(chunks)
                else:
                    report.reused_files += 1
                bar.update(len(chunks))
                files_meta[rel] = {"sha256": sha, "texts": texts_hash, "chunks": len(chunks),
                                   "vectors": f"{EMBEDDINGS}/{cache.name}"}
                all_chunks.extend(chunks)
                all_vectors.append(vectors)
        finally:
            bar.close()

        # Embedding caches of files that are gone.
        keep = {Path(meta["vectors"]).name for meta in files_meta.values()}
        for stale in emb_dir.glob("*.npy"):
            if stale.name not in keep:
                stale.unlink(missing_ok=True)

        matrix = np.vstack(all_vectors) if all_vectors else np.zeros((0, embedder.dimension), dtype=np.float32)
        attribute_shared_passages(all_chunks, matrix)
        vector_index, kind = make_vector_index(matrix)
        report.index_type = kind
        tmp = index_dir / (VECTORS + ".tmp")
        faiss.write_index(vector_index, str(tmp))
        os.replace(tmp, index_dir / VECTORS)

        bm25 = bm25s.BM25()
        bm25.index([tokenize(c.search_text) for c in all_chunks], show_progress=False)
        bm25.save(str(index_dir / BM25_DIR))

        lines = "".join(json.dumps(c.to_json(), ensure_ascii=False) + "\n" for c in all_chunks)
        _atomic_write(index_dir / CHUNKS, lines.encode("utf-8"))
        artifacts = {name: {"size": path.stat().st_size, "sha256": _file_sha256(path)}
                     for name, path in _artifact_paths(index_dir).items()}

        report.seconds = time.perf_counter() - started
        manifest = {
            "format": FORMAT,
            "embedder": {"name": embedder.name, "dimension": embedder.dimension},
            "chunker": CHUNKER_VERSION,
            "vector_index": kind,
            "chunks": len(all_chunks),
            "files": files_meta,
            "artifacts": artifacts,
            "built_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "build_seconds": round(report.seconds, 3),
        }
        _atomic_write(index_dir / MANIFEST, json.dumps(manifest, indent=1, ensure_ascii=False).encode("utf-8"))
    return report


SHARED_PASSAGE_MARGIN = 0.05  # chosen on eval/dev questions (0, 0.03 and 0.05 tie there)


def attribute_shared_passages(chunks: list[Chunk], vectors: np.ndarray) -> None:
    """Give each passage of an article about several entries to the entries it is about.

    An article on three related errors has sections on each; if every section spoke for
    all three, a question matching the section on one error would lift the other two as
    much. Each such passage keeps the entries whose own chunks (same language where there
    are any) come within SHARED_PASSAGE_MARGIN of the closest one, by cosine similarity.
    Done at every build (a dot product per passage), so edits to entries re-attribute."""
    own: dict[tuple[str, str], list[int]] = {}
    for i, chunk in enumerate(chunks):
        if chunk.kind != "article" and len(chunk.entries) == 1:
            own.setdefault((chunk.entries[0], chunk.lang), []).append(i)
            own.setdefault((chunk.entries[0], "*"), []).append(i)
    for i, chunk in enumerate(chunks):
        if chunk.kind != "article" or len(chunk.entries) < 2:
            continue
        scores = {}
        for entry_id in chunk.entries:
            rows = own.get((entry_id, chunk.lang)) or own.get((entry_id, "*"))
            if rows:
                scores[entry_id] = float(np.max(vectors[rows] @ vectors[i]))
        if scores:
            best = max(scores.values())
            chunk.entries = [e for e in chunk.entries if e in scores and scores[e] >= best - SHARED_PASSAGE_MARGIN]


def _npy_bytes(array: np.ndarray) -> bytes:
    import io

    buf = io.BytesIO()
    np.save(buf, np.ascontiguousarray(array, dtype=np.float32))
    return buf.getvalue()


# --- loading ----------------------------------------------------------------------


class SearchIndex:
    """The loaded index: chunks, dense vectors and the BM25 model."""

    def __init__(self, index_dir: Path, manifest: dict, chunks: list[Chunk], vectors, bm25):
        self.dir = index_dir
        self.manifest = manifest
        self.chunks = chunks
        self.vectors = vectors
        self.bm25 = bm25

    @classmethod
    def load(cls, index_dir: Path | None = None, embedder_name: str | None = None,
             dimension: int | None = None) -> "SearchIndex":
        import bm25s
        import faiss

        index_dir = Path(index_dir or settings.index_dir())
        manifest, why = read_manifest_checked(index_dir)
        if manifest is None:
            raise IndexDamaged(f"{why}; build it with `troubleshoot index build`")
        manifest["_dir"] = str(index_dir)
        check_embedder(manifest, embedder_name or settings.embedder_name(), dimension)
        try:
            with open(index_dir / CHUNKS, encoding="utf-8") as handle:
                chunks = []
                for number, line in enumerate(handle, 1):
                    if line.strip():
                        chunks.append(_chunk(json_loads(line), number))
            # Memory-mapped: the pages of the vectors and the BM25 matrix are read as searches
            # touch them and shared between processes that load the same index.
            vectors = faiss.read_index(str(index_dir / VECTORS), faiss.IO_FLAG_MMAP_IFC | faiss.IO_FLAG_READ_ONLY)
            bm25 = bm25s.BM25.load(str(index_dir / BM25_DIR), mmap=True)
        except Exception as exc:  # noqa: BLE001 - whatever a damaged file raises, it is one message
            detail = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__
            raise IndexDamaged(f"the index in {index_dir} is damaged ({detail}); rebuild it with "
                               f"`troubleshoot index build`") from exc
        if len(chunks) != manifest["chunks"]:
            raise IndexDamaged(f"the index in {index_dir} is damaged ({len(chunks)} chunks in {CHUNKS}, the "
                               f"manifest says {manifest['chunks']}); rebuild it with `troubleshoot index build`")
        if vectors.ntotal != len(chunks) or vectors.d != manifest["embedder"]["dimension"]:
            raise IndexDamaged(f"the index in {index_dir} is inconsistent ({vectors.ntotal} vectors of "
                               f"{vectors.d} dimensions for {len(chunks)} chunks); rebuild it with "
                               f"`troubleshoot index build --full`")
        if hasattr(vectors, "hnsw"):
            vectors.hnsw.efSearch = HNSW_EF_SEARCH
        return cls(index_dir, manifest, chunks, vectors, bm25)

    def dense_search(self, query_vectors: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        k = min(k, self.vectors.ntotal)
        if k <= 0 or len(query_vectors) == 0:
            return np.zeros((len(query_vectors), 0), np.float32), np.zeros((len(query_vectors), 0), np.int64)
        return self.vectors.search(np.ascontiguousarray(query_vectors, dtype=np.float32), k)

    def bm25_scores(self, tokens: list[str]) -> np.ndarray:
        known = [t for t in tokens if t in self.bm25.vocab_dict]
        if not known:
            return np.zeros(len(self.chunks), dtype=np.float32)
        return np.asarray(self.bm25.get_scores(known), dtype=np.float32)
