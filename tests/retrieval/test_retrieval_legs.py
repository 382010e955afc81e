"""Each leg alone, and their fusion, on the fixture knowledge base (real index, real model)."""

import pytest

from bot.retrieval import fusion
from bot.retrieval.legs import LegResult
from bot.retrieval.query import understand

OOM = "RuntimeError: CUDA out of memory. Tried to allocate 1.50 GiB (GPU 0; 15.90 GiB total capacity)"


def test_signature_leg_matches_the_last_exception_first(engine):
    legs = engine.run_legs(understand(OOM), "signature")
    assert legs["signature"].ranking[0][0] == "pytorch/cuda-oom"
    assert legs["signature"].detail["pytorch/cuda-oom"].lower() == "cuda out of memory"


def test_signature_in_an_earlier_chained_exception_ranks_below_the_last_one(engine):
    text = ("RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\n\n"
            "During handling of the above exception, another exception occurred:\n\n"
            "RuntimeError: Expected all tensors to be on the same device, "
            "but found at least two devices, cuda:0 and cpu!")
    sig = engine.run_legs(understand(text), "signature")["signature"]
    assert [eid for eid, _ in sig.ranking] == ["pytorch/device-mismatch", "pytorch/cuda-oom"]
    assert sig.ranking[0][1] >= 2.0 > sig.ranking[1][1] >= 1.0


def test_signature_leg_finds_nothing_for_a_question(engine):
    assert engine.run_legs(understand("GPU 메모리가 부족해요"), "signature")["signature"].ranking == []


def test_bm25_leg_matches_words_without_a_signature(engine):
    legs = engine.run_legs(understand("loss computed inside torch.no_grad so backward has no grad_fn"), "bm25")
    assert legs["bm25"].ranking[0][0] == "pytorch/no-grad-fn"


def test_bm25_leg_handles_korean_and_chinese(engine):
    ko = engine.run_legs(understand("GPU 메모리 부족 때문에 학습이 멈춰요"), "bm25")["bm25"]
    zh = engine.run_legs(understand("张量位于不同的设备上怎么办"), "bm25")["bm25"]
    assert ko.ranking[0][0] == "pytorch/cuda-oom"
    assert zh.ranking[0][0] == "pytorch/device-mismatch"


@pytest.mark.parametrize("question, expected", [
    ("배치를 키웠더니 GPU 메모리가 모자라다고 나옵니다", "pytorch/cuda-oom"),
    ("模型在GPU上，但是输入数据还在CPU上", "pytorch/device-mismatch"),
    ("my model is on the gpu but the input batch is still on the cpu", "pytorch/device-mismatch"),
])
def test_dense_leg_understands_paraphrases(engine, question, expected):
    dense = engine.run_legs(understand(question), "dense")["dense"]
    assert dense.ranking[0][0] == expected
    assert 0.0 < dense.best_of(expected) <= 1.0  # its best chunk's cosine
    assert dense.best_of(expected) <= dense.ranking[0][1] <= 1.75 * dense.best_of(expected)  # best 3 chunks added


def _leg(name, ranking):
    return LegResult(name, ranking)


def test_entry_score_adds_its_best_chunks_with_falling_weights(engine):
    import numpy as np

    emap = engine.emap
    scores = np.zeros(len(engine.index.chunks), dtype=np.float32)
    oom = [i for i, c in enumerate(engine.index.chunks) if c.entries == ["pytorch/cuda-oom"]][:4]
    other = next(i for i, c in enumerate(engine.index.chunks) if c.entries == ["pytorch/no-grad-fn"])
    scores[oom] = [0.8, 0.6, 0.4, 0.2]
    scores[other] = 0.9
    agg = dict(zip(emap.entry_ids, emap.aggregate(scores), strict=True))
    assert agg["pytorch/cuda-oom"] == pytest.approx(0.8 + 0.5 * 0.6 + 0.25 * 0.4)
    assert agg["pytorch/no-grad-fn"] == pytest.approx(0.9)
    assert emap.best_dict(scores)["pytorch/cuda-oom"] == pytest.approx(0.8)


def test_score_fusion_prefers_the_entry_a_signature_names():
    legs = {
        "signature": _leg("signature", [("a", 2.05)]),
        "bm25": _leg("bm25", [("b", 10.0), ("a", 9.0)]),
        "dense": _leg("dense", [("b", 0.62), ("a", 0.60)]),
    }
    fused = fusion.fuse(legs, "scores")
    assert [f.entry_id for f in fused] == ["a", "b"]
    assert fused[0].confidence > fused[1].confidence
    assert fused[0].legs["bm25"] == (2, 9.0)


