"""Patches for numpy-requires-grad, leaf-inplace, inplace-modified, no-grad-fn and
grad-scalar: each on a small CPU repro that fails before and runs (or, for a dead
end, still fails) after."""

from __future__ import annotations

from textwrap import dedent

NUMPY = "Can't call numpy() on Tensor that requires grad"
LEAF = "a leaf Variable that requires grad is being used in an in-place operation"
MODIFIED = "one of the variables needed for gradient computation has been modified by an inplace operation"
NO_GRAD_FN = "element 0 of tensors does not require grad and does not have a grad_fn"
SCALAR = "grad can be implicitly created only for scalar outputs"

NUMPY_REPRO = dedent("""\
    import numpy as np
    import torch
    weights = torch.randn(4, requires_grad=True)
    scores = weights * 2
    print(np.round(weights.detach().numpy(), 2))
    table = scores.numpy()
    print(table.shape)
""")

LEAF_REPRO = dedent("""\
    import torch
    w = torch.ones(3, requires_grad=True)
    loss = (w * torch.arange(3.0)).sum()
    loss.backward()
    w -= 0.1 * w.grad
    print("updated", w)
""")

LEAF_METHOD_REPRO = dedent("""\
    import torch
    bias = torch.zeros(2, requires_grad=True)
    bias.add_(1.0)
    print(bias)
""")

INPLACE_REPRO = dedent("""\
    import torch
    x = torch.randn(5, requires_grad=True)
    h = x.sigmoid()
    scaled = h * 3
    h += 1
    out = scaled.sum() + h.sum()
    out.backward()
    print("grad", x.grad)
""")

INPLACE_MODULE_REPRO = dedent("""\
    import torch
    from torch import nn


    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)
            self.act = nn.ReLU(inplace=True)

        def forward(self, x):
            h = torch.sigmoid(self.fc(x))
            return self.act(h).sum()


    block = Block()
    loss = block(torch.randn(2, 4))
    loss.backward()
    print("ok")
""")

INPLACE_METHOD_REPRO = dedent("""\
    import torch
    a = torch.randn(3, requires_grad=True)
    b = a.exp()
    b.mul_(2)
    b.sum().backward()
""")

NO_GRAD_REPRO = dedent("""\
    import torch
    model = torch.nn.Linear(3, 1)
    x = torch.randn(8, 3)
    with torch.no_grad():
        pred = model(x)
    with torch.no_grad():
        baseline = pred.mean()
    loss = (pred - 1.0).pow(2).mean()
    loss.backward()
    print("grad", model.weight.grad is not None)
""")

DETACH_REPRO = dedent("""\
    import torch
    model = torch.nn.Linear(3, 1)
    x = torch.randn(8, 3)
    pred = model(x).detach()
    logged = pred.detach().mean()
    loss = (pred - 1.0).pow(2).mean()
    loss.backward()
    print("grad", model.weight.grad is not None)
""")

SCALAR_REPRO = dedent("""\
    import torch
    model = torch.nn.Linear(3, 2)
    out = model(torch.randn(4, 3))
    out.backward()
    print("grad", model.weight.grad.shape)
""")


# numpy-requires-grad ---------------------------------------------------------------------------

def test_detach_numpy_patches_only_the_failing_call(try_patch):
    out = try_patch(NUMPY_REPRO, "detach-numpy", fails_with=NUMPY)
    assert "table = scores.detach().cpu().numpy()" in out.patch.code
    assert "np.round(weights.detach().numpy(), 2)" in out.patch.code  # the other line is untouched
    assert out.patched.exit_reason == "ok", out.patched.error


def test_detach_numpy_handles_np_asarray(try_patch):
    code = "import numpy as np\nimport torch\nt = torch.randn(2, requires_grad=True) + 1\narr = np.asarray(t)\n"
    out = try_patch(code, "detach-numpy", fails_with=NUMPY)
    assert "np.asarray(t.detach().cpu())" in out.patch.code
    assert out.patched.exit_reason == "ok", out.patched.error


def test_no_grad_numpy_is_applied_faithfully_and_runs_on_torch_2_13(try_patch):
    # patch-names.md lists this as a dead end ("the tensor itself requires grad"), but
    # torch 2.13 only refuses .numpy() while grad mode is on, so under no_grad() it
    # works. Verification reports what the run shows; this test pins that behaviour.
    out = try_patch(NUMPY_REPRO, "no-grad-numpy", fails_with=NUMPY)
    assert "with torch.no_grad():\n    table = scores.numpy()" in out.patch.code
    assert out.patched.exit_reason == "ok", out.patched.error


# leaf-inplace --------------------------------------------------------------------------------------

def test_no_grad_leaf_update(try_patch):
    out = try_patch(LEAF_REPRO, "no-grad-leaf-update", fails_with=LEAF)
    assert "with torch.no_grad():\n    w -= 0.1 * w.grad" in out.patch.code
    assert out.patched.exit_reason == "ok", out.patched.error


