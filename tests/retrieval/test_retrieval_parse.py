from bot.retrieval.clean import clean
from bot.retrieval.parse import parse
from bot.retrieval.query import understand

# one traceback; its longest line is split in two adjacent literals
CHAINED = ('''Traceback (most recent call last):
  File "/opt/conda/lib/python3.10/site-packages/torch/utils/data/dataloader.py", line 1132, in _try_get_data
    data = self._data_queue.get(timeout=timeout)
  File "/opt/conda/lib/python3.10/queue.py", line 180, in get
    self.not_empty.wait(remaining)
_queue.Empty

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "C:\\Users\\Kim Lee\\proj\\train.py", line 88, in <module>
    for batch in loader:
  File "C:\\Users\\Kim Lee\\miniconda3\\Lib\\site-packages\\torch\\utils\\data\\'''
'''dataloader.py", line 1146, in _try_get_data
    raise RuntimeError(f'DataLoader worker (pid(s) {pids_str}) exited unexpectedly') from e
RuntimeError: DataLoader worker (pid(s) 12345, 12346) exited unexpectedly''')

DURING_HANDLING = '''Traceback (most recent call last):
  File "a.py", line 3, in <module>
    x = d["k"]
KeyError: 'k'

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "a.py", line 5, in <module>
    y.backward()
RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn'''


def test_chained_traceback_takes_the_last_exception_and_its_frames():
    parsed = parse(clean(CHAINED).text)
    assert [e.type for e in parsed.exceptions] == ["_queue.Empty", "RuntimeError"]
    assert parsed.chained
    last = parsed.last
    assert last.message == "DataLoader worker (pid(s) 12345, 12346) exited unexpectedly"
    assert [f.module for f in last.frames] == ["train.py", "torch/utils/data/dataloader.py"]
    assert last.frames[1].is_torch and not last.frames[0].is_torch
    assert last.frames[1].line == 1146 and last.frames[1].function == "_try_get_data"


def test_during_handling_chain():
    parsed = parse(DURING_HANDLING)
    assert parsed.last.type == "RuntimeError"
    assert parsed.exceptions[0].type == "KeyError"
    assert parsed.last.frames[0].code == "y.backward()"


def test_windows_path_with_spaces_is_a_frame():
    parsed = parse('Traceback (most recent call last):\n  File "C:\\Program Files\\My App\\run.py", line 7, in main\n'
                   '    go()\nValueError: bad')
    frame = parsed.last.frames[0]
    assert frame.module == "run.py" and frame.line == 7 and frame.function == "main"


def test_colab_and_ipython_frames():
    colab = understand("""RuntimeError                              Traceback (most recent call last)
<ipython-input-7-3f2a1b> in <module>()
----> 4 loss.backward()

[/usr/local/lib/python3.7/dist-packages/torch/_tensor.py](https://localhost:8080/#) in backward(self, gradient)
RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn""")
    assert [(f.module, f.function) for f in colab.frames] == [("<notebook>", "<module>"),
                                                              ("torch/_tensor.py", "backward")]
    ipy8 = understand("""Cell In[5], line 3
----> 3 x.view(-1)
File /usr/lib/python3.11/site-packages/torch/_tensor.py:12, in Tensor.view(self)
RuntimeError: view size is not compatible with input tensor's size and stride""")
    assert [(f.module, f.line) for f in ipy8.frames] == [("<notebook>", 3), ("torch/_tensor.py", 12)]
    assert ipy8.error_type == "RuntimeError"


def test_multi_line_message_is_joined_until_a_blank_line():
    parsed = parse("RuntimeError: Error(s) in loading state_dict for Net:\n"
                   "\tMissing key(s) in state_dict: \"fc.weight\".\n"
                   "\tUnexpected key(s) in state_dict: \"head.weight\".\n\nWhat now?")
    assert parsed.last.message.startswith("Error(s) in loading state_dict for Net:")
    assert "Unexpected key(s)" in parsed.last.message and "What now" not in parsed.last.message


def test_warnings_after_the_error_do_not_replace_it():
    parsed = parse("RuntimeError: CUDA out of memory.\nUserWarning: something else")
    assert parsed.last.type == "RuntimeError"


def test_bare_message_and_question_have_no_exception():
    q = understand("CUDA out of memory. Tried to allocate 20.00 MiB")
    assert q.error_type is None and q.message.startswith("CUDA out of memory")
    q = understand("GPU 메모리가 부족하다는 오류가 나요")
    assert q.error_type is None and q.language == "ko"


def test_prefixed_exception_lines():
    assert parse("[rank0]: RuntimeError: NCCL error in: x").last.type == "RuntimeError"
    assert parse("E   ValueError: boom").last.message == "boom"
