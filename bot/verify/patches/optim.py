"""Patches for optimizer, gradient-argument and training-loop errors: optimizer-empty-params,
optimizer-non-leaf, grad-shape-mismatch, derivative-not-implemented,
deterministic-not-implemented, gradscaler-unscale-fp16, clip-grad-nonfinite,
checkpoint-no-grad-inputs and scheduler-step-order."""

from __future__ import annotations

import re

import libcst as cst

from bot.verify.patches.base import Failure, NotApplicable, PatchResult
from bot.verify.patches.calls import (call_method, constructor_like, dotted, failing_backward, first_line, kwarg,
                                      method, positional, receiver, set_kwarg)
from bot.verify.patches.registry import register
from bot.verify.patches.source import Edits, Snippet, expression, statement

MODULE_PREFIXES = ("nn.", "torch.nn.")


def _calls(s: Snippet, roots, where) -> list[cst.Call]:
    return s.find(roots, cst.Call, where, nested=True)


def _module_constructor(s: Snippet, node: cst.CSTNode) -> bool:
    """`nn.Linear(4, 4)`, `torch.nn.Conv2d(...)`, `Block(64)`: something that builds a layer."""
    if not isinstance(node, cst.Call):
        return False
    name = dotted(node.func) or ""
    return name.startswith(MODULE_PREFIXES) or constructor_like(s, node)


def _optimizer_call(s: Snippet, stmt) -> cst.Call:
    """The optimizer construction on the failing line: `torch.optim.SGD(params, ...)`."""
    calls = s.find(s.header_nodes(stmt), cst.Call)
    for call in calls:
        name = dotted(call.func) or ""
        if (".optim." in f".{name}" or constructor_like(s, call)) and (positional(call) or kwarg(call, "params")):
            return call
    raise NotApplicable(f"line {s.line(stmt)} (`{first_line(s, stmt)}`) builds no optimizer")


def _params_arg(call: cst.Call) -> cst.Arg:
    args = positional(call)
    return args[0] if args else kwarg(call, "params")


# --- optimizer-empty-params ------------------------------------------------------------------


@register("modulelist-for-layer-list", "a plain Python list (dict) of layers assigned to `self.<name>` in a "
                                       "module's __init__ -> nn.ModuleList (nn.ModuleDict), so its parameters register")
def modulelist_for_layer_list(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    s.statement_at(failure.line)  # the traceback must name a line of the snippet
    edits = Edits(s)
    changed: list[str] = []
    for init in s.find([s.module], cst.FunctionDef, lambda f: f.name.value == "__init__", nested=True):
        if not any(isinstance(a, cst.ClassDef) for a in s.ancestors(init)):
            continue
        appended = {s.text(receiver(c)) for c in _calls(s, [init.body], lambda c: method(c) in {"append", "extend"}
                                                        and receiver(c) is not None)
                    if any(_module_constructor(s, a.value) or isinstance(a.value, (cst.List, cst.ListComp))
                           for a in c.args)}
        for assign in s.find([init.body], cst.Assign, nested=True):
            if len(assign.targets) != 1:
                continue
            target = assign.targets[0].target
            if not (isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name)
                    and target.value.value == "self"):
                continue
            value = assign.value
            if isinstance(value, cst.List):
                layers = [e.value for e in value.elements]
                kind = "ModuleList"
                holds = (layers and all(_module_constructor(s, v) for v in layers)) or \
                    (not layers and s.text(target) in appended)
            elif isinstance(value, cst.ListComp):
                kind, holds = "ModuleList", _module_constructor(s, value.elt)
            elif isinstance(value, cst.Dict):
                kind = "ModuleDict"
                holds = bool(value.elements) and all(isinstance(e, cst.DictElement) and _module_constructor(s, e.value)
                                                     for e in value.elements)
            elif isinstance(value, cst.DictComp):
                kind, holds = "ModuleDict", _module_constructor(s, value.value)
            else:
                continue
            if not holds:
                continue
            torch = edits.torch()
            wrapper = expression(f"{torch}.nn.{kind}(_)")
            edits.replace_node(value, lambda u, w=wrapper: w.with_changes(args=[cst.Arg(u)]))
            changed.append(f"{s.text(target)} (line {s.line(assign)})")
    if not changed:
        raise NotApplicable("no module keeps its layers in a plain list or dict assigned to `self.<name>`")
    return PatchResult.changed(edits.render(), f"{', '.join(changed)} wrapped in nn.ModuleList/nn.ModuleDict")


