"""Patches for saving, loading and compiling (bot/verify/patches/saving.py), each run on
the repro of its entry in real torch: checkpoint-corrupt, torchscript-archive-load,
pickled-model-module-missing, dynamo-backend-failed, dynamo-unsupported,
onnx-unsupported-operator and torchscript-unsupported."""

from __future__ import annotations

from textwrap import dedent

from bot.verify.patches import registry
from bot.verify.patches.base import Failure

from .conftest import apply_patch, entry_repro

CORRUPT = "failed finding central directory"
TS_ARCHIVE = "with TorchScript archives"
CONSTANTS = "constants.pkl"
WEIGHTS_ONLY = "Weights only load failed"
NO_COMPILER = "No working C++ compiler found"
GRAPH_BREAK = "Data-dependent branching"
ONNX_OP = "Exporting the operator 'aten::grid_sampler' to ONNX opset version 11 is not supported"
JIT_TRY = "try blocks aren't supported"

CORRUPT_REPRO = dedent("""\
    import io
    import torch

    buffer = io.BytesIO()
    torch.save({"weight": torch.ones(1000)}, buffer)
    data = buffer.getvalue()
    with open("last.pt", "wb") as f:
        f.write(data[: len(data) // 2])

    checkpoint = torch.load("last.pt")
    print(checkpoint["weight"].shape)
""")

TS_REPRO = dedent("""\
    import torch

    torch.jit.script(torch.nn.Linear(4, 2)).save("model_ts.pt")

    model = torch.load("model_ts.pt")
    print(model(torch.randn(1, 4)))
""")

# The reverse mix-up, inline: a state_dict file opened with torch.jit.load inside the call.
STATE_DICT_JIT_REPRO = dedent("""\
    import torch

    torch.save(torch.nn.Linear(4, 2).state_dict(), "weights.pt")
    model = torch.nn.Linear(4, 2)
    model.load_state_dict(torch.jit.load("weights.pt"))
    print(model.weight.shape)
""")

PICKLED_REPRO = dedent("""\
    import io
    import sys
    import types

    import torch
    from torch import nn


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 2)


    models = types.ModuleType("models")
    Net.__module__ = "models"
    models.Net = Net
    sys.modules["models"] = models
    buffer = io.BytesIO()
    torch.save(Net(), buffer)

    del sys.modules["models"]
    buffer.seek(0)
    model = torch.load(buffer, weights_only=False)
    print(model)
""")

BACKEND_REPRO = dedent("""\
    import os

    os.environ["CXX"] = "/nonexistent/c++"

    import torch


    @torch.compile
    def scaled_sine(x):
        return torch.sin(x) * 2 + 1


    print(scaled_sine(torch.ones(8)))
""")

# The compile call inline on the failing line.
BACKEND_INLINE_REPRO = dedent("""\
    import os
    os.environ["CXX"] = "/nonexistent/c++"
    import torch
    print(torch.compile(torch.nn.Linear(4, 2))(torch.ones(1, 4)))
""")

UNSUPPORTED_REPRO = dedent("""\
    import torch


    def clamp_positive(x):
        if x.sum() > 0:
            return x + 1
        return x - 1


    compiled = torch.compile(clamp_positive, fullgraph=True, backend="aot_eager")
    print(compiled(torch.ones(4)))
""")

UNSUPPORTED_DECORATED_REPRO = dedent("""\
    import torch


    @torch.compile(fullgraph=True, backend="aot_eager")
    def clamp_positive(x):
        if x.sum() > 0:
            return x + 1
        return x - 1


    print(clamp_positive(torch.ones(4)))
""")

ONNX_REPRO = dedent("""\
    import io

    import torch
    import torch.nn.functional as F


    class Warp(torch.nn.Module):
        def forward(self, image, grid):
            return F.grid_sample(image, grid, align_corners=False)


    image = torch.randn(1, 3, 8, 8)
    grid = torch.rand(1, 4, 4, 2) * 2 - 1
    torch.onnx.export(Warp(), (image, grid), io.BytesIO(), opset_version=11, dynamo=False)
    print("exported")
""")

