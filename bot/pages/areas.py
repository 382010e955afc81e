"""The areas the entry list is grouped by, decided from the entry's id (ids name the
error's subject first: "cuda-oom", "ddp-unused-parameters", "state-dict-mismatch").

The first area with a word that the id's name starts with, or contains between dashes,
wins; an id no area claims is listed under "other". Each area's name in en/ko/zh is the
word `area_<key>` of bot/text/ui.py.
"""

from __future__ import annotations

from bot.text.ui import WORDS

AREAS: list[tuple[str, tuple[str, ...]]] = [
    ("distributed", ("ddp", "dist", "elastic", "nccl", "process-group", "syncbn")),
    ("install", ("numpy2-abi", "undefined-symbol", "windows", "torchvision-operator", "cuda-not-available")),
    ("saving", ("checkpoint-corrupt", "state-dict", "pickled", "weights-only", "torchscript-archive", "meta-tensor")),
    ("compile", ("dynamo", "torchscript", "onnx")),
    ("data", ("dataloader", "collate", "worker-pickle", "sampler", "random-split", "too-many-open-files",
              "pack-padded", "numpy-object", "tensor-from-tensor-list")),
    ("devices", ("cuda", "cublas", "cudnn", "device", "invalid-device", "flash-attention", "mps", "half")),
    ("training", ("optimizer", "scheduler", "gradscaler", "clip-grad", "deterministic")),
    ("autograd", ("anomaly", "backward", "grad", "inplace", "leaf", "no-grad-fn", "derivative", "inference-tensor",
                  "requires-grad", "checkpoint-no-grad", "non-leaf", "numpy-requires-grad")),
    ("losses", ("ce", "cross-entropy", "loss-target", "one-hot")),
    ("dtypes", ("dtype", "bool-ambiguous", "index-dtype")),
    ("shapes", ("size", "shape", "rank", "dim", "index", "reshape", "view", "channels", "kernel", "item", "batchnorm",
                "gather", "rnn", "stack", "cat", "expand", "broadcast")),
]
OTHER = "other"
ORDER = [key for key, _ in AREAS] + [OTHER]
NAMES = {key: WORDS[f"area_{key}"] for key in ORDER}  # {area: {lang: name}}


def area_of(entry_id: str) -> str:
    name = entry_id.split("/", 1)[-1]
    for key, words in AREAS:
        for word in words:
            if name.startswith(word) or f"-{word}-" in f"-{name}-":
                return key
    return OTHER
