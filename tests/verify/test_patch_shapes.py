"""Patches for the shape and size classes (bot/verify/patches/shapes.py), each run on a
CPU repro for torch 2.13: a fix must make the snippet run, a dead end must still fail
(or fail with the error its entry's `leads_to` names), and a patch must say why when it
does not apply."""

from __future__ import annotations

from textwrap import dedent

from bot.verify.patches import registry
from bot.verify.patches.base import Failure

CHANNELS = "to have 3 channels, but got 1 channels instead"
RANK = "input to conv2d, but got input of size"
STACK = "stack expects each tensor to be equal size"
CAT = "Sizes of tensors must match except in dimension"
RESHAPE = "is invalid for input of size"
EXPAND = "The expanded size of the tensor"
DIM = "Dimension out of range"
BROADCAST = "must match the size of tensor b"

CHANNELS_REPRO = dedent("""\
    import torch
    from torch import nn
    conv = nn.Conv2d(3, 16, kernel_size=3, padding=1)
    gray_batch = torch.rand(2, 1, 32, 32)
    features = conv(gray_batch)
    print(features.shape)
""")

# The layer built inline and inside a Sequential: the patches must find it there too.
CHANNELS_INLINE = dedent("""\
    import torch
    from torch import nn
    gray_batch = torch.rand(2, 1, 32, 32)
    features = nn.Conv2d(3, 16, 3)(gray_batch)
    print(features.shape)
""")

CHANNELS_SEQUENTIAL = dedent("""\
    import torch
    from torch import nn
    model = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU(), nn.Conv2d(8, 8, 3))
    gray_batch = torch.rand(2, 1, 16, 16)
    out = model(gray_batch)
    print(out.shape)
""")

RANK_REPRO = dedent("""\
    import torch
    from torch import nn
    conv = nn.Conv2d(1, 8, kernel_size=3)
    image = torch.rand(28, 28)
    features = conv(image)
    print(features.shape)
""")

RANK_EXTRA = dedent("""\
    import torch
    from torch import nn
    clips = torch.rand(2, 4, 3, 16, 16)
    features = nn.Conv2d(3, 8, 3)(clips)
    print(features.shape)
""")

STACK_REPRO = dedent("""\
    import torch
    from torch.utils.data import DataLoader, Dataset


    class Photos(Dataset):
        sizes = [(32, 32), (28, 36), (32, 32), (30, 30)]

        def __len__(self):
            return len(self.sizes)

        def __getitem__(self, i):
            height, width = self.sizes[i]
            return torch.rand(3, height, width), i % 2


    loader = DataLoader(Photos(), batch_size=2)
    images, labels = next(iter(loader))
    print(images.shape, labels)
""")

STACK_SEQUENCES = dedent("""\
    import torch
    tokens = [torch.arange(5), torch.arange(3), torch.arange(4)]
    batch = torch.stack(tokens)
    print(batch.shape)
""")

CAT_REPRO = dedent("""\
    import torch
    from torch import nn
    up = nn.ConvTranspose2d(16, 8, kernel_size=2, stride=2)
    decoded = up(torch.rand(1, 16, 7, 7))
    skip = torch.rand(1, 8, 15, 15)
    merged = torch.cat([decoded, skip], dim=1)
    print(merged.shape)
""")

RESHAPE_REPRO = dedent("""\
    import torch
    features = torch.rand(4, 16, 5, 5)
    flat = features.view(4, 16 * 4 * 4)
    print(flat.shape)
""")

EXPAND_REPRO = dedent("""\
    import torch
    batch, heads, tokens = 2, 4, 6
    padding_mask = torch.ones(batch, tokens)
    attn_mask = padding_mask.expand(batch, heads, tokens, tokens)
    print(attn_mask.shape)
""")

DIM_REPRO = dedent("""\
    import torch
    logits = torch.randn(10)
    probs = torch.softmax(logits, dim=1)
    print(probs.sum())
""")

DIM_METHOD = dedent("""\
    import torch
    scores = torch.randn(10)
    best = scores.argmax(1)
    print(best)
""")

BROADCAST_REPRO = dedent("""\
    import torch
    images = torch.rand(2, 3, 32, 32)
    mean = torch.tensor([0.485, 0.456, 0.406])
    std = torch.tensor([0.229, 0.224, 0.225])
    normalized = (images - mean) / std
    print(normalized.shape)
""")

BROADCAST_SEQUENCES = dedent("""\
    import torch
    x = torch.rand(2, 197, 8)
    pos = torch.rand(1, 50, 8)
    y = x + pos
""")


def not_applicable(runner, code, name, message_part):
    original = runner(code)
    assert original.exit_reason == "error", original.output
    result = registry.get(name).apply(code, Failure.from_error(original.error, run=runner))
    assert not result.applicable and result.reason
    return original, result


# conv-input-channels ---------------------------------------------------------------------------------

