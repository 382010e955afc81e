"""Patches of bot/verify/patches/optim.py, run in real torch on each entry's own repro
(all nine reproduce on the CPU torch here), on variants (layers built inline, a parameter
group, torch.autograd.grad, a checkpoint inside a module, a scheduler in a batch loop) and
on snippets where they cannot apply."""

from __future__ import annotations

from textwrap import dedent

import pytest

from bot.verify.patches import registry

from .conftest import apply_patch, entry_repro, project_entry


EMPTY = "optimizer got an empty parameter list"
NON_LEAF = "can't optimize a non-leaf Tensor"
MISMATCH = "Mismatch in shape: grad_output[0]"
DERIVATIVE = "the derivative for 'igamma: input' is not implemented"
DETERMINISTIC = "does not have a deterministic implementation"
FP16 = "Attempting to unscale FP16 gradients"
NONFINITE = "is non-finite, so it cannot be clipped"
CHECKPOINT = "None of the inputs have requires_grad=True"
ORDER = "Detected call of `lr_scheduler.step()` before `optimizer.step()`"


# optimizer-empty-params ---------------------------------------------------------------------

def test_modulelist_for_layer_list(try_patch):
    out = try_patch(entry_repro("pytorch/optimizer-empty-params"), "modulelist-for-layer-list", fails_with=EMPTY)
    assert "self.layers = torch.nn.ModuleList([nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2)])" in out.patch.code
    assert "optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)" in out.patch.code
    out.ok()


def test_modulelist_for_a_comprehension_a_dict_and_appends(try_patch):
    code = dedent("""\
        import torch
        from torch import nn


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.blocks = [nn.Linear(4, 4) for _ in range(2)]
                self.heads = {"a": nn.Linear(4, 1)}
                self.extra = []
                self.extra.append(nn.Linear(4, 4))


        optimizer = torch.optim.SGD(Net().parameters(), lr=0.1)
        print(len(optimizer.param_groups[0]["params"]))
    """)
    out = try_patch(code, "modulelist-for-layer-list", fails_with=EMPTY)
    assert "self.blocks = torch.nn.ModuleList([nn.Linear(4, 4) for _ in range(2)])" in out.patch.code
    assert 'self.heads = torch.nn.ModuleDict({"a": nn.Linear(4, 1)})' in out.patch.code
    assert "self.extra = torch.nn.ModuleList([])" in out.patch.code
    out.ok()
    assert out.patched.output.strip() == "8"


def test_modulelist_not_applicable_without_a_layer_list():
    result = apply_patch("modulelist-for-layer-list", dedent("""\
        import torch
        params = []
        optimizer = torch.optim.SGD(params, lr=0.1)
    """), line=3)
    assert not result.applicable and "plain list or dict" in result.reason


def test_list_of_parameters_still_fails(try_patch):
    out = try_patch(entry_repro("pytorch/optimizer-empty-params"), "list-of-parameters", fails_with=EMPTY)
    assert "torch.optim.Adam(list(model.parameters()), lr=1e-3)" in out.patch.code
    out.fails(EMPTY)


# optimizer-non-leaf ----------------------------------------------------------------------------

def test_leaf_from_non_leaf(try_patch):
    out = try_patch(entry_repro("pytorch/optimizer-non-leaf"), "leaf-from-non-leaf", fails_with=NON_LEAF)
    assert "embedding = (torch.randn(10, 4, requires_grad=True) * 0.01).detach().requires_grad_()" in out.patch.code
    out.ok()


def test_parameter_from_non_leaf_in_a_param_group(try_patch):
    code = dedent("""\
        import torch
        base = torch.zeros(3, requires_grad=True)
        bias = base.to(torch.float64)
        optimizer = torch.optim.Adam([{"params": [base]}, {"params": [bias], "lr": 0.01}])
    """)
    out = try_patch(code, "parameter-from-non-leaf", fails_with=NON_LEAF)
    assert "bias = torch.nn.Parameter(base.to(torch.float64))" in out.patch.code
    assert "base = torch.zeros(3, requires_grad=True)\n" in out.patch.code  # a leaf as written: untouched
    out.ok()


