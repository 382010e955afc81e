"""Reading Slack messages: entities decoded once, tokens stripped, code from fences
and rich_text_preformatted blocks, snippets told apart from tracebacks."""

from __future__ import annotations

import pytest

from bot.slack.services.answering import carries_error, prose_language
from bot.slack.services.message import looks_like_snippet, parse_message, slack_text_to_plain

TRACEBACK = ('Traceback (most recent call last):\n  File "train.py", line 9, in <module>\n    loss.backward()\n'
             'RuntimeError: Trying to backward through the graph a second time')


def test_entities_are_decoded_exactly_once():
    # What Slack sends for a user who typed:  if a < b && c > d: print("&lt;")
    sent = 'if a &lt; b &amp;&amp; c &gt; d: print("&amp;lt;")'
    assert slack_text_to_plain(sent) == 'if a < b && c > d: print("&lt;")'


def test_user_channel_and_link_tokens_are_stripped():
    sent = ("<@UBOT01> <!here> see <#C0123|ml-help>: error in <http://train.py|train.py> "
            "and <https://pytorch.org/docs> cc <@U0OTHER|alice>")
    plain = slack_text_to_plain(sent)
    assert "<@" not in plain and "<!" not in plain and "<http" not in plain
    assert "#ml-help" in plain and "train.py" in plain and "https://pytorch.org/docs" in plain


def test_code_comes_from_fences_with_the_language_tag_dropped():
    event = {"text": "<@UBOT01> this fails\n```python\nimport torch\nx = torch.ones(1, requires_grad=True)\n"
                     "y = (x * 2).sum()\ny.backward()\ny.backward()\n```\nand the error:\n```" + TRACEBACK + "```"}
    parsed = parse_message(event)
    assert len(parsed.code_blocks) == 2
    assert parsed.code_blocks[0].startswith("import torch")
    assert parsed.snippets == [parsed.code_blocks[0]]  # the traceback is not a snippet
    assert "Trying to backward" in parsed.text and "```" not in parsed.text
    assert "this fails" in parsed.prose and "import torch" not in parsed.prose


def test_code_comes_from_rich_text_preformatted_blocks():
    code = "import torch\nx = torch.ones(1, requires_grad=True)\nif x.sum() < 3 and True:\n    x.sum().backward()"
    event = {
        "text": "look ```" + code.replace("<", "&lt;") + "```",
        "blocks": [{"type": "rich_text", "block_id": "b1", "elements": [
            {"type": "rich_text_section", "elements": [{"type": "user", "user_id": "UBOT01"},
                                                       {"type": "text", "text": " look "}]},
            {"type": "rich_text_preformatted", "elements": [{"type": "text", "text": code}]},
        ]}],
    }
    parsed = parse_message(event)
    assert parsed.code_blocks == [code]  # raw in blocks: no entity to decode
    assert parsed.snippets == [code]


def test_snippets_parse_as_python_and_are_more_than_a_name():
    assert looks_like_snippet("import torch\nprint(torch.ones(2))")
    assert not looks_like_snippet("RuntimeError")
    assert not looks_like_snippet(TRACEBACK)
    assert not looks_like_snippet("def broken(:\n  pass")


def test_a_bare_mention_carries_no_error_but_a_pasted_one_does():
    assert not carries_error(parse_message({"text": "<@UBOT01> any idea?"}))
    assert not carries_error(parse_message({"text": "<@UBOT01> 이거 왜 그래요?"}))
    assert carries_error(parse_message({"text": "<@UBOT01> " + TRACEBACK}))
    assert carries_error(parse_message({"text": "<@UBOT01> got CUDA out of memory when training"}))
    assert carries_error(parse_message({"text": "<@UBOT01> see file", "files": [{"id": "F1"}]}))


@pytest.mark.parametrize("question", ["what is this error?", "이거 무슨 에러예요?", "这是什么错误？",
                                      "why does this exception keep failing?", "这个 RuntimeError 是什么错误？"])
def test_a_question_about_an_error_is_not_error_text(question):
    assert not carries_error(parse_message({"text": f"<@UBOT01> {question}"}))


@pytest.mark.parametrize("text", ["now I get this: RuntimeError: element 0 of tensors does not require grad",
                                  "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
                                  "학습 중에 CUDA error: device-side assert triggered 가 나요",
                                  "NCCL error in: ProcessGroupNCCL.cpp:1269, unhandled system error",
                                  "cuDNN error: CUDNN_STATUS_NOT_SUPPORTED",
                                  "UserWarning: Detected call of `lr_scheduler.step()` before `optimizer.step()`",
                                  "I keep getting Expected all tensors to be on the same device, but found at least "
                                  "two devices, cuda:0 and cpu"])
def test_error_text_carries_its_own_error(text):
    assert carries_error(parse_message({"text": f"<@UBOT01> {text}"}))


def test_the_askers_language_comes_from_their_prose_not_the_pasted_error():
    assert prose_language(parse_message({"text": "역전파 오류가 나요 ```" + TRACEBACK + "```"}).prose) == "ko"
    assert prose_language(parse_message({"text": "反向传播报错了 ```" + TRACEBACK + "```"}).prose) == "zh"
    assert prose_language(parse_message({"text": "help ```" + TRACEBACK + "```"}).prose) is None
