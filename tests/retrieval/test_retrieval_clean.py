import pytest

from bot.retrieval.clean import MAX_CHARS, clean, decode_entities_once, strip_slack_tokens
from bot.text.inputs import decode_bytes
from bot.text import InputError


def test_slack_tokens_are_stripped_and_labels_kept():
    text = "<@U0123ABC> <!here> see <https://pytorch.org/docs|the docs> in <#C0999|ml-help> or <https://x.org>"
    assert strip_slack_tokens(text) == "  see the docs in #ml-help or https://x.org"


def test_html_entities_are_decoded_exactly_once():
    assert decode_entities_once("a &lt; b &amp;&amp; c &gt; d") == "a < b && c > d"
    assert decode_entities_once("&amp;lt;module&amp;gt;") == "&lt;module&gt;"
    # Not an entity Slack sends: left alone (html.unescape would make it "¬ation").
    assert decode_entities_once("x&notation") == "x&notation"


def test_slack_message_with_fence_and_entities():
    raw = ("<@U1> help ```Traceback (most recent call last):\n  File \"x.py\", line 1, in &lt;module&gt;\n"
           "RuntimeError: a &amp; b``` thanks")
    cleaned = clean(raw)
    assert 'in <module>' in cleaned.text
    assert "RuntimeError: a & b" in cleaned.text
    assert "```" not in cleaned.text and "<@U1>" not in cleaned.text
    assert cleaned.code_blocks and cleaned.code_blocks[0].startswith("Traceback")


def test_fence_with_language_tag_drops_the_tag():
    cleaned = clean("```python\nloss.backward()\n```")
    assert cleaned.text == "loss.backward()"


def test_ansi_colours_are_removed():
    assert clean("\x1b[31mRuntimeError\x1b[0m: \x1b[1mboom\x1b[0m").text == "RuntimeError: boom"


def test_colab_markup_is_undone():
    raw = """---------------------------------------------------------------------------
RuntimeError                              Traceback (most recent call last)
<ipython-input-7-3f2a1b> in <module>()
      3 out = model(x)
----> 4 loss.backward()

[/usr/local/lib/python3.7/dist-packages/torch/_tensor.py](https://localhost:8080/#) in backward(self, gradient)
RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn"""
    text = clean(raw).text
    assert "-----" not in text and "---->" not in text and "](https://" not in text
    assert "Traceback (most recent call last):" in text
    assert "    loss.backward()" in text
    assert "/usr/local/lib/python3.7/dist-packages/torch/_tensor.py in backward(self, gradient)" in text


def test_rich_box_is_unboxed():
    raw = """╭──────── Traceback (most recent call last) ────────╮
│ /home/user/train.py:42 in <module>                 │
│                                                    │
│   41 │   │   loss = crit(out, y)                   │
│ ❱ 42 │   │   loss.backward()                       │
╰────────────────────────────────────────────────────╯
RuntimeError: boom"""
    lines = clean(raw).text.split("\n")
    assert lines[0] == "Traceback (most recent call last)"
    assert "/home/user/train.py:42 in <module>" in [line.strip() for line in lines]
    assert "loss.backward()" in [line.strip() for line in lines]
    assert not any(ch in clean(raw).text for ch in "│╭╰❱")


@pytest.mark.parametrize("bad", ["", "   \n\t ", None])
def test_empty_input_is_refused_with_a_reason(bad):
    with pytest.raises(InputError, match="empty"):
        clean(bad)


def test_binary_input_is_refused():
    with pytest.raises(InputError, match="binary"):
        clean("PK\x03\x04\x00\x00\x14\x00")
    with pytest.raises(InputError, match="binary"):
        decode_bytes(bytes(range(256)) * 4)


def test_markup_only_input_is_refused():
    with pytest.raises(InputError, match="no text left"):
        clean("<@U123> <!here>")


def test_huge_input_keeps_head_and_tail():
    raw = "x = 1\n" * 200_000 + "RuntimeError: the real error at the end"
    cleaned = clean(raw)
    assert cleaned.truncated and cleaned.original_chars == len(raw)
    assert len(cleaned.text) <= MAX_CHARS + 10
    assert cleaned.text.endswith("RuntimeError: the real error at the end")


def test_decode_bytes_accepts_utf8_and_utf16():
    assert decode_bytes("메모리 부족".encode()) == "메모리 부족"
    assert decode_bytes("hi".encode("utf-16")) == "hi"


@pytest.mark.parametrize("text", ["[" * 200_000 + "1," * 100_000, "a." * 500_000, "│" + " " * 100 + "│\n" * 3000,
                                  '  File "' + "/x" * 1000 + '", line 1, in f\n' * 500, "Xa" * 300_000 + ": boom"])
def test_pathological_pastes_give_an_answer_or_a_clear_error(text):
    from bot.retrieval.query import understand

    try:
        query = understand(text)
    except InputError as exc:  # e.g. a box with nothing in it
        assert "no text left" in str(exc)
    else:
        assert query.search_text and query.language in ("en", "ko", "zh")
