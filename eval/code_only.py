"""Code-only questions: Python snippets pasted without any error text ("why does this fail?").

Each erroring snippet raises, on torch 2.13 CPU, an error of a taxonomy class that a CPU
can reproduce (`reproduce: cpu`); the bot is meant to run it and answer from what it
raised. The clean snippets run without an exception (expected null). `must_contain` is a
fragment the raised message must contain, so a re-run proves the snippet still raises the
class it is filed under. All snippets and sentences are written by hand.
"""

from __future__ import annotations

from .negative_line import LANGS

CODE_KINDS = {
    "code-bare",    # only the code
    "code-fenced",  # the code in ``` fences, nothing else
    "code-asked",   # a sentence (en/ko/zh) around the code, fenced or not
    "code-clean",   # runs without an exception: must not be answered
}
NOTE = "snippet and sentence written by hand; `observed` is what torch 2.13 CPU raised when it ran"


def snippet(expected: str | None, code: str, must_contain: str | None = None, *, lang: str = "en",
            before: str = "", after: str = "", fence: str | None = None) -> dict:
    """One code-only line. `fence` is None (no fence) or the opening fence ("```", "```python", "```py")."""
    code = code.strip("\n") + "\n"
    if lang not in LANGS:
        raise ValueError(f"unknown lang {lang!r}")
    if (expected is None) != (must_contain is None):
        raise ValueError(f"{expected}: a clean snippet has no must_contain, an erroring one needs one")
    body = f"{fence}\n{code}```" if fence else code.rstrip("\n")
    text = "\n\n".join(part for part in (before.strip(), body, after.strip()) if part)
    if expected is None:
        kind = "code-clean"
    elif before or after:
        kind = "code-asked"
    else:
        kind = "code-fenced" if fence else "code-bare"
    if kind == "code-asked" and lang == "en" and not (before or after):
        raise ValueError("code-asked needs a sentence")
    return {"text": text, "expected": expected, "kind": kind, "lang": lang, "note": NOTE,
            "code": code, "must_contain": must_contain}