def test_requires_grad_on_non_leaf_still_fails(try_patch):
    out = try_patch(entry_repro("pytorch/optimizer-non-leaf"), "requires-grad-before-optimizer", fails_with=NON_LEAF)
    assert "embedding.requires_grad_(True)\noptimizer = " in out.patch.code
    out.fails(NON_LEAF)


def test_non_leaf_patches_not_applicable_for_a_leaf():
    result = apply_patch("leaf-from-non-leaf", "import torch\nw = torch.ones(2, requires_grad=True)\n"
                                         "opt = torch.optim.SGD([w], lr=1)\n", line=3)
    assert not result.applicable and "computed by an operation" in result.reason


# grad-shape-mismatch ----------------------------------------------------------------------------

def test_reshape_gradient_to_output(try_patch):
    out = try_patch(entry_repro("pytorch/grad-shape-mismatch"), "reshape-gradient-to-output", fails_with=MISMATCH)
    assert "per_sample.backward(weights.reshape_as(per_sample))" in out.patch.code
    out.ok()


def test_reshape_gradient_for_autograd_grad(try_patch):
    code = dedent("""\
        import torch
        x = torch.randn(4, 3, requires_grad=True)
        out = x.sum(dim=1)
        (g,) = torch.autograd.grad(out, x, grad_outputs=torch.ones(4, 1))
        print(g.shape)
    """)
    out = try_patch(code, "reshape-gradient-to-output", fails_with=MISMATCH)
    assert "grad_outputs=torch.ones(4, 1).reshape_as(out)" in out.patch.code
    out.ok()


def test_sum_output_keep_gradient_still_fails(try_patch):
    out = try_patch(entry_repro("pytorch/grad-shape-mismatch"), "sum-output-keep-gradient", fails_with=MISMATCH)
    assert "per_sample.sum().backward(weights)" in out.patch.code
    out.fails(MISMATCH)


def test_reshape_gradient_not_applicable_without_a_gradient():
    result = apply_patch("reshape-gradient-to-output", "import torch\nx = torch.ones(2, requires_grad=True)\n"
                                                 "(x * 2).backward()\n", line=3)
    assert not result.applicable and "no starting gradient" in result.reason


# derivative-not-implemented ------------------------------------------------------------------------

def test_detach_nondifferentiable_input(try_patch):
    out = try_patch(entry_repro("pytorch/derivative-not-implemented"), "detach-nondifferentiable-input",
                    fails_with=DERIVATIVE)
    assert "cdf = torch.igamma(shape.detach(), t)" in out.patch.code
    out.ok()


def test_detach_input_of_a_method_call_inline(try_patch):
    code = dedent("""\
        import torch
        a = torch.tensor([2.0, 3.0], requires_grad=True)
        x = torch.tensor([1.0, 4.0], requires_grad=True)
        (a.igammac(x) + a).sum().backward()
        print(a.grad, x.grad)
    """)
    out = try_patch(code, "detach-nondifferentiable-input", fails_with="igammac: input")
    assert "(a.detach().igammac(x) + a).sum().backward()" in out.patch.code
    out.ok()


def test_no_grad_around_op_leads_to_no_grad_fn(try_patch):
    out = try_patch(entry_repro("pytorch/derivative-not-implemented"), "no-grad-around-op", fails_with=DERIVATIVE)
    assert "with torch.no_grad():\n    cdf = torch.igamma(shape, t)\n" in out.patch.code
    out.fails("does not require grad and does not have a grad_fn")


def test_detach_input_not_applicable_without_an_argument_name():
    result = apply_patch("detach-nondifferentiable-input", "import torch\ny = torch.cdist(a, b)\n", line=2,
                   message="derivative for aten::_cdist_backward is not implemented")
    assert not result.applicable


# deterministic-not-implemented ---------------------------------------------------------------------

def test_deterministic_warn_only(try_patch):
    out = try_patch(entry_repro("pytorch/deterministic-not-implemented"), "deterministic-warn-only",
                    fails_with=DETERMINISTIC)
    assert "torch.use_deterministic_algorithms(True, warn_only=True)" in out.patch.code
    out.ok()
    assert "does not have a deterministic implementation" in out.patched.output  # now a warning


