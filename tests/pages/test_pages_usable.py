"""Pages people can use (issue 26, item 8): search by relevance with the exact match
first, example messages in front of the regular expressions, what every row would repeat
said once, titles that do not repeat themselves, plurals, and text cut at a word."""

from __future__ import annotations

import json
import re

import answer_docs
import pytest

from bot.pages import charts, data, html
from bot.pages.site import KnowledgePages

from .conftest import REPO, fetch
from .test_pages_http import BT, Page

KB = "PyTorch error knowledge base"


def _get(app: KnowledgePages, path: str, query: str = "") -> tuple[str, str]:
    """One request to the pages' WSGI app: (status, body)."""
    seen = {}

    def start_response(status, headers):
        seen["status"] = status

    body = b"".join(app({"REQUEST_METHOD": "GET", "PATH_INFO": path, "QUERY_STRING": query}, start_response))
    return seen["status"], body.decode()


@pytest.fixture(scope="module")
def full_site():
    """The pages over the whole knowledge base (the slice of conftest is too small to rank)."""
    return KnowledgePages(store=None, knowledge_dir=REPO / "knowledge")


def _listed(body: str) -> list[str]:
    return [h.split("?")[0] for h in Page(body).links() if h.startswith("/kb/pytorch/")]


def test_search_lists_the_exact_match_first(full_site):
    status, body = _get(full_site, "/kb/", "q=out+of+memory")
    assert status.startswith("200")
    found = _listed(body)
    # The GPU out-of-memory entry says "out of memory" in its title; the others only have
    # the words apart ("out of shared memory", "outside its memory").
    assert found[0] == "/kb/pytorch/cuda-oom" and len(found) >= 3, found
    assert set(found) >= {"/kb/pytorch/dataloader-shm", "/kb/pytorch/cuda-illegal-memory-access"}
    # An entry's id, or its title in another language, is an exact match too.
    assert _listed(_get(full_site, "/kb/", "q=backward-twice")[1])[0] == f"/kb/{BT}"
    assert _listed(_get(full_site, "/kb/", "q=backward")[1])[0] == f"/kb/{BT}"


def test_search_finds_a_pasted_message_by_the_entry_patterns(full_site):
    # Numbers no example carries: the words alone would not find it; the patterns do.
    pasted = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 37.13 GiB. GPU 3 has 1.17 GiB free"
    status, body = _get(full_site, "/kb/", "q=" + pasted.replace(" ", "+"))
    assert _listed(body) == ["/kb/pytorch/cuda-oom"]


def test_relevance_weighs_whole_words_over_parts(full_site):
    kb = full_site.knowledge()
    oom, illegal = kb.entries["pytorch/cuda-oom"], kb.entries["pytorch/cuda-illegal-memory-access"]
    assert data.relevance(oom, "out of memory") > data.relevance(illegal, "out of memory") > 0
    assert data.relevance(oom, "pytorch/cuda-oom") == data.relevance(oom, "GPU out of memory (CUDA out of memory)")


def test_entry_page_shows_example_messages_before_the_folded_patterns(served):
    text = fetch(f"{served.url}/kb/{BT}").text
    section = text[text.index('<section id="matches">'):text.index("</section>", text.index('id="matches"'))]
    fold = section.index("<details")
    assert section.index('class="msg"') < fold  # real messages in front
    assert "RuntimeError: Trying to backward through the graph a second time" in section[:fold]
    patterns = section[fold:]
    assert "<summary>Technical: the patterns the bot matches (regular expressions)</summary>" in patterns
    assert "trying to backward through the graph a second time" in patterns
    assert not re.search(r"<code>[^<]*\\", section[:fold]), "no regular expression outside the fold"
    ko = fetch(f"{served.url}/kb/{BT}?lang=ko").text
    assert "<summary>기술 정보: 봇이 찾는 패턴 (정규 표현식)</summary>" in ko
    md = fetch(f"{served.url}/kb/{BT}.md").text
    assert md.index("```text\nRuntimeError: Trying to backward") < md.index("### Technical: the patterns")


