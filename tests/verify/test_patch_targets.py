"""Patches for kernel-larger-than-input, batchnorm-single-value, loss-target-size,
rnn-input-size, pack-padded-lengths, gather-index-rank, one-hot-classes and index-dtype,
each on a CPU repro for torch 2.13 and on a variant that builds the module or loss inline;
and the target/dtype patches of dtypes.py on a loss or model called inline."""

from __future__ import annotations

from textwrap import dedent

import pytest

from bot.verify.patches import registry
from bot.verify.patches.base import Failure

KERNEL = "Kernel size can't be greater than actual input size"
POOL = "Output size is too small"
BATCHNORM = "Expected more than 1 value per channel when training"
BCE_LOGITS = "must be the same as input size"
BCE = "that is different to the input size"
RNN = "must be equal to input_size"
PACK = "must be sorted in decreasing order when `enforce_sorted` is True"
GATHER = "Index tensor must have the same number of dimensions as input tensor"
ONE_HOT = "Class values must be smaller than num_classes"
INDEX = "tensors used as indices must be long, int, byte or bool tensors"
EMBEDDING = "'indices' to have one of the following scalar types: Long, Int"
TARGET = "expected target dtype to be Long or Byte"
DTYPE = "mat1 and mat2 must have the same dtype"

KERNEL_REPRO = dedent("""\
    import torch
    from torch import nn

    features = nn.Sequential(
        nn.Conv2d(1, 8, 3), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 5), nn.ReLU(),
    )
    digits = torch.randn(2, 1, 8, 8)
    maps = features(digits)
    print(maps.shape)
""")

KERNEL_INLINE = dedent("""\
    import torch
    from torch import nn
    thumb = torch.randn(1, 3, 4, 4)
    out = nn.Conv2d(3, 8, kernel_size=7)(thumb)
    print(out.shape)
""")

POOL_REPRO = dedent("""\
    import torch
    from torch import nn
    pool = nn.MaxPool2d(2)
    tiny = torch.randn(1, 4, 1, 1)
    out = pool(tiny)
    print(out.shape)
""")

BATCHNORM_REPRO = dedent("""\
    import torch
    from torch import nn
    from torch.utils.data import DataLoader, TensorDataset

    model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 2))
    loader = DataLoader(TensorDataset(torch.randn(9, 4)), batch_size=4)
    for (features,) in loader:
        scores = model(features)
    print(scores.shape)
""")

BATCHNORM_INLINE = dedent("""\
    import torch
    from torch import nn
    sample = torch.randn(1, 16)
    normed = nn.BatchNorm1d(16)(sample)
    print(normed.shape)
""")

BCE_REPRO = dedent("""\
    import torch
    from torch import nn

    model = nn.Linear(6, 1)
    criterion = nn.BCEWithLogitsLoss()
    features = torch.randn(4, 6)
    labels = torch.tensor([0.0, 1.0, 1.0, 0.0])
    logits = model(features)
    loss = criterion(logits, labels)
    print(loss.item())
""")

BCE_INLINE = dedent("""\
    import torch
    from torch import nn
    probs = torch.rand(5, 1)
    labels = torch.tensor([0, 1, 1, 0, 1])
    loss = nn.BCELoss()(probs, labels)
    print(loss.item())
""")

RNN_REPRO = dedent("""\
    import torch
    from torch import nn

    lstm = nn.LSTM(input_size=10, hidden_size=20)
    batch = torch.randn(4, 7, 8)
    output, (h, c) = lstm(batch)
    print(output.shape)
""")

RNN_SELF = dedent("""\
    import torch
    from torch import nn


    class Tagger(nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = nn.GRU(16, 32, batch_first=True)

        def forward(self, x):
            out, _ = self.rnn(x)
            return out


    print(Tagger()(torch.randn(3, 5, 12)).shape)
""")

RNN_INLINE = dedent("""\
    import torch
    from torch import nn
    x = torch.randn(3, 5, 12)
    out, h = nn.GRU(16, 32, batch_first=True)(x)
    print(out.shape)
""")

PACK_REPRO = dedent("""\
    import torch
    from torch.nn.utils.rnn import pack_padded_sequence

    padded = torch.randn(3, 5, 2)
    lengths = torch.tensor([2, 5, 3])
    packed = pack_padded_sequence(padded, lengths, batch_first=True)
    print(packed.batch_sizes)
""")

