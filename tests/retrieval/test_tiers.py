"""Answer tiers (bot/retrieval/tiers.py) on the real engine over the fixture knowledge
base: an entry is the answer only when the message's own evidence backs it; words
without error text get candidates to pick from; no error at all, or another library's,
gets nothing to pick. And the learning loop (bot/evidence/learn.py): a pick kept,
reviewed into the entry's file, then answered from."""

from __future__ import annotations

import pytest

from bot.retrieval.tiers import ANSWER, CHOICES, DECLINE

OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 15.77 GiB"


def test_a_pasted_error_a_signature_recognises_is_the_answer(engine):
    result = engine.search(OOM, top=3)
    assert result.tier == ANSWER and result.evidence == "signature" and result.answered
    assert result.choices == [] and result.declined is None


@pytest.mark.parametrize("text", [
    "GPU 显存不足，训练中断了",  # the error described, no error text
    "I get errors when I use loss.backward() on my model",  # names an error without its text
    "학습하다가 GPU 메모리가 부족하다고 에러가 나요",
])
def test_words_without_error_text_are_offered_as_choices_at_most(engine, text):
    result = engine.search(text, top=3)
    assert result.tier == CHOICES and not result.answered
    assert 1 <= len(result.choices) <= 3
    assert all(h.confidence >= 0.2 for h in result.choices[:1])


@pytest.mark.parametrize("text", [
    "hello there",
    "谢谢，解决了",
    "how do I write a custom Dataset for images in a folder?",
    "see the screenshot ![error](https://example.org/shot.png)",
])
def test_no_error_to_look_up_is_declined_with_nothing_to_pick(engine, text):
    result = engine.search(text, top=3)
    assert result.tier == DECLINE and result.choices == [] and not result.answered


def test_another_librarys_error_is_declined(engine):
    result = engine.search("tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating "
                           "tensor with shape[256,1024]", top=3)
    assert result.tier == DECLINE and result.declined == "other-library"


def test_a_screenshot_gets_told_it_cannot_be_read(use_fixture_env):
    from bot.answer import answer

    doc = answer("training fails, see screenshot ![error](https://example.org/shot.png)")
    assert doc.tier == DECLINE and "screenshots" in (doc.notice or "")


def test_ask_json_carries_tier_and_choices(use_fixture_env):
    from bot.answer import answer

    data = answer("GPU 显存不足，训练中断了").as_json()
    assert data["tier"] == "choices" and data["answered"] is False
    assert data["choices"][0]["id"] == "pytorch/cuda-oom"
    assert set(data["choices"][0]) == {"id", "title", "confidence", "line"}
    assert data["choices"][0]["title"] and data["choices"][0]["line"].endswith("。")


def test_picking_a_choice_is_the_answer_and_an_impossible_pick_says_which_exist(use_fixture_env):
    from bot.answer import answer_result
    from bot.answer.build import picked_document
    from bot.evidence.rates import get_rate_source
    from bot.retrieval.engine import get_engine

    doc, result = answer_result("GPU 显存不足，训练中断了")
    picked = picked_document(result, 1, get_engine().kb, doc.language, get_rate_source())
    assert picked.answered and picked.tier == ANSWER and picked.evidence == "picked"
    assert picked.best is not None and picked.best.id == "pytorch/cuda-oom" and picked.best.workarounds
    with pytest.raises(ValueError, match="numbered 1 to"):
        picked_document(result, 4, get_engine().kb, doc.language, get_rate_source())
    _, answered = answer_result(OOM)
    with pytest.raises(ValueError, match="no choices to pick from"):
        picked_document(answered, 1, get_engine().kb, "en", get_rate_source())


def test_a_reviewed_pick_becomes_an_example_the_same_question_is_answered_by(kb_copy, tmp_path, embedder):
    from bot.evidence.learn import LearnError, accept, note_example, pending, reject
    from bot.kb.loader import load_knowledge
    from bot.retrieval.engine import Engine
    from bot.retrieval.index import build_index
    from bot.store import open_store

    store = open_store(f"sqlite:///{tmp_path / 'learn.db'}")
    question = "학습하다가 GPU 메모리가 부족하다고 에러가 나요"
    key = note_example(store, question, "pytorch/cuda-oom", "ko", source="pick")
    assert note_example(store, question, "pytorch/cuda-oom", "ko", source="upvote") == key  # counted, not doubled
    noise = note_example(store, "token xoxb-123456789012-abcdefghijkl leaked, 에러", "pytorch/no-grad-fn", "ko")
    rows = pending(store)
    assert [(r["entry_id"], r["count"]) for r in rows] == [("pytorch/cuda-oom", 2), ("pytorch/no-grad-fn", 1)]
    assert "xoxb-123456789012" not in rows[1]["text"]  # secrets never stored
    reject(store, noise[:8])
    assert note_example(store, "token xoxb-123456789012-abcdefghijkl leaked, 에러", "pytorch/no-grad-fn", "ko") is None
    with pytest.raises(LearnError, match="no pending example"):
        accept(store, "ffffffff", kb_copy)

    done = accept(store, key[:8], kb_copy)
    assert done["entry_id"] == "pytorch/cuda-oom" and pending(store) == []
    kb = load_knowledge(kb_copy)
    assert question in kb.entries["pytorch/cuda-oom"].questions
    index_dir = tmp_path / "index"
    build_index(kb_copy, index_dir, embedder, progress=False, log=lambda msg: None)
    engine = Engine.load(kb_copy, index_dir, embedder)
    result = engine.search(question, top=3)
    assert result.tier == ANSWER and result.evidence == "example" and result.best.entry_id == "pytorch/cuda-oom"