def test_out_of_place_leaf_augmented_assignment(try_patch):
    out = try_patch(LEAF_REPRO, "out-of-place-leaf", fails_with=LEAF)
    assert "w = w - 0.1 * w.grad" in out.patch.code
    assert out.patched.exit_reason == "ok", out.patched.error


def test_out_of_place_leaf_method(try_patch):
    out = try_patch(LEAF_METHOD_REPRO, "out-of-place-leaf", fails_with=LEAF)
    assert "bias = bias.add(1.0)" in out.patch.code
    assert out.patched.exit_reason == "ok", out.patched.error


# inplace-modified --------------------------------------------------------------------------------

def test_inplace_to_out_of_place_finds_the_op_with_anomaly_detection(try_patch):
    out = try_patch(INPLACE_REPRO, "inplace-to-out-of-place", fails_with=MODIFIED)
    assert "h = h + 1\n" in out.patch.code
    assert "saved at line 3" in out.patch.note  # anomaly detection traced it to `h = x.sigmoid()`
    assert out.patched.exit_reason == "ok", out.patched.error


def test_inplace_to_out_of_place_method(try_patch):
    out = try_patch(INPLACE_METHOD_REPRO, "inplace-to-out-of-place", fails_with=MODIFIED)
    assert "b = b.mul(2)" in out.patch.code
    assert out.patched.exit_reason == "ok", out.patched.error


def test_inplace_to_out_of_place_module_built_with_inplace_true(try_patch):
    out = try_patch(INPLACE_MODULE_REPRO, "inplace-to-out-of-place", fails_with=MODIFIED)
    assert "nn.ReLU(inplace=False)" in out.patch.code
    assert out.patched.exit_reason == "ok", out.patched.error


def test_clone_before_inplace(try_patch):
    out = try_patch(INPLACE_REPRO, "clone-before-inplace", fails_with=MODIFIED)
    assert "h = h.clone()\nh += 1" in out.patch.code
    assert out.patched.exit_reason == "ok", out.patched.error


def test_retain_graph_does_not_help_a_modified_saved_tensor(try_patch):
    out = try_patch(INPLACE_REPRO, "retain-graph", fails_with=MODIFIED)
    assert "out.backward(retain_graph=True)" in out.patch.code
    assert out.patched.exit_reason == "error" and MODIFIED in out.message


# no-grad-fn ----------------------------------------------------------------------------------------

def test_remove_no_grad_unwraps_only_the_loss_computation(try_patch):
    out = try_patch(NO_GRAD_REPRO, "remove-no-grad", fails_with=NO_GRAD_FN)
    assert "\npred = model(x)\n" in out.patch.code
    assert "with torch.no_grad():\n    baseline = pred.mean()" in out.patch.code  # not on the loss's path
    assert out.patched.exit_reason == "ok", out.patched.error
    assert "grad True" in out.patched.output


def test_remove_detach(try_patch):
    out = try_patch(DETACH_REPRO, "remove-detach", fails_with=NO_GRAD_FN)
    assert "pred = model(x)\n" in out.patch.code
    assert "logged = pred.detach().mean()" in out.patch.code  # not on the loss's path
    assert out.patched.exit_reason == "ok", out.patched.error


def test_requires_grad_on_loss_hides_the_error_but_no_gradient_arrives(try_patch):
    out = try_patch(NO_GRAD_REPRO, "requires-grad-on-loss", fails_with=NO_GRAD_FN)
    assert "loss.requires_grad_(True)\nloss.backward()" in out.patch.code
    assert out.patched.exit_reason == "error"
    assert "no gradient reached the model's parameters" in out.message


# grad-scalar ------------------------------------------------------------------------------------------

def test_sum_before_backward(try_patch):
    out = try_patch(SCALAR_REPRO, "sum-before-backward", fails_with=SCALAR)
    assert "out.sum().backward()" in out.patch.code
    assert out.patched.exit_reason == "ok", out.patched.error


def test_grad_outputs_ones(try_patch):
    out = try_patch(SCALAR_REPRO, "grad-outputs-ones", fails_with=SCALAR)
    assert "out.backward(torch.ones_like(out))" in out.patch.code
    assert out.patched.exit_reason == "ok", out.patched.error


def test_grad_outputs_ones_evaluates_a_call_once(try_patch):
    code = "import torch\nnet = torch.nn.Linear(2, 2)\nnet(torch.randn(3, 2)).backward()\n"
    out = try_patch(code, "grad-outputs-ones", fails_with=SCALAR)
    assert "output_to_differentiate = net(torch.randn(3, 2))\n" in out.patch.code
    assert "output_to_differentiate.backward(torch.ones_like(output_to_differentiate))" in out.patch.code
    assert out.patched.exit_reason == "ok", out.patched.error
