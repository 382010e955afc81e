"""Which part of an entry answers a follow-up question (bot/slack/services/followup.py),
on the project's whole knowledge base: the questions people ask under an answer."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.kb.loader import load_knowledge
from bot.slack.services.followup import best_passage, follow_up_message, is_chatter

KNOWLEDGE = Path(__file__).resolve().parents[2] / "knowledge"


@pytest.fixture(scope="module")
def kb():
    return load_knowledge(KNOWLEDGE)


@pytest.mark.parametrize("entry_id, question, lang, said", [
    ("pytorch/ce-target-dtype", "does this also happen with nn.NLLLoss?", "en", "NLLLoss"),
    ("pytorch/cuda-oom", "그럼 batch size를 줄이면 되나요?", "ko", "마이크로배치"),
    ("pytorch/cuda-not-available", "用 conda 安装的可以吗？", "zh", "conda 环境中要安装 CUDA 变体"),
])
def test_the_passage_that_names_what_the_question_asks_about_answers_it(kb, entry_id, question, lang, said):
    entry = kb.resolve(entry_id)
    passage = best_passage(kb, entry, question)
    assert passage is not None and said in passage.body.get_text(lang)
    message = follow_up_message(kb, entry, question, lang)
    assert said in message.blocks[0].text.text + "".join(b.text.text for b in message.blocks[1:])
    assert entry.title.get_text(lang) in message.text  # says which entry it speaks from


@pytest.mark.parametrize("question", ["does this also happen with nn.NLLLoss?", "用 conda 安装的可以吗？",
                                      "does this also happen on Windows? Thanks"])
def test_words_the_entry_does_not_use_find_nothing(kb, question):
    # backward through the graph twice says nothing about losses' targets, conda or Windows;
    # "also happen" and 可以/吗 are the question's frame, not its subject
    assert best_passage(kb, kb.resolve("pytorch/backward-twice"), question) is None


def test_thanks_are_chatter_and_questions_are_not():
    assert all(is_chatter(t) for t in ["thanks!", "고마워요", "谢谢", "Thank you", "ok", ":pray:", ""])
    assert not any(is_chatter(t) for t in ["thanks, but does it work with DDP?", "그럼 batch size를 줄이면 되나요?",
                                           "用 conda 安装的可以吗？"])
