"""Patches for pytorch/backward-twice: two workarounds and the seeds' three dead ends.

The failing call is the backward on the traceback's line. "The forward" is the
backward slice of the tensor it differentiates: the assignments that computed it
from the model and the data, without the statements that create the model, the
optimizer or the data from scratch (running those again would build new ones).
"""

from __future__ import annotations

import libcst as cst

from bot.verify.patches.base import Failure, NotApplicable, PatchResult
from bot.verify.patches.calls import (backward_tensor, call_method, constructor_like, failing_backward, first_line,
                                      is_backward, kwarg, loss_constructor, set_kwarg, value_of)
from bot.verify.patches.registry import register
from bot.verify.patches.source import Edits, Snippet


def forward_statements(s: Snippet, name: str, before: cst.CSTNode) -> list[tuple[cst.CSTNode, cst.BaseStatement]]:
    """The assignments that computed `name` before `before`, in source order."""

    def computation(small: cst.CSTNode) -> bool:
        value = value_of(small)
        if value is None or constructor_like(s, value):
            return False
        return isinstance(small, cst.AugAssign) or any(s.is_variable(n) for n in s.used_names(small))

    return s.backward_slice([name], before, follow=computation)


def _loss_name(s: Snippet, call: cst.Call) -> str:
    tensor = backward_tensor(call)
    if not isinstance(tensor, cst.Name):
        what = s.text(tensor) if tensor is not None else "?"
        raise NotApplicable(f"the failing backward differentiates `{what}`, not a variable whose computation "
                            "can be found")
    return tensor.value


def _forward_or_give_up(s: Snippet, name: str, stmt: cst.BaseStatement):
    forward = forward_statements(s, name, stmt)
    if not forward:
        raise NotApplicable(f"no assignment before the failing backward computes `{name}` from other variables")
    return forward


def _scope_key(s: Snippet, node: cst.CSTNode):
    return id(s.enclosing_function(node))


def _in_loop(s: Snippet, node: cst.CSTNode) -> bool:
    for anc in s.ancestors(node):
        if isinstance(anc, (cst.For, cst.While)):
            return True
        if isinstance(anc, cst.FunctionDef):
            return False
    return False


@register("retain-graph", "add retain_graph=True to every backward on the shared graph except the last one")
def retain_graph(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt, target = failing_backward(s, failure.line)
    scope = _scope_key(s, target)
    calls = [c for c in s.find([s.module], cst.Call, is_backward, nested=True) if _scope_key(s, c) == scope]
    chosen = calls[:-1]
    if target is calls[-1] and (len(calls) == 1 or _in_loop(s, target)):
        # The failing backward runs again after itself (a loop), or it is the only one
        # (then the dead end "retain_graph=True on the failing call" is applied as written).
        chosen.append(target)
    edits = Edits(s)
    changed = []
    for call in chosen:
        keep = kwarg(call, "retain_graph")
        if keep is not None and s.text(keep.value) == "True":
            continue
        edits.replace_node(call, lambda updated: set_kwarg(updated, "retain_graph", "True"))
        changed.append(str(s.line(call)))
    if not changed:
        raise NotApplicable("every backward before the last one already has retain_graph=True")
    return PatchResult.changed(edits.render(),
                               f"retain_graph=True added to the backward call(s) on line(s) {', '.join(changed)}")


@register("recompute-forward", "run the statements that built the loss again before the second backward")
def recompute_forward(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt, target = failing_backward(s, failure.line)
    name = _loss_name(s, target)
    forward = _forward_or_give_up(s, name, stmt)
    accumulated = [small for small, _ in forward if isinstance(small, cst.AugAssign)]
    if accumulated:
        raise NotApplicable(f"line {s.line(accumulated[0])} accumulates with `{s.text(accumulated[0])}`; "
                            "running it again would count it twice")
    edits = Edits(s)
    copies = [cst.SimpleStatementLine(body=[small.with_changes(semicolon=cst.MaybeSentinel.DEFAULT)])
              for small, _ in forward]
    edits.insert_before(stmt, *copies)
    lines = ", ".join(str(s.line(small)) for small, _ in forward)
    return PatchResult.changed(edits.render(), f"line(s) {lines} run again before the backward on line {s.line(stmt)}")


@register("detach-before-backward", "dead end: `out = out.detach()` before the failing backward")
def detach_before_backward(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt, target = failing_backward(s, failure.line)
    tensor = backward_tensor(target)
    if tensor is None:
        raise NotApplicable(f"cannot tell which tensor `{first_line(s, stmt)}` differentiates")
    edits = Edits(s)
    if isinstance(tensor, cst.Name):
        edits.insert_before(stmt, f"{tensor.value} = {tensor.value}.detach()")
    else:
        edits.replace_node(tensor, lambda updated: call_method(updated, "detach"))
    return PatchResult.changed(edits.render(),
                               f"`{s.text(tensor)}` detached before the backward on line {s.line(stmt)}")


@register("no-grad-forward", "dead end: run the forward computation under `with torch.no_grad():`")
def no_grad_forward(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt, target = failing_backward(s, failure.line)
    name = _loss_name(s, target)
    forward = _forward_or_give_up(s, name, stmt)
    loss_stmt = forward[-1][1]
    block = s.block_of(loss_stmt)
    same_block = [line_stmt for _, line_stmt in forward if s.block_of(line_stmt) is block]
    edits = Edits(s)
    torch = edits.torch()
    edits.wrap_in_with(same_block[0], loss_stmt, f"{torch}.no_grad()")
    first, last = s.line(same_block[0]), s.lines(loss_stmt)[1]
    lines = f"line {first}" if first == last else f"lines {first}-{last}"
    return PatchResult.changed(edits.render(), f"{lines} run under {torch}.no_grad()")


def _model_in(s: Snippet, forward) -> str | None:
    """The first model the forward computation calls (`model(x)`, `G(z)`, `net.forward(x)`),
    skipping loss objects such as `bce = nn.BCEWithLogitsLoss()`."""
    for small, _ in forward:
        for call in reversed(s.find([value_of(small)], cst.Call, nested=True)):  # innermost first
            func = call.func
            if isinstance(func, cst.Attribute) and func.attr.value == "forward":
                func = func.value
            if not isinstance(func, cst.Name) or not s.is_variable(func.value):
                continue
            d = s.definition(func.value, small)
            if d is not None and loss_constructor(s, value_of(d[0])):
                continue
            return func.value
    return None


@register("move-model-roundtrip", "dead end: `model.to('cpu'); model.to(<device>)` before the failing backward")
def move_model_roundtrip(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt, target = failing_backward(s, failure.line)
    name = _loss_name(s, target)
    forward = _forward_or_give_up(s, name, stmt)
    model = _model_in(s, forward)
    if model is None:
        raise NotApplicable(f"no model call found in the computation of `{name}`")
    edits = Edits(s)
    torch = edits.torch()
    edits.insert_before(stmt,
                        f"device_before_roundtrip = next({model}.parameters(), {torch}.empty(0)).device",
                        f"{model} = {model}.to('cpu')",
                        f"{model} = {model}.to(device_before_roundtrip)")
    return PatchResult.changed(edits.render(),
                               f"`{model}` moved to the CPU and back before the backward on line {s.line(stmt)}")
