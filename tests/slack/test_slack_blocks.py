"""Block Kit answers: a first message that fits one screen (at most 1,500 visible
characters) with the details on demand; split at 3,000 characters, at most 50 blocks,
fallback text, never rejected for length (checked with slack_sdk's own validation and
with the fake Slack's limits)."""

from __future__ import annotations

import json

import answer_docs
from slack_fake_api import block_problems

from bot.answer.document import Match
from bot.verify.report import FixRow, VerifyReport

from bot.slack.blocks import (FIRST_MESSAGE_LIMIT, SECTION_LIMIT, answer_message, compact_answer_message,
                              details_message, details_view, minimal_answer_message, output_excerpt, split_mrkdwn,
                              tidy, verification_progress, verification_result, visible_chars)


def match(i: int = 0, *, root_cause: str = "Autograd freed the saved tensors.", n_workarounds: int = 2,
          code: str = "loss.backward()", explanation: str = "Call backward once.") -> Match:
    return answer_docs.match(
        f"pytorch/example-{i}", f"Example error {i}", score=1.0, confidence=0.92, root_cause=root_cause,
        workarounds=[answer_docs.workaround(f"w{k}", f"Workaround {k}", explanation=explanation, code=code,
                                            success_rate=0.8, evidence=3, rate_source="verified",
                                            rate_kind="measured", rate_text="fixed 4 of 5 verified runs on torch 2.13")
                     for k in range(n_workarounds)],
        dead_ends=[answer_docs.dead_end("d1", "detach() first", why="No grad_fn left.", code="x.detach()",
                                        leads_to="pytorch/no-grad-fn")],
        sources=[answer_docs.source("Docs | autograd", "https://pytorch.org/docs/stable/autograd.html"),
                 answer_docs.source("a local note")],
    )


def rendered(message) -> dict:
    payload = message.payload()  # slack_sdk validates every block here (raises on a broken limit)
    assert block_problems(payload["blocks"], payload["text"], where="test") == []
    return payload


def section_texts(payload: dict) -> list[str]:
    return [b["text"]["text"] for b in payload["blocks"] if b["type"] == "section"]


def test_split_keeps_every_line_and_reopens_code_fences():
    code = "\n".join(f"x{i} = torch.ones({i})  # line {i} " + "." * 60 for i in range(200))
    text = "*Workaround*\nSome words first.\n```\n" + code + "\n```\nafter the code"
    chunks = split_mrkdwn(text)
    assert len(chunks) > 3
    assert all(len(c) <= SECTION_LIMIT for c in chunks)
    assert all(c.count("```") % 2 == 0 for c in chunks)  # every piece renders its code as code
    rejoined = "\n".join(c for c in chunks).replace("\n```\n```\n", "\n")
    assert rejoined == text


def test_a_single_huge_line_is_cut_too():
    chunks = split_mrkdwn("E" * 10_000)
    assert all(len(c) <= SECTION_LIMIT for c in chunks) and "".join(chunks) == "E" * 10_000


def test_a_long_answer_is_split_into_sections_under_the_limit_in_the_details():
    answer = answer_docs.document(match(root_cause="Freed buffers. " * 700), answered=True, language="en")
    payload = rendered(details_message(answer, 7))
    texts = section_texts(payload)
    assert all(len(t) <= 3000 for t in texts)
    assert sum(t.count("Freed") for t in texts) == 700  # nothing lost, no word cut
    assert payload["text"] and len(payload["text"]) <= 3000
    first = rendered(answer_message(answer, answer_id=7))
    assert visible_chars(first) <= FIRST_MESSAGE_LIMIT  # the first message takes one sentence of it


def test_a_huge_answer_stays_within_50_blocks_and_says_it_was_shortened():
    answer = answer_docs.document(match(n_workarounds=40, code="y = x * 2\n" * 500), *(match(i) for i in range(1, 4)))
    payload = rendered(details_message(answer, 8))
    assert len(payload["blocks"]) == 50
    assert "more parts not shown" in payload["blocks"][-2]["elements"][0]["text"]
    view = details_view(answer, 8).to_dict()  # slack_sdk validates the modal (100 blocks at most)
    assert len(view["blocks"]) <= 100
    first = rendered(answer_message(answer, answer_id=8))
    assert visible_chars(first) <= FIRST_MESSAGE_LIMIT
    assert any(b["type"] == "actions" for b in first["blocks"])