def test_an_example_that_would_break_the_entry_leaves_the_file_as_it_was(kb_copy, tmp_path):
    from bot.evidence.learn import LearnError, accept, note_example
    from bot.store import open_store

    store = open_store(f"sqlite:///{tmp_path / 'learn.db'}")
    # an error line goes to `examples:`, where kb check wants a signature of the entry to match it
    key = note_example(store, "ValueError: the frobnicator exploded", "pytorch/cuda-oom", "en")
    path = next((kb_copy / "entries").rglob("cuda-oom.yml"))
    before = path.read_text(encoding="utf-8")
    with pytest.raises(LearnError, match="no signature of this entry matches"):
        accept(store, key[:8], kb_copy)
    assert path.read_text(encoding="utf-8") == before


RANK_OOM = """[rank1]: Traceback (most recent call last):
[rank1]:   File "/home/u/train.py", line 40, in <module>
[rank1]:     out = model(x)
[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 1 has a total capacity of 15 GiB
E1204 10:00:00.000000 123 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 1
Traceback (most recent call last):
  File "/opt/conda/bin/torchrun", line 8, in <module>
    sys.exit(main())
  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/run.py", line 892, in main
    run(args)
torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
============================================================
train.py FAILED
"""


def test_a_wrapper_is_answered_by_its_cause_and_named(use_fixture_env, engine):
    result = engine.search(RANK_OOM, top=3)
    assert result.query.wrapper == "torch.distributed.elastic.multiprocessing.errors.ChildFailedError"
    assert result.best.entry_id == "pytorch/cuda-oom" and result.tier == ANSWER

    from bot.answer import answer
    from bot.answer.render import render_answer

    doc = answer(RANK_OOM)
    assert doc.as_json()["wrapper"].endswith("ChildFailedError")
    assert "Reported through torch.distributed.elastic.multiprocessing.errors.ChildFailedError" in render_answer(doc)


TEAM_THREAD = """---
title: "scratch quota on the gpu cluster"
language: en
source: "https://acme.slack.com/archives/C0MLHELP/p1709337600000100"
channel: ml-help
published: "2026-03-02"
solved: true
---
**Question** (by dana): my job dies with `ClusterQuotaError: scratch quota exceeded for user dana on /scratch/shared`
right after the first checkpoint. Any idea?

**Answer** (by lee): the shared scratch volume has a 500 GB per-user quota. Move old checkpoints to /archive with
the archive-ckpt script and write new ones under /scratch/ephemeral, which is wiped weekly but has no quota.
"""


def test_a_team_thread_about_no_entry_is_offered_with_where_it_came_from(kb_copy, tmp_path, embedder):
    from bot.answer.build import answer_document
    from bot.answer.render import render_answer
    from bot.evidence.rates import get_rate_source
    from bot.kb.loader import load_knowledge
    from bot.retrieval.engine import Engine
    from bot.retrieval.index import build_index

    (kb_copy / "articles" / "en").mkdir(parents=True, exist_ok=True)
    (kb_copy / "articles" / "en" / "scratch-quota.md").write_text(TEAM_THREAD, encoding="utf-8")
    index_dir = tmp_path / "index"
    build_index(kb_copy, index_dir, embedder, progress=False, log=lambda msg: None)
    engine = Engine.load(kb_copy, index_dir, embedder)
    result = engine.search("ClusterQuotaError: scratch quota exceeded for user bob on /scratch/shared", top=3)
    assert result.tier == CHOICES and not result.answered
    assert [chunk.ref for chunk, _ in result.team][:1] == ["en/scratch-quota"]
    doc = answer_document(result, load_knowledge(kb_copy), "en", 3, get_rate_source())
    assert doc.team_articles and doc.team_articles[0].provenance == "#ml-help, 2026-03-02"
    shown = render_answer(doc)
    assert "From your team's own knowledge" in shown and "#ml-help, 2026-03-02" in shown
    # an error the thread is not about gets nothing from it
    other = engine.search("RuntimeError: Expected all tensors to be on the same device, but found at least two "
                          "devices, cuda:0 and cpu!", top=3)
    assert other.team == [] and other.tier == ANSWER