def test_cudnn_flags_still_fail(try_patch):
    out = try_patch(entry_repro("pytorch/deterministic-not-implemented"), "cudnn-deterministic-flag",
                    fails_with=DETERMINISTIC)
    assert "torch.use_deterministic_algorithms(True)\ntorch.backends.cudnn.deterministic = True\n" in out.patch.code
    out.fails(DETERMINISTIC)


def test_warn_only_not_applicable_without_the_switch():
    result = apply_patch("deterministic-warn-only", "import torch\nx = torch.ones(2)\n", line=2)
    assert not result.applicable and "use_deterministic_algorithms(True)" in result.reason


# gradscaler-unscale-fp16 ---------------------------------------------------------------------------

def test_fp32_master_weights(try_patch):
    out = try_patch(entry_repro("pytorch/gradscaler-unscale-fp16"), "fp32-master-weights", fails_with=FP16)
    assert "model = torch.nn.Linear(16, 4).float()" in out.patch.code
    out.ok()


def test_fp32_master_weights_for_a_separate_half_call(try_patch):
    code = dedent("""\
        import torch
        net = torch.nn.Linear(16, 4)
        net.half()
        opt = torch.optim.SGD(net.parameters(), lr=0.01)
        scaler = torch.amp.GradScaler("cpu")
        with torch.autocast("cpu", dtype=torch.float16):
            loss = net(torch.randn(8, 16)).float().mean()
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
    """)
    out = try_patch(code, "fp32-master-weights", fails_with=FP16)
    assert "net.float()\n" in out.patch.code
    out.ok()


def test_float_loss_still_fails(try_patch):
    out = try_patch(entry_repro("pytorch/gradscaler-unscale-fp16"), "float-loss-for-scaler", fails_with=FP16)
    assert "scaler.scale(loss.float()).backward()" in out.patch.code
    out.fails(FP16)


def test_fp32_master_weights_not_applicable_to_double_unscale():
    result = apply_patch("fp32-master-weights", "scaler.unscale_(opt)\n", line=1,
                   message="unscale_() has already been called on this optimizer since the last update().")
    assert not result.applicable and "not about float16" in result.reason


# clip-grad-nonfinite -------------------------------------------------------------------------------

def test_skip_step_on_nonfinite_norm(try_patch):
    out = try_patch(entry_repro("pytorch/clip-grad-nonfinite"), "skip-step-on-nonfinite-norm", fails_with=NONFINITE)
    assert ("grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0, error_if_nonfinite=False)\n"
            "if torch.isfinite(grad_norm):\n    optimizer.step()\n") in out.patch.code
    out.ok()


def test_error_if_nonfinite_false_poisons_the_weights(try_patch):
    out = try_patch(entry_repro("pytorch/clip-grad-nonfinite"), "error-if-nonfinite-false", fails_with=NONFINITE)
    assert "error_if_nonfinite=False)\noptimizer.step()" in out.patch.code
    assert out.patched.exit_reason == "error" and out.patched.error["type"] == "AssertionError"


def test_skip_step_not_applicable_without_a_step():
    result = apply_patch("skip-step-on-nonfinite-norm", "import torch\ntorch.nn.utils.clip_grad_norm_(ps, 1.0)\n",
                         line=2)
    assert not result.applicable and "no optimizer step" in result.reason


# checkpoint-no-grad-inputs -------------------------------------------------------------------------

def test_checkpoint_non_reentrant(try_patch):
    out = try_patch(entry_repro("pytorch/checkpoint-no-grad-inputs"), "checkpoint-non-reentrant", fails_with=CHECKPOINT)
    assert "out = checkpoint(block, hidden, use_reentrant=False)" in out.patch.code
    out.ok()


def test_checkpoint_non_reentrant_inside_a_module(try_patch):
    code = dedent("""\
        import warnings
        import torch
        import torch.utils.checkpoint
        warnings.filterwarnings("error", message="None of the inputs have requires_grad=True")


        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.block = torch.nn.Linear(4, 4)

            def forward(self, x):
                return torch.utils.checkpoint.checkpoint(self.block, x, use_reentrant=True)


        model = Net()
        model(torch.randn(2, 4)).sum().backward()
        print(model.block.weight.grad is not None)
    """)
    out = try_patch(code, "checkpoint-non-reentrant", fails_with=CHECKPOINT)
    assert "checkpoint(self.block, x, use_reentrant=False)" in out.patch.code
    out.ok()
    assert out.patched.output.strip() == "True"