ITEMS = [
    # ---- autograd -------------------------------------------------------------------------
    snippet("pytorch/backward-twice", r"""
import torch

w = torch.randn(3, requires_grad=True)
x = torch.randn(5, 3)
hidden = torch.tanh(x @ w)
loss_a = hidden.sum()
loss_b = (hidden ** 2).mean()
loss_a.backward()
loss_b.backward()
""", "Trying to backward through the graph a second time",
        before="Two losses that share the same hidden tensor. Why does the second backward fail?", fence="```python"),
    snippet("pytorch/inplace-modified", r"""
import torch
import torch.nn as nn

layer = nn.Linear(8, 8)
x = torch.randn(4, 8)
h = torch.sigmoid(layer(x))
h.mul_(2)
h.sum().backward()
""", "modified by an inplace operation", fence="```python"),
    snippet("pytorch/leaf-inplace", r"""
import torch

weights = torch.zeros(10, requires_grad=True)
weights += 0.01 * torch.randn(10)
""", "a leaf Variable that requires grad is being used in an in-place operation", lang="ko",
        before="가중치를 작은 노이즈로 초기화하려는데 이 두 줄에서 안 되네요. 이유가 뭘까요?", fence="```"),
    snippet("pytorch/no-grad-fn", r"""
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 1))
x, y = torch.randn(8, 16), torch.randn(8, 1)
with torch.no_grad():
    pred = model(x)
loss = nn.functional.mse_loss(pred, y)
loss.backward()
""", "does not require grad and does not have a grad_fn"),
    snippet("pytorch/no-grad-fn", r"""
import torch

logits = torch.randn(4, 3, requires_grad=True)
labels = torch.tensor([0, 2, 1, 1])
preds = logits.argmax(dim=1).float()
loss = ((preds - labels.float()) ** 2).mean()
loss.backward()
""", "does not require grad and does not have a grad_fn", lang="zh",
        before="我想直接用 argmax 的结果算 loss，为什么 backward 不行？", fence="```python"),
    snippet("pytorch/grad-scalar", r"""
import torch
import torch.nn as nn

net = nn.Linear(10, 2)
out = net(torch.randn(6, 10))
loss = nn.functional.l1_loss(out, torch.zeros(6, 2), reduction="none")
loss.backward()
""", "grad can be implicitly created only for scalar outputs", fence="```py"),
    snippet("pytorch/numpy-requires-grad", r"""
import torch

emb = torch.nn.Embedding(100, 16)
vectors = emb(torch.arange(5))
arr = vectors.numpy()
print(arr.shape)
""", "Can't call numpy() on Tensor that requires grad",
        before="just want the embeddings as a numpy array for sklearn, what's wrong?"),
    snippet("pytorch/anomaly-nan-backward", r"""
import torch

torch.autograd.set_detect_anomaly(True)
x = torch.zeros(3, requires_grad=True)
y = (x / x).sum()
y.backward()
""", "returned nan values in its", fence="```python"),
    snippet("pytorch/inference-tensor-backward", r"""
import torch
import torch.nn as nn

lin = nn.Linear(4, 4)
with torch.inference_mode():
    feats = torch.randn(2, 4) * 2
head = nn.Linear(4, 1)
loss = head(lin(feats)).sum()
loss.backward()
""", "Inference tensors cannot be saved for backward", lang="ko",
        before="inference_mode로 특징을 뽑아 두고 그 위에 헤드만 학습하려는데 backward에서 실패합니다", fence="```python"),
    snippet("pytorch/requires-grad-integer", r"""
import torch

token_ids = torch.tensor([[3, 8, 1], [4, 4, 2]], requires_grad=True)
""", "Only Tensors of floating point and complex dtype can require gradients"),
    snippet("pytorch/grad-shape-mismatch", r"""
import torch

class Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 3

    @staticmethod
    def backward(ctx, grad_out):
        return grad_out.sum(dim=0)

x = torch.randn(4, 5, requires_grad=True)
Scale.apply(x).sum().backward()
""", "Function ScaleBackward returned an invalid gradient at index 0", lang="zh",
        before="自定义 autograd.Function 的 backward 哪里写错了？", fence="```python"),
    snippet("pytorch/derivative-not-implemented", r"""
import torch

concentration = torch.rand(4, requires_grad=True) + 1.0
x = torch.rand(4)
cdf = torch.igamma(concentration, x)
cdf.sum().backward()
""", "is not implemented", fence="```"),
    # ---- optimisation ---------------------------------------------------------------------
    snippet("pytorch/optimizer-empty-params", r"""
import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = [nn.Linear(10, 10) for _ in range(3)]

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x

model = Model()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
""", "optimizer got an empty parameter list",
        before="my optimizer complains even though the model clearly has three Linear layers:", fence="```python"),
    snippet("pytorch/optimizer-non-leaf", r"""
import torch

w = torch.randn(5, 5, requires_grad=True) * 0.01
opt = torch.optim.SGD([w], lr=0.1)
""", "can't optimize a non-leaf Tensor", lang="ko",
        before="작은 값으로 초기화한 텐서를 SGD에 넘기니 에러가 나요"),
    snippet("pytorch/clip-grad-nonfinite", r"""
import torch
import torch.nn as nn

model = nn.Linear(3, 1)
out = model(torch.tensor([[1.0, float("inf"), 0.0]]))
out.sum().backward()
nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0, error_if_nonfinite=True)
""", "is non-finite, so it cannot be clipped", fence="```python"),
    # ---- dtypes, devices, conversions -----------------------------------------------------------
    snippet("pytorch/dtype-mismatch", r"""
import numpy as np
import torch
import torch.nn as nn

features = torch.from_numpy(np.random.rand(16, 4))
model = nn.Linear(4, 2)
out = model(features)
""", "must have the same dtype",
        before="features come from a numpy array, the model is a plain Linear. why?", fence="```python"),
    snippet("pytorch/dtype-mismatch", r"""
import torch

a = torch.randn(2, 3, 4)
b = torch.randn(2, 4, 5, dtype=torch.float64)
c = torch.bmm(a, b)
""", "expected scalar type Float but found Double"),
    snippet("pytorch/half-not-implemented", r"""
import torch

queries = torch.randn(8, 32).half()
keys = torch.randn(16, 32).half()
dist = torch.cdist(queries, keys)
""", "not implemented for 'Half'", lang="zh",
        before="为了省内存把向量转成 half 再算距离，CPU 上就报错了：", fence="```python"),
    snippet("pytorch/cuda-not-available", r"""
import torch
import torch.nn as nn

model = nn.Linear(10, 2)
model = model.cuda()
""", "Torch not compiled with CUDA enabled", fence="```python"),
    snippet("pytorch/cuda-not-available", r"""
import torch

device = "cuda"
batch = torch.ones(4, 4).to(device)
""", "Torch not compiled with CUDA enabled", lang="ko",
        before="노트북에서 그대로 돌렸는데 첫 줄부터 막힙니다"),
    snippet("pytorch/bool-ambiguous", r"""
import torch

scores = torch.tensor([0.2, 0.9, 0.4])
if scores > 0.5:
    print("positive")
""", "Boolean value of Tensor with more than one value is ambiguous"),
    snippet("pytorch/item-multiple-elements", r"""
import torch
import torch.nn as nn

criterion = nn.MSELoss(reduction="none")
loss = criterion(torch.randn(4), torch.randn(4))
print(f"loss: {loss.item():.4f}")
""", "cannot be converted to Scalar", fence="```python"),
    snippet("pytorch/numpy-object-array", r"""
import numpy as np
import torch

rows = [np.array([1, 2, 3]), np.array([4, 5])]
batch = np.array(rows, dtype=object)
t = torch.from_numpy(batch)
""", "can't convert np.ndarray of type numpy.object_", lang="zh",
        before="每条样本长度不一样，这样转成 tensor 为什么不行？", fence="```python"),
    snippet("pytorch/tensor-from-tensor-list", r"""
import torch

batch = [torch.randn(3), torch.randn(3), torch.randn(3)]
stacked = torch.tensor(batch)
""", "only one element tensors can be converted to Python scalars", fence="```python"),
    snippet("pytorch/index-dtype", r"""
import torch

table = torch.randn(10, 4)
idx = torch.tensor([1.0, 3.0, 5.0])
rows = table[idx]
""", "tensors used as indices must be long, int, byte or bool tensors",
        before="picking rows with an index tensor I computed, what am I missing?"),
    snippet("pytorch/meta-tensor-copy", r"""
import torch
import torch.nn as nn

with torch.device("meta"):
    model = nn.Linear(1024, 1024)
model = model.to("cpu")
""", "Cannot copy out of meta tensor", fence="```python"),
    # ---- shapes ------------------------------------------------------------------------------------
    snippet("pytorch/shape-matmul", r"""
import torch
import torch.nn as nn

model = nn.Sequential(
    nn.Conv2d(3, 8, 3, padding=1),
    nn.ReLU(),
    nn.Flatten(),
    nn.Linear(8 * 16 * 16, 10),
)
out = model(torch.randn(2, 3, 32, 32))
""", "mat1 and mat2 shapes cannot be multiplied", lang="ko",
        before="32x32 이미지를 넣었는데 마지막 Linear에서 실패합니다. 어디를 고쳐야 하나요?", fence="```python"),
    snippet("pytorch/view-stride", r"""
import torch

x = torch.randn(4, 6, 8)
y = x.permute(0, 2, 1)
flat = y.view(4, -1)
""", "view size is not compatible with input tensor's size and stride"),
    snippet("pytorch/index-out-of-range", r"""
import torch
import torch.nn as nn

vocab_size = 1000
emb = nn.Embedding(vocab_size, 64)
token_ids = torch.tensor([[5, 17, 1000, 2]])
vectors = emb(token_ids)
""", "index out of range in self", fence="```python"),
    snippet("pytorch/conv-input-channels", r"""
import torch
import torch.nn as nn

conv = nn.Conv2d(3, 16, kernel_size=3)
gray = torch.randn(8, 1, 28, 28)
out = conv(gray)
""", "to have 3 channels, but got 1 channels instead", lang="zh",
        before="灰度图喂给卷积层：", fence="```python"),
    snippet("pytorch/conv-input-rank", r"""
import torch
import torch.nn as nn

conv = nn.Conv2d(3, 8, 3)
img = torch.randn(2, 1, 3, 32, 32)
out = conv(img)
""", "Expected 3D (unbatched) or 4D (batched) input to conv2d", fence="```python"),
    snippet("pytorch/kernel-larger-than-input", r"""
import torch
import torch.nn as nn

conv = nn.Conv1d(4, 4, kernel_size=7)
signal = torch.randn(2, 4, 5)
out = conv(signal)
""", "Kernel size can't be greater than actual input size",
        before="short sequences break my temporal conv, any idea?", fence="```python"),
    snippet("pytorch/broadcast-size-mismatch", r"""
import torch

preds = torch.randn(32, 10)
targets = torch.randn(32)
loss = ((preds - targets) ** 2).mean()
""", "must match the size of tensor b", fence="```python"),
    snippet("pytorch/broadcast-size-mismatch", r"""
import torch

image = torch.rand(3, 224, 224)
mean = torch.tensor([0.485, 0.456, 0.406, 0.5])
normed = image - mean[:, None, None]
""", "must match the size of tensor b", lang="ko",
        before="정규화하는 한 줄인데 왜 크기가 안 맞는다고 할까요?", fence="```python"),
    snippet("pytorch/stack-unequal-size", r"""
import torch

sequences = [torch.randn(5, 8), torch.randn(7, 8), torch.randn(5, 8)]
batch = torch.stack(sequences)
""", "stack expects each tensor to be equal size, but got"),
    snippet("pytorch/stack-unequal-size", r"""
import torch
from torch.utils.data import DataLoader, Dataset

class Sentences(Dataset):
    def __init__(self):
        self.lengths = [4, 6, 5, 7]

    def __len__(self):
        return len(self.lengths)

    def __getitem__(self, i):
        return torch.ones(self.lengths[i], dtype=torch.long)

loader = DataLoader(Sentences(), batch_size=2)
for batch in loader:
    print(batch.shape)
""", "stack expects each tensor to be equal size, but got", lang="zh",
        before="DataLoader 一取 batch 就报错，数据集是不等长的句子", fence="```python"),
    snippet("pytorch/cat-size-mismatch", r"""
import torch

skip = torch.randn(1, 64, 57, 57)
up = torch.randn(1, 64, 56, 56)
merged = torch.cat([skip, up], dim=1)
""", "Sizes of tensors must match except in dimension", fence="```python"),
    snippet("pytorch/reshape-invalid-size", r"""
import torch

patches = torch.randn(2, 196, 768)
grid = patches.reshape(2, 16, 16, 768)
""", "is invalid for input of size",
        before="turning ViT tokens back into a grid:", fence="```python"),
    snippet("pytorch/expand-size-mismatch", r"""
import torch

mask = torch.ones(4, 10)
expanded = mask.expand(4, 12)
""", "The expanded size of the tensor", fence="```python"),
    snippet("pytorch/dim-out-of-range", r"""
import torch

logits = torch.randn(10)
probs = torch.softmax(logits, dim=1)
""", "Dimension out of range (expected to be in range of", lang="ko",
        before="배치 없이 한 샘플만 넣었더니 softmax에서 에러가 나요", fence="```python"),
    snippet("pytorch/batchnorm-single-value", r"""
import torch
import torch.nn as nn

head = nn.Sequential(nn.Linear(16, 8), nn.BatchNorm1d(8), nn.ReLU())
head.train()
out = head(torch.randn(1, 16))
""", "Expected more than 1 value per channel when training", fence="```python"),
    snippet("pytorch/rnn-input-size", r"""
import torch
import torch.nn as nn

lstm = nn.LSTM(input_size=32, hidden_size=64, batch_first=True)
x = torch.randn(4, 10, 16)
out, _ = lstm(x)
""", "input.size(-1) must be equal to input_size", lang="zh",
        before="LSTM 的 input_size 应该怎么填？", fence="```python"),
    snippet("pytorch/pack-padded-lengths", r"""
import torch
from torch.nn.utils.rnn import pack_padded_sequence

padded = torch.randn(3, 6, 8)
lengths = torch.tensor([3, 6, 4])
packed = pack_padded_sequence(padded, lengths, batch_first=True)
""", "must be sorted in decreasing order when `enforce_sorted` is True", fence="```python"),
    snippet("pytorch/gather-index-rank", r"""
import torch

logits = torch.randn(8, 5)
labels = torch.randint(0, 5, (8,))
picked = logits.gather(1, labels)
""", "Index tensor must have the same number of dimensions as input tensor"),
    snippet("pytorch/one-hot-classes", r"""
import torch
import torch.nn.functional as F

labels = torch.tensor([0, 1, 2, 3])
onehot = F.one_hot(labels, num_classes=3)
""", "Class values must be smaller than num_classes", fence="```python"),
    # ---- losses -------------------------------------------------------------------------------------
    snippet("pytorch/cross-entropy-target", r"""
import torch
import torch.nn as nn

logits = torch.randn(4, 5)
tags = torch.tensor([[0, 2, 4], [1, 1, 3], [2, 0, 0], [4, 3, 1]])
loss = nn.CrossEntropyLoss()(logits, tags)
""", "multi-target not supported",
        before="each sample has three tags out of five classes, CrossEntropyLoss doesn't accept them?", fence="```python"),
    snippet("pytorch/ce-target-dtype", r"""
import torch
import torch.nn as nn

logits = torch.randn(6, 4)
labels = torch.tensor([0., 3., 1., 2., 2., 0.])
loss = nn.CrossEntropyLoss()(logits, labels)
""", "expected target dtype to be Long or Byte, but got Float", fence="```python"),
    snippet("pytorch/ce-batch-size-mismatch", r"""
import torch
import torch.nn as nn

logits = torch.randn(16, 10)
labels = torch.randint(0, 10, (32,))
loss = nn.CrossEntropyLoss()(logits, labels)
""", "to match target batch_size", lang="ko",
        before="배치 크기는 둘 다 맞춘 것 같은데 손실 계산에서 에러가 납니다", fence="```python"),
    snippet("pytorch/loss-target-size", r"""
import torch
import torch.nn as nn

logits = torch.randn(8, 1)
labels = torch.randint(0, 2, (8,)).float()
loss = nn.BCEWithLogitsLoss()(logits, labels)
""", "must be the same as input size", fence="```python"),
    # ---- data -----------------------------------------------------------------------------------------
    snippet("pytorch/collate-type", r"""
import torch
from torch.utils.data import DataLoader

samples = [{"text": "a", "meta": None}, {"text": "b", "meta": None}]
loader = DataLoader(samples, batch_size=2)
batch = next(iter(loader))
""", "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found",
        fence="```python"),
    snippet("pytorch/sampler-shuffle-exclusive", r"""
import torch
from torch.utils.data import DataLoader, TensorDataset, WeightedRandomSampler

ds = TensorDataset(torch.randn(10, 2))
sampler = WeightedRandomSampler(torch.ones(10), num_samples=10)
loader = DataLoader(ds, batch_size=4, sampler=sampler, shuffle=True)
""", "sampler option is mutually exclusive with shuffle", lang="zh",
        before="类别不平衡，用了 WeightedRandomSampler，还想打乱顺序：", fence="```python"),
    snippet("pytorch/random-split-lengths", r"""
import torch
from torch.utils.data import TensorDataset, random_split

ds = TensorDataset(torch.arange(105))
train, val = random_split(ds, [80, 20])
""", "Sum of input lengths does not equal the length of the input dataset", fence="```python"),
    # ---- distributed, saving, scripting ----------------------------------------------------------------
    snippet("pytorch/process-group-not-initialized", r"""
import torch.distributed as dist

rank = dist.get_rank()
print("running on rank", rank)
""", "Default process group has not been initialized",
        before="this is the first thing my training script does, fails when I run it with plain python"),
    snippet("pytorch/syncbn-cpu", r"""
import torch
import torch.distributed as dist
import torch.nn as nn

dist.init_process_group("gloo", init_method="file://./pg_store", rank=0, world_size=1)
model = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8))
model = nn.SyncBatchNorm.convert_sync_batchnorm(model)
out = model(torch.randn(4, 3, 16, 16))
""", "SyncBatchNorm expected input tensor to be on GPU", fence="```python"),
    snippet("pytorch/state-dict-mismatch", r"""
import torch
import torch.nn as nn

backbone = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 10))
torch.save(backbone.state_dict(), "backbone.pt")

finetune = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 3))
finetune.load_state_dict(torch.load("backbone.pt"))
""", "size mismatch for", lang="ko",
        before="사전학습한 가중치를 클래스 수만 바꾼 모델에 불러오려고 합니다", fence="```python"),
    snippet("pytorch/state-dict-mismatch", r"""
import torch
import torch.nn as nn

model = nn.Linear(4, 2)
wrapped = nn.DataParallel(model)
torch.save(wrapped.state_dict(), "ckpt.pt")

fresh = nn.Linear(4, 2)
fresh.load_state_dict(torch.load("ckpt.pt"))
""", "Missing key(s) in state_dict", fence="```python"),
    snippet("pytorch/weights-only-unpickling", r"""
import torch
from dataclasses import dataclass

@dataclass
class TrainConfig:
    lr: float = 3e-4
    epochs: int = 10

torch.save({"config": TrainConfig(), "step": 100}, "run.pt")
ckpt = torch.load("run.pt")
""", "Weights only load failed", lang="zh",
        before="存 checkpoint 的时候顺便存了配置对象，读回来就失败了", fence="```python"),
    snippet("pytorch/checkpoint-corrupt", r"""
import torch

torch.save({"w": torch.randn(256, 256)}, "model.pt")
with open("model.pt", "rb") as f:
    data = f.read()
with open("model_copy.pt", "wb") as f:
    f.write(data[: len(data) // 2])
state = torch.load("model_copy.pt")
""", "failed finding central directory",
        before="simulating what happens when the upload to the bucket gets cut off:", fence="```python"),
    snippet("pytorch/torchscript-unsupported", r"""
import torch

def pad_all(*tensors, value=0.0):
    return [torch.nn.functional.pad(t, (0, 1), value=value) for t in tensors]

scripted = torch.jit.script(pad_all)
""", "NotSupportedError", fence="```python"),
    snippet("pytorch/worker-pickle", r"""
import torch
from torch.utils.data import DataLoader, TensorDataset

def main():
    ds = TensorDataset(torch.randn(8, 3))

    def collate(batch):
        return torch.stack([b[0] for b in batch])

    loader = DataLoader(ds, batch_size=4, num_workers=2, collate_fn=collate,
                        multiprocessing_context="spawn")
    for batch in loader:
        print(batch.shape)

main()
""", "Can't pickle local object", lang="ko",
        before="맥에서 돌리던 코드를 그대로 옮겼는데 워커를 켜면 바로 실패해요. num_workers=0이면 됩니다", fence="```python"),
    snippet("pytorch/dynamo-unsupported", r"""
import torch

def clamp_or_shift(x):
    if x.sum() > 0:
        return x * 2
    return x - 1

compiled = torch.compile(clamp_or_shift, fullgraph=True, backend="eager")
compiled(torch.randn(4))
""", "torch._dynamo.exc.Unsupported", fence="```python"),
    # ---- clean snippets: run without an exception, must not be answered ---------------------------
    snippet(None, r"""
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 1))
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
x, y = torch.randn(8, 16), torch.randn(8, 1)
for _ in range(3):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
print(loss.item())
""", before="is this training loop right? it runs but I'm not sure about the order of zero_grad", fence="```python"),
    snippet(None, r"""
import torch

x = torch.randn(4, 6, 8)
y = x.permute(0, 2, 1).reshape(4, -1)
print(y.shape)
""", fence="```python"),
    snippet(None, r"""
import torch
import torch.nn as nn

logits = torch.randn(6, 4)
labels = torch.tensor([0, 3, 1, 2, 2, 0])
loss = nn.CrossEntropyLoss(label_smoothing=0.1)(logits, labels)
print(loss)
""", lang="ko", before="label smoothing 이렇게 쓰는 게 맞나요?", fence="```python"),
    snippet(None, r"""
import torch
import torch.nn as nn

model = nn.Linear(4, 2)
torch.save(model.state_dict(), "weights.pt")
restored = nn.Linear(4, 2)
restored.load_state_dict(torch.load("weights.pt", weights_only=True))
print(torch.equal(model.weight, restored.weight))
""", fence="```python"),
    snippet(None, r"""
import torch
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader

sentences = [torch.ones(n, dtype=torch.long) for n in (4, 6, 5, 7)]
loader = DataLoader(sentences, batch_size=2, collate_fn=lambda b: pad_sequence(b, batch_first=True))
for batch in loader:
    print(batch.shape)
""", lang="zh", before="不等长的句子这样 padding 有没有问题？能跑，但想确认一下", fence="```python"),
    snippet(None, r"""
import torch

emb = torch.nn.Embedding(100, 16)
with torch.no_grad():
    vectors = emb(torch.arange(5))
arr = vectors.numpy()
print(arr.shape)
"""),
    snippet(None, r"""
import torch
from torch.nn.utils.rnn import pack_padded_sequence

padded = torch.randn(3, 6, 8)
lengths = torch.tensor([3, 6, 4])
packed = pack_padded_sequence(padded, lengths, batch_first=True, enforce_sorted=False)
print(packed.data.shape)
""", fence="```"),
    snippet(None, r"""
import torch

logits = torch.randn(8, 5)
labels = torch.randint(0, 5, (8,))
picked = logits.gather(1, labels.unsqueeze(1)).squeeze(1)
print(picked.shape)
""", lang="ko", before="정답 클래스의 logit만 뽑는 코드인데 더 깔끔한 방법이 있을까요?", fence="```python"),
    snippet(None, r"""
import torch
import torch.nn.functional as F

labels = torch.tensor([0, 1, 2, 1])
onehot = F.one_hot(labels, num_classes=3).float()
print(onehot.sum(dim=0))
""", fence="```python"),
    snippet(None, r"""
import torch
import torch.nn as nn

head = nn.Sequential(nn.Linear(16, 8), nn.BatchNorm1d(8), nn.ReLU())
head.eval()
with torch.inference_mode():
    out = head(torch.randn(1, 16))
print(out.shape)
""", before="single-sample prediction with a BatchNorm head, any pitfalls here?", fence="```python"),
    snippet(None, r"""
import torch

a = torch.randn(2, 3, 4)
b = torch.randn(2, 4, 5, dtype=torch.float64)
c = torch.bmm(a, b.float())
print(c.dtype, c.shape)
""", lang="zh", before="这样转换 dtype 会不会损失精度？", fence="```python"),
    snippet(None, r"""
import torch
from torch.utils.data import TensorDataset, random_split

ds = TensorDataset(torch.arange(105))
train, val = random_split(ds, [0.8, 0.2], generator=torch.Generator().manual_seed(0))
print(len(train), len(val))
""", fence="```python"),
]
