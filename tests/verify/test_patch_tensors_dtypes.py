"""Patches for view-stride, device-mismatch, dtype-mismatch, ce-target-dtype,
half-not-implemented and weights-only-unpickling, each on a CPU repro for torch 2.13."""

from __future__ import annotations

from textwrap import dedent

VIEW = "view size is not compatible with input tensor's size and stride"
DEVICE = "is not on the expected device"
DTYPE = "mat1 and mat2 must have the same dtype"
TARGET = "expected target dtype to be Long or Byte"  # torch 2.13's wording
HALF = "not implemented for 'Half'"
WEIGHTS_ONLY = "Weights only load failed"

VIEW_REPRO = dedent("""\
    import torch
    images = torch.randn(2, 3, 4)
    channels_last = images.permute(0, 2, 1)
    ok = images.view(2, 12)
    flat = channels_last.view(2, 12)
    print(flat.shape)
""")

# No GPU here: the `meta` device stands in for "another device" (the model's weights
# live there and the input is on the CPU), which raises the same device check.
DEVICE_REPRO = dedent("""\
    import torch
    model = torch.nn.Linear(4, 2, device="meta")
    batch = torch.randn(3, 4)
    out = model(batch)
    print(out.shape, out.device)
""")

DEVICE_OPS_REPRO = dedent("""\
    import torch
    offsets = torch.zeros(3, device="meta")
    values = torch.ones(3)
    shifted = offsets + values
    print(shifted.device)
""")

DTYPE_REPRO = dedent("""\
    import numpy as np
    import torch
    model = torch.nn.Linear(3, 1)
    features = torch.from_numpy(np.random.rand(5, 3))
    prediction = model(features)
    print(prediction.dtype)
""")

TARGET_REPRO = dedent("""\
    import torch
    criterion = torch.nn.CrossEntropyLoss()
    logits = torch.randn(4, 3, requires_grad=True)
    labels = torch.tensor([0.0, 2.0, 1.0, 2.0])
    loss = criterion(logits, labels)
    loss.backward()
    print(loss.item())
""")

# RReLU in training mode has no float16 CPU kernel in torch 2.13 (bfloat16 has one).
HALF_REPRO = dedent("""\
    import torch
    activations = torch.randn(4, 8).half()
    noise_relu = torch.nn.RReLU()
    out = noise_relu(activations)
    print(out.dtype)
""")

WEIGHTS_REPRO = dedent("""\
    import io
    import torch


    class TrainingConfig:
        def __init__(self, lr):
            self.lr = lr


    buffer = io.BytesIO()
    torch.save({"weights": torch.ones(2), "config": TrainingConfig(0.1)}, buffer)
    buffer.seek(0)
    checkpoint = torch.load(buffer)
    print(checkpoint["config"].lr)
""")


# view-stride ---------------------------------------------------------------------------------------

def test_reshape_instead_of_view_only_on_the_failing_line(try_patch):
    out = try_patch(VIEW_REPRO, "reshape-instead-of-view", fails_with=VIEW)
    assert "flat = channels_last.reshape(2, 12)" in out.patch.code
    assert "ok = images.view(2, 12)" in out.patch.code
    assert out.patched.exit_reason == "ok", out.patched.error


def test_contiguous_before_view(try_patch):
    out = try_patch(VIEW_REPRO, "contiguous-before-view", fails_with=VIEW)
    assert "flat = channels_last.contiguous().view(2, 12)" in out.patch.code
    assert out.patched.exit_reason == "ok", out.patched.error


def test_clone_before_view_still_fails(try_patch):
    out = try_patch(VIEW_REPRO, "clone-before-view", fails_with=VIEW)
    assert "flat = channels_last.clone().view(2, 12)" in out.patch.code
    assert out.patched.exit_reason == "error" and VIEW in out.message


# device-mismatch --------------------------------------------------------------------------------