JIT_REPRO = dedent("""\
    import torch
    from torch import nn


    class Classifier(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(8, 3)

        def safe_log(self, x):
            try:
                return torch.log(x)
            except RuntimeError:
                return x

        def forward(self, x):
            return self.safe_log(self.fc(x).softmax(-1))


    scripted = torch.jit.script(Classifier())
    print(scripted(torch.randn(2, 8)).shape)
""")


# checkpoint-corrupt ---------------------------------------------------------------------------

def test_weights_only_false_on_a_truncated_file_still_fails(try_patch):
    out = try_patch(CORRUPT_REPRO, "weights-only-false", fails_with=CORRUPT)
    assert 'checkpoint = torch.load("last.pt", weights_only=False)' in out.patch.code
    out.fails(CORRUPT)


def test_map_location_on_a_truncated_file_still_fails(try_patch):
    out = try_patch(CORRUPT_REPRO, "torch-load-map-location-cpu", fails_with=CORRUPT)
    assert 'checkpoint = torch.load("last.pt", map_location="cpu")' in out.patch.code
    out.fails(CORRUPT)


def test_map_location_does_not_apply_when_it_is_already_there():
    code = 'import torch\nckpt = torch.load("a.pt", map_location="cpu")\n'
    result = apply_patch("torch-load-map-location-cpu", code, 2, CORRUPT)
    assert not result.applicable and "without map_location" in result.reason


# torchscript-archive-load -------------------------------------------------------------------

def test_jit_load_for_a_torchscript_archive(try_patch):
    out = try_patch(TS_REPRO, "jit-load-for-torchscript", fails_with=TS_ARCHIVE)
    assert 'model = torch.jit.load("model_ts.pt")' in out.patch.code
    assert 'torch.jit.script(torch.nn.Linear(4, 2)).save("model_ts.pt")' in out.patch.code
    out.ok()


def test_jit_load_drops_weights_only_and_keeps_map_location():
    code = 'import torch as th\nm = th.load("m.pt", weights_only=True, map_location="cpu")\n'
    result = apply_patch("jit-load-for-torchscript", code, 2, TS_ARCHIVE)
    assert result.code == 'import torch as th\nm = th.jit.load("m.pt", map_location="cpu")\n'


def test_torch_load_for_a_state_dict_file_inline(try_patch):
    out = try_patch(STATE_DICT_JIT_REPRO, "torch-load-for-state-dict-file", fails_with=CONSTANTS)
    assert 'model.load_state_dict(torch.load("weights.pt"))' in out.patch.code
    out.ok()


def test_torch_load_for_state_dict_file_does_not_apply_to_torch_load():
    result = apply_patch("torch-load-for-state-dict-file", TS_REPRO, 5, TS_ARCHIVE)
    assert not result.applicable and "no torch.jit.load() call" in result.reason


def test_map_location_on_a_torchscript_archive_still_fails(try_patch):
    out = try_patch(TS_REPRO, "torch-load-map-location-cpu", fails_with=TS_ARCHIVE)
    out.fails(TS_ARCHIVE)


# pickled-model-module-missing ---------------------------------------------------------------

def test_module_alias_lets_the_pickle_find_the_class(try_patch):
    out = try_patch(PICKLED_REPRO, "pickle-module-alias", fails_with="No module named 'models'")
    assert "sys.modules.setdefault('models', sys.modules[__name__])\nmodel = torch.load(" in out.patch.code
    out.ok()
    assert "Linear(in_features=4" in out.patched.output


def test_module_alias_for_a_missing_attribute_of_main():
    code = dedent("""\
        import torch
        from mynets import Net
        model = torch.load("model.pth", weights_only=False)
    """)
    message = "Can't get attribute 'Net' on <module '__main__' from '/x/predict.py'>"
    result = apply_patch("pickle-module-alias", code, 3, message, "AttributeError")
    assert "setattr(sys.modules['__main__'], 'Net', Net)\nmodel = torch.load(" in result.code


def test_module_alias_needs_a_class_in_the_snippet():
    code = 'import torch\nmodel = torch.load("best.pt", weights_only=False)\n'
    result = apply_patch("pickle-module-alias", code, 2, "No module named 'models.yolo'", "ModuleNotFoundError")
    assert not result.applicable and "no class" in result.reason


