"""Raise the long-tail error classes on torch 2.13 (CPU) and record what PyTorch printed.

The long-tail evaluation set (eval/longtail_*.py) quotes real PyTorch text where this
machine can produce it. This script runs one small snippet per error, the same way
eval/capture_messages.py does for the first 25 classes, and writes
`eval/messages_longtail_torch213.json`:

- "errors":   exception type, message and PyTorch frames (as capture_messages.capture);
- "warnings": warnings that are the whole symptom (a loss broadcasting its target, a
              scheduler stepped first...): category, message, file relative to site-packages;
- "logs":     stderr of child processes (DataLoader workers, torchrun, spawn, a second
              interpreter loading a pickle) with the paths replaced by {SITE}, {SCRIPT},
              {PYTHON} and {BINARY}, as capture_messages.run_script does.

Errors that need a GPU, Windows, macOS or a broken install are not here; the set writes
those from public reports or from the known wording and says so in each line's note.

Run from the worktree root (about a minute; needs torch and numpy only):
    /work/main/.venv/bin/python eval/capture_longtail.py
"""

from __future__ import annotations

import json
import os
import socket
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent))
from capture_messages import SITE, capture, run_script  # noqa: E402  (same directory, run as a script)

OUT = Path(__file__).resolve().parent / "messages_longtail_torch213.json"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --- errors raised in this process ----------------------------------------------------
# Each function raises one error; the name is the key in the JSON file.

def conv_channels_gray():
    nn.Conv2d(3, 64, 3)(torch.randn(8, 1, 28, 28))


def conv_channels_rgba():
    nn.Conv2d(3, 16, 3, padding=1)(torch.randn(2, 4, 64, 64))


def conv_channels_nhwc():
    nn.Conv2d(3, 32, 3)(torch.randn(16, 224, 224, 3))


def broadcast_add():
    torch.randn(4, 3) + torch.randn(4, 5)


def broadcast_mse():
    F.mse_loss(torch.randn(32, 10), torch.randn(32, 12))


def stack_images():
    torch.stack([torch.randn(3, 224, 224), torch.randn(3, 200, 300)])


def cat_channels():
    torch.cat([torch.randn(2, 64, 32, 32), torch.randn(2, 64, 31, 31)], dim=1)


def reshape_view():
    torch.randn(4, 10).view(-1, 3, 4)


def reshape_flatten():
    torch.randn(8, 16, 5, 5).view(8, 16 * 4 * 4)


def expand_size():
    torch.randn(2, 3).expand(4, 4)


def dim_softmax():
    torch.randn(5).softmax(dim=1)


def dim_argmax():
    torch.randn(8).argmax(dim=1)


def conv_rank_5d():
    nn.Conv2d(3, 8, 3)(torch.randn(2, 3, 4, 32, 32))


def conv_rank_1d():
    nn.Conv1d(3, 8, 3)(torch.randn(3))


def kernel_conv():
    nn.Conv2d(3, 8, 5)(torch.randn(1, 3, 3, 3))


def kernel_pool():
    nn.MaxPool2d(2)(torch.randn(1, 8, 1, 1))


def batchnorm_one():
    nn.BatchNorm1d(16)(torch.randn(1, 16))


def bce_logits_size():
    F.binary_cross_entropy_with_logits(torch.randn(8, 1), torch.rand(8))


def bce_size():
    F.binary_cross_entropy(torch.rand(8, 1), torch.rand(8))


def rnn_input_size():
    nn.LSTM(10, 20, batch_first=True)(torch.randn(4, 7, 12))


def rnn_hidden_gru():
    nn.GRU(10, 20)(torch.randn(7, 4, 10), torch.randn(1, 3, 20))


def rnn_hidden_lstm():
    nn.LSTM(10, 20)(torch.randn(7, 4, 10), (torch.randn(1, 3, 20), torch.randn(1, 4, 20)))


def pack_unsorted():
    nn.utils.rnn.pack_padded_sequence(torch.randn(3, 5, 2), torch.tensor([2, 5, 3]), batch_first=True)


def gather_rank():
    torch.randn(4, 5).gather(1, torch.tensor([1, 2, 0, 3]))


def one_hot_large():
    F.one_hot(torch.tensor([0, 3, 5]), num_classes=5)


def one_hot_negative():
    F.one_hot(torch.tensor([0, -100, 2]), num_classes=5)


def index_float():
    torch.randn(5)[torch.tensor([1.0, 2.0])]


def bool_if():
    x = torch.randn(3)
    if x > 0:
        pass