def test_repeat_gray_channel(try_patch):
    out = try_patch(CHANNELS_REPRO, "repeat-gray-channel", fails_with=CHANNELS)
    assert "features = conv(gray_batch.repeat_interleave(3, dim=-3))" in out.patch.code
    out.ok()
    assert "[2, 16, 32, 32]" in out.patched.output.replace("torch.Size(", "")


def test_repeat_gray_channel_inline_conv(try_patch):
    out = try_patch(CHANNELS_INLINE, "repeat-gray-channel", fails_with=CHANNELS)
    assert "nn.Conv2d(3, 16, 3)(gray_batch.repeat_interleave(3, dim=-3))" in out.patch.code
    out.ok()


def test_conv_in_channels_from_input(try_patch):
    out = try_patch(CHANNELS_REPRO, "conv-in-channels-from-input", fails_with=CHANNELS)
    assert "conv = nn.Conv2d(1, 16, kernel_size=3, padding=1)" in out.patch.code
    assert "features = conv(gray_batch)" in out.patch.code
    out.ok()


def test_conv_in_channels_inline_and_in_a_sequential(try_patch):
    out = try_patch(CHANNELS_INLINE, "conv-in-channels-from-input", fails_with=CHANNELS)
    assert "nn.Conv2d(1, 16, 3)(gray_batch)" in out.patch.code
    out.ok()
    out = try_patch(CHANNELS_SEQUENTIAL, "conv-in-channels-from-input", fails_with=CHANNELS)
    assert "nn.Sequential(nn.Conv2d(1, 8, 3), nn.ReLU(), nn.Conv2d(8, 8, 3))" in out.patch.code
    out.ok()


def test_view_input_as_expected_channels_leads_to_reshape_error(try_patch):
    out = try_patch(CHANNELS_REPRO, "view-input-as-expected-channels", fails_with=CHANNELS)
    out.fails(RESHAPE)


def test_repeat_gray_channel_not_applicable_to_many_channels(runner):
    code = CHANNELS_REPRO.replace("torch.rand(2, 1, 32, 32)", "torch.rand(2, 5, 32, 32)")
    _, result = not_applicable(runner, code, "repeat-gray-channel", "5 channels")
    assert "not one" in result.reason


# conv-input-rank --------------------------------------------------------------------------------------

def test_match_conv_input_rank_adds_batch_and_channel(try_patch):
    out = try_patch(RANK_REPRO, "match-conv-input-rank", fails_with=RANK)
    assert "features = conv(image.unsqueeze(0).unsqueeze(0))" in out.patch.code
    out.ok()


def test_match_conv_input_rank_folds_extra_dimension_inline(try_patch):
    out = try_patch(RANK_EXTRA, "match-conv-input-rank", fails_with=RANK)
    assert "nn.Conv2d(3, 8, 3)(clips.flatten(0, 1))" in out.patch.code
    out.ok()


def test_unsqueeze_channel_last_leads_to_channel_error(try_patch, kb):
    from bot.verify.classify import classify_error

    out = try_patch(RANK_REPRO, "unsqueeze-channel-last", fails_with=RANK)
    out.fails("but got 28 channels instead")
    assert classify_error("RuntimeError", out.message, kb=kb)[0] == "pytorch/conv-input-channels"


def test_rank_patches_not_applicable_without_a_conv_message(runner):
    not_applicable(runner, RESHAPE_REPRO, "match-conv-input-rank", "")


# stack-unequal-size -------------------------------------------------------------------------------------

def test_pad_collate_on_the_dataloader(try_patch):
    out = try_patch(STACK_REPRO, "pad-to-largest-before-stack", fails_with=STACK)
    assert "loader = DataLoader(Photos(), batch_size=2, collate_fn=_pad_collate)" in out.patch.code
    assert "images, labels = next(iter(loader))" in out.patch.code
    out.ok()
    assert "[2, 3, 32, 36]" in out.patched.output.replace("torch.Size(", "")


def test_pad_before_torch_stack_of_sequences(try_patch):
    out = try_patch(STACK_SEQUENCES, "pad-to-largest-before-stack", fails_with=STACK)
    assert "batch = torch.stack(_pad_to_largest(tokens))" in out.patch.code
    out.ok()
    assert "[3, 5]" in out.patched.output.replace("torch.Size(", "")


def test_drop_last_still_fails(try_patch):
    out = try_patch(STACK_REPRO, "drop-last-for-unequal-sizes", fails_with=STACK)
    assert "DataLoader(Photos(), batch_size=2, drop_last=True)" in out.patch.code
    out.fails(STACK)


def test_drop_last_not_applicable_without_a_dataloader(runner):
    _, result = not_applicable(runner, STACK_SEQUENCES, "drop-last-for-unequal-sizes", "")
    assert "DataLoader" in result.reason


# cat-size-mismatch ---------------------------------------------------------------------------------------

def test_crop_to_smallest_before_cat(try_patch):
    out = try_patch(CAT_REPRO, "crop-to-smallest-before-cat", fails_with=CAT)
    assert "merged = torch.cat(_crop_to_smallest([decoded, skip], skip_dim=1), dim=1)" in out.patch.code
    out.ok()
    assert "[1, 16, 14, 14]" in out.patched.output.replace("torch.Size(", "")


