"""Patches for dtype errors: dtype-mismatch, ce-target-dtype and half-not-implemented."""

from __future__ import annotations

import libcst as cst

from bot.verify.patches.base import Failure, NotApplicable, PatchResult
from bot.verify.patches.calls import (call_method, dotted, first_line, is_inline_module_call, is_module_call,
                                      loss_calls, loss_target, method, module_like_names, positional, receiver)
from bot.verify.patches.registry import register
from bot.verify.patches.source import Edits, Snippet
from bot.verify.patches.tensors import tensor_like

# torch functions that multiply their tensor arguments together (all must share a dtype).
MATMUL_FUNCTIONS = {"mm", "matmul", "bmm", "addmm", "baddbmm", "linear", "bilinear", "conv1d", "conv2d", "conv3d",
                    "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "einsum", "mv", "dot", "inner", "outer"}
LOSS_FUNCTIONS = {"cross_entropy", "nll_loss", "CrossEntropyLoss", "NLLLoss", "multi_margin_loss",
                  "multilabel_margin_loss"}


# --- dtype-mismatch --------------------------------------------------------------------------------


def _model_calls(s: Snippet, stmt) -> list[cst.Call]:
    models = module_like_names(s, stmt)
    return [c for c in s.find(s.header_nodes(stmt), cst.Call) if is_module_call(s, c, models)]


@register("cast-input-float32", "cast the float64 input of the failing call to float32 (`x.float()`)")
def cast_input_float32(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt, calls = s.calls_at(failure.line)
    edits = Edits(s)
    cast: list[str] = []

    def to_float(arg: cst.Arg):
        cast.append(s.text(arg.value))
        edits.replace_node(arg, lambda u: u.with_changes(value=call_method(u.value, "float")))

    model_calls = _model_calls(s, stmt)
    for call in model_calls:
        for arg in positional(call):
            if tensor_like(arg.value):
                to_float(arg)
    if not model_calls:
        for call in calls:
            if (dotted(call.func) or "").split(".")[-1] in MATMUL_FUNCTIONS:
                for arg in positional(call):
                    if tensor_like(arg.value) and not isinstance(arg.value, cst.SimpleString):
                        to_float(arg)
        for op in s.find(s.header_nodes(stmt), cst.BinaryOperation,
                         lambda b: isinstance(b.operator, cst.MatrixMultiply)):
            cast.append(s.text(op))
            edits.replace_node(op, lambda u: u.with_changes(left=call_method(u.left, "float"),
                                                             right=call_method(u.right, "float")))
    if not cast:
        raise NotApplicable(f"line {failure.line} (`{first_line(s, stmt)}`) has no model call or matrix product "
                            "whose inputs could be cast")
    return PatchResult.changed(edits.render(), f"{', '.join(cast)} cast to float32 on line {s.line(stmt)}")


@register("model-to-double", "`model.double()` so that the weights match the float64 input")
def model_to_double(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt = s.statement_at(failure.line)
    model_calls = _model_calls(s, stmt)
    if not model_calls:
        raise NotApplicable(f"line {failure.line} (`{first_line(s, stmt)}`) calls no model whose weights could "
                            "be converted")
    edits = Edits(s)
    inline = [c for c in model_calls if is_inline_module_call(s, c)]
    for call in inline:  # `nn.Linear(3, 1)(x)` -> `nn.Linear(3, 1).double()(x)`
        edits.replace_node(call, lambda u: u.with_changes(func=call_method(u.func, "double")))
    models = list(dict.fromkeys(s.text(c.func.value if method(c) == "forward" else c.func)
                                for c in model_calls if all(c is not i for i in inline)))
    edits.insert_before(stmt, *[f"{m}.double()" for m in models])
    models += [s.text(c.func) for c in inline]
    return PatchResult.changed(edits.render(), f"{', '.join(models)} converted to float64 before line {s.line(stmt)}")


# --- ce-target-dtype --------------------------------------------------------------------------------


def _loss_calls(s: Snippet, stmt) -> list[cst.Call]:
    return loss_calls(s, stmt, LOSS_FUNCTIONS)


def _cast_target(code: str, failure: Failure, to: str) -> PatchResult:
    s = Snippet(code)
    stmt = s.statement_at(failure.line)
    calls = _loss_calls(s, stmt)
    edits = Edits(s)
    cast = []
    for call in calls:
        target = loss_target(call)
        if target is not None:
            cast.append(s.text(target.value))
            edits.replace_node(target, lambda u: u.with_changes(value=call_method(u.value, to)))
    if not cast:
        raise NotApplicable(f"line {failure.line} (`{first_line(s, stmt)}`) has no loss call with a target argument")
    return PatchResult.changed(edits.render(), f"target {', '.join(cast)} cast with .{to}() on line {s.line(stmt)}")


@register("target-to-long", "`criterion(out, target)` -> `criterion(out, target.long())`")
def target_to_long(code: str, failure: Failure) -> PatchResult:
    return _cast_target(code, failure, "long")


@register("target-to-int32", "dead end: `target.int()` (still not the Long dtype the loss expects)")
def target_to_int32(code: str, failure: Failure) -> PatchResult:
    return _cast_target(code, failure, "int")


# --- half-not-implemented --------------------------------------------------------------------------


def _half_patch(code: str, failure: Failure, method_name: str, dtype: str) -> PatchResult:
    """Replace `.half()` and `torch.float16`/`torch.half` in the failing statement and in
    the statements that computed its inputs (the failing op then runs in `dtype`)."""
    s = Snippet(code)
    stmt = s.statement_at(failure.line)
    names = [n for node in s.header_nodes(stmt) for n in s.used_names(node) if s.is_variable(n)]
    computed = s.backward_slice(names, stmt)
    roots = list(s.header_nodes(stmt)) + [small for small, _ in computed]
    sliced = set(names) | {n for small, _ in computed for n in s.used_names(small)}
    for small, _ in s.preceding(stmt):  # `model.half()` as a statement on a variable used here
        if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call) and method(small.value) == "half" \
                and isinstance(receiver(small.value), cst.Name) and receiver(small.value).value in sliced:
            roots.append(small)
    edits = Edits(s)
    lines = set()
    for root in roots:
        for call in s.find([root], cst.Call, lambda c: method(c) == "half" and not c.args, nested=True):
            edits.replace_node(call, lambda u: u.with_changes(func=u.func.with_changes(attr=cst.Name(method_name))))
            lines.add(s.line(call))
        for attr in s.find([root], cst.Attribute, lambda a: a.attr.value in ("float16", "half")
                           and dotted(a) in ("torch.float16", "torch.half"), nested=True):
            edits.replace_node(attr, lambda u: u.with_changes(attr=cst.Name(dtype)))
            lines.add(s.line(attr))
    if edits.empty:
        raise NotApplicable(f"no .half() or torch.float16 in line {failure.line} (`{first_line(s, stmt)}`) "
                            "or in the statements that computed its inputs")
    return PatchResult.changed(edits.render(),
                               f"float16 replaced by {dtype} on line(s) {', '.join(map(str, sorted(lines)))}")


@register("half-to-float32", "run the failing op in float32 on CPU (`.half()` -> `.float()`)")
def half_to_float32(code: str, failure: Failure) -> PatchResult:
    return _half_patch(code, failure, "float", "float32")


@register("half-to-bfloat16", "use bfloat16 on CPU instead of float16 (`.half()` -> `.bfloat16()`)")
def half_to_bfloat16(code: str, failure: Failure) -> PatchResult:
    return _half_patch(code, failure, "bfloat16", "bfloat16")