def test_inputs_require_grad(try_patch):
    out = try_patch(entry_repro("pytorch/checkpoint-no-grad-inputs"), "inputs-require-grad", fails_with=CHECKPOINT)
    assert "hidden.requires_grad_(True)\nout = checkpoint(block, hidden, use_reentrant=True)" in out.patch.code
    out.ok()


def test_params_require_grad_still_fails(try_patch):
    out = try_patch(entry_repro("pytorch/checkpoint-no-grad-inputs"), "params-require-grad", fails_with=CHECKPOINT)
    assert "for checkpointed_param in block.parameters():" in out.patch.code
    out.fails(CHECKPOINT)


def test_params_require_grad_not_applicable_to_a_function():
    result = apply_patch("params-require-grad", dedent("""\
        from torch.utils.checkpoint import checkpoint
        def f(x):
            return x * 2
        y = checkpoint(f, x, use_reentrant=True)
    """), line=4)
    assert not result.applicable and "not a module object" in result.reason


# scheduler-step-order ------------------------------------------------------------------------------

def test_optimizer_step_before_scheduler(try_patch):
    out = try_patch(entry_repro("pytorch/scheduler-step-order"), "optimizer-step-before-scheduler", fails_with=ORDER)
    assert "    optimizer.step()\n    scheduler.step()\n" in out.patch.code
    assert out.patch.code.count("scheduler.step()") == 1
    out.ok()


def test_scheduler_moved_after_the_batch_loop(try_patch):
    code = dedent("""\
        import warnings
        import torch
        warnings.filterwarnings("error", message="Detected call of `lr_scheduler.step")
        model = torch.nn.Linear(4, 1)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.9)
        for epoch in range(2):
            scheduler.step()  # old style
            for _ in range(3):
                optimizer.zero_grad()
                model(torch.randn(2, 4)).sum().backward()
                optimizer.step()
        print(round(optimizer.param_groups[0]["lr"], 4))""")  # no final newline
    out = try_patch(code, "optimizer-step-before-scheduler", fails_with=ORDER)
    assert "        optimizer.step()\n    scheduler.step()  # old style\nprint(" in out.patch.code
    out.ok()
    assert out.patched.output.strip() == "0.081"


def test_scheduler_step_epoch_still_fails(try_patch):
    out = try_patch(entry_repro("pytorch/scheduler-step-order"), "scheduler-step-epoch", fails_with=ORDER)
    assert "    scheduler.step(epoch)\n" in out.patch.code
    out.fails(ORDER)


def test_scheduler_patch_not_applicable_without_a_later_optimizer_step():
    result = apply_patch("optimizer-step-before-scheduler", "optimizer.step()\nscheduler.step()\n", line=2)
    assert not result.applicable and "no optimizer step follows" in result.reason


@pytest.mark.parametrize("entry_id", ["pytorch/optimizer-empty-params", "pytorch/optimizer-non-leaf",
                                      "pytorch/grad-shape-mismatch", "pytorch/derivative-not-implemented",
                                      "pytorch/deterministic-not-implemented", "pytorch/gradscaler-unscale-fp16",
                                      "pytorch/clip-grad-nonfinite", "pytorch/checkpoint-no-grad-inputs",
                                      "pytorch/scheduler-step-order"])
def test_every_patch_of_these_entries_lives_in_optim(entry_id):
    from bot.verify.patches import optim  # noqa: F401 (registers)

    entry = project_entry(entry_id)
    for item in (*entry.workarounds, *entry.dead_ends):
        # checkpoint-non-reentrant is shared with DDP's mark-ready-twice and lives in data.py
        if item.patch and item.patch != "checkpoint-non-reentrant":
            assert registry.get(item.patch).func.__module__ == "bot.verify.patches.optim", item.patch
