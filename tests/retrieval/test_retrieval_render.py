import answer_docs

from bot.answer.render import _cell_width, _wrap, render_answer


def test_wrap_counts_terminal_columns_for_cjk():
    zh = "这个错误说明计算图的一部分被共享了，" * 10
    ko = "그래디언트 누적 루프에서도 같은 손실을 다시 역전파하면 실패합니다. " * 5
    for text in (zh, ko, "plain english words " * 20):
        lines = _wrap(text, "  ", 60)
        assert len(lines) > 1 and all(_cell_width(line) <= 60 for line in lines)
        assert "".join(line.strip().replace(" ", "") for line in lines) == text.replace(" ", "")


def test_choices_are_a_numbered_list_in_the_askers_language():
    from bot.answer.document import Choice

    data = answer_docs.document(answer_docs.match("pytorch/a", "甲", confidence=0.31),
                                answer_docs.match("pytorch/b", "乙", confidence=0.1), answered=False, language="zh",
                                tier="choices", declined="not-covered",
                                choices=[Choice(id="pytorch/a", title="甲", confidence=0.31, line="第一句。"),
                                         Choice(id="pytorch/b", title="乙", confidence=0.1, line="")])
    out = render_answer(data, top=2)
    assert out.startswith("? 是下面其中之一吗？")
    assert "1. 甲  (pytorch/a · 置信度 0.31)" in out and "2. 乙  (pytorch/b · 置信度 0.10)" in out
    assert "第一句。" in out and "--pick N" in out


def test_a_decline_lists_nothing_to_pick():
    data = answer_docs.document(answer_docs.match("pytorch/a", "甲", confidence=0.05), answered=False,
                                language="en", declined="not-covered")
    out = render_answer(data, top=2)
    assert out.startswith("? Not sure which known error this is.") and "pytorch/a" not in out