PACK_TIME_FIRST = dedent("""\
    import torch
    from torch.nn.utils import rnn
    padded = torch.randn(5, 3, 2)
    packed = rnn.pack_padded_sequence(padded, [2, 5, 3])
    print(packed.batch_sizes)
""")

GATHER_REPRO = dedent("""\
    import torch

    scores = torch.randn(4, 5)
    chosen = torch.tensor([0, 3, 1, 4])
    picked = torch.gather(scores, 1, chosen)
    print(picked.shape)
""")

GATHER_METHOD = dedent("""\
    import torch
    q = torch.randn(4, 5)
    actions = torch.tensor([0, 3, 1, 4])
    q_taken = q.gather(1, actions)
    print(q_taken.shape)
""")

ONE_HOT_REPRO = dedent("""\
    import torch
    import torch.nn.functional as F

    labels = torch.tensor([1, 2, 3, 3, 1])
    encoded = F.one_hot(labels, num_classes=3)
    print(encoded.shape)
""")

INDEX_REPRO = dedent("""\
    import torch

    tokens = torch.arange(10, 20)
    positions = torch.tensor([2, 4, 6])
    middle = positions / 2
    picked = tokens[middle]
    print(picked)
""")

EMBEDDING_INLINE = dedent("""\
    import torch
    from torch import nn
    ids = torch.tensor([[1., 4., 2.]])
    vectors = nn.Embedding(10, 3)(ids)
    print(vectors.shape)
""")

CE_INLINE = dedent("""\
    import torch
    from torch import nn
    logits = torch.randn(4, 3, requires_grad=True)
    labels = torch.tensor([0.0, 2.0, 1.0, 2.0])
    loss = nn.CrossEntropyLoss()(logits, labels)
    loss.backward()
    print(loss.item())
""")

CE_INLINE_KEYWORD = dedent("""\
    import torch
    logits = torch.randn(4, 3)
    labels = torch.tensor([0.0, 2.0, 1.0, 2.0])
    loss = torch.nn.CrossEntropyLoss(reduction="sum")(input=logits, target=labels)
    print(loss.item())
""")

DTYPE_INLINE = dedent("""\
    import numpy as np
    import torch
    features = torch.from_numpy(np.random.rand(5, 3))
    prediction = torch.nn.Linear(3, 1)(features)
    print(prediction.dtype)
""")


# kernel-larger-than-input ----------------------------------------------------------------------

def test_padding_half_kernel_pads_the_layer_the_message_names(try_patch):
    out = try_patch(KERNEL_REPRO, "padding-half-kernel", fails_with=KERNEL)
    assert "    nn.Conv2d(8, 16, 5, padding=2), nn.ReLU(),\n" in out.patch.code
    assert "nn.Conv2d(1, 8, 3), nn.ReLU()" in out.patch.code  # the other conv is untouched
    out.ok()
    assert "torch.Size([2, 16, 3, 3])" in out.patched.output


def test_padding_half_kernel_inline(try_patch):
    out = try_patch(KERNEL_INLINE, "padding-half-kernel", fails_with=KERNEL)
    assert "out = nn.Conv2d(3, 8, kernel_size=7, padding=3)(thumb)" in out.patch.code
    out.ok()


def test_kernel_size_fit_input_reads_the_size_from_the_message(try_patch):
    out = try_patch(KERNEL_REPRO, "kernel-size-fit-input", fails_with=KERNEL)
    assert "    nn.Conv2d(8, 16, 3), nn.ReLU(),\n" in out.patch.code
    out.ok()
    inline = try_patch(KERNEL_INLINE, "kernel-size-fit-input", fails_with=KERNEL)
    assert "nn.Conv2d(3, 8, kernel_size=4)(thumb)" in inline.patch.code
    inline.ok()


def test_padding_fixes_a_pooling_layer_too(try_patch):
    out = try_patch(POOL_REPRO, "padding-half-kernel", fails_with=POOL)
    assert "pool = nn.MaxPool2d(2, padding=1)" in out.patch.code
    out.ok()


def test_stride_one_still_fails(try_patch):
    for code in (KERNEL_REPRO, KERNEL_INLINE):
        out = try_patch(code, "stride-one-for-small-input", fails_with=KERNEL)
        assert "stride=1" in out.patch.code
        out.fails(KERNEL)


