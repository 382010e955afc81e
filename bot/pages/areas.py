"""The areas the entry list is grouped by, decided from the entry's id (ids name the
error's subject first: "cuda-oom", "ddp-unused-parameters", "state-dict-mismatch").

The first area with a word that the id's name starts with, or contains between dashes,
wins; an id no area claims is listed under "other".
"""

from __future__ import annotations

AREAS: list[tuple[str, dict[str, str], tuple[str, ...]]] = [
    ("distributed", {"en": "Distributed training", "ko": "분산 학습", "zh": "分布式训练"},
     ("ddp", "dist", "elastic", "nccl", "process-group", "syncbn")),
    ("install", {"en": "Installation and environment", "ko": "설치와 환경", "zh": "安装与环境"},
     ("numpy2-abi", "undefined-symbol", "windows", "torchvision-operator", "cuda-not-available")),
    ("saving", {"en": "Saving and loading", "ko": "저장과 불러오기", "zh": "保存与加载"},
     ("checkpoint-corrupt", "state-dict", "pickled", "weights-only", "torchscript-archive", "meta-tensor")),
    ("compile", {"en": "Compile, TorchScript and export", "ko": "컴파일, TorchScript, 내보내기",
                 "zh": "编译、TorchScript 与导出"},
     ("dynamo", "torchscript", "onnx")),
    ("data", {"en": "Data loading", "ko": "데이터 로딩", "zh": "数据加载"},
     ("dataloader", "collate", "worker-pickle", "sampler", "random-split", "too-many-open-files",
      "pack-padded", "numpy-object", "tensor-from-tensor-list")),
    ("devices", {"en": "CUDA, GPUs and devices", "ko": "CUDA, GPU, 장치", "zh": "CUDA、GPU 与设备"},
     ("cuda", "cublas", "cudnn", "device", "invalid-device", "flash-attention", "mps", "half")),
    ("training", {"en": "Optimizers and training loops", "ko": "옵티마이저와 학습 루프", "zh": "优化器与训练循环"},
     ("optimizer", "scheduler", "gradscaler", "clip-grad", "deterministic")),
    ("autograd", {"en": "Autograd", "ko": "자동 미분(autograd)", "zh": "自动求导（autograd）"},
     ("anomaly", "backward", "grad", "inplace", "leaf", "no-grad-fn", "derivative", "inference-tensor",
      "requires-grad", "checkpoint-no-grad", "non-leaf", "numpy-requires-grad")),
    ("losses", {"en": "Losses and targets", "ko": "손실 함수와 정답", "zh": "损失函数与目标"},
     ("ce", "cross-entropy", "loss-target", "one-hot")),
    ("dtypes", {"en": "Data types", "ko": "데이터 타입", "zh": "数据类型"},
     ("dtype", "bool-ambiguous", "index-dtype")),
    ("shapes", {"en": "Shapes and indexing", "ko": "텐서 크기와 인덱싱", "zh": "形状与索引"},
     ("size", "shape", "rank", "dim", "index", "reshape", "view", "channels", "kernel", "item", "batchnorm",
      "gather", "rnn", "stack", "cat", "expand", "broadcast")),
]
OTHER = ("other", {"en": "Other errors", "ko": "기타 오류", "zh": "其他错误"})
ORDER = [key for key, _, _ in AREAS] + [OTHER[0]]
NAMES = {key: names for key, names, _ in AREAS} | {OTHER[0]: OTHER[1]}


def area_of(entry_id: str) -> str:
    name = entry_id.split("/", 1)[-1]
    for key, _names, words in AREAS:
        for word in words:
            if name.startswith(word) or f"-{word}-" in f"-{name}-":
                return key
    return OTHER[0]
