"""Patches for errors about a tensor's values and kind: bool-ambiguous, item-multiple-elements,
cuda-tensor-to-numpy, numpy-object-array, tensor-from-tensor-list, requires-grad-integer,
meta-tensor-copy, anomaly-nan-backward, inference-tensor-backward and non-leaf-grad-none."""

from __future__ import annotations

import re

import libcst as cst

from bot.verify.patches.autograd import _numpy_calls
from bot.verify.patches.base import Failure, NotApplicable, PatchResult
from bot.verify.patches.calls import (call_method, dotted, failing_backward, first_line, kwarg, method, paren,
                                      positional, receiver, set_kwarg)
from bot.verify.patches.registry import register
from bot.verify.patches.source import Edits, Snippet, assigned_names, expression, statement

LITERALS = (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)
# Comparisons that give a Python bool even between tensors.
BOOL_COMPARISONS = (cst.Is, cst.IsNot, cst.In, cst.NotIn)


def _numpy_name(s: Snippet, edits: Edits) -> str:
    """The name numpy is imported under, adding `import numpy as np` when there is none."""
    for stmt in s.module.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Import):
                    for alias in small.names:
                        if s.text(alias.name) == "numpy":
                            return alias.asname.name.value if alias.asname else "numpy"
    edits.insert_before(s.first_code_statement(), "import numpy as np")
    return "np"


def _value_nodes(s: Snippet, stmt) -> list[cst.CSTNode]:
    """What runs on a statement's own line, without the names it assigns."""
    out = []
    for node in s.header_nodes(stmt):
        if isinstance(node, (cst.Assign, cst.AnnAssign)):
            if node.value is not None:
                out.append(node.value)
        else:
            out.append(node)
    return out


def _read_names(s: Snippet, roots: list[cst.CSTNode], wanted: set[str]) -> list[cst.Name]:
    def read(n: cst.Name) -> bool:
        parent = s.parent(n)
        if isinstance(parent, cst.Attribute) and parent.attr is n:
            return False
        if isinstance(parent, cst.Arg) and parent.keyword is n:
            return False
        return n.value in wanted

    return s.find(roots, cst.Name, read)


# --- bool-ambiguous --------------------------------------------------------------------------------


def _conditions(s: Snippet, stmt) -> list[cst.BaseExpression]:
    """The expressions Python turns into a bool on the failing line: the test of an
    if/while/assert, of a conditional expression, the operands of and/or/not, bool(x)."""
    roots: list[cst.BaseExpression] = []
    if isinstance(stmt, (cst.If, cst.While)):
        roots.append(stmt.test)
    headers = s.header_nodes(stmt)
    for node in s.find(headers, (cst.Assert, cst.IfExp, cst.Call)):
        if isinstance(node, cst.Assert):
            roots.append(node.test)
        elif isinstance(node, cst.IfExp):
            roots.append(node.test)
        elif isinstance(node, cst.Call) and dotted(node.func) == "bool" and len(node.args) == 1:
            roots.append(node.args[0].value)
    for node in s.find(headers, (cst.BooleanOperation, cst.UnaryOperation)):
        if isinstance(node, cst.BooleanOperation) and not any(node is r or _inside(s, node, r) for r in roots):
            roots.append(node)
        elif isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not) and \
                not any(node is r or _inside(s, node, r) for r in roots):
            roots.append(node)

    leaves: list[cst.BaseExpression] = []

    def split(expr: cst.BaseExpression):
        if isinstance(expr, cst.BooleanOperation):
            split(expr.left)
            split(expr.right)
        elif isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Not):
            split(expr.expression)
        elif isinstance(expr, LITERALS) or (isinstance(expr, cst.Name) and expr.value in {"True", "False", "None"}):
            return
        elif isinstance(expr, cst.Comparison):
            if len(expr.comparisons) == 1 and not isinstance(expr.comparisons[0].operator, BOOL_COMPARISONS):
                leaves.append(expr)
        elif isinstance(expr, (cst.Name, cst.Attribute, cst.Subscript, cst.Call, cst.BinaryOperation)):
            if not (isinstance(expr, cst.Call) and method(expr) in {"any", "all", "item"}):
                leaves.append(expr)

    for r in roots:
        split(r)
    return leaves


def _inside(s: Snippet, node: cst.CSTNode, root: cst.CSTNode) -> bool:
    return any(a is root for a in s.ancestors(node))


def _condition_patch(code: str, failure: Failure, name: str) -> PatchResult:
    s = Snippet(code)
    stmt = s.statement_at(failure.line)
    leaves = _conditions(s, stmt)
    if not leaves:
        raise NotApplicable(f"line {failure.line} (`{first_line(s, stmt)}`) has no if/while/assert/and/or/not/bool() "
                            "condition that could be a tensor (a chained comparison such as `a < t < b` needs "
                            "`(a < t) & (t < b)` first)")
    edits = Edits(s)
    for leaf in leaves:
        edits.replace_node(leaf, lambda u: call_method(u, name))
    conditions = ", ".join("`" + s.text(x) + "`" for x in leaves)
    return PatchResult.changed(edits.render(), f"`.{name}()` on the condition(s) {conditions} on line {s.line(stmt)}")