def test_kernel_patches_not_applicable_without_a_conv():
    failure = Failure(type="RuntimeError", message=f"Calculated padded input size per channel: (3 x 3). "
                                                   f"Kernel size: (5 x 5). {KERNEL}", line=3)
    code = "import torch\nw = torch.randn(8, 1, 5, 5)\nout = torch.nn.functional.conv2d(torch.randn(1, 1, 3, 3), w)\n"
    for name in ("padding-half-kernel", "kernel-size-fit-input", "stride-one-for-small-input"):
        result = registry.get(name).apply(code, failure)
        assert not result.applicable and "convolution or pooling" in result.reason


# batchnorm-single-value ----------------------------------------------------------------------

def test_drop_last_on_the_loader_of_the_loop(try_patch):
    out = try_patch(BATCHNORM_REPRO, "dataloader-drop-last", fails_with=BATCHNORM)
    assert "loader = DataLoader(TensorDataset(torch.randn(9, 4)), batch_size=4, drop_last=True)" in out.patch.code
    out.ok()
    assert "torch.Size([4, 2])" in out.patched.output


def test_drop_last_not_applicable_without_a_loader(try_patch):
    failure = Failure(type="ValueError", message=BATCHNORM, line=4)
    result = registry.get("dataloader-drop-last").apply(BATCHNORM_INLINE, failure)
    assert not result.applicable and "DataLoader" in result.reason


def test_eval_mode_variable_and_inline(try_patch):
    out = try_patch(BATCHNORM_REPRO, "batchnorm-eval-mode", fails_with=BATCHNORM)
    assert "    model.eval()\n    scores = model(features)" in out.patch.code
    out.ok()
    inline = try_patch(BATCHNORM_INLINE, "batchnorm-eval-mode", fails_with=BATCHNORM)
    assert "normed = nn.BatchNorm1d(16).eval()(sample)" in inline.patch.code
    inline.ok()


def test_groupnorm_instead_of_batchnorm(try_patch):
    out = try_patch(BATCHNORM_REPRO, "batchnorm-to-groupnorm", fails_with=BATCHNORM)
    assert "nn.Linear(4, 8), nn.GroupNorm(1, 8), nn.ReLU()" in out.patch.code
    out.ok()
    inline = try_patch(BATCHNORM_INLINE, "batchnorm-to-groupnorm", fails_with=BATCHNORM)
    assert "normed = nn.GroupNorm(1, 16)(sample)" in inline.patch.code
    inline.ok()


def test_no_running_stats_still_fails(try_patch):
    for code in (BATCHNORM_REPRO, BATCHNORM_INLINE):
        out = try_patch(code, "batchnorm-no-running-stats", fails_with=BATCHNORM)
        assert "track_running_stats=False)" in out.patch.code
        out.fails(BATCHNORM)


# loss-target-size --------------------------------------------------------------------------------

def test_target_view_as_input(try_patch):
    out = try_patch(BCE_REPRO, "target-view-as-input", fails_with=BCE_LOGITS)
    assert "loss = criterion(logits, labels.float().view_as(logits))" in out.patch.code
    out.ok()
    inline = try_patch(BCE_INLINE, "target-view-as-input", fails_with=BCE)
    assert "loss = nn.BCELoss()(probs, labels.float().view_as(probs))" in inline.patch.code
    inline.ok()


def test_squeeze_input_last_dim(try_patch):
    out = try_patch(BCE_REPRO, "squeeze-input-last-dim", fails_with=BCE_LOGITS)
    assert "loss = criterion(logits.squeeze(-1), labels)" in out.patch.code
    out.ok()
    # integer labels: the shapes agree now, the dtype does not (why view_as casts too)
    inline = try_patch(BCE_INLINE, "squeeze-input-last-dim", fails_with=BCE)
    assert "nn.BCELoss()(probs.squeeze(-1), labels)" in inline.patch.code
    inline.fails("Found dtype Long but expected Float")


def test_target_unsqueeze_first_still_fails(try_patch):
    out = try_patch(BCE_REPRO, "target-unsqueeze-first", fails_with=BCE_LOGITS)
    assert "loss = criterion(logits, labels.unsqueeze(0))" in out.patch.code
    out.fails(BCE_LOGITS)


def test_size_patches_refuse_when_the_element_counts_differ():
    message = "Target size (torch.Size([4])) must be the same as input size (torch.Size([4, 3]))"
    failure = Failure(type="ValueError", message=message, line=9)
    for name in ("target-view-as-input", "squeeze-input-last-dim"):
        result = registry.get(name).apply(BCE_REPRO, failure)
        assert not result.applicable, name


