"""classify_error: the captured error to a knowledge entry id, with a confidence."""

from __future__ import annotations

from bot.verify.classify import classify_error


def test_every_backward_twice_example_classifies(kb):
    entry = kb.resolve("pytorch/backward-twice")
    for example in entry.examples:
        type_, _, message = example.partition(": ")
        assert classify_error(type_, message, kb=kb) == ("pytorch/backward-twice", 0.95)


def test_a_message_with_paths_and_numbers_still_matches(kb):
    message = "element 3 of tensors does not require grad and does not have a grad_fn"
    entry_id, confidence = classify_error("RuntimeError", message, kb=kb)
    assert entry_id == "pytorch/no-grad-fn" and confidence > 0.9


def test_an_unexpected_exception_type_lowers_the_confidence(kb):
    message = "Trying to backward through the graph a second time"
    entry_id, confidence = classify_error("ValueError", message, kb=kb)
    assert entry_id == "pytorch/backward-twice"
    assert confidence < 0.9


def test_no_match(kb):
    assert classify_error("KeyError", "'optimizer'", kb=kb) == (None, 0.0)
    assert classify_error(None, "", kb=kb) == (None, 0.0)


def test_the_retriever_is_asked_only_when_no_signature_matches(kb):
    asked = []

    def retriever(type_, message):
        asked.append((type_, message))
        return "pytorch/some-entry", 0.4

    assert classify_error("KeyError", "'optimizer'", kb=kb, retriever=retriever) == ("pytorch/some-entry", 0.4)
    assert asked == [("KeyError", "'optimizer'")]
    classify_error("RuntimeError", "Trying to backward through the graph a second time", kb=kb, retriever=retriever)
    assert len(asked) == 1


UNPICKLED = ("Traceback (most recent call last):\n"
             '  File "/tmp/run/snippet.py", line 27, in <module>\n'
             "    model = torch.load(buffer, weights_only=False)\n"
             '  File "/venv/lib/python3.11/site-packages/torch/serialization.py", line 1478, in find_class\n'
             "    return super().find_class(mod_name, name)\n"
             "ModuleNotFoundError: No module named 'models'\n")


def test_a_message_that_needs_its_frames_is_classified_with_the_traceback(kb):
    message = "No module named 'models'"
    assert classify_error("ModuleNotFoundError", message, kb=kb) == (None, 0.0)
    assert classify_error("ModuleNotFoundError", message, kb=kb, traceback=UNPICKLED) == \
        ("pytorch/pickled-model-module-missing", 0.95)


def test_frames_alone_never_classify_another_message(kb):
    traceback = UNPICKLED.replace("ModuleNotFoundError: No module named 'models'", "KeyError: 'model'")
    assert classify_error("KeyError", "'model'", kb=kb, traceback=traceback) == (None, 0.0)