@register("condition-any", "`if mask:` -> `if (mask).any():` on the failing condition (true when any element is)")
def condition_any(code: str, failure: Failure) -> PatchResult:
    return _condition_patch(code, failure, "any")


@register("condition-all", "`if mask:` -> `if (mask).all():` on the failing condition (true when every element is)")
def condition_all(code: str, failure: Failure) -> PatchResult:
    return _condition_patch(code, failure, "all")


@register("item-in-condition", "dead end: `if (mask).item():` (item() needs a one-element tensor too)")
def item_in_condition(code: str, failure: Failure) -> PatchResult:
    return _condition_patch(code, failure, "item")


def _single_assign(block) -> cst.Assign | None:
    body = getattr(block, "body", None)
    if not isinstance(block, cst.IndentedBlock) or len(body) != 1 or not isinstance(body[0], cst.SimpleStatementLine):
        return None
    smalls = body[0].body
    if len(smalls) != 1 or not isinstance(smalls[0], cst.Assign) or len(smalls[0].targets) != 1:
        return None
    return smalls[0] if isinstance(smalls[0].targets[0].target, cst.Name) else None


@register("where-instead-of-if", "`if cond: y = a else: y = b` -> `y = torch.where(cond, a, b)` (chosen per element)")
def where_instead_of_if(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt = s.statement_at(failure.line)
    if not isinstance(stmt, cst.If) or not isinstance(stmt.orelse, cst.Else):
        raise NotApplicable(f"line {failure.line} (`{first_line(s, stmt)}`) is not an if/else (without elif)")
    then, other = _single_assign(stmt.body), _single_assign(stmt.orelse.body)
    if then is None or other is None or then.targets[0].target.value != other.targets[0].target.value:
        raise NotApplicable("the if/else does not assign one variable in each branch (torch.where picks values, "
                            "it cannot run statements per element)")
    edits = Edits(s)
    torch = edits.torch()
    target = then.targets[0].target.value
    new = statement(f"{target} = {torch}.where({s.text(stmt.test)}, {s.text(then.value)}, {s.text(other.value)})")
    edits.replace_node(stmt, new.with_changes(leading_lines=stmt.leading_lines))
    return PatchResult.changed(edits.render(), f"the if/else on line {s.line(stmt)} replaced by torch.where")


# --- item-multiple-elements ------------------------------------------------------------------------


def _item_patch(code: str, failure: Failure, make, what: str) -> PatchResult:
    s = Snippet(code)
    stmt, calls = s.calls_at(failure.line)
    items = [c for c in calls if method(c) == "item" and not c.args]
    if not items:
        raise NotApplicable(f"line {failure.line} (`{first_line(s, stmt)}`) has no .item() call")
    edits = Edits(s)
    for call in items:
        edits.replace_node(call, make)
    return PatchResult.changed(edits.render(), f"{what} on line {s.line(stmt)}")


@register("item-to-tolist", "`t.item()` -> `t.tolist()` (a list with every value)")
def item_to_tolist(code: str, failure: Failure) -> PatchResult:
    return _item_patch(code, failure, lambda u: u.with_changes(func=u.func.with_changes(attr=cst.Name("tolist"))),
                       ".item() replaced by .tolist()")


@register("reduce-before-item", "`t.item()` -> `t.mean().item()` (reduce to one value first)")
def reduce_before_item(code: str, failure: Failure) -> PatchResult:
    return _item_patch(code, failure, lambda u: u.with_changes(func=u.func.with_changes(
        value=call_method(u.func.value, "mean"))), ".mean() before .item()")


@register("squeeze-before-item", "dead end: `t.squeeze().item()` (squeeze drops size-1 dimensions only)")
def squeeze_before_item(code: str, failure: Failure) -> PatchResult:
    return _item_patch(code, failure, lambda u: u.with_changes(func=u.func.with_changes(
        value=call_method(u.func.value, "squeeze"))), ".squeeze() before .item()")


# --- cuda-tensor-to-numpy --------------------------------------------------------------------------


def _numpy_patch(code: str, failure: Failure, on_method, on_function, what: str) -> PatchResult:
    s = Snippet(code)
    stmt, found = _numpy_calls(s, failure.line)
    if not found:
        raise NotApplicable(f"line {failure.line} (`{first_line(s, stmt)}`) has no .numpy() or np.array() call")
    edits = Edits(s)
    for kind, call in found:
        if kind == "method":
            edits.replace_node(call, on_method)
        else:
            edits.replace_node(call, lambda u: u.with_changes(
                args=[u.args[0].with_changes(value=on_function(u.args[0].value))] + list(u.args[1:])))
    return PatchResult.changed(edits.render(), f"{what} on line {s.line(stmt)}")


@register("cpu-before-numpy", "`t.numpy()` -> `t.cpu().numpy()` (copy to host memory first)")
def cpu_before_numpy(code: str, failure: Failure) -> PatchResult:
    return _numpy_patch(code, failure,
                        lambda u: u.with_changes(func=u.func.with_changes(value=call_method(u.func.value, "cpu"))),
                        lambda v: call_method(v, "cpu"), ".cpu() before the numpy conversion")


@register("numpy-force-true", "`t.numpy()` -> `t.numpy(force=True)` (detach, copy to the CPU, then convert)")
def numpy_force_true(code: str, failure: Failure) -> PatchResult:
    return _numpy_patch(code, failure, lambda u: set_kwarg(u, "force", "True"),
                        lambda v: set_kwarg(call_method(v, "numpy"), "force", "True"), "numpy(force=True)")


@register("detach-without-cpu", "dead end: `t.detach().numpy()` (detach does not move the data to the CPU)")
def detach_without_cpu(code: str, failure: Failure) -> PatchResult:
    return _numpy_patch(code, failure,
                        lambda u: u.with_changes(func=u.func.with_changes(value=call_method(u.func.value, "detach"))),
                        lambda v: call_method(v, "detach"), ".detach() (no .cpu()) before the numpy conversion")


# --- numpy-object-array and tensor-from-tensor-list ------------------------------------------------

TENSOR_FACTORIES = {"tensor", "as_tensor", "from_numpy", "Tensor", "FloatTensor", "DoubleTensor", "LongTensor",
                    "IntTensor", "HalfTensor", "BoolTensor"}
LEGACY_CASTS = {"FloatTensor": "float", "DoubleTensor": "double", "LongTensor": "long", "IntTensor": "int",
                "HalfTensor": "half", "BoolTensor": "bool"}


def _factory_calls(s: Snippet, line: int | None) -> tuple[cst.BaseStatement, list[cst.Call]]:
    stmt, calls = s.calls_at(line)
    found = []
    for call in calls:
        name = dotted(call.func) or ""
        parts = name.split(".")
        if len(parts) >= 2 and parts[0] == (s.torch_name() or "torch") and parts[-1] in TENSOR_FACTORIES \
                and positional(call):
            found.append(call)
    if not found:
        raise NotApplicable(f"line {line} (`{first_line(s, stmt)}`) has no torch.tensor/as_tensor/from_numpy/"
                            "Tensor(...) call with data")
    return stmt, found


def _rebuild(s: Snippet, call: cst.Call, torch: str, new_call: str) -> str:
    """`torch.tensor(data, dtype=d, device=v)` -> `<new_call>.to(dtype=d, device=v)`: keep what the
    factory was asked for (dtype, device, a legacy constructor's type)."""
    options = []
    for key in ("dtype", "device"):
        arg = kwarg(call, key)
        if arg is not None:
            options.append(f"{key}={s.text(arg.value)}")
    others = [a for a in call.args if a.keyword is not None and a.keyword.value not in {"dtype", "device"}]
    if others or len(positional(call)) > 1:
        raise NotApplicable(f"`{s.text(call)}` passes arguments other than the data, dtype and device")
    out = new_call
    cast = LEGACY_CASTS.get((dotted(call.func) or "").split(".")[-1])
    if cast:
        out += f".{cast}()"
    if dotted(call.func).split(".")[-1] == "Tensor":
        out += ".float()"
    if options:
        out += f".to({', '.join(options)})"
    return out


def _wrap_data(edits: Edits, calls: list[cst.Call], wrap) -> None:
    """Each factory call's data argument `d` becomes `wrap(d)` (an expression node); the
    other arguments stay."""
    for call in calls:
        edits.replace_node(call, lambda u: u.with_changes(
            args=[u.args[0].with_changes(value=wrap(u.args[0].value))] + list(u.args[1:])))


def _numpy_of(np_name: str, function: str):
    """wrap for _wrap_data: `d` -> `np.<function>(d)`."""
    return lambda value: expression(f"{np_name}.{function}(_)").with_changes(args=[cst.Arg(value)])


def _rebuild_all(s: Snippet, edits: Edits, calls: list[cst.Call], new_call) -> None:
    """Each factory call becomes `new_call(torch, data)`, keeping its dtype and device (_rebuild)."""
    torch = edits.torch()
    for call in calls:
        data = s.text(positional(call)[0].value)
        edits.replace_node(call, expression(_rebuild(s, call, torch, new_call(torch, data))))


@register("stack-object-array", "`torch.tensor(arr)` -> `torch.tensor(np.stack(arr))` for an object array of "
                                "equal-length arrays")
def stack_object_array(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt, calls = _factory_calls(s, failure.line)
    edits = Edits(s)
    _wrap_data(edits, calls, _numpy_of(_numpy_name(s, edits), "stack"))
    return PatchResult.changed(edits.render(), f"np.stack() of the object array on line {s.line(stmt)}")


@register("pad-object-array", "`torch.tensor(arr)` -> `pad_sequence([torch.as_tensor(a) for a in arr], "
                              "batch_first=True)` (pads unequal lengths with zeros)")
def pad_object_array(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt, calls = _factory_calls(s, failure.line)
    edits = Edits(s)
    _rebuild_all(s, edits, calls, lambda torch, data: f"{torch}.nn.utils.rnn.pad_sequence("
                                                      f"[{torch}.as_tensor(row) for row in {data}], batch_first=True)")
    return PatchResult.changed(edits.render(), f"rows padded with pad_sequence on line {s.line(stmt)}")


@register("astype-float32-object-array", "dead end: `arr.astype(np.float32)` on an object array (fails when its "
                                         "elements are arrays)")
def astype_float32_object_array(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt, calls = _factory_calls(s, failure.line)
    edits = Edits(s)
    np_name = _numpy_name(s, edits)
    _wrap_data(edits, calls, lambda value: call_method(value, "astype", f"{np_name}.float32"))
    return PatchResult.changed(edits.render(), f".astype(float32) on the object array on line {s.line(stmt)}")


def _list_factory(code: str, failure: Failure, function: str, what: str) -> PatchResult:
    s = Snippet(code)
    stmt, calls = _factory_calls(s, failure.line)
    calls = [c for c in calls if (dotted(c.func) or "").split(".")[-1] != "from_numpy"]
    if not calls:
        raise NotApplicable(f"line {failure.line} converts a NumPy array, not a list of tensors")
    edits = Edits(s)
    _rebuild_all(s, edits, calls, lambda torch, data: f"{torch}.{function}({data})")
    return PatchResult.changed(edits.render(), f"{what} on line {s.line(stmt)}")


@register("stack-tensor-list", "`torch.tensor([t1, t2])` -> `torch.stack([t1, t2])` (a new first dimension)")
def stack_tensor_list(code: str, failure: Failure) -> PatchResult:
    return _list_factory(code, failure, "stack", "torch.stack() of the list")


@register("cat-tensor-list", "`torch.tensor([t1, t2])` -> `torch.cat([t1, t2])` (joined along the first dimension)")
def cat_tensor_list(code: str, failure: Failure) -> PatchResult:
    return _list_factory(code, failure, "cat", "torch.cat() of the list")


@register("as-tensor-tensor-list", "dead end: `torch.as_tensor([t1, t2])` (converts element by element as well)")
def as_tensor_tensor_list(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt, calls = _factory_calls(s, failure.line)
    calls = [c for c in calls if (dotted(c.func) or "").split(".")[-1] not in {"from_numpy", "as_tensor"}]
    if not calls:
        raise NotApplicable(f"line {failure.line} already uses torch.as_tensor (or converts a NumPy array)")
    edits = Edits(s)
    for call in calls:
        edits.replace_node(call, lambda u: u.with_changes(func=u.func.with_changes(attr=cst.Name("as_tensor"))))
    return PatchResult.changed(edits.render(), f"torch.as_tensor() on line {s.line(stmt)}")


@register("numpy-array-of-tensors", "dead end: `torch.tensor(np.array([t1, t2]))` (NumPy converts each tensor, "
                                    "which fails for tensors that require grad)")
def numpy_array_of_tensors(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt, calls = _factory_calls(s, failure.line)
    calls = [c for c in calls if (dotted(c.func) or "").split(".")[-1] != "from_numpy"]
    if not calls:
        raise NotApplicable(f"line {failure.line} converts a NumPy array already")
    edits = Edits(s)
    _wrap_data(edits, calls, _numpy_of(_numpy_name(s, edits), "array"))
    return PatchResult.changed(edits.render(), f"np.array() of the list on line {s.line(stmt)}")


# --- requires-grad-integer ---------------------------------------------------------------------------

INTEGER_DTYPES = re.compile(r"\b(u?int\d*|long|short|bool|uint8)\b")


def _grad_requests(s: Snippet, stmt):
    """What asks for gradients on the failing line: `x.requires_grad_()`, `x.requires_grad = True`,
    a factory with `requires_grad=True`, `nn.Parameter(x)` / `Variable(x, requires_grad=True)`."""
    found = []
    if isinstance(stmt, cst.SimpleStatementLine):
        for small in stmt.body:
            if isinstance(small, cst.Assign) and len(small.targets) == 1:
                t = small.targets[0].target
                if isinstance(t, cst.Attribute) and t.attr.value == "requires_grad":
                    found.append(("attribute", small, t.value))
    for call in s.find(s.header_nodes(stmt), cst.Call):
        name = (dotted(call.func) or "").split(".")[-1]
        if method(call) == "requires_grad_" and receiver(call) is not None:
            found.append(("method", call, receiver(call)))
        elif name in {"Parameter", "Variable"} and positional(call):
            found.append(("wrapper", call, positional(call)[0].value))
        elif kwarg(call, "requires_grad") is not None and name not in {"Parameter", "Variable"}:
            found.append(("factory", call, None))
    if not found:
        raise NotApplicable(f"line {s.line(stmt)} (`{first_line(s, stmt)}`) asks for no gradients "
                            "(no requires_grad_(), requires_grad=, nn.Parameter)")
    return found


@register("float-before-requires-grad", "make the tensor floating point before asking for its gradients "
                                        "(`x = x.float().requires_grad_()`, `dtype=torch.float32`)")
def float_before_requires_grad(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt = s.statement_at(failure.line)
    edits = Edits(s)
    torch = edits.torch()
    for kind, node, target in _grad_requests(s, stmt):
        if kind == "attribute":
            edits.insert_before(stmt, f"{s.text(target)} = {s.text(target)}.float()")
        elif kind == "method":
            small = s.parent(node)
            if isinstance(small, cst.Expr) and isinstance(target, cst.Name):
                edits.replace_node(small, lambda u, t=target.value: cst.Assign(
                    targets=[cst.AssignTarget(cst.Name(t))],
                    value=u.value.with_changes(func=u.value.func.with_changes(
                        value=call_method(u.value.func.value, "float")))))
            else:
                edits.replace_node(node, lambda u: u.with_changes(func=u.func.with_changes(
                    value=call_method(u.func.value, "float"))))
        elif kind == "wrapper":
            edits.replace_node(node, lambda u: u.with_changes(args=[u.args[0].with_changes(
                value=call_method(u.args[0].value, "float"))] + list(u.args[1:])))
        else:
            dtype = kwarg(node, "dtype")
            if dtype is not None and not INTEGER_DTYPES.search(s.text(dtype.value)):
                continue
            edits.replace_node(node, lambda u: set_kwarg(u, "dtype", f"{torch}.float32"))
    if not (edits.replace or edits.before):
        raise NotApplicable("the tensor that asks for gradients is created with a floating point dtype already")
    return PatchResult.changed(edits.render(), f"floating point dtype before requires_grad on line {s.line(stmt)}")


@register("parameter-of-integer-tensor", "dead end: wrap the integer tensor in `nn.Parameter(...)` instead of "
                                         "requires_grad_()")
def parameter_of_integer_tensor(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt = s.statement_at(failure.line)
    edits = Edits(s)
    torch = edits.torch()
    for kind, node, target in _grad_requests(s, stmt):
        if kind == "method" and isinstance(s.parent(node), cst.Expr) and isinstance(target, cst.Name):
            edits.replace_node(s.parent(node),
                               statement(f"{target.value} = {torch}.nn.Parameter({target.value})").body[0])
        elif kind == "attribute":
            edits.replace_node(node, statement(f"{s.text(target)} = {torch}.nn.Parameter({s.text(target)})").body[0])
        elif kind == "factory":
            edits.replace_node(node, lambda u: expression(f"{torch}.nn.Parameter(_)").with_changes(
                args=[cst.Arg(u.with_changes(args=[a for a in u.args
                                                   if not (a.keyword and a.keyword.value == "requires_grad")]))]))
    if edits.empty:
        raise NotApplicable(f"line {s.line(stmt)} already wraps the tensor in nn.Parameter/Variable")
    return PatchResult.changed(edits.render(), f"nn.Parameter(...) instead of requires_grad on line {s.line(stmt)}")


# --- meta-tensor-copy ---------------------------------------------------------------------------------

MOVES = {"to", "cpu", "cuda"}


def _moves(s: Snippet, line: int | None):
    stmt, calls = s.calls_at(line)
    moves = [c for c in calls if method(c) in MOVES and receiver(c) is not None]
    if not moves:
        raise NotApplicable(f"line {line} (`{first_line(s, stmt)}`) moves nothing to a device (.to/.cpu/.cuda)")
    return stmt, moves


def _move_device(s: Snippet, call: cst.Call) -> str | None:
    if method(call) == "cpu":
        return "'cpu'"
    if method(call) == "cuda":
        return s.text(positional(call)[0].value) if positional(call) else "'cuda'"
    arg = kwarg(call, "device") or (positional(call)[0] if positional(call) else None)
    if arg is None:
        return None
    text = s.text(arg.value)
    if "dtype" in text or text.startswith(("torch.float", "torch.half", "torch.bfloat16", "torch.double")):
        return None
    return text


@register("to-empty-instead-of-to", "`model.to(device)` -> `model.to_empty(device=device)` for a module on the meta "
                                    "device (allocates storage; the values still have to be loaded)")
def to_empty_instead_of_to(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt, moves = _moves(s, failure.line)
    edits = Edits(s)
    changed = []
    for call in moves:
        device = _move_device(s, call)
        if device is None:
            continue
        changed.append(s.text(receiver(call)))
        edits.replace_node(call, lambda u, d=device: set_kwarg(
            u.with_changes(func=u.func.with_changes(attr=cst.Name("to_empty")), args=[]), "device", d))
    if not changed:
        raise NotApplicable(f"line {failure.line} changes a dtype, not a device")
    return PatchResult.changed(edits.render(), f"to_empty() for {', '.join(changed)} on line {s.line(stmt)}")


@register("load-state-dict-assign", "`model.load_state_dict(sd)` -> `model.load_state_dict(sd, assign=True)` "
                                    "(the meta parameters are replaced by the loaded tensors)")
def load_state_dict_assign(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt = s.statement_at(failure.line)
    edits = Edits(s)
    found = []
    for small, _line_stmt in s.preceding(stmt):
        for call in s.find([small], cst.Call, lambda c: method(c) == "load_state_dict"):
            if kwarg(call, "assign") is None:
                found.append(call)
                edits.replace_node(call, lambda u: set_kwarg(u, "assign", "True"))
    if not found:
        raise NotApplicable(f"no load_state_dict(...) without assign= runs before line {failure.line}")
    return PatchResult.changed(edits.render(), f"assign=True on {', '.join(str(s.line(c)) for c in found)}")


@register("move-with-cpu-method", "dead end: `.to('cpu')` -> `.cpu()` (or `.cuda()`): any move copies the data")
def move_with_cpu_method(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt, moves = _moves(s, failure.line)
    edits = Edits(s)
    for call in moves:
        if method(call) != "to":
            continue
        device = (_move_device(s, call) or "").strip("'\"")
        if device == "cpu":
            edits.replace_node(call, lambda u: u.with_changes(func=u.func.with_changes(attr=cst.Name("cpu")), args=[]))
        elif device.startswith("cuda"):
            edits.replace_node(call, lambda u: u.with_changes(func=u.func.with_changes(attr=cst.Name("cuda")), args=[]))
    if edits.empty:
        raise NotApplicable(f"line {failure.line} has no .to('cpu') / .to('cuda') with a literal device")
    return PatchResult.changed(edits.render(), f".to() replaced by .cpu()/.cuda() on line {s.line(stmt)}")


# --- anomaly-nan-backward ----------------------------------------------------------------------------

# Ops whose backward turns a bad input into NaN, with a safe range for the input.
NAN_OPS = {
    "sqrt": ("clamp_min", "1e-6", "ones_like"),
    "rsqrt": ("clamp_min", "1e-6", "ones_like"),
    "log": ("clamp_min", "1e-6", "ones_like"),
    "log2": ("clamp_min", "1e-6", "ones_like"),
    "log10": ("clamp_min", "1e-6", "ones_like"),
    "acos": ("clamp", "-1 + 1e-6, 1 - 1e-6", "zeros_like"),
    "asin": ("clamp", "-1 + 1e-6, 1 - 1e-6", "zeros_like"),
    "atanh": ("clamp", "-1 + 1e-6, 1 - 1e-6", "zeros_like"),
}


def _nan_op(failure: Failure) -> str:
    m = re.search(r"Function '(\w+?)Backward\d*' returned nan", failure.message)
    if not m:
        raise NotApplicable("the message names no backward function that returned NaN")
    op = m.group(1).lower()
    if op not in NAN_OPS:
        raise NotApplicable(f"{m.group(1)}Backward: no safe input range is known for this op (known: "
                            f"{', '.join(sorted(NAN_OPS))})")
    return op


def _nan_op_calls(code: str, failure: Failure):
    """The calls of the op named by the message, in the statements that computed the
    failing backward's tensor: `torch.sqrt(x)` / `x.sqrt()`, with their input."""
    op = _nan_op(failure)
    s = Snippet(code)
    stmt, call = failing_backward(s, failure.line)
    names = s.used_names(call)
    sliced = [small for small, _ in s.backward_slice(names, stmt)] + [stmt]
    found = []
    torch = s.torch_name() or "torch"
    for node in s.find(sliced, cst.Call, nested=True):
        name = dotted(node.func) or ""
        if name in {f"{torch}.{op}", f"{torch}.special.{op}"} and positional(node):
            found.append((node, positional(node)[0]))
        elif method(node) == op and receiver(node) is not None and not name.startswith(torch + "."):
            found.append((node, None))
    if not found:
        raise NotApplicable(f"no call of {op}() in the statements that compute the tensor of the backward on "
                            f"line {failure.line} (inside a module's forward it is not visible here)")
    return s, op, found


@register("clamp-nan-op-input", "clamp the input of the op whose backward returned NaN (sqrt/log at 0 or below, "
                                "acos/asin at +-1) into its safe range")
def clamp_nan_op_input(code: str, failure: Failure) -> PatchResult:
    s, op, found = _nan_op_calls(code, failure)
    how, bounds, _ = NAN_OPS[op]
    edits = Edits(s)
    for call, arg in found:
        if arg is not None:
            edits.replace_node(arg, lambda u: u.with_changes(value=call_method(u.value, how, bounds)))
        else:
            edits.replace_node(call, lambda u: u.with_changes(func=u.func.with_changes(
                value=call_method(u.func.value, how, bounds))))
    return PatchResult.changed(edits.render(), f"input of {op}() clamped with .{how}({bounds}) on line(s) "
                                               f"{', '.join(str(s.line(c)) for c, _ in found)}")


@register("safe-where-branch", "in `torch.where(c, f(x), y)`, feed f a safe value where c is false "
                               "(`f(torch.where(c, x, 1))`) so its gradient is not NaN")
def safe_where_branch(code: str, failure: Failure) -> PatchResult:
    s, op, found = _nan_op_calls(code, failure)
    edits = Edits(s)
    torch = edits.torch()
    safe = NAN_OPS[op][2]
    done = []
    for call, arg in found:
        where = next((a for a in s.ancestors(call) if isinstance(a, cst.Call)
                      and (dotted(a.func) or "").endswith(".where") and len(positional(a)) == 3), None)
        if where is None:
            continue
        cond, taken, other = (p.value for p in positional(where))
        x = arg.value if arg is not None else receiver(call)
        x_text, c_text = s.text(x), s.text(cond)
        if call is taken or _inside(s, call, taken):
            guarded = f"{torch}.where({c_text}, {x_text}, {torch}.{safe}({x_text}))"
        elif call is other or _inside(s, call, other):
            guarded = f"{torch}.where({c_text}, {torch}.{safe}({x_text}), {x_text})"
        else:
            continue
        done.append(s.line(call))
        # built now: a callable here would run at render() and read the last iteration's `arg`
        edits.replace_node(x, paren(expression(guarded)) if arg is None else expression(guarded))
    if not done:
        raise NotApplicable(f"the {op}() call is not inside a branch of torch.where")
    return PatchResult.changed(edits.render(), f"{op}() fed a safe value outside its branch on line(s) "
                                               f"{', '.join(map(str, done))}")


@register("nan-to-num-output", "dead end: `y = torch.nan_to_num(...)` on the value computed with the NaN-producing op")
def nan_to_num_output(code: str, failure: Failure) -> PatchResult:
    s, op, found = _nan_op_calls(code, failure)
    edits = Edits(s)
    torch = edits.torch()
    done = set()
    for call, _ in found:
        small = next((a for a in s.ancestors(call) if isinstance(a, (cst.Assign, cst.AnnAssign))), None)
        if small is None or id(small) in done:
            continue
        done.add(id(small))
        edits.replace_node(small, lambda u: u.with_changes(
            value=expression(f"{torch}.nan_to_num(_)").with_changes(args=[cst.Arg(u.value)])))
    if not done:
        raise NotApplicable(f"the {op}() call is not assigned to a variable")
    return PatchResult.changed(edits.render(), "torch.nan_to_num() around the value computed with " + op + "()")


# --- inference-tensor-backward -------------------------------------------------------------------------


def _inference_blocks(s: Snippet) -> list[cst.With]:
    return s.find([s.module], cst.With, lambda w: any(
        isinstance(i.item, cst.Call) and (dotted(i.item.func) or "").endswith("inference_mode") for i in w.items),
        nested=True)


def _inference_names(code: str, failure: Failure):
    """Tensors made under `with torch.inference_mode():` that the failing line uses."""
    s = Snippet(code)
    stmt = s.statement_at(failure.line)
    made: dict[str, cst.With] = {}
    for block in _inference_blocks(s):
        if s.line(block) >= s.line(stmt):
            continue
        for node in s.find([block.body], (cst.Assign, cst.AnnAssign, cst.AugAssign, cst.For, cst.With), nested=True):
            for name in assigned_names(node):
                made[name] = block
    used = list(dict.fromkeys(x.value for x in _read_names(s, _value_nodes(s, stmt), set(made))))
    if not used:
        raise NotApplicable(f"line {failure.line} (`{first_line(s, stmt)}`) uses no tensor made under "
                            "torch.inference_mode()")
    return s, stmt, used, made


@register("clone-inference-tensor", "`x = x.clone()` outside inference_mode before the failing line (a normal tensor)")
def clone_inference_tensor(code: str, failure: Failure) -> PatchResult:
    s, stmt, used, _ = _inference_names(code, failure)
    edits = Edits(s)
    edits.insert_before(stmt, *(f"{n} = {n}.clone()" for n in used))
    return PatchResult.changed(edits.render(), f"{', '.join(used)} cloned before line {s.line(stmt)}")


@register("no-grad-instead-of-inference-mode", "`with torch.inference_mode():` -> `with torch.no_grad():` where "
                                               "the tensor was made")
def no_grad_instead_of_inference_mode(code: str, failure: Failure) -> PatchResult:
    s, stmt, used, made = _inference_names(code, failure)
    edits = Edits(s)
    blocks = {id(made[n]): made[n] for n in used}
    for block in blocks.values():
        edits.replace_node(block, lambda u: u.with_changes(items=[
            i.with_changes(item=i.item.with_changes(func=i.item.func.with_changes(attr=cst.Name("no_grad"))
                                                    if isinstance(i.item.func, cst.Attribute) else cst.Name("no_grad"),
                                                    args=[]))
            if isinstance(i.item, cst.Call) and (dotted(i.item.func) or "").endswith("inference_mode") else i
            for i in u.items]))
    return PatchResult.changed(edits.render(), "no_grad() instead of inference_mode() on line(s) "
                                               + ", ".join(str(s.line(b)) for b in blocks.values()))


@register("clone-inside-inference-mode", "dead end: `x = x.clone()` inside the inference_mode block (the clone is "
                                         "an inference tensor too)")
def clone_inside_inference_mode(code: str, failure: Failure) -> PatchResult:
    s, stmt, used, made = _inference_names(code, failure)
    edits = Edits(s)
    for name in used:
        block = made[name]
        last = list(block.body.body)[-1]
        edits.insert_after(last, f"{name} = {name}.clone()")
    return PatchResult.changed(edits.render(), f"{', '.join(used)} cloned inside the inference_mode block")


@register("detach-inference-tensor", "dead end: `x = x.detach()` before the failing line (still an inference tensor)")
def detach_inference_tensor(code: str, failure: Failure) -> PatchResult:
    s, stmt, used, _ = _inference_names(code, failure)
    edits = Edits(s)
    edits.insert_before(stmt, *(f"{n} = {n}.detach()" for n in used))
    return PatchResult.changed(edits.render(), f"{', '.join(used)} detached before line {s.line(stmt)}")


# --- non-leaf-grad-none ----------------------------------------------------------------------------------


def _grad_reads(code: str, failure: Failure):
    """`x.grad` read on the failing line, with the statement that last assigned x."""
    s = Snippet(code)
    stmt = s.statement_at(failure.line)
    reads = s.find(s.header_nodes(stmt), cst.Attribute,
                   lambda a: a.attr.value == "grad" and isinstance(a.value, cst.Name))
    out = []
    for attr in reads:
        name = attr.value.value
        d = s.definition(name, stmt)
        if d is not None and all(name != n for n, _, _ in out):
            out.append((name, d[0], d[1]))
    if not out:
        raise NotApplicable(f"line {failure.line} (`{first_line(s, stmt)}`) reads no `x.grad` of a variable "
                            "assigned earlier")
    return s, stmt, out


@register("retain-grad-non-leaf", "`x.retain_grad()` right after x is computed, so backward fills its .grad")
def retain_grad_non_leaf(code: str, failure: Failure) -> PatchResult:
    s, stmt, reads = _grad_reads(code, failure)
    edits = Edits(s)
    for name, _, line_stmt in reads:
        edits.insert_after(line_stmt, f"{name}.retain_grad()")
    return PatchResult.changed(edits.render(), ", ".join(f"{n}.retain_grad() after line {s.line(ls)}"
                                                         for n, _, ls in reads))


@register("requires-grad-after-ops", "`w = torch.randn(3, requires_grad=True) * 0.01` -> "
                                     "`w = (torch.randn(3) * 0.01).requires_grad_()`: w becomes the leaf")
def requires_grad_after_ops(code: str, failure: Failure) -> PatchResult:
    s, stmt, reads = _grad_reads(code, failure)
    edits = Edits(s)
    done = []
    for name, small, _ in reads:
        if not isinstance(small, cst.Assign) or small.value is None:
            continue
        value = small.value
        asks = s.find([value], cst.Call, lambda c: (kwarg(c, "requires_grad") is not None
                                                    and s.text(kwarg(c, "requires_grad").value) == "True")
                      or method(c) == "requires_grad_", nested=True)
        if not asks or any(a is value for a in asks):
            continue  # nothing asks for grad inside, or the value itself is the leaf

        for call in asks:
            if method(call) == "requires_grad_":
                edits.replace_node(call, lambda u: u.func.value)
            else:
                edits.replace_node(call, lambda u: u.with_changes(args=_drop_kwarg(u.args, "requires_grad")))
        edits.replace_node(small, lambda u: u.with_changes(value=call_method(u.value, "requires_grad_")))
        done.append(name)
    if not done:
        raise NotApplicable("the tensor whose .grad is read is not computed from a tensor created with "
                            "requires_grad=True in the same statement")
    return PatchResult.changed(edits.render(), f"requires_grad_() moved to the end of {', '.join(done)}'s computation")


def _drop_kwarg(args, name: str):
    kept = [a for a in args if not (a.keyword is not None and a.keyword.value == name)]
    if kept and kept[-1].comma is not cst.MaybeSentinel.DEFAULT:
        kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return kept


@register("requires-grad-on-non-leaf", "dead end: `x.requires_grad = True` on the computed tensor")
def requires_grad_on_non_leaf(code: str, failure: Failure) -> PatchResult:
    s, stmt, reads = _grad_reads(code, failure)
    edits = Edits(s)
    for name, _, line_stmt in reads:
        edits.insert_after(line_stmt, f"{name}.requires_grad = True")
    return PatchResult.changed(edits.render(), ", ".join(f"{n}.requires_grad = True after line {s.line(ls)}"
                                                         for n, _, ls in reads))