# rnn-input-size ------------------------------------------------------------------------------------

def test_rnn_input_size_from_data(try_patch):
    out = try_patch(RNN_REPRO, "rnn-input-size-from-data", fails_with=RNN)
    assert "lstm = nn.LSTM(input_size=8, hidden_size=20)" in out.patch.code
    out.ok()
    for code, expected in ((RNN_INLINE, "out, h = nn.GRU(12, 32, batch_first=True)(x)"),
                           (RNN_SELF, "self.rnn = nn.GRU(12, 32, batch_first=True)")):
        other = try_patch(code, "rnn-input-size-from-data", fails_with=RNN)
        assert expected in other.patch.code
        other.ok()


def test_rnn_batch_first_still_fails(try_patch):
    out = try_patch(RNN_REPRO, "rnn-batch-first", fails_with=RNN)
    assert "nn.LSTM(input_size=10, hidden_size=20, batch_first=True)" in out.patch.code
    out.fails(RNN)


def test_rnn_batch_first_not_applicable_when_already_set(try_patch):
    out = try_patch(RNN_INLINE, "rnn-input-size-from-data", fails_with=RNN)  # runs the repro once
    failure = Failure.from_error(out.original.error)
    result = registry.get("rnn-batch-first").apply(RNN_INLINE, failure)
    assert not result.applicable and "batch_first=True" in result.reason


# pack-padded-lengths -------------------------------------------------------------------------------

def test_enforce_sorted_false(try_patch):
    out = try_patch(PACK_REPRO, "pack-enforce-sorted-false", fails_with=PACK)
    assert "packed = pack_padded_sequence(padded, lengths, batch_first=True, enforce_sorted=False)" in out.patch.code
    out.ok()


def test_sort_by_length_both_layouts(try_patch):
    out = try_patch(PACK_REPRO, "pack-sort-by-length", fails_with=PACK)
    assert ("sorted_lengths, sort_order = torch.as_tensor(lengths).sort(descending=True)\n"
            "packed = pack_padded_sequence(padded[sort_order], sorted_lengths, batch_first=True)") in out.patch.code
    out.ok()
    time_first = try_patch(PACK_TIME_FIRST, "pack-sort-by-length", fails_with=PACK)
    assert "rnn.pack_padded_sequence(padded[:, sort_order], sorted_lengths)" in time_first.patch.code
    time_first.ok()


def test_lengths_to_cpu_still_fails_when_unsorted(try_patch):
    out = try_patch(PACK_REPRO, "lengths-to-cpu-int64", fails_with=PACK)
    assert "pack_padded_sequence(padded, lengths.cpu().long(), batch_first=True)" in out.patch.code
    out.fails(PACK)
    failure = Failure.from_error(out.original.error)
    plain = registry.get("lengths-to-cpu-int64").apply(PACK_TIME_FIRST.replace("[2, 5, 3]", "[2, 5, 3]"), Failure(
        type="RuntimeError", message=PACK, line=4))
    assert not plain.applicable and "Python list" in plain.reason
    assert failure.line == 6


# gather-index-rank ---------------------------------------------------------------------------------

def test_gather_index_unsqueeze_function_and_method(try_patch):
    out = try_patch(GATHER_REPRO, "gather-index-unsqueeze", fails_with=GATHER)
    assert "picked = torch.gather(scores, 1, chosen.unsqueeze(1))" in out.patch.code
    out.ok()
    method = try_patch(GATHER_METHOD, "gather-index-unsqueeze", fails_with=GATHER)
    assert "q_taken = q.gather(1, actions.unsqueeze(1))" in method.patch.code
    method.ok()


def test_gather_to_advanced_indexing(try_patch):
    out = try_patch(GATHER_REPRO, "gather-to-advanced-indexing", fails_with=GATHER)
    assert "picked = scores[torch.arange(chosen.shape[0]), chosen]" in out.patch.code
    out.ok()
    assert "torch.Size([4])" in out.patched.output


def test_take_along_dim_still_fails(try_patch):
    for code in (GATHER_REPRO, GATHER_METHOD):
        out = try_patch(code, "gather-to-take-along-dim", fails_with=GATHER)
        assert "torch.take_along_dim(" in out.patch.code
        out.fails("should have the same number of dimensions")


