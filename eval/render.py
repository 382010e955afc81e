"""Render tracebacks the way different tools print them.

The pasted-error set needs the same kind of error to look the way it looks in a Linux
terminal, a Windows console, Google Colab, a local Jupyter notebook, a rich/typer boxed
traceback, a coloured terminal and a torchrun log with rank prefixes. The helpers here
only lay text out; every message and every frame comes from the caller.

A frame is a tuple (path, line, function, source line or None).
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
CAPTURED = json.loads((HERE / "messages_torch213.json").read_text())

# site-packages folders of typical installs (conda in docker, venvs, Colab, Windows, macOS)
SITES = {
    "conda310": "/opt/conda/lib/python3.10/site-packages",
    "conda38": "/opt/conda/lib/python3.8/site-packages",
    "alice311": "/home/alice/miniconda3/envs/dl/lib/python3.11/site-packages",
    "venv312": "/home/jiwoo/work/.venv/lib/python3.12/site-packages",
    "lustre": "/mnt/lustre/zhangsan/envs/torch113/lib/python3.8/site-packages",
    "colab": "/usr/local/lib/python3.10/dist-packages",
    "colab311": "/usr/local/lib/python3.11/dist-packages",
    "kaggle": "/opt/conda/lib/python3.10/site-packages",
    "win": r"C:\Users\minji\anaconda3\envs\torch\lib\site-packages",
    "win2": r"C:\Users\Chen Wei\AppData\Local\Programs\Python\Python310\lib\site-packages",
    "win3": r"D:\envs\yolo\Lib\site-packages",
    "mac": "/Users/wei/miniforge3/envs/ml/lib/python3.10/site-packages",
}


def sp(site: str, rel: str) -> str:
    """Path of `rel` (posix, relative to site-packages) inside an install."""
    base = SITES.get(site, site)
    if "\\" in base:
        return base + "\\" + rel.replace("/", "\\")
    return base + "/" + rel


def at(site: str, rows) -> list[tuple]:
    """Frames from a table of (rel path, line, function, code) rows, placed in `site`."""
    return [(sp(site, rel), line, func, code) for rel, line, func, code in rows]


def captured(key: str) -> dict:
    return CAPTURED["errors"][key]


def captured_rows(key: str) -> list[tuple]:
    """The PyTorch frames that torch 2.13 really printed for one captured error."""
    return [(f["file"], f["line"], f["func"], f["code"]) for f in captured(key)["frames"]]


def exc_line(key: str) -> str:
    """'Type: message' exactly as the captured error printed."""
    c = captured(key)
    return f"{c['type']}: {c['message']}"


def log(key: str, site: str, script: str, python: str = "/opt/conda") -> str:
    """A captured multi-process log (DataLoader, torchrun) placed in another install."""
    text = CAPTURED["logs"][key]
    base = SITES.get(site, site)
    return (text.replace("{SITE}", base).replace("{SCRIPT}", script).replace("{PYTHON}", python)
            .replace("{BINARY}", python + "/bin/python")).strip("\n")


# --- PyTorch frames per version ----------------------------------------------------
# (file under site-packages, line, function, source line). Line numbers follow the
# releases named; they are what such tracebacks show, not something the evaluation
# depends on.

BACKWARD = {
    "1.4": [("torch/tensor.py", 195, "backward", "torch.autograd.backward(self, gradient, retain_graph, create_graph)"),
            ("torch/autograd/__init__.py", 99, "backward", "allow_unreachable=True)  # allow_unreachable flag")],
    "1.10": [("torch/_tensor.py", 307, "backward", "torch.autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)"),
             ("torch/autograd/__init__.py", 154, "backward", "Variable._execution_engine.run_backward(")],
    "1.13": [("torch/_tensor.py", 487, "backward", "torch.autograd.backward("),
             ("torch/autograd/__init__.py", 197, "backward", "Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass")],
    "2.0": [("torch/_tensor.py", 487, "backward", "torch.autograd.backward("),
            ("torch/autograd/__init__.py", 200, "backward", "Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass")],
    "2.1": [("torch/_tensor.py", 492, "backward", "torch.autograd.backward("),
            ("torch/autograd/__init__.py", 251, "backward", "Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass")],
    "2.3": [("torch/_tensor.py", 525, "backward", "torch.autograd.backward("),
            ("torch/autograd/__init__.py", 267, "backward", "_engine_run_backward("),
            ("torch/autograd/graph.py", 744, "_engine_run_backward", "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass")],
    "2.5": [("torch/_tensor.py", 581, "backward", "torch.autograd.backward("),
            ("torch/autograd/__init__.py", 347, "backward", "_engine_run_backward("),
            ("torch/autograd/graph.py", 825, "_engine_run_backward", "return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass")],
    "2.13": captured_rows("backward_twice"),
}

CALL = {  # calling an nn.Module
    "1.4": [("torch/nn/modules/module.py", 532, "__call__", "result = self.forward(*input, **kwargs)")],
    "1.7": [("torch/nn/modules/module.py", 727, "_call_impl", "result = self.forward(*input, **kwargs)")],
    "1.10": [("torch/nn/modules/module.py", 1102, "_call_impl", "return forward_call(*input, **kwargs)")],
    "1.13": [("torch/nn/modules/module.py", 1190, "_call_impl", "return forward_call(*input, **kwargs)")],
    "2.0": [("torch/nn/modules/module.py", 1501, "_call_impl", "return forward_call(*args, **kwargs)")],
    "2.1": [("torch/nn/modules/module.py", 1518, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"),
            ("torch/nn/modules/module.py", 1527, "_call_impl", "return forward_call(*args, **kwargs)")],
    "2.3": [("torch/nn/modules/module.py", 1532, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"),
            ("torch/nn/modules/module.py", 1541, "_call_impl", "return forward_call(*args, **kwargs)")],
    "2.5": [("torch/nn/modules/module.py", 1736, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"),
            ("torch/nn/modules/module.py", 1747, "_call_impl", "return forward_call(*args, **kwargs)")],
    "2.13": captured_rows("shape_linear")[:2],
}

LINEAR = {
    "1.4": [("torch/nn/modules/linear.py", 87, "forward", "return F.linear(input, self.weight, self.bias)"),
            ("torch/nn/functional.py", 1370, "linear", "ret = torch.addmm(bias, input, weight.t())")],
    "1.10": [("torch/nn/modules/linear.py", 103, "forward", "return F.linear(input, self.weight, self.bias)")],
    "2.0": [("torch/nn/modules/linear.py", 114, "forward", "return F.linear(input, self.weight, self.bias)")],
    "2.3": [("torch/nn/modules/linear.py", 116, "forward", "return F.linear(input, self.weight, self.bias)")],
    "2.5": [("torch/nn/modules/linear.py", 125, "forward", "return F.linear(input, self.weight, self.bias)")],
    "2.13": captured_rows("shape_linear")[2:],
}

CONV = {
    "1.10": [("torch/nn/modules/conv.py", 446, "forward", "return self._conv_forward(input, self.weight, self.bias)"),
             ("torch/nn/modules/conv.py", 442, "_conv_forward", "return F.conv2d(input, weight, bias, self.stride,")],
    "2.0": [("torch/nn/modules/conv.py", 463, "forward", "return self._conv_forward(input, self.weight, self.bias)"),
            ("torch/nn/modules/conv.py", 459, "_conv_forward", "return F.conv2d(input, weight, bias, self.stride,")],
    "2.13": captured_rows("dtype_conv_double")[2:],
}

CROSS_ENTROPY = {  # nn.CrossEntropyLoss.forward -> F.cross_entropy
    "1.4": [("torch/nn/modules/loss.py", 916, "forward", "ignore_index=self.ignore_index, reduction=self.reduction)"),
            ("torch/nn/functional.py", 2021, "cross_entropy", "return nll_loss(log_softmax(input, 1), target, weight, None, ignore_index, None, reduction)"),
            ("torch/nn/functional.py", 1838, "nll_loss", "ret = torch._C._nn.nll_loss(input, target, weight, _Reduction.get_enum(reduction), ignore_index)")],
    "1.10": [("torch/nn/modules/loss.py", 1150, "forward", "return F.cross_entropy(input, target, weight=self.weight,"),
             ("torch/nn/functional.py", 2846, "cross_entropy", "return torch._C._nn.cross_entropy_loss(input, target, weight, _Reduction.get_enum(reduction), ignore_index, label_smoothing)")],
    "2.0": [("torch/nn/modules/loss.py", 1174, "forward", "return F.cross_entropy(input, target, weight=self.weight,"),
            ("torch/nn/functional.py", 3029, "cross_entropy", "return torch._C._nn.cross_entropy_loss(input, target, weight, _Reduction.get_enum(reduction), ignore_index, label_smoothing)")],
    "2.3": [("torch/nn/modules/loss.py", 1185, "forward", "return F.cross_entropy(input, target, weight=self.weight,"),
            ("torch/nn/functional.py", 3086, "cross_entropy", "return torch._C._nn.cross_entropy_loss(input, target, weight, _Reduction.get_enum(reduction), ignore_index, label_smoothing)")],
    "2.13": captured_rows("ce_multi_target")[2:],
}

EMBEDDING = {
    "1.4": [("torch/nn/modules/sparse.py", 114, "forward", "self.norm_type, self.scale_grad_by_freq, self.sparse)"),
            ("torch/nn/functional.py", 1484, "embedding", "return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)")],
    "1.13": [("torch/nn/modules/sparse.py", 160, "forward", "return F.embedding("),
             ("torch/nn/functional.py", 2210, "embedding", "return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)")],
    "2.1": [("torch/nn/modules/sparse.py", 162, "forward", "return F.embedding("),
            ("torch/nn/functional.py", 2233, "embedding", "return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)")],
    "2.13": captured_rows("index_out_of_range")[2:],
}

LOAD_STATE_DICT = {
    "1.4": [("torch/nn/modules/module.py", 830, "load_state_dict", "self.__class__.__name__, \"\\n\\t\".join(error_msgs)))")],
    "1.10": [("torch/nn/modules/module.py", 1482, "load_state_dict", "raise RuntimeError('Error(s) in loading state_dict for {}:\\n\\t{}'.format(")],
    "2.0": [("torch/nn/modules/module.py", 2041, "load_state_dict", "raise RuntimeError('Error(s) in loading state_dict for {}:\\n\\t{}'.format(")],
    "2.3": [("torch/nn/modules/module.py", 2189, "load_state_dict", "raise RuntimeError('Error(s) in loading state_dict for {}:\\n\\t{}'.format(")],
    "2.13": captured_rows("state_dict_size"),
}

TORCH_LOAD = {
    "2.6": [("torch/serialization.py", 1470, "load", "raise pickle.UnpicklingError(_get_wo_message(str(e))) from None")],
    "2.13": captured_rows("weights_only_numpy"),
}

CUDA_INIT = {
    "1.10": [("torch/cuda/__init__.py", 208, "_lazy_init", "raise AssertionError(\"Torch not compiled with CUDA enabled\")")],
    "2.0": [("torch/cuda/__init__.py", 239, "_lazy_init", "raise AssertionError(\"Torch not compiled with CUDA enabled\")")],
    "2.13": captured_rows("cuda_not_compiled"),
}


# --- layouts ------------------------------------------------------------------------

def traceback(frames, last: str, header: bool = True) -> str:
    """A plain CPython traceback. A frame's code may carry 3.11 caret lines after a newline."""
    out = ["Traceback (most recent call last):"] if header else []
    for path, line, func, code in frames:
        out.append(f'  File "{path}", line {line}, in {func}')
        if code:
            for part in code.split("\n"):
                out.append("    " + part)
    out.append(last)
    return "\n".join(out)