def test_the_first_message_is_short_and_the_details_hold_the_rest():
    long_cause = ("Autograd frees the saved tensors after the first backward pass, so a second pass finds "
                  "them gone. " + "More background on graphs and buffers. " * 30)
    answer = answer_docs.document(match(0, root_cause=long_cause, n_workarounds=4),
                                                              match(1), answered=True, language="en")
    payload = rendered(answer_message(answer, answer_id=3, votes=(2, 1)))
    body = "\n".join(section_texts(payload))
    assert visible_chars(payload) <= FIRST_MESSAGE_LIMIT
    assert "Example error 0" in body and "Match confidence: high" in body
    assert "Autograd frees the saved tensors" in body and "More background" not in body  # one sentence
    assert "Best fix: Workaround 0" in body and "worked 80% · fixed 4 of 5 verified runs on torch 2.13" in body
    assert "loss.backward()" in body  # the fix's code
    assert "Workaround 1" not in body and "Example error 1" not in body
    context_text = " ".join(e["text"] for b in payload["blocks"] if b["type"] == "context" for e in b["elements"])
    assert "detach() first" in context_text  # the most tempting dead end, one line
    actions = next(b for b in payload["blocks"] if b["type"] == "actions")
    labels = [e["text"]["text"] for e in actions["elements"]]
    assert labels == ["Verify fix", "All fixes & details", "👍 2", "👎 1"]
    assert {e["value"] for e in actions["elements"]} == {"3"}
    assert "0.92" not in json.dumps(payload)  # confidence in words, not a score

    details = "\n".join(section_texts(rendered(details_message(answer, 3))))
    assert "Root cause" in details and "More background" in details
    assert all(f"Workaround {k}" in details for k in range(4))
    assert "detach() first" in details and "No grad_fn left." in details
    assert "<https://pytorch.org/docs/stable/autograd.html|Docs / autograd>" in details
    assert "a local note" not in details  # no internal file names among the sources


def test_a_dead_end_names_the_error_it_leads_to_by_title():
    m = match(0)
    m.dead_ends[0].leads_to_title = "Tensor has no grad_fn"
    payload = rendered(answer_message(answer_docs.document(m, answered=True, language="en"), answer_id=1))
    text = json.dumps(payload)
    assert "Tensor has no grad_fn" in text and "pytorch/no-grad-fn" not in text
    details = json.dumps(rendered(details_message(answer_docs.document(m, answered=True, language="en"), 1)))
    assert "Tensor has no grad_fn" in details and "pytorch/no-grad-fn" not in details


def test_private_answers_get_a_share_button():
    answer = answer_docs.document(match(), answered=True, language="en")
    actions = next(b for b in rendered(answer_message(answer, answer_id=4, private=True))["blocks"]
                   if b["type"] == "actions")
    assert [e["action_id"] for e in actions["elements"]] == ["verify_fix", "answer_details", "vote_up", "vote_down",
                                                              "share_answer"]


def test_an_unsure_answer_says_so_in_the_askers_language():
    answer = answer_docs.document(match(), answered=False, language="ko")
    payload = rendered(answer_message(answer, answer_id=5))
    assert "확실하지 않아" in payload["text"]
    assert "verify_fix" not in str(payload["blocks"])  # nothing to verify


def test_korean_and_chinese_labels():
    for lang, first_label, label in (("ko", "가장 좋은 해결책", "근본 원인"), ("zh", "最佳修复", "根本原因")):
        answer = answer_docs.document(match(), answered=True, language=lang)
        payload = rendered(answer_message(answer, answer_id=1))
        assert first_label in "\n".join(section_texts(payload))
        assert "All fixes" not in json.dumps(payload, ensure_ascii=False)
        assert label in "\n".join(section_texts(rendered(details_message(answer, 1))))


def test_folded_chinese_text_loses_its_stray_spaces():
    assert (tidy("为了节省内存， autograd 会释放\n中间张量。 之后再次反向传播")
            == "为了节省内存，autograd 会释放中间张量。之后再次反向传播")
    korean = "메모리를 아끼기 위해 버퍼를 해제합니다"
    assert tidy(korean) == korean  # Korean keeps its spaces
    m = match(0, root_cause="计算图的缓冲区\n已经被释放。 第二次反向传播失败。")
    payload = rendered(answer_message(answer_docs.document(m, answered=True, language="zh"), answer_id=1))
    assert "计算图的缓冲区已经被释放。" in "\n".join(section_texts(payload))


