"""Patches as code transformations, without running anything: they change the
failing call and nothing else, keep the rest of the snippet byte for byte, and say
why when they cannot apply."""

from __future__ import annotations

from textwrap import dedent

import pytest

from bot.verify.patches import registry
from bot.verify.patches.base import Failure
from bot.verify.patches.source import Snippet

EXPECTED = {
    "retain-graph", "recompute-forward", "detach-before-backward", "no-grad-forward", "move-model-roundtrip",
    "detach-numpy", "no-grad-numpy", "reshape-instead-of-view", "contiguous-before-view", "clone-before-view",
    "no-grad-leaf-update", "out-of-place-leaf", "inplace-to-out-of-place", "clone-before-inplace", "remove-no-grad",
    "remove-detach", "requires-grad-on-loss", "sum-before-backward", "grad-outputs-ones", "cast-input-float32",
    "model-to-double", "target-to-long", "target-to-int32", "move-inputs-to-model-device", "half-to-float32",
    "half-to-bfloat16", "weights-only-false", "allowlist-safe-globals",
}


def failure(line: int, message: str = "", type_: str = "RuntimeError") -> Failure:
    return Failure(type=type_, message=message, line=line)


def apply(name: str, code: str, line: int, message: str = ""):
    return registry.get(name).apply(dedent(code), failure(line, message))


def test_the_first_families_register_their_patches():
    # Each family module registers on import; later families are checked by
    # test_every_registered_patch_is_named_by_the_knowledge_base.
    assert EXPECTED <= set(registry.names())


def test_every_registered_patch_is_named_by_the_knowledge_base():
    from bot.kb.loader import load_knowledge

    named = {item.patch for entry in load_knowledge().entries.values()
             for item in (*entry.workarounds, *entry.dead_ends) if item.patch}
    assert set(registry.names()) - named == set(), "patches no entry uses"


def test_every_patch_has_a_description():
    for patch in registry.all_patches():
        assert patch.description and len(patch.description) > 10, patch.name


def test_unknown_patch_names_the_registered_ones():
    with pytest.raises(KeyError, match="no patch named 'retain-grap'; registered: allowlist-safe-globals"):
        registry.get("retain-grap")


def test_the_knowledge_loader_validates_patch_fields_against_the_names_it_is_given(kb_dir):
    # `kb check` passes the registry's names; the loader itself knows nothing of patches.
    from bot.kb.loader import check_knowledge

    _, problems = check_knowledge(kb_dir, patch_names=set(registry.names()))
    assert not [p for p in problems if "unknown patch" in str(p)]
    _, problems = check_knowledge(kb_dir, patch_names=set(registry.names()) - {"retain-graph"})
    unknown = [p for p in problems if "unknown patch 'retain-graph'" in str(p)]
    assert unknown and all(p.path.suffix == ".yml" for p in unknown)


def test_retain_graph_stays_in_the_failing_calls_function():
    code = """\
        import torch

        def other(x):
            y = x.exp().sum()
            y.backward()
            return y

        def train(w):
            loss = (w * 2).exp().sum()
            loss.backward()
            loss.backward()

        train(torch.ones(2, requires_grad=True))
    """
    result = apply("retain-graph", code, line=11)
    assert "    y.backward()\n" in result.code  # another function's backward is left alone
    assert "    loss.backward(retain_graph=True)\n    loss.backward()\n" in result.code


def test_retain_graph_keeps_other_arguments_and_comments():
    code = ("import torch\nw = torch.ones(2, requires_grad=True)\nl = w.exp().sum()\n"
            "l.backward(inputs=[w])  # first\nl.backward()\n")
    result = apply("retain-graph", code, line=5)
    assert "l.backward(inputs=[w], retain_graph=True)  # first\nl.backward()\n" in result.code


def test_a_line_without_a_backward_is_not_applicable():
    result = apply("retain-graph", "import torch\nx = torch.ones(2)\nprint(x)\n", line=3)
    assert not result.applicable
    assert "line 3 (`print(x)`) calls no backward()" in result.reason


def test_a_snippet_that_does_not_parse_is_not_applicable():
    result = apply("reshape-instead-of-view", "x = (1,\n", line=1)
    assert not result.applicable and result.reason.startswith("the snippet does not parse")