def test_weights_only_true_on_a_whole_model_leads_to_the_weights_only_error(try_patch):
    out = try_patch(PICKLED_REPRO, "weights-only-true", fails_with="No module named 'models'")
    assert "model = torch.load(buffer, weights_only=True)" in out.patch.code
    out.fails(WEIGHTS_ONLY)
    assert "GLOBAL models.Net" in out.message


# dynamo-backend-failed ----------------------------------------------------------------------

def test_backend_eager_needs_no_compiler(try_patch):
    out = try_patch(BACKEND_REPRO, "compile-backend-eager", fails_with=NO_COMPILER)
    assert '@torch.compile(backend="eager")\ndef scaled_sine(x):' in out.patch.code
    out.ok()


def test_backend_aot_eager_inline(try_patch):
    out = try_patch(BACKEND_INLINE_REPRO, "compile-backend-aot-eager", fails_with=NO_COMPILER)
    assert 'print(torch.compile(torch.nn.Linear(4, 2), backend="aot_eager")(torch.ones(1, 4)))' in out.patch.code
    out.ok()


def test_suppress_errors_falls_back_to_eager(try_patch):
    out = try_patch(BACKEND_REPRO, "dynamo-suppress-errors", fails_with=NO_COMPILER)
    assert "import torch\ntorch._dynamo.config.suppress_errors = True\n" in out.patch.code
    out.ok()


def test_another_compile_mode_still_needs_the_compiler(try_patch):
    out = try_patch(BACKEND_REPRO, "compile-mode-reduce-overhead", fails_with=NO_COMPILER)
    assert '@torch.compile(mode="reduce-overhead")' in out.patch.code
    out.fails(NO_COMPILER)


def test_compile_patches_need_a_torch_compile():
    code = "import torch\nmodel = torch.nn.Linear(2, 2)\nprint(model(torch.ones(1, 2)))\n"
    result = apply_patch("compile-backend-eager", code, 3, NO_COMPILER)
    assert not result.applicable and "no torch.compile" in result.reason


# dynamo-unsupported --------------------------------------------------------------------------

def test_fullgraph_false_lets_dynamo_break_the_graph(try_patch):
    out = try_patch(UNSUPPORTED_REPRO, "compile-fullgraph-false", fails_with=GRAPH_BREAK)
    assert 'compiled = torch.compile(clamp_positive, fullgraph=False, backend="aot_eager")' in out.patch.code
    out.ok()


def test_fullgraph_false_on_a_decorator(try_patch):
    out = try_patch(UNSUPPORTED_DECORATED_REPRO, "compile-fullgraph-false", fails_with=GRAPH_BREAK)
    assert '@torch.compile(fullgraph=False, backend="aot_eager")' in out.patch.code
    out.ok()


def test_backend_eager_does_not_help_a_graph_break(try_patch):
    out = try_patch(UNSUPPORTED_REPRO, "compile-backend-eager", fails_with=GRAPH_BREAK)
    assert 'torch.compile(clamp_positive, fullgraph=True, backend="eager")' in out.patch.code
    out.fails(GRAPH_BREAK)


def test_suppress_errors_does_not_override_fullgraph(try_patch):
    out = try_patch(UNSUPPORTED_REPRO, "dynamo-suppress-errors", fails_with=GRAPH_BREAK)
    out.fails(GRAPH_BREAK)


def test_fullgraph_false_does_not_apply_without_fullgraph_true():
    result = apply_patch("compile-fullgraph-false", BACKEND_REPRO, 13, NO_COMPILER)
    assert not result.applicable and "fullgraph=True" in result.reason


# onnx-unsupported-operator -----------------------------------------------------------------

def test_newer_opset_gets_past_the_operator(try_patch):
    out = try_patch(ONNX_REPRO, "onnx-newer-opset", fails_with=ONNX_OP)
    assert "io.BytesIO(), opset_version=17, dynamo=False)" in out.patch.code
    # grid_sampler converts at opset 17; writing the model then needs the onnx package,
    # which this environment may lack: either it exported, or it failed only for that.
    if out.patched.exit_reason == "error":
        assert "Module onnx is not installed" in out.message, out.patched.error
    else:
        out.ok()
        assert "exported" in out.patched.output


