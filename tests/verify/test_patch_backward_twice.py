"""The backward-twice patches on the seed's example and on variants: the workarounds
make it run, the seeds' dead ends fail the way the knowledge base says."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent


DATA = Path(__file__).resolve().parent / "data"
SEED = (DATA / "seed000_backward_twice.py").read_text()
SIGNAL = "Trying to backward through the graph a second time"
NO_GRAD_FN = "element 0 of tensors does not require grad and does not have a grad_fn"

TWO_LOSSES = dedent("""\
    import torch
    net = torch.nn.Linear(4, 2)
    x = torch.randn(3, 4)
    y = torch.tanh(net(x))
    loss_a = y.pow(2).sum()
    loss_b = y.abs().sum()
    loss_a.backward()
    loss_b.backward()
    print("grad", net.weight.grad.shape)
""")

# A GAN step where the generator's output feeds the discriminator twice: `G` is a
# model object, not a class, so its call is part of the forward to recompute.
GAN = dedent("""\
    import torch
    from torch import nn
    G = nn.Sequential(nn.Linear(2, 4), nn.Tanh())
    D = nn.Sequential(nn.Linear(4, 1))
    bce = nn.BCEWithLogitsLoss()
    z = torch.randn(8, 2)
    fake = G(z)
    d_loss = bce(D(fake), torch.zeros(8, 1))
    d_loss.backward()
    g_loss = bce(D(fake), torch.ones(8, 1))
    g_loss.backward()
""")

LOOP = dedent("""\
    import torch
    w = torch.randn(3, requires_grad=True)
    loss = (w.exp() * 2).sum()
    for step in range(3):
        loss.backward()
""")


def test_seed_example_fails_the_way_the_seed_says(original_run):
    result = original_run(SEED)
    assert result.exit_reason == "error"
    assert SIGNAL in result.error["message"]
    assert result.error["snippet_line"] == 22


def test_retain_graph_fixes_the_seed(try_patch):
    out = try_patch(SEED, "retain-graph", fails_with=SIGNAL)
    assert "loss.backward(retain_graph=True)\nloss.backward()  # RuntimeError" in out.patch.code
    assert out.patched.exit_reason == "ok", out.patched.error
    assert "two backward passes done" in out.patched.output


def test_retain_graph_two_losses_keeps_graph_on_all_but_the_last(try_patch):
    out = try_patch(TWO_LOSSES, "retain-graph", fails_with=SIGNAL)
    assert "loss_a.backward(retain_graph=True)\nloss_b.backward()\n" in out.patch.code
    assert out.patched.exit_reason == "ok", out.patched.error


def test_retain_graph_in_a_loop_goes_on_the_failing_call(try_patch):
    out = try_patch(LOOP, "retain-graph", fails_with=SIGNAL)
    assert "    loss.backward(retain_graph=True)\n" in out.patch.code
    assert out.patched.exit_reason == "ok", out.patched.error


def test_recompute_forward_fixes_the_seed(try_patch):
    out = try_patch(SEED, "recompute-forward", fails_with=SIGNAL)
    assert out.patch.code.count("prediction = model(sample)") == 2
    assert out.patch.code.count("model = TinyRegressor()") == 1  # the model is not rebuilt
    assert out.patched.exit_reason == "ok", out.patched.error


def test_recompute_forward_two_losses(try_patch):
    out = try_patch(TWO_LOSSES, "recompute-forward", fails_with=SIGNAL)
    assert "loss_a.backward()\ny = torch.tanh(net(x))\nloss_b = y.abs().sum()\nloss_b.backward()" in out.patch.code
    assert out.patched.exit_reason == "ok", out.patched.error


def test_detach_before_backward_raises_no_grad_fn(try_patch):
    out = try_patch(SEED, "detach-before-backward", fails_with=SIGNAL)
    assert "loss = loss.detach()\nloss.backward()  # RuntimeError" in out.patch.code
    assert out.patched.exit_reason == "error"
    assert NO_GRAD_FN in out.message


def test_no_grad_forward_raises_no_grad_fn(try_patch):
    out = try_patch(SEED, "no-grad-forward", fails_with=SIGNAL)
    assert "with torch.no_grad():\n    prediction = model(sample)\n    loss = " in out.patch.code
    assert out.patched.exit_reason == "error"
    assert NO_GRAD_FN in out.message


def test_move_model_roundtrip_still_fails(try_patch):
    out = try_patch(SEED, "move-model-roundtrip", fails_with=SIGNAL)
    assert "model = model.to('cpu')" in out.patch.code
    assert out.patched.exit_reason == "error"
    assert SIGNAL in out.message


def test_recompute_forward_reruns_a_model_called_through_a_variable(try_patch):
    out = try_patch(GAN, "recompute-forward", fails_with=SIGNAL)
    assert "\nfake = G(z)\ng_loss = bce(D(fake), torch.ones(8, 1))\ng_loss.backward()" in out.patch.code
    assert out.patch.code.count("G = nn.Sequential") == 1
    assert out.patched.exit_reason == "ok", out.patched.error


def test_move_model_roundtrip_moves_the_model_not_the_loss_object(try_patch):
    out = try_patch(GAN, "move-model-roundtrip", fails_with=SIGNAL)
    assert "G = G.to('cpu')" in out.patch.code
    assert out.patched.exit_reason == "error" and SIGNAL in out.message