def bool_loss_constructor():
    nn.MSELoss(torch.randn(4, 2), torch.randn(4, 2))  # tensors given to the constructor, not the call


def item_many():
    torch.randn(3).item()


def float_many():
    float(torch.randn(3))


def numpy_object():
    torch.from_numpy(np.array([np.zeros(2), np.zeros(3)], dtype=object))


def tensor_from_tensor_list():
    torch.tensor([torch.randn(2), torch.randn(2)])


def tensor_as_index():
    [1, 2, 3][torch.tensor([1, 2])]


def requires_grad_long():
    torch.tensor([1, 2], requires_grad=True)


def requires_grad_int_():
    torch.arange(3).requires_grad_()


def meta_copy():
    torch.empty(3, device="meta").cpu()


def meta_module_to():
    nn.Linear(2, 2, device="meta").to("cpu")


def anomaly_sqrt():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with torch.autograd.detect_anomaly():
            x = torch.tensor([0.0, 4.0], requires_grad=True)
            (x.sqrt() * 0 + x.pow(0.5)).sum().backward()


def anomaly_div():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with torch.autograd.detect_anomaly():
            x = torch.zeros(3, requires_grad=True)
            (x / x).sum().backward()


def inference_saved():
    lin = nn.Linear(3, 3)
    with torch.inference_mode():
        x = torch.randn(2, 3)
    lin(x).sum().backward()


def inference_inplace():
    with torch.inference_mode():
        x = torch.randn(2, 3)
    x.add_(1)


def optimizer_empty():
    torch.optim.Adam(nn.ReLU().parameters(), lr=1e-3)


def optimizer_non_leaf():
    torch.optim.Adam([torch.randn(3, requires_grad=True) * 2], lr=1e-3)


def grad_shape_backward():
    torch.autograd.backward(torch.randn(3, requires_grad=True) * 2, torch.ones(4))


def derivative_ctc_double():
    x = torch.randn(5, 1, 3, requires_grad=True)
    loss = F.ctc_loss(x.log_softmax(2), torch.tensor([[1, 1]]), [5], [2])
    (g,) = torch.autograd.grad(loss, x, create_graph=True)
    g.sum().backward()


def derivative_cdist_double():
    x = torch.randn(3, 2, requires_grad=True)
    (g,) = torch.autograd.grad(torch.cdist(x, torch.randn(2, 2)).sum(), x, create_graph=True)
    g.sum().backward()


def clip_nonfinite():
    p = nn.Parameter(torch.randn(3))
    p.grad = torch.tensor([float("nan"), 1.0, 1.0])
    nn.utils.clip_grad_norm_([p], 1.0, error_if_nonfinite=True)


class _Picture:  # stands for a PIL image that a dataset forgot to convert
    pass


class _Pictures(torch.utils.data.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return _Picture(), 1


def collate_object():
    next(iter(torch.utils.data.DataLoader(_Pictures(), batch_size=2)))


class _WithNone(torch.utils.data.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return {"image": torch.zeros(3), "mask": None}


def collate_none():
    next(iter(torch.utils.data.DataLoader(_WithNone(), batch_size=2)))


def sampler_shuffle():
    ds = torch.utils.data.TensorDataset(torch.randn(10, 2))
    torch.utils.data.DataLoader(ds, sampler=torch.utils.data.RandomSampler(ds), shuffle=True)


def random_split_counts():
    torch.utils.data.random_split(torch.utils.data.TensorDataset(torch.randn(1000, 2)), [800, 201])


def process_group_missing():
    torch.distributed.get_rank()


def process_group_barrier():
    torch.distributed.barrier()


def address_in_use():
    port = free_port()
    first = torch.distributed.TCPStore("127.0.0.1", port, 1, True)
    try:
        torch.distributed.TCPStore("127.0.0.1", port, 1, True)
    finally:
        del first


def sdpa_no_backend():
    from torch.nn.attention import SDPBackend, sdpa_kernel
    q = torch.randn(2, 4, 8, 16)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with sdpa_kernel([SDPBackend.EFFICIENT_ATTENTION]):  # a CUDA-only kernel asked for on CPU
            F.scaled_dot_product_attention(q, q, q)


def syncbn_cpu():
    with tempfile.TemporaryDirectory() as d:
        torch.distributed.init_process_group("gloo", init_method=f"file://{d}/store", rank=0, world_size=1)
        try:
            nn.SyncBatchNorm(4)(torch.randn(2, 4, 3, 3))
        finally:
            torch.distributed.destroy_process_group()


def checkpoint_truncated():
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "best.pt")
        torch.save({"w": torch.randn(1000)}, p)
        data = Path(p).read_bytes()
        Path(p).write_bytes(data[: len(data) // 2])
        torch.load(p)


def jit_load_of_torch_save():
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "model.pt")
        torch.save(nn.Linear(2, 2).state_dict(), p)
        torch.jit.load(p)


def torch_load_of_torchscript():
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "traced.pt")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.jit.save(torch.jit.script(nn.Linear(2, 2)), p)
        torch.load(p)  # weights_only=True by default since 2.6


def torchscript_via_pickle():
    import pickle
    import zipfile
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "traced.pt")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.jit.save(torch.jit.script(nn.Linear(2, 2)), p)
        with zipfile.ZipFile(p) as z:
            pickle.loads(z.read(next(n for n in z.namelist() if n.endswith("/data.pkl"))))