def test_rrf_fusion_sums_reciprocal_ranks():
    legs = {
        "signature": _leg("signature", []),
        "bm25": _leg("bm25", [("a", 5.0), ("b", 4.0)]),
        "dense": _leg("dense", [("b", 0.7), ("a", 0.6), ("c", 0.5)]),
    }
    fused = {f.entry_id: f.score for f in fusion.fuse(legs, "rrf")}
    k = fusion.RRF_K
    assert fused["a"] == pytest.approx(1 / (k + 1) + 1 / (k + 2))
    assert fused["c"] == pytest.approx(1 / (k + 3))


def test_fusion_confidence_is_in_range_and_monotonic():
    legs = {"bm25": _leg("bm25", [("a", 3.0), ("b", 2.9), ("c", 1.0)]),
            "dense": _leg("dense", [("c", 0.3), ("a", 0.29)])}
    fused = fusion.fuse(legs)
    confidences = [f.confidence for f in fused]
    assert all(0.0 <= c <= 1.0 for c in confidences)
    assert confidences == sorted(confidences, reverse=True)


def test_unknown_fusion_is_an_error():
    with pytest.raises(ValueError, match="unknown fusion"):
        fusion.fuse({"bm25": _leg("bm25", [("a", 1.0)]), "dense": _leg("dense", [])}, "magic")


@pytest.mark.parametrize("text, expected", [
    (OOM, "pytorch/cuda-oom"),
    ("RuntimeError: Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the same",
     "pytorch/device-mismatch"),
])
def test_hybrid_answers_with_confidence(engine, text, expected):
    result = engine.search(text, top=3)
    assert result.best.entry_id == expected
    assert result.answered and result.best.confidence >= fusion.ANSWER_THRESHOLD
    assert result.tier == "answer" and result.evidence == "signature"


def test_words_without_error_text_get_choices_not_an_answer(engine):
    # sure of the entry, but only similarity backs it: the asker picks (bot/retrieval/tiers.py)
    result = engine.search("GPU 显存不足，训练中断了", top=3)
    assert result.best.entry_id == "pytorch/cuda-oom" and result.best.confidence >= fusion.ANSWER_THRESHOLD
    assert not result.answered and result.tier == "choices" and result.evidence is None
    assert [h.entry_id for h in result.choices][:1] == ["pytorch/cuda-oom"]


def test_hybrid_groups_hits_by_entry(engine):
    result = engine.search(OOM, top=10)
    ids = [h.entry_id for h in result.hits]
    assert len(ids) == len(set(ids)) == 3  # the fixture has three entries; each appears once


@pytest.mark.parametrize("text", [
    "ModuleNotFoundError: No module named 'cv2'",
    "what is the weather like in Seoul today",
    "Traceback (most recent call last):\n  File \"x.py\", line 3, in <module>\n    import foo\n"
    "ImportError: cannot import name 'bar' from 'foo'",
])
def test_no_answer_below_the_threshold(engine, text):
    result = engine.search(text, top=3)
    assert not result.answered
    assert result.hits and result.best.confidence < fusion.ANSWER_THRESHOLD  # nearest entries still listed


def test_classify_for_the_verifier(engine):
    oom = engine.classify("torch.OutOfMemoryError", "CUDA out of memory. Tried to allocate 20.00 MiB.")
    assert oom[0] == "pytorch/cuda-oom"
    entry_id, confidence = engine.classify("KeyError", "'label'")
    assert entry_id is None and 0.0 <= confidence < fusion.ANSWER_THRESHOLD
    assert engine.classify(None, "") == (None, 0.0)


def test_unknown_retriever_is_an_error(engine):
    with pytest.raises(ValueError, match="unknown retriever"):
        engine.search("x error", retriever="magic")


def test_bm25_query_uses_torch_frames_not_the_users_frames():
    from bot.retrieval.legs import bm25_query_tokens

    q = understand('Traceback (most recent call last):\n  File "/home/me/my_trainer.py", line 9, in run_epoch\n'
                   '    loss = F.cross_entropy(out, y)\n'
                   '  File "/usr/lib/python3/site-packages/torch/nn/functional.py", line 3086, in cross_entropy\n'
                   '    return torch._C._nn.cross_entropy_loss(input, target)\nRuntimeError: boom')
    tokens = bm25_query_tokens(q)
    assert "cross_entropy" in tokens and "run_epoch" not in tokens