def test_the_list_says_once_what_every_row_would_repeat(served):
    page = Page(fetch(f"{served.url}/kb/").text)
    text = page.visible
    assert "kb verify has not run it yet" not in text
    assert text.count("An entry without a kb verify note has not been run by kb verify yet.") == 1
    assert text.count("No fix measured yet") == 0
    assert text.count("An entry without a percentage has no measured fix yet") == 1
    assert "100% fixed 3 of 3 verified runs" in text  # what differs is still on its row
    for lang, said in (("ko", "kb verify 표시가 없는 항목은"), ("zh", "没有 kb verify 标注的条目")):
        assert Page(fetch(f"{served.url}/kb/?lang={lang}").text).visible.count(said) == 1


def _title(body: str) -> str:
    return re.search(r"<title>(.*?)</title>", body, re.S).group(1)


def test_titles_do_not_repeat_themselves(served):
    assert _title(fetch(f"{served.url}/kb/").text) == KB
    assert _title(fetch(f"{served.url}/kb/?lang=zh").text) == "PyTorch 错误知识库"
    assert _title(fetch(f"{served.url}/kb/?q=out+of+memory").text) == f"“out of memory” · {KB}"
    assert _title(fetch(f"{served.url}/kb/stats").text) == f"Dashboard · {KB}"
    assert _title(fetch(f"{served.url}/kb/{BT}").text).count(KB) == 1


def test_counts_are_said_with_their_plural(served, evidence):
    from bot.evidence.record import record_answer

    once = answer_docs.document(answer_docs.match("pytorch/cuda-oom", confidence=0.9))
    assert record_answer("RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB", once,
                         store=evidence.store) is not None
    text = Page(fetch(f"{served.url}/kb/stats").text).visible
    assert "2 times" in text and "1 time" in text and "1 times" not in text
    assert "Times asked" in text  # the column of the unanswered questions
    assert html.count_text("times", 1, "ko") == "1회" and html.count_text("times", 3, "zh") == "3 次"
    assert html.count_text("entries", 1, "en") == "1 entry" and html.count_text("entries", 2, "en") == "2 entries"
    assert html.count_text("entries", 1, "ko") == "항목 1개"


def test_long_text_is_cut_at_a_word_with_an_ellipsis(served, evidence):
    from bot.evidence.record import record_answer
    from bot.pages.cut import at_word, end_at_word

    # An unanswered question longer than the stored excerpt (which is cut at a character).
    question = "ValueError: the frobnicator exploded while " + "recalibrating " * 30
    unsure = answer_docs.document(answer_docs.match("pytorch/cuda-oom", confidence=0.2), answered=False,
                                    declined="not-covered")
    record_answer(question, unsure, store=evidence.store)
    shown = [g["excerpt"] for g in json.loads(fetch(f"{served.url}/kb/stats.json").text)["unanswered"]
             if "frobnicator exploded while" in g["excerpt"]]
    assert shown and shown[0].endswith("recalibrating…"), shown
    assert "recalibrating…" in Page(fetch(f"{served.url}/kb/stats").text).visible

    assert at_word("RuntimeError: Trying to backward through the graph a second time", 40) == \
        "RuntimeError: Trying to backward…"
    assert at_word("对同一个计算图第二次执行反向传播", 8) == "对同一个计算图…"  # Chinese breaks between characters
    assert at_word("같은 계산 그래프로 역전파를 두 번 수행함", 10) == "같은 계산…"  # Korean at a space
    assert at_word("short", 10) == "short"
    assert end_at_word("the frobnicator explo…") == "the frobnicator…"
    assert end_at_word("the frobnicator …") == "the frobnicator…"
    # A chart label is cut to 70 characters: before "already", not inside it.
    label = ("Backward through the same graph a second time (saved tensors were already released) "
             "(pytorch/backward-twice)")
    svg = str(charts.hbar_chart([(label, 2, "2 times")], title="t"))
    assert "</title>Backward through the same graph a second time (saved tensors were…</text>" in svg
