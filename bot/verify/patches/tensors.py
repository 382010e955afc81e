"""Patches for tensor layout and placement errors: view-stride and device-mismatch."""

from __future__ import annotations

import libcst as cst

from bot.verify.patches.base import Failure, NotApplicable, PatchResult
from bot.verify.patches.calls import (call_method, dotted, first_line, is_module_call, loss_constructor, method,
                                      module_like_names, positional, receiver, value_of)
from bot.verify.patches.registry import register
from bot.verify.patches.source import Edits, Snippet

LITERALS = (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)
CHEAP = (cst.Name, cst.Attribute, cst.Subscript)  # safe to evaluate twice


def tensor_like(node: cst.CSTNode) -> bool:
    """Could be a tensor: not a literal, a container display or a keyword constant."""
    if isinstance(node, LITERALS + (cst.List, cst.Tuple, cst.Dict, cst.Set, cst.Lambda)):
        return False
    if isinstance(node, cst.Name) and node.value in {"True", "False", "None"}:
        return False
    return not (isinstance(node, cst.UnaryOperation) and isinstance(node.expression, LITERALS))


# --- view-stride --------------------------------------------------------------------------------


def _view_patch(code: str, failure: Failure, make, what: str) -> PatchResult:
    s = Snippet(code)
    stmt, calls = s.calls_at(failure.line)
    views = [c for c in calls if method(c) == "view" and receiver(c) is not None and c.args]
    if not views:
        raise NotApplicable(f"line {failure.line} (`{first_line(s, stmt)}`) has no .view(...) call")
    edits = Edits(s)
    for call in views:
        edits.replace_node(call, make)
    return PatchResult.changed(edits.render(), f"{what} on line {s.line(stmt)}")


@register("reshape-instead-of-view", "`.view(...)` -> `.reshape(...)` at the failing call")
def reshape_instead_of_view(code: str, failure: Failure) -> PatchResult:
    return _view_patch(code, failure, lambda u: u.with_changes(func=u.func.with_changes(attr=cst.Name("reshape"))),
                       ".view() replaced by .reshape()")


@register("contiguous-before-view", "`x.view(...)` -> `x.contiguous().view(...)`")
def contiguous_before_view(code: str, failure: Failure) -> PatchResult:
    return _view_patch(code, failure, lambda u: u.with_changes(func=u.func.with_changes(
        value=call_method(u.func.value, "contiguous"))), ".contiguous() before .view()")


@register("clone-before-view", "dead end: `x.clone().view(...)` (clone keeps the strides)")
def clone_before_view(code: str, failure: Failure) -> PatchResult:
    return _view_patch(code, failure, lambda u: u.with_changes(func=u.func.with_changes(
        value=call_method(u.func.value, "clone"))), ".clone() before .view()")


# --- device-mismatch ------------------------------------------------------------------------------


def _loss_like(s: Snippet, call: cst.Call, before) -> bool:
    """A loss module or criterion (no parameters to take the device from)."""
    name = s.text(call.func).lower()
    if "loss" in name or "criterion" in name:
        return True
    if isinstance(call.func, cst.Name):
        d = s.definition(call.func.value, before)
        value = value_of(d[0]) if d else None
        return loss_constructor(s, value)
    return False


@register("move-inputs-to-model-device", "move the input tensors of the failing call to the model's "
                                         "(or the other operand's) device")
def move_inputs_to_model_device(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt, calls = s.calls_at(failure.line)
    edits = Edits(s)
    models = module_like_names(s, stmt)
    moved: list[str] = []

    def move(arg: cst.Arg, device: str):
        moved.append(s.text(arg.value))
        edits.replace_node(arg, lambda u: u.with_changes(value=call_method(u.value, "to", device)))

    for call in calls:
        args = [a for a in positional(call) if tensor_like(a.value)]
        if not args:
            continue
        if is_module_call(s, call, models) and not _loss_like(s, call, stmt):
            module = call.func.value if method(call) == "forward" else call.func
            for arg in args:
                move(arg, f"next({s.text(module)}.parameters()).device")
            return PatchResult.changed(edits.render(), f"{', '.join(moved)} moved to the device of "
                                                       f"`{s.text(module)}` on line {s.line(stmt)}")
    # No model call: move the other operands to the first operand's device.
    for node in s.find(s.header_nodes(stmt), (cst.BinaryOperation, cst.Call)):
        if isinstance(node, cst.BinaryOperation):
            if tensor_like(node.left) and tensor_like(node.right) and isinstance(node.left, CHEAP):
                moved.append(s.text(node.right))
                device = f"{s.text(node.left)}.device"
                edits.replace_node(node, lambda u, device=device: u.with_changes(
                    right=call_method(u.right, "to", device)))
                break
        else:
            recv = receiver(node)
            args = [a for a in positional(node) if tensor_like(a.value)]
            if (recv is not None and isinstance(recv, CHEAP) and args
                    and not (dotted(recv) or "").startswith(("torch", "F", "nn"))):
                ref, rest = s.text(recv), args  # a.add(b): b to a's device
            elif len(args) >= 2 and isinstance(args[0].value, CHEAP):
                ref, rest = s.text(args[0].value), args[1:]  # torch.mm(a, b) / criterion(out, target)
            else:
                continue
            for arg in rest:
                move(arg, f"{ref}.device")
            break
    if not moved:
        raise NotApplicable(f"line {failure.line} (`{first_line(s, stmt)}`) has no model call or operation "
                            "on two tensors to move")
    return PatchResult.changed(edits.render(),
                               f"{', '.join(moved)} moved to the other operand's device on line {s.line(stmt)}")
