"""Run small PyTorch snippets and record the exact errors they raise.

The evaluation sets quote real PyTorch messages. For every error that the CPU build
can raise, this script produces it for real and writes what PyTorch printed to
`eval/messages_torch213.json`: the exception type, the message, and the PyTorch frames
of the traceback (file relative to site-packages, line, function, source line, columns).
`eval/build_sets.py` reads that file, so the quoted messages are not retyped by hand.
CUDA-only errors (out of memory, device-side assert, NCCL...) cannot be raised here;
build_sets.py writes those from the known messages and says so in each line's note.

Run from the worktree root (takes ~20 s; needs torch, nothing else):
    /work/main/.venv/bin/python eval/capture_messages.py
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import traceback
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

OUT = Path(__file__).resolve().parent / "messages_torch213.json"
SITE = str(Path(torch.__file__).resolve().parent.parent)


# --- snippets: each raises one error -------------------------------------------------

def backward_twice():
    x = torch.randn(3, requires_grad=True)
    y = (x * x).sum()
    y.backward()
    y.backward()


def inplace_modified_relu():
    lin = nn.Linear(4, 4)
    h = torch.relu(lin(torch.randn(2, 4)))
    h += 1
    h.sum().backward()


def inplace_modified_param():
    lin = nn.Linear(4, 3)
    y = lin(torch.randn(2, 4, requires_grad=True))
    opt = torch.optim.SGD(lin.parameters(), lr=0.1)
    y.sum().backward(retain_graph=True)
    opt.step()
    y.sum().backward()


def leaf_inplace():
    w = torch.randn(3, requires_grad=True)
    w += 1


def leaf_view_inplace():
    emb = nn.Embedding(5, 3)
    emb.weight[0] = 0


def no_grad_fn():
    lin = nn.Linear(3, 1)
    with torch.no_grad():
        out = lin(torch.randn(2, 3))
    out.sum().backward()


def grad_scalar():
    x = torch.randn(3, requires_grad=True)
    (x * 2).backward()


def numpy_requires_grad():
    x = torch.randn(3, requires_grad=True)
    (x * 2).numpy()


def dtype_linear_double():
    nn.Linear(3, 2)(torch.randn(2, 3, dtype=torch.float64))


def dtype_matmul():
    torch.randn(2, 3) @ torch.randn(3, 4, dtype=torch.float64)


def dtype_conv_double():
    nn.Conv2d(3, 8, 3)(torch.randn(1, 3, 8, 8, dtype=torch.float64))


def dtype_bmm():
    torch.bmm(torch.randn(1, 2, 3), torch.randn(1, 3, 2, dtype=torch.float64))


def shape_linear():
    nn.Linear(128, 10)(torch.randn(32, 256))


def view_stride():
    torch.randn(2, 3, 4).permute(0, 2, 1).view(2, 12)


def index_out_of_range():
    nn.Embedding(100, 16)(torch.tensor([[5, 100, 3]]))


def cuda_not_compiled():
    torch.randn(3).cuda()


def state_dict_size():
    a = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    b = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 3))
    b.load_state_dict(a.state_dict())


def state_dict_prefix():
    a = nn.Linear(3, 4)
    sd = {"module." + k: v for k, v in a.state_dict().items()}
    nn.Linear(3, 4).load_state_dict(sd)


def weights_only_numpy():
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "ckpt.pt")
        torch.save({"arr": np.arange(3)}, p)
        torch.load(p)


def weights_only_namespace():
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "ckpt.pt")
        torch.save({"args": argparse.Namespace(lr=0.1)}, p)
        torch.load(p)


def half_cdist():
    torch.cdist(torch.randn(3, 3).half(), torch.randn(3, 3).half())


def ce_multi_target():
    nn.CrossEntropyLoss()(torch.randn(4, 5), torch.randint(0, 5, (4, 3)))


def ce_target_size():
    F.cross_entropy(torch.randn(8, 4, 10), torch.randint(0, 4, (8, 10, 1)))


def ce_target_float():
    F.cross_entropy(torch.randn(4, 5), torch.randint(0, 5, (4,)).float())


def ce_target_int():
    F.cross_entropy(torch.randn(4, 5), torch.randint(0, 5, (4,)).int())


def ce_batch_size():
    F.cross_entropy(torch.randn(16, 10), torch.randint(0, 10, (64,)))


SNIPPETS = [v for k, v in dict(globals()).items() if callable(v) and getattr(v, "__module__", "") == __name__
            and k not in {"main", "capture", "run_script"}]


def capture(fn) -> dict:
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - we want whatever PyTorch raises
        frames = []
        for fr in traceback.extract_tb(exc.__traceback__):
            if not fr.filename.startswith(SITE):
                continue
            frames.append({
                "file": os.path.relpath(fr.filename, SITE),
                "line": fr.lineno,
                "func": fr.name,
                "code": fr.line,
                "col": fr.colno,
                "end_col": fr.end_colno,
            })
        mod = type(exc).__module__
        name = type(exc).__qualname__ if mod == "builtins" else f"{mod}.{type(exc).__qualname__}"
        return {"type": name, "message": str(exc), "frames": frames}
    raise SystemExit(f"{fn.__name__} raised nothing on torch {torch.__version__}")


DATALOADER_SCRIPT = """
import os, signal, sys, torch
from torch.utils.data import DataLoader, Dataset
class Frames(Dataset):
    def __len__(self): return 64
    def __getitem__(self, i):
        if i == 9: os.kill(os.getpid(), getattr(signal, sys.argv[1]))
        return torch.randn(3)