def test_move_inputs_to_model_device(try_patch):
    out = try_patch(DEVICE_REPRO, "move-inputs-to-model-device", fails_with=DEVICE)
    assert "out = model(batch.to(next(model.parameters()).device))" in out.patch.code
    assert out.patched.exit_reason == "ok", out.patched.error
    assert "meta" in out.patched.output


def test_move_inputs_to_the_other_operands_device(try_patch):
    out = try_patch(DEVICE_OPS_REPRO, "move-inputs-to-model-device", fails_with=DEVICE)
    assert "shifted = offsets + values.to(offsets.device)" in out.patch.code
    assert out.patched.exit_reason == "ok", out.patched.error


# dtype-mismatch ------------------------------------------------------------------------------------

def test_cast_input_float32(try_patch):
    out = try_patch(DTYPE_REPRO, "cast-input-float32", fails_with=DTYPE)
    assert "prediction = model(features.float())" in out.patch.code
    assert out.patched.exit_reason == "ok", out.patched.error
    assert "torch.float32" in out.patched.output


def test_model_to_double(try_patch):
    out = try_patch(DTYPE_REPRO, "model-to-double", fails_with=DTYPE)
    assert "model.double()\nprediction = model(features)" in out.patch.code
    assert out.patched.exit_reason == "ok", out.patched.error
    assert "torch.float64" in out.patched.output


# ce-target-dtype -------------------------------------------------------------------------------------

def test_target_to_long(try_patch):
    out = try_patch(TARGET_REPRO, "target-to-long", fails_with=TARGET)
    assert "loss = criterion(logits, labels.long())" in out.patch.code
    assert out.patched.exit_reason == "ok", out.patched.error


def test_target_to_int32_still_fails(try_patch):
    out = try_patch(TARGET_REPRO, "target-to-int32", fails_with=TARGET)
    assert "loss = criterion(logits, labels.int())" in out.patch.code
    assert out.patched.exit_reason == "error" and TARGET in out.message and "Int" in out.message


# half-not-implemented ------------------------------------------------------------------------------

def test_half_to_float32(try_patch):
    out = try_patch(HALF_REPRO, "half-to-float32", fails_with=HALF)
    assert "activations = torch.randn(4, 8).float()" in out.patch.code
    assert out.patched.exit_reason == "ok", out.patched.error
    assert "torch.float32" in out.patched.output


def test_half_to_bfloat16(try_patch):
    out = try_patch(HALF_REPRO, "half-to-bfloat16", fails_with=HALF)
    assert "activations = torch.randn(4, 8).bfloat16()" in out.patch.code
    assert out.patched.exit_reason == "ok", out.patched.error
    assert "torch.bfloat16" in out.patched.output


def test_half_dtype_argument_is_replaced_too(try_patch):
    code = ("import torch\nx = torch.randn(3, 3, dtype=torch.float16)\n"
            "factor = torch.linalg.cholesky(x @ x.T + 3 * torch.eye(3, dtype=torch.half))\n")
    out = try_patch(code, "half-to-float32", fails_with=HALF)
    assert "dtype=torch.float32" in out.patch.code and "torch.half" not in out.patch.code
    assert out.patched.exit_reason == "ok", out.patched.error


# weights-only-unpickling --------------------------------------------------------------------------

def test_weights_only_false(try_patch):
    out = try_patch(WEIGHTS_REPRO, "weights-only-false", fails_with=WEIGHTS_ONLY)
    assert "checkpoint = torch.load(buffer, weights_only=False)" in out.patch.code
    assert out.patched.exit_reason == "ok", out.patched.error
    assert "0.1" in out.patched.output


def test_allowlist_safe_globals_reads_the_name_from_the_error(try_patch):
    out = try_patch(WEIGHTS_REPRO, "allowlist-safe-globals", fails_with=WEIGHTS_ONLY)
    assert "torch.serialization.add_safe_globals([TrainingConfig])\ncheckpoint = torch.load(buffer)" in out.patch.code
    assert out.patched.exit_reason == "ok", out.patched.error
    assert "0.1" in out.patched.output