def chained(first: str, second: str, direct: bool = False) -> str:
    """Two tracebacks joined as Python joins a chained exception (the second is the real one)."""
    joint = ("The above exception was the direct cause of the following exception:" if direct
             else "During handling of the above exception, another exception occurred:")
    return f"{first}\n\n{joint}\n\n{second}"


def prefixed(text: str, prefix: str) -> str:
    """Prefix every line, as torchrun does with `[rank0]: `."""
    return "\n".join(prefix + line for line in text.split("\n"))


def ipython_header(exc_type: str) -> str:
    dashes = "-" * 75
    return f"{dashes}\n{exc_type:<42}Traceback (most recent call last)"


def rich_box(frames, last: str, width: int = 100) -> str:
    """A rich-style boxed traceback (what typer and `rich.traceback.install()` print).

    frames: (path, line, func, [(lineno, code), ...]) with the failing line in the list.
    Indentation of code is drawn with rich's guides ("│   " per level).
    """
    inner = width - 4
    top_title = " Traceback (most recent call last) "
    left = (width - 2 - len(top_title)) // 2
    right = width - 2 - len(top_title) - left
    rows = ["╭" + "─" * left + top_title + "─" * right + "╮"]

    def add(text: str = "") -> None:
        while len(text) > inner:  # rich wraps long lines inside the box
            rows.append("│ " + text[:inner] + " │")
            text = text[inner:]
        rows.append("│ " + text.ljust(inner) + " │")

    for n, (path, line, func, context) in enumerate(frames):
        if n:
            add()
        add(f"{path}:{line} in {func}")
        add()
        pad = max(len(str(no)) for no, _ in context)
        for no, code in context:
            stripped = code.lstrip(" ")
            levels = (len(code) - len(stripped)) // 4
            guides = "│   " * levels if levels else "│ "
            mark = "❱" if no == line else " "
            add(f"{mark} {str(no).rjust(pad)} {guides}{stripped}")
    rows.append("╰" + "─" * (width - 2) + "╯")
    return "\n".join(rows) + "\n" + last


def slack_escape(text: str) -> str:
    """What Slack sends for a message containing & < > (it escapes exactly those three)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def fence(text: str) -> str:
    return "```\n" + text.strip("\n") + "\n```"