def pickled_module_missing():
    with tempfile.TemporaryDirectory() as d:
        Path(d, "netdefs.py").write_text("import torch.nn as nn\nclass Net(nn.Linear):\n    pass\n")
        sys.path.insert(0, d)
        try:
            import netdefs
            torch.save(netdefs.Net(2, 2), os.path.join(d, "model.pt"))
        finally:
            sys.path.remove(d)
            sys.modules.pop("netdefs", None)
        os.remove(os.path.join(d, "netdefs.py"))
        torch.load(os.path.join(d, "model.pt"), weights_only=False)


def _dynamo(fn, *args):
    torch._dynamo.reset()
    torch.compile(fn, backend="eager", fullgraph=True)(*args)


def dynamo_print():
    def step(x):
        print("loss", x)
        return x + 1
    _dynamo(step, torch.randn(3))


def dynamo_branch():
    def clamp_if_needed(x):
        if x.max() > 1:
            return x.clamp(max=1)
        return x
    _dynamo(clamp_if_needed, torch.randn(3))


def dynamo_tolist():
    def to_list(x):
        return torch.tensor(x.tolist()) * 2
    _dynamo(to_list, torch.randn(3))


def jit_varargs():
    def f(x, *args):
        return x
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.jit.script(f)


def jit_try():
    class M(nn.Module):
        def forward(self, x):
            try:
                return x * 2
            except Exception:
                return x
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.jit.script(M())