def test_no_line_in_the_traceback_is_not_applicable():
    result = registry.get("detach-numpy").apply("import torch\n", failure(None))
    assert not result.applicable and "names no line" in result.reason


def test_multi_line_statement_and_compound_header():
    code = dedent("""\
        import torch
        t = torch.randn(3, requires_grad=True) * 2
        for value in t.numpy(
        ):
            print(value)
        arr = t.numpy()
    """)
    result = registry.get("detach-numpy").apply(code, failure(3))
    assert "for value in t.detach().cpu().numpy(\n):" in result.code
    assert "arr = t.numpy()" in result.code


def test_view_patch_inside_a_method_body():
    code = """\
        import torch

        class Head(torch.nn.Module):
            def forward(self, x):
                x = x.transpose(1, 2)
                return x.view(x.size(0), -1)
    """
    result = apply("contiguous-before-view", code, line=6)
    assert "return x.contiguous().view(x.size(0), -1)" in result.code


def test_no_grad_forward_keeps_comments_above_the_wrapped_lines():
    code = ("import torch\nw = torch.ones(1, requires_grad=True)\n# forward\ny = w * 3\nloss = y.sum()\n"
            "loss.backward()\nloss.backward()\n")
    result = apply("no-grad-forward", code, line=7)
    assert "# forward\nwith torch.no_grad():\n    y = w * 3\n    loss = y.sum()\nloss.backward()" in result.code


def test_no_grad_forward_imports_torch_when_the_snippet_did_not():
    code = ("from torch import nn, ones\nnet = nn.Linear(1, 1)\nout = net(ones(1)).sum()\n"
            "out.backward()\nout.backward()\n")
    result = apply("no-grad-forward", code, line=5)
    assert result.code.startswith("import torch\nfrom torch import nn, ones\n")
    assert "with torch.no_grad():\n    out = net(ones(1)).sum()" in result.code


def test_recompute_forward_refuses_to_count_an_accumulation_twice():
    code = ("import torch\nw = torch.ones(1, requires_grad=True)\ntotal = w * 0\n"
            "for i in range(2):\n    total += w * i\n    total.backward()\n")
    result = apply("recompute-forward", code, line=6)
    assert not result.applicable and "accumulates" in result.reason


def test_out_of_place_leaf_keeps_operator_precedence():
    result = apply("out-of-place-leaf", "w -= a - b\n", line=1)
    assert result.code == "w = w - (a - b)\n"
    result = apply("out-of-place-leaf", "w *= a + b  # scale\n", line=1)
    assert result.code == "w = w * (a + b)  # scale\n"
    result = apply("out-of-place-leaf", "w += lr * g\n", line=1)
    assert result.code == "w = w + lr * g\n"


def test_allowlist_safe_globals_for_a_library_global():
    message = ("Weights only load failed. ... WeightsUnpickler error: Unsupported global: GLOBAL "
               "collections.Counter was not an allowed global by default.")
    result = apply("allowlist-safe-globals", "import torch\nstate = torch.load('ckpt.pt')\n", line=2, message=message)
    assert "import importlib\n" \
           "torch.serialization.add_safe_globals([importlib.import_module('collections').Counter])\n" \
           "state = torch.load('ckpt.pt')" in result.code


def test_allowlist_safe_globals_without_a_name_in_the_message():
    result = apply("allowlist-safe-globals", "import torch\nstate = torch.load('ckpt.pt')\n", line=2, message="boom")
    assert not result.applicable and "names no unsupported global" in result.reason


def test_snippet_slices_through_with_and_if_blocks():
    s = Snippet(dedent("""\
        import torch
        model = torch.nn.Linear(2, 1)
        if True:
            x = torch.ones(2)
        with torch.no_grad():
            y = model(x)
        z = y * 2
        z.sum().backward()
    """))
    stmt = s.statement_at(8)
    sliced = [s.text(small) for small, _ in s.backward_slice(["z"], stmt)]
    assert sliced == ["model = torch.nn.Linear(2, 1)", "x = torch.ones(2)", "y = model(x)", "z = y * 2"]
