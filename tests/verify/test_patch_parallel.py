"""The DataParallel/DDP attribute patch (bot/verify/patches/parallel.py), run on the repro of
pytorch/dataparallel-module-attr in real torch, and its reverse case (`.module` on a plain model)."""

from __future__ import annotations

from textwrap import dedent

from .conftest import apply_patch, entry_repro

WRAPPER = "'DataParallel' object has no attribute 'features'"

PLAIN_MODEL_REPRO = dedent("""\
    import torch
    from torch import nn

    model = nn.Linear(8, 2)  # never wrapped: run on one device
    x = torch.randn(2, 8)
    print(model.module.weight.shape)
""")


def test_the_wrapper_attribute_is_looked_up_on_module(try_patch):
    out = try_patch(entry_repro("dataparallel-module-attr"), "reach-through-module", fails_with=WRAPPER)
    assert "print(model.module.features(x).shape)" in out.patch.code
    assert "print(model(x).shape)" in out.patch.code  # the call through the wrapper is left alone
    out.ok()


def test_module_is_dropped_on_a_model_that_is_not_wrapped(try_patch):
    out = try_patch(PLAIN_MODEL_REPRO, "reach-through-module", fails_with="object has no attribute 'module'")
    assert "print(model.weight.shape)" in out.patch.code
    out.ok()


def test_it_does_not_apply_to_other_missing_attributes():
    code = "import torch\nmodel = torch.nn.Linear(2, 2)\nprint(model.features)\n"
    result = apply_patch("reach-through-module", code, 3, "'Linear' object has no attribute 'features'",
                         "AttributeError")
    assert not result.applicable and "not a DataParallel/DDP wrapper" in result.reason


def test_it_does_not_apply_when_the_line_has_no_such_lookup():
    code = "import torch\nmodel = torch.nn.DataParallel(torch.nn.Linear(2, 2))\nprint(model)\n"
    result = apply_patch("reach-through-module", code, 3, "'DataParallel' object has no attribute 'fc'",
                         "AttributeError")
    assert not result.applicable and "has no `.fc` lookup" in result.reason