@register("list-of-parameters", "dead end: pass `list(model.parameters())` to the optimizer instead of the generator")
def list_of_parameters(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt = s.statement_at(failure.line)
    call = _optimizer_call(s, stmt)
    arg = _params_arg(call)
    if isinstance(arg.value, (cst.List, cst.ListComp)) or (isinstance(arg.value, cst.Call)
                                                          and dotted(arg.value.func) == "list"):
        raise NotApplicable(f"the optimizer on line {s.line(stmt)} already gets a list")
    edits = Edits(s)
    edits.replace_node(arg, lambda u: u.with_changes(value=expression(f"list({s.text(arg.value)})")))
    return PatchResult.changed(edits.render(), f"the optimizer's parameters made a list on line {s.line(stmt)}")


# --- optimizer-non-leaf ------------------------------------------------------------------------


def _made_as_leaf(s: Snippet, value: cst.BaseExpression) -> bool:
    """`torch.randn(..., requires_grad=True)`, `nn.Parameter(...)`: a leaf as written."""
    if not isinstance(value, cst.Call):
        return False
    name = dotted(value.func) or ""
    if name.endswith("Parameter"):
        return True
    if method(value) == "requires_grad_":
        return _made_as_leaf(s, receiver(value)) or not isinstance(receiver(value), cst.Call) or \
            kwarg(receiver(value), "requires_grad") is None
    return kwarg(value, "requires_grad") is not None


def _non_leaf_definitions(s: Snippet, stmt) -> list[tuple[str, cst.Assign]]:
    """The variables passed to the optimizer on the failing line whose definition computes
    them from a tensor that requires grad (an operation, `.to()`, `.cuda()`)."""
    call = _optimizer_call(s, stmt)
    arg = _params_arg(call).value
    if isinstance(arg, cst.Name) and s.is_variable(arg.value):
        d = s.definition(arg.value, stmt)
        if d is not None and isinstance(d[0], cst.Assign) and isinstance(d[0].value, (cst.List, cst.Tuple)):
            arg = d[0].value
    if isinstance(arg, (cst.List, cst.Tuple)):
        names = [e.value for e in arg.elements]
    else:
        names = [arg]
    found = []
    for node in names:
        if isinstance(node, cst.Dict):  # a parameter group
            for el in node.elements:
                if isinstance(el, cst.DictElement) and s.text(el.key).strip("'\"") == "params":
                    inner = el.value.elements if isinstance(el.value, (cst.List, cst.Tuple)) else []
                    names.extend(e.value for e in inner)
            continue
        if not (isinstance(node, cst.Name) and s.is_variable(node.value)):
            continue
        d = s.definition(node.value, stmt)
        if d is None or not isinstance(d[0], cst.Assign) or len(d[0].targets) != 1:
            continue
        if _made_as_leaf(s, d[0].value):
            continue
        found.append((node.value, d[0]))
    if not found:
        raise NotApplicable(f"no tensor passed to the optimizer on line {s.line(stmt)} is computed by an operation "
                            "in the snippet")
    return found


@register("leaf-from-non-leaf", "the non-leaf tensor given to the optimizer is made a leaf where it is computed: "
                                "`w = (expr).detach().requires_grad_()`")
def leaf_from_non_leaf(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt = s.statement_at(failure.line)
    edits = Edits(s)
    found = _non_leaf_definitions(s, stmt)
    for _, assign in found:
        edits.replace_node(assign, lambda u: u.with_changes(
            value=call_method(call_method(u.value, "detach"), "requires_grad_")))
    return PatchResult.changed(edits.render(), f"{', '.join(n for n, _ in found)} made leaf tensors "
                                               "(detach().requires_grad_()) where computed")


@register("parameter-from-non-leaf", "the non-leaf tensor given to the optimizer is wrapped in nn.Parameter "
                                     "where it is computed")
def parameter_from_non_leaf(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt = s.statement_at(failure.line)
    edits = Edits(s)
    torch = edits.torch()
    found = _non_leaf_definitions(s, stmt)
    for _, assign in found:
        edits.replace_node(assign, lambda u: u.with_changes(
            value=expression(f"{torch}.nn.Parameter(_)").with_changes(args=[cst.Arg(u.value)])))
    return PatchResult.changed(edits.render(),
                               f"{', '.join(n for n, _ in found)} wrapped in nn.Parameter where computed")


@register("requires-grad-before-optimizer", "dead end: call `.requires_grad_(True)` on the tensor before building "
                                            "the optimizer")
def requires_grad_on_non_leaf(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt = s.statement_at(failure.line)
    edits = Edits(s)
    found = _non_leaf_definitions(s, stmt)
    edits.insert_before(stmt, *[f"{name}.requires_grad_(True)" for name, _ in found])
    return PatchResult.changed(edits.render(), f"{', '.join(n for n, _ in found)}.requires_grad_(True) before "
                                               f"line {s.line(stmt)}")


# --- grad-shape-mismatch -----------------------------------------------------------------------


def _gradient_arg(call: cst.Call) -> tuple[cst.Arg, cst.BaseExpression | None]:
    """The starting-gradient argument of a backward call and the tensor it must match."""
    name = dotted(call.func) or ""
    args = positional(call)
    if name.endswith("autograd.backward"):
        grad = args[1] if len(args) > 1 else kwarg(call, "grad_tensors")
        out = args[0].value if args else (kwarg(call, "tensors").value if kwarg(call, "tensors") else None)
    elif name.endswith("autograd.grad"):
        grad = args[2] if len(args) > 2 else kwarg(call, "grad_outputs")
        out = args[0].value if args else (kwarg(call, "outputs").value if kwarg(call, "outputs") else None)
    else:
        grad = args[0] if args else kwarg(call, "gradient")
        out = receiver(call)
    if grad is None:
        raise NotApplicable("the backward call passes no starting gradient")
    return grad, out


@register("reshape-gradient-to-output", "the gradient passed to backward is reshaped like the output it "
                                        "belongs to: `out.backward(g)` -> `out.backward(g.reshape_as(out))`")
def reshape_gradient_to_output(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt, call = failing_backward(s, failure.line)
    grad, out = _gradient_arg(call)
    if not isinstance(out, (cst.Name, cst.Attribute)) or isinstance(grad.value, (cst.List, cst.Tuple)):
        raise NotApplicable(f"`{first_line(s, stmt)}` does not pair one named output with one gradient")
    edits = Edits(s)
    edits.replace_node(grad, lambda u: u.with_changes(value=call_method(u.value, "reshape_as", s.text(out))))
    return PatchResult.changed(edits.render(), f"gradient reshaped like `{s.text(out)}` on line {s.line(stmt)}")


@register("sum-output-keep-gradient", "dead end: `out.backward(g)` -> `out.sum().backward(g)` (the output "
                                      "becomes a scalar, the gradient keeps its shape)")
def sum_output_keep_gradient(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt, call = failing_backward(s, failure.line)
    if method(call) != "backward" or (dotted(call.func) or "").endswith("autograd.backward"):
        raise NotApplicable(f"`{first_line(s, stmt)}` is not `tensor.backward(gradient)`")
    _gradient_arg(call)
    edits = Edits(s)
    edits.replace_node(call, lambda u: u.with_changes(func=u.func.with_changes(value=call_method(u.func.value, "sum"))))
    return PatchResult.changed(edits.render(), f"output summed before the backward on line {s.line(stmt)}")


# --- derivative-not-implemented -----------------------------------------------------------------

DERIVATIVE = re.compile(r"derivative for '?(?:aten::)?(\w+)(?::\s*(\w+))?'? is not implemented", re.I)
PREFIXES = ("special_", "linalg_", "fft_", "_")


def _op_calls(s: Snippet, message: str) -> tuple[str, str | None, list[cst.Call]]:
    m = DERIVATIVE.search(message or "")
    if not m:
        raise NotApplicable("the message names no operation whose derivative is missing")
    op, arg = m.group(1), m.group(2)
    names = {op} | {op[len(p):] for p in PREFIXES if op.startswith(p)}
    calls = _calls(s, [s.module], lambda c: (dotted(c.func) or (method(c) or "")).split(".")[-1] in names
                   or method(c) in names)
    if not calls:
        raise NotApplicable(f"the snippet does not call `{op}`")
    return op, arg, calls


def _input_node(s: Snippet, call: cst.Call, arg: str | None) -> cst.CSTNode:
    """The argument of `call` that the message names (`input`/`self` is the first)."""
    if arg is None:
        raise NotApplicable("the message does not say which input lacks a derivative")
    is_method = receiver(call) is not None and not (dotted(receiver(call)) or "").startswith(("torch", "F"))
    if arg in {"input", "self"}:
        if is_method:
            return receiver(call)
        args = positional(call)
        if args:
            return args[0]
    k = kwarg(call, arg)
    if k is not None:
        return k
    if arg == "other":
        args = positional(call)
        index = 0 if is_method else 1
        if len(args) > index:
            return args[index]
    raise NotApplicable(f"cannot find the `{arg}` argument in `{s.text(call)}`")


@register("detach-nondifferentiable-input", "detach the input whose derivative PyTorch does not implement "
                                            "(named in the message) where the operation is called")
def detach_nondifferentiable_input(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    op, arg, calls = _op_calls(s, failure.message)
    edits = Edits(s)
    for call in calls:
        node = _input_node(s, call, arg)
        if isinstance(node, cst.Arg):
            edits.replace_node(node, lambda u: u.with_changes(value=call_method(u.value, "detach")))
        else:
            edits.replace_node(node, lambda u: call_method(u, "detach"))
    lines = sorted({s.line(c) for c in calls})
    return PatchResult.changed(edits.render(), f"`{arg}` of {op} detached on line(s) {', '.join(map(str, lines))}")


@register("no-grad-around-op", "dead end: run the operation without a derivative under `torch.no_grad()`")
def no_grad_around_op(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    op, _, calls = _op_calls(s, failure.message)
    edits = Edits(s)
    torch = edits.torch()
    done = set()
    for call in calls:
        stmt = s.body_statement(call)
        if id(stmt) not in done:
            done.add(id(stmt))
            edits.wrap_in_with(stmt, stmt, f"{torch}.no_grad()")
    return PatchResult.changed(edits.render(), f"the {op} call(s) run under torch.no_grad()")


# --- deterministic-not-implemented ----------------------------------------------------------------


def _deterministic_switches(s: Snippet) -> list[cst.Call]:
    calls = _calls(s, [s.module], lambda c: (dotted(c.func) or "").endswith(("use_deterministic_algorithms",
                                                                               "set_deterministic")))
    on = [c for c in calls if c.args and s.text(c.args[0].value) not in {"False", "0"}]
    if not on:
        raise NotApplicable("the snippet does not call torch.use_deterministic_algorithms(True)")
    return on


@register("deterministic-warn-only", "`torch.use_deterministic_algorithms(True)` -> "
                                     "`torch.use_deterministic_algorithms(True, warn_only=True)`")
def deterministic_warn_only(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    s.statement_at(failure.line)
    edits = Edits(s)
    switches = _deterministic_switches(s)
    for call in switches:
        if (dotted(call.func) or "").endswith("set_deterministic"):  # torch 1.7: no warn_only
            edits.replace_node(call, lambda u: set_kwarg(u.with_changes(func=expression(
                s.text(u.func).replace("set_deterministic", "use_deterministic_algorithms"))), "warn_only", "True"))
        else:
            edits.replace_node(call, lambda u: set_kwarg(u, "warn_only", "True"))
    return PatchResult.changed(edits.render(),
                               f"warn_only=True on line(s) {', '.join(str(s.line(c)) for c in switches)}")


@register("cudnn-deterministic-flag", "dead end: set torch.backends.cudnn.deterministic = True (and benchmark = False) "
                                      "after turning on deterministic algorithms")
def cudnn_deterministic_flag(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    s.statement_at(failure.line)
    switch = _deterministic_switches(s)[0]
    edits = Edits(s)
    torch = edits.torch()
    edits.insert_after(s.body_statement(switch), f"{torch}.backends.cudnn.deterministic = True",
                       f"{torch}.backends.cudnn.benchmark = False")
    return PatchResult.changed(edits.render(), f"cuDNN flags set after line {s.line(switch)}")


# --- gradscaler-unscale-fp16 ---------------------------------------------------------------------

HALF_CALLS = {"half"}


def _half_casts(s: Snippet, names: set[str]) -> list[cst.Call]:
    """`.half()` (or `.to(torch.float16)`) calls on a chain that builds or converts one of `names`."""
    found = []
    for small in s.find([s.module], (cst.Assign, cst.Expr), nested=True):
        root = small.value
        if isinstance(small, cst.Assign):
            if not {s.text(t.target) for t in small.targets} & names:
                continue
        else:
            base = root
            while isinstance(base, cst.Call) and receiver(base) is not None:
                base = receiver(base)
            if s.text(base) not in names:
                continue
        for call in _calls(s, [root], lambda c: method(c) in HALF_CALLS or (
                method(c) == "to" and any(s.text(a.value).endswith(("float16", ".half")) for a in c.args))):
            found.append(call)
    return found


@register("fp32-master-weights", "keep the model's parameters float32 (its `.half()` becomes `.float()`) and let "
                                 "autocast run the forward in float16, so GradScaler unscales float32 gradients")
def fp32_master_weights(code: str, failure: Failure) -> PatchResult:
    if "fp16" not in (failure.message or "").lower():
        raise NotApplicable("the error is not about float16 gradients")
    s = Snippet(code)
    stmt, calls = s.calls_at(failure.line)
    step = next((c for c in calls if method(c) in {"step", "unscale_"} and positional(c)), None)
    if step is None:
        raise NotApplicable(f"line {failure.line} (`{first_line(s, stmt)}`) has no scaler.step/unscale_ call")
    opt = positional(step)[0].value
    models: set[str] = set()
    d = s.definition(s.text(opt), stmt) if isinstance(opt, cst.Name) else None
    if d is not None and isinstance(d[0], cst.Assign):
        for c in _calls(s, [d[0].value], lambda c: method(c) == "parameters"):
            models.add(s.text(receiver(c)))
    if not models:
        raise NotApplicable(f"cannot tell which model `{s.text(opt)}` optimizes")
    casts = _half_casts(s, models)
    if not casts:
        raise NotApplicable(f"{', '.join(sorted(models))} is never converted to float16 in the snippet")
    edits = Edits(s)
    for call in casts:
        if method(call) == "half":
            edits.replace_node(call, lambda u: u.with_changes(func=u.func.with_changes(attr=cst.Name("float"))))
        else:  # .to(..., torch.float16) -> .to(..., torch.float32)
            edits.replace_node(call, lambda u: u.with_changes(args=[
                a.with_changes(value=expression(
                    s.text(a.value).replace("float16", "float32").replace(".half", ".float32")))
                if s.text(a.value).endswith(("float16", ".half")) else a for a in u.args]))
    return PatchResult.changed(edits.render(), f"{', '.join(sorted(models))} kept float32 "
                                               f"(line(s) {', '.join(str(s.line(c)) for c in casts)})")


@register("float-loss-for-scaler", "dead end: `scaler.scale(loss)` -> `scaler.scale(loss.float())`")
def float_loss_for_scaler(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    s.statement_at(failure.line)
    scales = _calls(s, [s.module], lambda c: method(c) == "scale" and len(positional(c)) == 1)
    if not scales:
        raise NotApplicable("the snippet calls no scaler.scale(loss)")
    edits = Edits(s)
    for call in scales:
        edits.replace_node(call, lambda u: u.with_changes(
            args=[u.args[0].with_changes(value=call_method(u.args[0].value, "float"))]))
    return PatchResult.changed(edits.render(), "the loss cast to float32 before scaler.scale")


# --- clip-grad-nonfinite ---------------------------------------------------------------------------


def _clip_call(s: Snippet, line) -> tuple[cst.BaseStatement, cst.Call]:
    stmt, calls = s.calls_at(line)
    clip = [c for c in calls if (dotted(c.func) or method(c) or "").split(".")[-1] in {"clip_grad_norm_",
                                                                                       "clip_grad_norm"}]
    if not clip:
        raise NotApplicable(f"line {line} (`{first_line(s, stmt)}`) calls no clip_grad_norm_")
    return stmt, clip[0]


@register("error-if-nonfinite-false", "dead end: clip_grad_norm_(..., error_if_nonfinite=False) and step anyway")
def error_if_nonfinite_false(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt, call = _clip_call(s, failure.line)
    edits = Edits(s)
    edits.replace_node(call, lambda u: set_kwarg(u, "error_if_nonfinite", "False"))
    return PatchResult.changed(edits.render(), f"error_if_nonfinite=False on line {s.line(stmt)}")


def _has_step(s: Snippet, node, exclude: str | None = None) -> bool:
    return bool(_calls(s, [node], lambda c: method(c) == "step" and (exclude is None
                                                                      or s.text(receiver(c)) != exclude)))


@register("skip-step-on-nonfinite-norm", "keep the norm clip_grad_norm_ returns (error_if_nonfinite=False) and run "
                                         "the optimizer step only when it is finite")
def skip_step_on_nonfinite_norm(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt, call = _clip_call(s, failure.line)
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        raise NotApplicable(f"line {s.line(stmt)} is not a single simple statement")
    block = s.block_of(stmt)
    siblings = list(block.body)
    later = siblings[siblings.index(stmt) + 1:]
    step = next((st for st in later if _has_step(s, st)), None)
    if step is None:
        raise NotApplicable(f"no optimizer step follows the clipping on line {s.line(stmt)} in its block")
    edits = Edits(s)
    torch = edits.torch()
    small = stmt.body[0]
    if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
        norm = small.targets[0].target.value
        edits.replace_node(call, lambda u: set_kwarg(u, "error_if_nonfinite", "False"))
    elif isinstance(small, cst.Expr) and small.value is call:
        norm = "grad_norm"
        edits.replace_node(small, lambda u: cst.Assign(
            targets=[cst.AssignTarget(cst.Name(norm))], value=set_kwarg(u.value, "error_if_nonfinite", "False")))
    else:
        raise NotApplicable(f"line {s.line(stmt)} does not keep the norm in a variable")
    guarded = cst.parse_statement(f"if {torch}.isfinite({norm}):\n    pass\n")
    edits.replace_node(step, lambda u: guarded.with_changes(
        body=guarded.body.with_changes(body=[u.with_changes(leading_lines=())]), leading_lines=u.leading_lines))
    return PatchResult.changed(edits.render(), f"the step on line {s.line(step)} runs only when the norm from "
                                               f"line {s.line(stmt)} is finite")


# --- checkpoint-no-grad-inputs ---------------------------------------------------------------------


def _checkpoint_call(s: Snippet, line) -> tuple[cst.BaseStatement, cst.Call]:
    stmt, calls = s.calls_at(line)
    found = [c for c in calls if (dotted(c.func) or "").split(".")[-1] in {"checkpoint", "checkpoint_sequential"}]
    if not found:
        raise NotApplicable(f"line {line} (`{first_line(s, stmt)}`) calls no torch.utils.checkpoint function")
    return stmt, found[0]


# checkpoint-non-reentrant (use_reentrant=False) is registered in data.py: DDP's
# mark-ready-twice uses it too.


def _checkpoint_inputs(s: Snippet, call: cst.Call) -> list[str]:
    args = positional(call)
    skip = 3 if (dotted(call.func) or "").endswith("checkpoint_sequential") else 1
    names = [s.text(a.value) for a in args[skip:] if isinstance(a.value, (cst.Name, cst.Attribute))]
    if not names:
        raise NotApplicable("the checkpointed call gets no named tensor input")
    return names


@register("inputs-require-grad", "`x.requires_grad_(True)` for the checkpointed call's inputs before it")
def inputs_require_grad(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt, call = _checkpoint_call(s, failure.line)
    names = _checkpoint_inputs(s, call)
    edits = Edits(s)
    edits.insert_before(stmt, *[f"{n}.requires_grad_(True)" for n in names])
    return PatchResult.changed(edits.render(), f"{', '.join(names)} require grad before line {s.line(stmt)}")


@register("params-require-grad", "dead end: set requires_grad on the checkpointed module's parameters")
def params_require_grad(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt, call = _checkpoint_call(s, failure.line)
    args = positional(call)
    fn = args[0].value if args else None
    if fn is None or (isinstance(fn, cst.Name) and s.is_definition(fn.value)) or not isinstance(fn, (cst.Name,
                                                                                                   cst.Attribute)):
        raise NotApplicable("the checkpointed function is not a module object")
    edits = Edits(s)
    edits.insert_before(stmt, statement(f"for checkpointed_param in {s.text(fn)}.parameters():\n"
                                        "    checkpointed_param.requires_grad_(True)\n"))
    return PatchResult.changed(edits.render(), f"the parameters of `{s.text(fn)}` set to require grad before "
                                               f"line {s.line(stmt)}")


# --- scheduler-step-order --------------------------------------------------------------------------


def _scheduler_step(s: Snippet, line) -> tuple[cst.BaseStatement, cst.Call]:
    stmt, calls = s.calls_at(line)
    steps = [c for c in calls if method(c) == "step" and receiver(c) is not None]
    if not steps:
        raise NotApplicable(f"line {line} (`{first_line(s, stmt)}`) calls no scheduler.step()")
    return stmt, steps[0]


@register("optimizer-step-before-scheduler", "move `scheduler.step()` after the optimizer step that follows it")
def optimizer_step_before_scheduler(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt, call = _scheduler_step(s, failure.line)
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        raise NotApplicable(f"line {s.line(stmt)} is not a single simple statement")
    sched = s.text(receiver(call))
    siblings = list(s.block_of(stmt).body)
    later = siblings[siblings.index(stmt) + 1:]
    anchor = next((st for st in later if _has_step(s, st, exclude=sched)), None)
    if anchor is None:
        raise NotApplicable(f"no optimizer step follows `{sched}.step()` in its block")
    lines = code.splitlines(keepends=True)
    start, end = s.lines(stmt)
    _, anchor_end = s.lines(anchor)
    # Statement lines only (comments above it stay where they are).
    moved = lines[start - 1:end]
    between = lines[end:anchor_end]
    if between and not between[-1].endswith("\n"):
        between[-1] += "\n"
    new = lines[:start - 1] + between + moved + lines[anchor_end:]
    return PatchResult.changed("".join(new), f"`{sched}.step()` moved from line {start} to after line {anchor_end}")


@register("scheduler-step-epoch", "dead end: pass the loop's epoch to `scheduler.step(epoch)`")
def scheduler_step_epoch(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt, call = _scheduler_step(s, failure.line)
    if call.args:
        raise NotApplicable(f"`{s.text(call)}` already passes an argument")
    loop = next((a for a in s.ancestors(stmt) if isinstance(a, cst.For) and isinstance(a.target, cst.Name)), None)
    if loop is None:
        raise NotApplicable(f"`{s.text(call)}` is not inside a `for epoch in ...` loop")
    edits = Edits(s)
    edits.replace_node(call, lambda u: u.with_changes(args=[cst.Arg(cst.Name(loop.target.value))]))
    return PatchResult.changed(edits.render(), f"`{s.text(receiver(call))}.step({loop.target.value})` on "
                                               f"line {s.line(stmt)}")