def test_pad_to_largest_before_cat(try_patch):
    out = try_patch(CAT_REPRO, "pad-to-largest-before-cat", fails_with=CAT)
    out.ok()
    assert "[1, 16, 15, 15]" in out.patched.output.replace("torch.Size(", "")


def test_stack_instead_of_cat_leads_to_stack_error(try_patch):
    out = try_patch(CAT_REPRO, "stack-instead-of-cat", fails_with=CAT)
    assert "torch.stack([decoded, skip], dim=1)" in out.patch.code
    out.fails(STACK)


def test_cat_patches_not_applicable_without_cat(runner):
    not_applicable(runner, STACK_SEQUENCES, "crop-to-smallest-before-cat", "")


# reshape-invalid-size ------------------------------------------------------------------------------------

def test_flatten_keeping_batch(try_patch):
    out = try_patch(RESHAPE_REPRO, "flatten-keeping-batch", fails_with=RESHAPE)
    assert "flat = features.flatten(1)" in out.patch.code
    out.ok()
    assert "[4, 400]" in out.patched.output.replace("torch.Size(", "")


def test_minus_one_for_batch_still_fails(try_patch):
    out = try_patch(RESHAPE_REPRO, "minus-one-for-batch", fails_with=RESHAPE)
    assert "flat = features.view(-1, 16 * 4 * 4)" in out.patch.code
    out.fails("shape '[-1, 256]' is invalid for input of size 1600")


def test_flatten_keeping_batch_not_applicable_to_three_sizes(runner):
    code = RESHAPE_REPRO.replace("features.view(4, 16 * 4 * 4)", "features.view(4, 16, 20)")
    not_applicable(runner, code, "flatten-keeping-batch", "")


# expand-size-mismatch ------------------------------------------------------------------------------------

def test_unsqueeze_before_expand(try_patch):
    out = try_patch(EXPAND_REPRO, "unsqueeze-before-expand", fails_with=EXPAND)
    assert "attn_mask = padding_mask[:, None, None, :].expand(batch, heads, tokens, tokens)" in out.patch.code
    out.ok()


def test_reshape_instead_of_expand_leads_to_reshape_error(try_patch):
    out = try_patch(EXPAND_REPRO, "reshape-instead-of-expand", fails_with=EXPAND)
    out.fails("shape '[2, 4, 6, 6]' is invalid for input of size 12")


def test_unsqueeze_before_expand_not_applicable_when_ranks_match(runner):
    code = "import torch\nx = torch.ones(2, 3)\ny = x.expand(2, 4)\n"
    not_applicable(runner, code, "unsqueeze-before-expand", "")


# dim-out-of-range ------------------------------------------------------------------------------------------

def test_last_dim_instead(try_patch):
    out = try_patch(DIM_REPRO, "last-dim-instead", fails_with=DIM)
    assert "probs = torch.softmax(logits, dim=-1)" in out.patch.code
    out.ok()


def test_last_dim_instead_on_a_method_call(try_patch):
    out = try_patch(DIM_METHOD, "last-dim-instead", fails_with=DIM)
    assert "best = scores.argmax(-1)" in out.patch.code
    out.ok()


def test_unsqueeze_missing_batch_dim(try_patch):
    out = try_patch(DIM_REPRO, "unsqueeze-missing-batch-dim", fails_with=DIM)
    assert "torch.softmax(logits.unsqueeze(0), dim=1)" in out.patch.code
    out.ok()
    out = try_patch(DIM_METHOD, "unsqueeze-missing-batch-dim", fails_with=DIM)
    assert "best = scores.unsqueeze(0).argmax(1)" in out.patch.code
    out.ok()


def test_flatten_before_dim_op_still_fails(try_patch):
    out = try_patch(DIM_REPRO, "flatten-before-dim-op", fails_with=DIM)
    out.fails(DIM)


def test_dim_patches_not_applicable_to_other_errors(runner):
    not_applicable(runner, EXPAND_REPRO, "last-dim-instead", "")


# broadcast-size-mismatch -------------------------------------------------------------------------------------

def test_reshape_channel_stats(try_patch):
    out = try_patch(BROADCAST_REPRO, "reshape-channel-stats", fails_with=BROADCAST)
    assert "normalized = (images - mean.view(-1, 1, 1)) / std.view(-1, 1, 1)" in out.patch.code
    assert "<<shapes>>" not in out.patch.code
    out.ok()


def test_unsqueeze_stats_front_still_fails(try_patch):
    out = try_patch(BROADCAST_REPRO, "unsqueeze-stats-front", fails_with=BROADCAST)
    assert "(images - mean.unsqueeze(0)) / std.unsqueeze(0)" in out.patch.code
    out.fails(BROADCAST)


def test_reshape_channel_stats_not_applicable_to_sequences(runner):
    _, result = not_applicable(runner, BROADCAST_SEQUENCES, "reshape-channel-stats", "")
    assert "channel" in result.reason