def test_text_from_the_knowledge_base_is_escaped_for_mrkdwn_and_in_the_notification():
    answer = answer_docs.document(match(root_cause="if a < b & c > d <!channel> happens, it fails"),
                                  answered=True, language="en")
    payload = rendered(answer_message(answer, answer_id=1))
    assert "if a &lt; b &amp; c &gt; d" in "\n".join(section_texts(payload))
    assert "<!channel>" not in payload["text"] and "&lt;!channel&gt;" in payload["text"]


def test_compact_and_minimal_forms_are_small_and_keep_the_fix_and_buttons():
    answer = answer_docs.document(match(n_workarounds=40, root_cause="x" * 9000), answered=True, language="en")
    payload = rendered(compact_answer_message(answer, answer_id=1))
    assert len(payload["blocks"]) < 10
    minimal = rendered(minimal_answer_message(answer, answer_id=1))
    assert "Workaround 0" in json.dumps(minimal) and "loss.backward()" in json.dumps(minimal)
    assert [b["type"] for b in minimal["blocks"]] == ["section", "actions"]


def test_verification_messages():
    titles = {"retain-graph": "Keep the graph for the second pass"}
    progress = rendered(verification_progress("en", "fix 2 of 3: retain-graph", 2, 4, titles=titles))
    assert "1 of 3 fixes checked · now trying: Keep the graph for the second pass" in progress["text"]
    assert "retain-graph" not in progress["text"] and "/4" not in progress["text"]  # one counter, titles not ids
    assert "원본 실행 중" in rendered(verification_progress("ko", "running original", 0, 1))["text"]
    fix = dict(error=None, seconds=None, peak_memory_bytes=None, kind="workaround", patch=None, title=None)
    result = VerifyReport.from_json({
        "reproduced": True, "exit_reason": "error", "output": "line\n" * 100, "environment": {},
        "error": {"type": "RuntimeError", "message": "Trying to backward through the graph a second time",
                  "entry_id": "pytorch/backward-twice"},
        "fixes": [FixRow.from_json({**fix, "workaround": "w0", "status": "fixed", "seconds": 1.5,
                                    "peak_memory_bytes": 50 * 2**20,
                                    "diff": "--- snippet.py\n+++ snippet.py (p)\n@@ -1,2 +1,2 @@\n-y.backward()\n"
                                            "+y.backward(retain_graph=True)\n"}).as_json(),
                  FixRow.from_json({**fix, "workaround": "d1", "status": "new_error", "kind": "dead_end",
                                    "error": {"type": "RuntimeError", "message": None, "entry_id": None},
                                    "seconds": 1.1, "peak_memory_bytes": 0}).as_json()]})
    payload = rendered(verification_result(result, "en", titles={"w0": "Add the losses"}, file_attached=True,
                                           user="U0ASKER"))
    body = "\n".join(section_texts(payload))
    assert "Add the losses*: fixed (1.5s, 50 MiB)" in body
    assert "+y.backward(retain_graph=True)" in body and "+++" not in body  # the fix's diff
    assert "d1*: new error _(a dead end from the answer)_" in body and "full output attached" in body
    assert body.count("line\n") == 15  # the excerpt: the last lines only
    assert "<@U0ASKER>" in json.dumps(payload)


def test_the_output_excerpt_never_cuts_a_line():
    output = "\n".join(f"{i:03d} " + "x" * 150 for i in range(40))
    excerpt, cut = output_excerpt(output)
    assert cut and len(excerpt) <= 1200
    assert all(line.startswith(tuple(f"{i:03d} " for i in range(40))) and len(line) == 154
               for line in excerpt.split("\n"))
    assert excerpt.endswith("039 " + "x" * 150)


def test_an_estimate_is_shown_as_an_estimate_without_a_percentage():
    m = match(0)
    for w in m.workarounds:
        w.success_rate, w.rate_kind, w.rate_text, w.rate_source = None, "estimate", "team estimate, not yet verified", \
            "prior"
    body = "\n".join(section_texts(rendered(answer_message(answer_docs.document(m, answered=True, language="en"),
                                                           answer_id=3, votes=(0, 0)))))
    assert "team estimate, not yet verified" in body and "%" not in body