def jit_lambda():
    def f(x):
        return (lambda a: a.clamp(min=0))(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.jit.script(f)


ERRORS = [conv_channels_gray, conv_channels_rgba, conv_channels_nhwc, broadcast_add, broadcast_mse,
          stack_images, cat_channels, reshape_view, reshape_flatten, expand_size, dim_softmax, dim_argmax,
          conv_rank_5d, conv_rank_1d, kernel_conv, kernel_pool, batchnorm_one, bce_logits_size, bce_size,
          rnn_input_size, rnn_hidden_gru, rnn_hidden_lstm, pack_unsorted, gather_rank, one_hot_large,
          one_hot_negative, index_float, bool_if, bool_loss_constructor, item_many, float_many, numpy_object,
          tensor_from_tensor_list, tensor_as_index, requires_grad_long, requires_grad_int_, meta_copy,
          meta_module_to, anomaly_sqrt, anomaly_div, inference_saved, inference_inplace, optimizer_empty,
          optimizer_non_leaf, grad_shape_backward, derivative_ctc_double, derivative_cdist_double,
          clip_nonfinite, collate_object, collate_none, sampler_shuffle, random_split_counts,
          process_group_missing, process_group_barrier, address_in_use, sdpa_no_backend, syncbn_cpu, checkpoint_truncated,
          jit_load_of_torch_save, torch_load_of_torchscript, torchscript_via_pickle, pickled_module_missing, dynamo_print, dynamo_branch,
          dynamo_tolist, jit_varargs, jit_try, jit_lambda]


# --- warnings that are the whole symptom ---------------------------------------------

def warn_mse_target():
    F.mse_loss(torch.randn(8, 1), torch.randn(8))


def warn_non_leaf_grad():
    x = torch.randn(3, requires_grad=True) * 2
    x.sum().backward()
    return x.grad


def warn_checkpoint_inputs():
    from torch.utils.checkpoint import checkpoint
    checkpoint(nn.Linear(3, 3), torch.randn(2, 3), use_reentrant=True)


def warn_scheduler_first():
    p = nn.Parameter(torch.randn(3))
    torch.optim.lr_scheduler.StepLR(torch.optim.SGD([p], lr=0.1), 1).step()


WARNINGS = [warn_mse_target, warn_non_leaf_grad, warn_checkpoint_inputs, warn_scheduler_first]


def capture_warning(fn) -> dict:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    for w in caught:  # torch warns with a stacklevel, so the file is often the caller's
        where = os.path.relpath(w.filename, SITE) if w.filename.startswith(SITE) else "{CALLER}"
        return {"type": w.category.__name__, "message": str(w.message), "file": where, "line": w.lineno}
    raise SystemExit(f"{fn.__name__} warned nothing on torch {torch.__version__}")


# --- child processes ---------------------------------------------------------------

SPAWN_LAMBDA = """
import torch
from torch.utils.data import DataLoader, TensorDataset
def main():
    ds = TensorDataset(torch.randn(16, 3))
    loader = DataLoader(ds, batch_size=4, num_workers=2, multiprocessing_context="spawn",
                        collate_fn=lambda batch: torch.stack([b[0] for b in batch]))
    for batch in loader:
        pass
if __name__ == "__main__":
    main()
"""

SPAWN_NO_MAIN_GUARD = """
import torch
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, TensorDataset
mp.set_start_method("spawn", force=True)
ds = TensorDataset(torch.randn(16, 3))
for batch in DataLoader(ds, batch_size=4, num_workers=2):
    pass
"""

# Workers return many small tensors; with the file_descriptor sharing strategy each one
# costs an open descriptor in the main process, and the limit is set low on purpose.
OPEN_FILES = """
import resource, torch
from torch.utils.data import DataLoader, Dataset
resource.setrlimit(resource.RLIMIT_NOFILE, (128, 128))
torch.multiprocessing.set_sharing_strategy("file_descriptor")
class Crops(Dataset):
    def __len__(self): return 4000
    def __getitem__(self, i): return [torch.randn(2) for _ in range(8)]
if __name__ == "__main__":
    kept = []
    for batch in DataLoader(Crops(), batch_size=None, num_workers=2):
        kept.append(batch)
"""

# The model class lives in the training script (__main__); a second interpreter loads it.
PICKLED_MAIN_CLASS = """
import os, subprocess, sys, torch, torch.nn as nn
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)
torch.save(Net(), "model.pt")
load = "import torch\\nmodel = torch.load('model.pt', weights_only=False)\\n"
open("predict.py", "w").write(load)
err = subprocess.run([sys.executable, "predict.py"], capture_output=True, text=True).stderr
sys.stderr.write(err.replace(os.getcwd(), "{DIR}"))
"""

ELASTIC_CHILD = """
import os, torch.distributed as dist
dist.init_process_group("gloo")
if dist.get_rank() == 1:
    open(os.path.join("/data/shards", f"part-{dist.get_rank():05d}.bin"), "rb")
dist.barrier()
"""

RECOMPILE = """
import torch
torch._dynamo.config.recompile_limit = 8
@torch.compile(backend="eager")
def scale(x):
    return x * 2
for dtype in [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.complex64,
              torch.complex128, torch.int64, torch.int32, torch.int16, torch.int8]:
    scale(torch.ones(3, dtype=dtype))
"""


def main() -> None:
    out = {"torch": torch.__version__, "python": sys.version.split()[0], "errors": {}, "warnings": {}, "logs": {}}
    for fn in ERRORS:
        out["errors"][fn.__name__] = error = capture(fn)
        # TorchScript and Dynamo quote the source file: name it as the logs do
        error["message"] = error["message"].replace(str(Path(__file__).resolve()), "{SCRIPT}")
    for fn in WARNINGS:
        out["warnings"][fn.__name__] = capture_warning(fn)
    py = [sys.executable]
    out["logs"]["spawn_lambda"] = run_script(SPAWN_LAMBDA, [], py)
    out["logs"]["spawn_no_main_guard"] = run_script(SPAWN_NO_MAIN_GUARD, [], py)
    out["logs"]["too_many_open_files"] = run_script(OPEN_FILES, [], py)
    out["logs"]["pickled_main_class"] = run_script(PICKLED_MAIN_CLASS, [], py)
    torchrun = [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", "2",
                "--master_port", str(free_port())]
    out["logs"]["elastic_child_failed"] = run_script(ELASTIC_CHILD, [], torchrun)
    out["logs"]["recompile_limit"] = run_script(RECOMPILE, [], py)
    OUT.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {len(out['errors'])} errors, {len(out['warnings'])} warnings and {len(out['logs'])} logs to {OUT}")


if __name__ == "__main__":
    main()

# jit_try's `except Exception` is the snippet TorchScript rejects, and its source line is part of the
# captured message: a line comment there would change the message, hence this file-wide exemption.
# ruff: noqa: BLE001