def test_newer_opset_takes_the_version_from_the_message():
    message = ONNX_OP + ". Support for this operator was added in version 18, try exporting with this version"
    code = "import torch\ntorch.onnx.export(m, (x,), 'm.onnx', opset_version=11)\n"
    result = apply_patch("onnx-newer-opset", code, 2, message, "torch.onnx.errors.UnsupportedOperatorError")
    assert "opset_version=18)" in result.code


def test_newer_opset_does_not_apply_when_already_new_enough():
    code = "import torch\ntorch.onnx.export(m, (x,), 'm.onnx', opset_version=20)\n"
    message = "Exporting the operator 'aten::linalg_eigh' to ONNX opset version 20 is not supported"
    result = apply_patch("onnx-newer-opset", code, 2, message)
    assert not result.applicable and "already asks for opset 20" in result.reason


def test_no_constant_folding_still_fails(try_patch):
    out = try_patch(ONNX_REPRO, "onnx-no-constant-folding", fails_with=ONNX_OP)
    assert "dynamo=False, do_constant_folding=False)" in out.patch.code
    out.fails(ONNX_OP)


# torchscript-unsupported --------------------------------------------------------------------

def test_jit_ignore_on_the_method_the_message_names(try_patch):
    out = try_patch(JIT_REPRO, "jit-ignore-unsupported-method", fails_with=JIT_TRY)
    assert "    @torch.jit.ignore\n    def safe_log(self, x):" in out.patch.code
    out.ok()
    assert "torch.Size([2, 3])" in out.patched.output


def test_jit_trace_with_the_later_call_input(try_patch):
    out = try_patch(JIT_REPRO, "jit-trace-instead-of-script", fails_with=JIT_TRY)
    assert "scripted = torch.jit.trace(Classifier(), (torch.randn(2, 8),))" in out.patch.code
    out.ok()


def test_jit_export_on_the_method_still_fails(try_patch):
    out = try_patch(JIT_REPRO, "jit-export-unsupported-method", fails_with=JIT_TRY)
    assert "    @torch.jit.export\n    def safe_log(self, x):" in out.patch.code
    out.fails(JIT_TRY)


def test_jit_ignore_does_not_apply_to_forward():
    code = JIT_REPRO.replace("return self.safe_log(self.fc(x).softmax(-1))",
                             "try:\n            return self.fc(x)\n        except RuntimeError:\n            return x")
    files = {"snippet.py"}
    failure = Failure(type="torch.jit.frontend.UnsupportedNodeError", line=code.splitlines().index(
        "scripted = torch.jit.script(Classifier())") + 1,
        message=f"{JIT_TRY}:\n  File \"snippet.py\", line 17\n    def forward(self, x):",
        frames=[{"file": f, "line": 1, "in_snippet": True} for f in files])
    result = registry.get("jit-ignore-unsupported-method").apply(code, failure)
    assert not result.applicable and "forward" in result.reason


# py2-checkpoint-encoding (the patch lives in loading.py, next to weights-only-false) --------------

PY2_DECODE = "'ascii' codec can't decode byte 0x80"


def test_latin1_encoding_loads_a_python2_checkpoint(try_patch):
    out = try_patch(entry_repro("py2-checkpoint-encoding"), "load-encoding-latin1", fails_with=PY2_DECODE)
    assert 'state = torch.load("py2_checkpoint.pt", encoding="latin1")' in out.patch.code
    out.ok()
    assert "{'name': '\\x80\\x9e'}" in out.patched.output  # every byte kept, one character each


def test_weights_only_false_does_not_change_the_decoding(try_patch):
    out = try_patch(entry_repro("py2-checkpoint-encoding"), "weights-only-false", fails_with=PY2_DECODE)
    out.fails(PY2_DECODE)


def test_latin1_encoding_needs_a_torch_load_on_the_line():
    code = 'import pickle\nstate = pickle.load(open("a.pkl", "rb"))\n'
    result = apply_patch("load-encoding-latin1", code, 2, PY2_DECODE, "UnicodeDecodeError")
    assert not result.applicable and "has no torch.load() call" in result.reason
