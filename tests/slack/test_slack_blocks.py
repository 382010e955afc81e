"""Block Kit answers: split at 3,000 characters, at most 50 blocks, fallback text,
never rejected for length (checked with slack_sdk's own validation and with the
fake Slack's limits)."""

from __future__ import annotations

from slack_fake_api import block_problems

from bot.slack.blocks import (SECTION_LIMIT, answer_message, compact_answer_message, split_mrkdwn,
                              verification_progress, verification_result)


def match(i: int = 0, *, root_cause: str = "Autograd freed the saved tensors.", n_workarounds: int = 2,
          code: str = "loss.backward()", explanation: str = "Call backward once.") -> dict:
    return {
        "id": f"pytorch/example-{i}", "title": f"Example error {i}", "score": 1.0, "confidence": 0.92,
        "root_cause": root_cause,
        "workarounds": [{"id": f"w{k}", "title": f"Workaround {k}", "explanation": explanation, "code": code,
                         "success_rate": 0.8, "evidence": 3, "rate_source": "verified", "rate_kind": "measured",
                         "rate_text": "fixed 4 of 5 verified runs on torch 2.13", "caveats": None, "patch": None}
                        for k in range(n_workarounds)],
        "dead_ends": [{"id": "d1", "title": "detach() first", "why": "No grad_fn left.", "code": "x.detach()",
                       "leads_to": "pytorch/no-grad-fn"}],
        "sources": [{"title": "Docs | autograd", "url": "https://pytorch.org/docs/stable/autograd.html"},
                    {"title": "a local note"}],
    }


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


def test_a_long_answer_is_split_into_sections_under_the_limit():
    answer = {"answered": True, "language": "en", "matches": [match(root_cause="Freed buffers. " * 700)]}
    payload = rendered(answer_message(answer, answer_id=7))
    texts = section_texts(payload)
    assert all(len(t) <= 3000 for t in texts)
    assert sum(t.count("Freed") for t in texts) == 700  # nothing lost, no word cut
    assert payload["text"] and len(payload["text"]) <= 3000


def test_a_huge_answer_stays_within_50_blocks_and_says_it_was_shortened():
    answer = {"answered": True, "language": "en",
              "matches": [match(n_workarounds=40, code="y = x * 2\n" * 500)] + [match(i) for i in range(1, 4)]}
    payload = rendered(answer_message(answer, answer_id=8))
    assert len(payload["blocks"]) == 50
    assert payload["blocks"][-2]["type"] == "actions"  # the buttons always survive
    assert "more parts not shown" in payload["blocks"][-3]["elements"][0]["text"]


def test_answers_show_root_cause_workarounds_dead_ends_sources_and_buttons():
    answer = {"answered": True, "language": "en", "matches": [match(0), match(1)]}
    payload = rendered(answer_message(answer, answer_id=3, votes=(2, 1)))
    body = "\n".join(section_texts(payload))
    assert "Example error 0" in body and "Root cause" in body and "Autograd freed" in body
    assert "Workaround 0" in body and "worked 80% · fixed 4 of 5 verified runs on torch 2.13" in body

    assert "detach() first" in body and "`pytorch/no-grad-fn`" in body
    assert "<https://pytorch.org/docs/stable/autograd.html|Docs / autograd>" in body
    actions = next(b for b in payload["blocks"] if b["type"] == "actions")
    labels = [e["text"]["text"] for e in actions["elements"]]
    assert labels == ["Verify fix", "👍 2", "👎 1"]
    assert {e["value"] for e in actions["elements"]} == {"3"}


def test_private_answers_get_a_share_button():
    answer = {"answered": True, "language": "en", "matches": [match()]}
    actions = next(b for b in rendered(answer_message(answer, answer_id=4, private=True))["blocks"]
                   if b["type"] == "actions")
    assert [e["action_id"] for e in actions["elements"]] == ["verify_fix", "vote_up", "vote_down", "share_answer"]


def test_an_unsure_answer_says_so_in_the_askers_language():
    answer = {"answered": False, "language": "ko", "matches": [match()]}
    payload = rendered(answer_message(answer, answer_id=5))
    assert "확실하지 않아" in payload["text"]
    assert "verify_fix" not in str(payload["blocks"])  # nothing to verify


def test_korean_and_chinese_labels():
    for lang, label in (("ko", "근본 원인"), ("zh", "根本原因")):
        payload = rendered(answer_message({"answered": True, "language": lang, "matches": [match()]}, answer_id=1))
        assert label in "\n".join(section_texts(payload))


def test_text_from_the_knowledge_base_is_escaped_for_mrkdwn():
    answer = {"answered": True, "language": "en", "matches": [match(root_cause="if a < b & c > d")]}
    assert "if a &lt; b &amp; c &gt; d" in "\n".join(section_texts(rendered(answer_message(answer, answer_id=1))))


def test_compact_form_is_small():
    answer = {"answered": True, "language": "en", "matches": [match(n_workarounds=40, root_cause="x" * 9000)]}
    payload = rendered(compact_answer_message(answer, answer_id=1))
    assert len(payload["blocks"]) < 10


def test_verification_messages():
    progress = rendered(verification_progress("en", "fix 2 of 3: retain_graph=True", 1, 4))
    assert "fix 2 of 3: retain_graph=True (1/4)" in progress["text"]
    assert "원본 실행 중" in rendered(verification_progress("ko", "running original", 0, 1))["text"]
    result = {"reproduced": True, "exit_reason": "error", "output": "line\n" * 100,
              "error": {"type": "RuntimeError", "message": "Trying to backward through the graph a second time",
                        "entry_id": "pytorch/backward-twice"},
              "fixes": [{"workaround": "w0", "status": "fixed", "error": None, "seconds": 1.5,
                         "peak_memory_bytes": 50 * 2**20},
                        {"workaround": "d1", "status": "new_error", "error": {"type": "RuntimeError"},
                         "seconds": 1.1, "peak_memory_bytes": 0, "kind": "dead_end"}]}
    payload = rendered(verification_result(result, "en", titles={"w0": "Add the losses"}, file_attached=True))
    body = "\n".join(section_texts(payload))
    assert "Add the losses*: fixed (1.5s, 50 MiB)" in body
    assert "d1*: new error _(a dead end from the answer)_" in body and "full output attached" in body
    assert body.count("line\n") == 15  # the excerpt: the last lines only


def test_an_estimate_is_shown_as_an_estimate_without_a_percentage():
    m = match(0)
    for w in m["workarounds"]:
        w.update(success_rate=None, rate_kind="estimate", rate_text="team estimate, not yet verified",
                 rate_source="prior")
    body = "\n".join(section_texts(rendered(answer_message({"answered": True, "language": "en", "matches": [m]},
                                                           answer_id=3, votes=(0, 0)))))
    assert "team estimate, not yet verified" in body and "%" not in body