def test_gather_patches_not_applicable_without_gather():
    failure = Failure(type="RuntimeError", message=GATHER, line=6)
    for name in ("gather-index-unsqueeze", "gather-to-advanced-indexing", "gather-to-take-along-dim"):
        assert not registry.get(name).apply(INDEX_REPRO, failure).applicable


# one-hot-classes ---------------------------------------------------------------------------------

def test_one_hot_classes_from_data(try_patch):
    out = try_patch(ONE_HOT_REPRO, "one-hot-classes-from-data", fails_with=ONE_HOT)
    assert "encoded = F.one_hot(labels, num_classes=int(labels.max()) + 1)" in out.patch.code
    out.ok()
    assert "torch.Size([5, 4])" in out.patched.output


def test_one_hot_shift_labels(try_patch):
    out = try_patch(ONE_HOT_REPRO, "one-hot-shift-labels", fails_with=ONE_HOT)
    assert "encoded = F.one_hot(labels - 1, num_classes=3)" in out.patch.code
    out.ok()


def test_one_hot_classes_max_still_fails(try_patch):
    out = try_patch(ONE_HOT_REPRO, "one-hot-classes-max", fails_with=ONE_HOT)
    assert "num_classes=int(labels.max())" in out.patch.code
    out.fails(ONE_HOT)


def test_one_hot_patches_refuse_negative_labels():
    failure = Failure(type="RuntimeError", message="Class values must be non-negative.", line=5)
    for name in ("one-hot-classes-from-data", "one-hot-shift-labels"):
        result = registry.get(name).apply(ONE_HOT_REPRO, failure)
        assert not result.applicable and "negative" in result.reason


# index-dtype -------------------------------------------------------------------------------------

def test_index_to_long_subscript_and_inline_embedding(try_patch):
    out = try_patch(INDEX_REPRO, "index-to-long", fails_with=INDEX)
    assert "picked = tokens[middle.long()]" in out.patch.code
    out.ok()
    emb = try_patch(EMBEDDING_INLINE, "index-to-long", fails_with=EMBEDDING)
    assert "vectors = nn.Embedding(10, 3)(ids.long())" in emb.patch.code
    emb.ok()


def test_floor_divide_index(try_patch):
    out = try_patch(INDEX_REPRO, "floor-divide-index", fails_with=INDEX)
    assert "middle = positions // 2\npicked = tokens[middle]" in out.patch.code
    out.ok()
    assert "tensor([11, 12, 13])" in out.patched.output


def test_index_round_still_fails(try_patch):
    out = try_patch(INDEX_REPRO, "index-round", fails_with=INDEX)
    assert "picked = tokens[middle.round()]" in out.patch.code
    out.fails(INDEX)


def test_floor_divide_not_applicable_without_a_division():
    failure = Failure(type="RuntimeError", message=EMBEDDING, line=4)
    result = registry.get("floor-divide-index").apply(EMBEDDING_INLINE, failure)
    assert not result.applicable and "`/`" in result.reason


# the target and dtype patches of dtypes.py on a loss or model built inline ----------------------

@pytest.mark.parametrize("code,expected", [
    (CE_INLINE, "loss = nn.CrossEntropyLoss()(logits, labels.long())"),
    (CE_INLINE_KEYWORD, 'torch.nn.CrossEntropyLoss(reduction="sum")(input=logits, target=labels.long())'),
])
def test_target_to_long_on_an_inline_loss(try_patch, code, expected):
    out = try_patch(code, "target-to-long", fails_with=TARGET)
    assert expected in out.patch.code
    out.ok()


def test_target_to_int32_on_an_inline_loss_still_fails(try_patch):
    out = try_patch(CE_INLINE, "target-to-int32", fails_with=TARGET)
    assert "loss = nn.CrossEntropyLoss()(logits, labels.int())" in out.patch.code
    assert out.patched.exit_reason == "error" and TARGET in out.message and "Int" in out.message


def test_dtype_patches_on_an_inline_model(try_patch):
    out = try_patch(DTYPE_INLINE, "cast-input-float32", fails_with=DTYPE)
    assert "prediction = torch.nn.Linear(3, 1)(features.float())" in out.patch.code
    out.ok()
    double = try_patch(DTYPE_INLINE, "model-to-double", fails_with=DTYPE)
    assert "prediction = torch.nn.Linear(3, 1).double()(features)" in double.patch.code
    assert "\ntorch.nn.Linear(3, 1).double()\n" not in double.patch.code
    double.ok()
