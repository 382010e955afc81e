from bot.retrieval.tokenize import tokenize


def test_code_identifiers_are_split_and_kept_whole():
    tokens = tokenize("loss.backward(retain_graph=True) torch.cuda.OutOfMemoryError")
    for expected in ("loss.backward", "loss", "backward", "retain_graph", "retain", "graph",
                     "torch.cuda.outofmemoryerror", "outofmemoryerror", "out", "memory", "error"):
        assert expected in tokens
    assert "of" not in tokens  # a stop word, even inside CamelCase


def test_korean_uses_syllable_bigrams():
    tokens = tokenize("메모리가 부족")
    assert tokens == ["메모", "모리", "리가", "부족"]
    # A particle glued to the word still shares bigrams with the bare word.
    assert set(tokenize("메모리")) <= set(tokenize("메모리가"))


def test_chinese_uses_characters_and_bigrams():
    tokens = tokenize("显存不足")
    assert {"显", "存", "显存", "存不", "不足"} <= set(tokens)


def test_placeholders_stay_single_tokens_and_numbers_go():
    assert tokenize("allocate <size> 123") == ["allocate", "<size>"]