if __name__ == "__main__":
    for batch in DataLoader(Frames(), batch_size=4, num_workers=2):
        pass
"""

DDP_SCRIPT = """
import torch, torch.nn as nn, torch.distributed as dist
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Linear(8, 8); self.aux_head = nn.Linear(8, 3); self.head = nn.Linear(8, 2)
    def forward(self, x):
        return self.head(torch.relu(self.backbone(x)))
dist.init_process_group("gloo")
model = nn.parallel.DistributedDataParallel(Net())
for step in range(3):
    loss = model(torch.randn(4, 8)).sum()
    loss.backward()
dist.destroy_process_group()
"""


def run_script(source: str, argv: list[str], launcher: list[str]) -> str:
    """Run a script in a child process and return its stderr with the paths generalised."""
    with tempfile.TemporaryDirectory() as d:
        script = Path(d) / "snippet.py"
        script.write_text(textwrap.dedent(source))
        proc = subprocess.run(launcher + [str(script)] + argv, capture_output=True, text=True,
                              errors="replace", timeout=180, cwd=d)
        err = proc.stderr.replace(SITE, "{SITE}").replace(str(script), "{SCRIPT}")
        err = err.replace(sys.executable, "{BINARY}").replace(str(Path(sys.executable).parent) + "/python3", "{BINARY}")
        err = err.replace(sys.base_prefix, "{PYTHON}")
        return re.sub(r"\x00", "", err)


def main() -> None:
    out = {"torch": torch.__version__, "python": sys.version.split()[0], "errors": {}, "logs": {}}
    for fn in SNIPPETS:
        out["errors"][fn.__name__] = capture(fn)
    py = [sys.executable]
    out["logs"]["dataloader_sigkill"] = run_script(DATALOADER_SCRIPT, ["SIGKILL"], py)
    out["logs"]["dataloader_sigbus"] = run_script(DATALOADER_SCRIPT, ["SIGBUS"], py)
    torchrun = [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", "2", "--master_port", "29561"]
    out["logs"]["ddp_unused_torchrun"] = run_script(DDP_SCRIPT, [], torchrun)
    OUT.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {len(out['errors'])} errors and {len(out['logs'])} logs to {OUT}")


if __name__ == "__main__":
    main()
