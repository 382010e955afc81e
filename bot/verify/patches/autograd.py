"""Patches for autograd errors other than backward-twice: numpy-requires-grad,
leaf-inplace, inplace-modified, no-grad-fn and grad-scalar."""

from __future__ import annotations

import re

import libcst as cst

from bot.verify.patches.base import Failure, NotApplicable, PatchResult
from bot.verify.patches.calls import (backward_tensor, call_method, dotted, failing_backward, first_line, kwarg,
                                      method, paren, positional, receiver, set_kwarg)
from bot.verify.patches.registry import register
from bot.verify.patches.source import Edits, Snippet, assigned_names, expression, statement

# In-place tensor methods that have no out-of-place twin of the same name.
NO_OUT_OF_PLACE = {"zero_", "fill_", "uniform_", "normal_", "random_", "exponential_", "geometric_", "cauchy_",
                   "log_normal_", "copy_", "set_", "resize_", "resize_as_", "fill_diagonal_", "detach_",
                   "requires_grad_", "share_memory_", "retain_grad"}
AUG_SYMBOLS = {cst.AddAssign: "+", cst.SubtractAssign: "-", cst.MultiplyAssign: "*", cst.DivideAssign: "/",
               cst.FloorDivideAssign: "//", cst.ModuloAssign: "%", cst.PowerAssign: "**", cst.MatrixMultiplyAssign: "@",
               cst.BitAndAssign: "&", cst.BitOrAssign: "|", cst.BitXorAssign: "^", cst.LeftShiftAssign: "<<",
               cst.RightShiftAssign: ">>"}


def inplace_method(call: cst.Call) -> str | None:
    """`add_` for `x.add_(...)`: a tensor method that works in place."""
    name = method(call)
    if name and name.endswith("_") and not name.startswith("_") and name not in {"requires_grad_", "retain_grad"}:
        return name
    return None


def _wrap_failing_statement(code: str, failure: Failure, why: str) -> PatchResult:
    s = Snippet(code)
    stmt = s.statement_at(failure.line)
    edits = Edits(s)
    torch = edits.torch()
    edits.wrap_in_with(stmt, stmt, f"{torch}.no_grad()")
    return PatchResult.changed(edits.render(), f"line {s.line(stmt)} (`{first_line(s, stmt)}`) {why}")


# Binding strength of binary operators, for deciding when `x op= v` needs `x op (v)`.
PRECEDENCE = {"|": 1, "^": 2, "&": 3, "<<": 4, ">>": 4, "+": 5, "-": 5,
              "*": 6, "/": 6, "//": 6, "%": 6, "@": 6, "**": 8}
BINARY_SYMBOLS = {cst.BitOr: "|", cst.BitXor: "^", cst.BitAnd: "&", cst.LeftShift: "<<", cst.RightShift: ">>",
                  cst.Add: "+", cst.Subtract: "-", cst.Multiply: "*", cst.Divide: "/", cst.FloorDivide: "//",
                  cst.Modulo: "%", cst.MatrixMultiply: "@", cst.Power: "**"}


def augassign_to_assign(s: Snippet, aug: cst.AugAssign) -> cst.Assign:
    """`x -= a * b` -> `x = x - a * b`; `x -= a - b` -> `x = x - (a - b)`."""
    symbol = AUG_SYMBOLS[type(aug.operator)]
    value = aug.value
    if isinstance(value, cst.BinaryOperation) and not value.lpar:
        inner = BINARY_SYMBOLS.get(type(value.operator))
        if inner is None or PRECEDENCE[inner] <= PRECEDENCE[symbol]:
            value = paren(value)
    elif not isinstance(value, (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float)):
        value = paren(value)
    target = s.text(aug.target)
    new = statement(f"{target} = {target} {symbol} _").body[0]
    return new.with_changes(value=new.value.with_changes(right=value))


# --- numpy-requires-grad -------------------------------------------------------------------


def _numpy_calls(s: Snippet, line: int | None):
    stmt, calls = s.calls_at(line)
    found = []
    for call in calls:
        recv = receiver(call)
        if method(call) == "numpy" and recv is not None and not (isinstance(recv, cst.Name)
                                                                 and recv.value in {"np", "numpy", "torch"}):
            found.append(("method", call))
        elif (dotted(call.func) or "").split(".")[-1] in {"array", "asarray"} and \
                (dotted(call.func) or "").split(".")[0] in {"np", "numpy"} and positional(call):
            found.append(("numpy", call))
    return stmt, found


@register("detach-numpy", "`t.numpy()` -> `t.detach().cpu().numpy()` at the failing call")
def detach_numpy(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt, found = _numpy_calls(s, failure.line)
    if not found:
        raise NotApplicable(f"line {failure.line} (`{first_line(s, stmt)}`) has no .numpy() or np.array() call")
    edits = Edits(s)

    def detached(expr: cst.BaseExpression) -> cst.BaseExpression:
        # x.cpu() -> x.detach().cpu(); x -> x.detach().cpu()
        if isinstance(expr, cst.Call) and method(expr) == "cpu":
            return call_method(call_method(receiver(expr), "detach"), "cpu")
        if isinstance(expr, cst.Call) and method(expr) == "detach":
            return call_method(expr, "cpu")
        return call_method(call_method(expr, "detach"), "cpu")

    for kind, call in found:
        if kind == "method":
            edits.replace_node(call, lambda u: u.with_changes(func=u.func.with_changes(value=detached(u.func.value))))
        else:
            edits.replace_node(call, lambda u: u.with_changes(
                args=[u.args[0].with_changes(value=detached(u.args[0].value))] + list(u.args[1:])))
    return PatchResult.changed(edits.render(), f"detach().cpu() before the numpy conversion on line {s.line(stmt)}")


@register("no-grad-numpy", "dead end: wrap the failing .numpy() call in `with torch.no_grad():`")
def no_grad_numpy(code: str, failure: Failure) -> PatchResult:
    return _wrap_failing_statement(code, failure, "runs under no_grad()")


# --- leaf-inplace ----------------------------------------------------------------------------


@register("no-grad-leaf-update", "wrap the in-place update of the leaf tensor in `with torch.no_grad():`")
def no_grad_leaf_update(code: str, failure: Failure) -> PatchResult:
    return _wrap_failing_statement(code, failure, "runs under no_grad()")


@register("out-of-place-leaf", "`w += v` / `w.add_(v)` -> `w = w + v` (w becomes a non-leaf tensor)")
def out_of_place_leaf(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt = s.statement_at(failure.line)
    if not isinstance(stmt, cst.SimpleStatementLine):
        raise NotApplicable(f"line {failure.line} is not a simple statement")
    edits = Edits(s)
    for small in stmt.body:
        change = _out_of_place(s, small)
        if change is not None:
            edits.replace_node(small, change)
            return PatchResult.changed(edits.render(), f"line {s.line(stmt)} made out of place: `{s.text(change)}`")
    raise NotApplicable(f"line {failure.line} (`{first_line(s, stmt)}`) has no `x op= v` or `x.op_(...)` update "
                        "with an out-of-place form")


def _out_of_place(s: Snippet, small: cst.CSTNode) -> cst.CSTNode | None:
    """The out-of-place form of an in-place statement on a variable, or None."""
    if isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name) and type(small.operator) in AUG_SYMBOLS:
        return augassign_to_assign(s, small)
    if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
        call = small.value
        name = inplace_method(call)
        if name and name not in NO_OUT_OF_PLACE and isinstance(receiver(call), cst.Name):
            target = receiver(call).value
            new_call = call.with_changes(func=call.func.with_changes(attr=cst.Name(name[:-1])))
            return cst.Assign(targets=[cst.AssignTarget(target=cst.Name(target))], value=new_call)
    return None


# --- inplace-modified --------------------------------------------------------------------------

ANOMALY_PRELUDE = '''\
import sys as _verify_sys, warnings as _verify_warnings, torch as _verify_torch
_verify_torch.autograd.set_detect_anomaly(True)
def _verify_show(message, category, filename, lineno, file=None, line=None):
    print("<<verify-anomaly>>" + str(message) + "<</verify-anomaly>>", flush=True)
_verify_warnings.showwarning = _verify_show
print("<<verify-file>>" + _verify_sys._getframe().f_code.co_filename + "<</verify-file>>", flush=True)
'''
ANOMALY_RE = re.compile(r"<<verify-anomaly>>(.*?)<</verify-anomaly>>", re.S)
FILE_RE = re.compile(r"<<verify-file>>(.*?)<</verify-file>>")
FRAME_RE = re.compile(r'File "([^"]+)", line (\d+)')


def anomaly_line(code: str, failure: Failure) -> tuple[int | None, str]:
    """Run the snippet once more with anomaly detection and return the snippet line of
    the forward operation whose backward failed (and a note saying how it was found)."""
    if failure.run is None:
        return None, "no sandbox run is available for the anomaly-detection run"
    s = Snippet(code)
    first = s.first_code_statement()
    insert_at = s.line(first)
    prelude_lines = ANOMALY_PRELUDE.count("\n")
    lines = code.splitlines(True)
    diagnostic = "".join(lines[:insert_at - 1]) + ANOMALY_PRELUDE + "".join(lines[insert_at - 1:])
    result = failure.run(diagnostic)
    output = getattr(result, "output", "") or ""
    file_match = FILE_RE.search(output)
    messages = ANOMALY_RE.findall(output)
    if not file_match or not messages:
        return None, "the anomaly-detection run printed no forward traceback"
    snippet_file = file_match.group(1)
    frames = [(f, int(n)) for f, n in FRAME_RE.findall(messages[-1]) if f == snippet_file]
    if not frames:
        return None, "the forward traceback of anomaly detection names no line of the snippet"
    line = frames[-1][1]
    if line >= insert_at + prelude_lines:
        line -= prelude_lines
    return line, f"anomaly detection traced the failing gradient to line {line}"


def _anomaly_or_give_up(code: str, failure: Failure) -> int:
    line, note = failure.memo("anomaly_line", lambda: anomaly_line(code, failure))
    if line is None:
        raise NotApplicable(f"cannot find the operation: {note}")
    return line


class InplaceOp:
    def __init__(self, small, stmt, name, kind, call=None, constructor=None):
        self.small, self.stmt, self.name, self.kind = small, stmt, name, kind
        self.call, self.constructor = call, constructor


def _inplace_constructors(s: Snippet) -> dict[str, cst.Call]:
    """Variables bound to an object built with `inplace=True`, e.g. `act = nn.ReLU(inplace=True)`."""
    found = {}
    for stmt in s.statements():
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Assign) and isinstance(small.value, cst.Call):
                    arg = kwarg(small.value, "inplace")
                    if arg is not None and s.text(arg.value) == "True":
                        for t in small.targets:
                            if isinstance(t.target, (cst.Name, cst.Attribute)):
                                found[s.text(t.target)] = small.value
    return found


def _inplace_ops(s: Snippet, stmt: cst.SimpleStatementLine, names: set[str]) -> list[InplaceOp]:
    """The in-place operations a statement does on one of `names`."""
    ops = []
    constructors = _inplace_constructors(s)
    for small in stmt.body:
        if isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name) and small.target.value in names:
            ops.append(InplaceOp(small, stmt, small.target.value, "augassign"))
            continue
        if isinstance(small, cst.Assign):
            for t in small.targets:
                if isinstance(t.target, cst.Subscript) and isinstance(t.target.value, cst.Name) \
                        and t.target.value.value in names:
                    ops.append(InplaceOp(small, stmt, t.target.value.value, "setitem"))
        for call in s.find([small], cst.Call):
            first = positional(call)[0].value if positional(call) else None
            first_name = first.value if isinstance(first, cst.Name) else None
            recv = receiver(call)
            if inplace_method(call) and isinstance(recv, cst.Name) and recv.value in names:
                ops.append(InplaceOp(small, stmt, recv.value, "method", call))
            elif (first_name in names and kwarg(call, "inplace") is not None
                  and s.text(kwarg(call, "inplace").value) == "True"):
                ops.append(InplaceOp(small, stmt, first_name, "kwarg", call))
            elif (first_name in names and (dotted(call.func) or "").endswith("_")
                  and isinstance(call.func, cst.Attribute)
                  and dotted(call.func).split(".")[0] in {"torch", "F", "nn", "functional"}):
                ops.append(InplaceOp(small, stmt, first_name, "function", call))
            elif first_name in names and s.text(call.func) in constructors:
                ops.append(InplaceOp(small, stmt, first_name, "module", call, constructors[s.text(call.func)]))
    return ops


def find_inplace_op(code: str, failure: Failure) -> tuple[Snippet, InplaceOp, int]:
    line = _anomaly_or_give_up(code, failure)
    s = Snippet(code)
    origin = s.statement_at(line)
    names = {n for n in s.used_names(origin) if s.is_variable(n)}
    if isinstance(origin, cst.SimpleStatementLine):
        for small in origin.body:
            names |= assigned_names(small)
    scope = s.enclosing_function(origin)
    candidates = [st for st in s.statements() if isinstance(st, cst.SimpleStatementLine)
                  and s.enclosing_function(st) is scope]
    later = [st for st in candidates if s.line(st) >= line]
    for group in (later, candidates):
        for st in group:
            ops = _inplace_ops(s, st, names)
            if ops:
                return s, ops[0], line
    raise NotApplicable(f"anomaly detection points at line {line} (`{first_line(s, origin)}`), but no in-place "
                        f"operation on {', '.join(sorted(names)) or 'its tensors'} was found in the snippet; it may "
                        "happen inside a library call (optimizer.step() updates parameters in place)")


@register("inplace-to-out-of-place", "find the op with anomaly detection and make it out of place "
                                     "(`x += y` -> `x = x + y`, `relu_()` -> `relu()`, `inplace=True` -> `False`)")
def inplace_to_out_of_place(code: str, failure: Failure) -> PatchResult:
    s, op, origin = find_inplace_op(code, failure)
    edits = Edits(s)
    where = f"line {s.line(op.small)} (`{first_line(s, op.stmt)}`, modifies `{op.name}` saved at line {origin})"
    if op.kind == "augassign":
        edits.replace_node(op.small, augassign_to_assign(s, op.small))
    elif op.kind == "setitem":
        raise NotApplicable(f"{where} is an indexed assignment, which has no out-of-place form; clone the tensor first")
    elif op.kind in ("method", "function"):
        name = inplace_method(op.call) if op.kind == "method" else dotted(op.call.func).split(".")[-1]
        if name in NO_OUT_OF_PLACE:
            raise NotApplicable(f"{where}: `{name}` has no out-of-place twin; clone the tensor first")
        new_call = op.call.with_changes(func=op.call.func.with_changes(attr=cst.Name(name[:-1])))
        if isinstance(op.small, cst.Expr) and op.small.value is op.call:  # result unused: keep it
            edits.replace_node(op.small, cst.Assign(targets=[cst.AssignTarget(cst.Name(op.name))], value=new_call))
        else:
            edits.replace_node(op.call, lambda u: u.with_changes(func=u.func.with_changes(attr=cst.Name(name[:-1]))))
    else:  # kwarg or module built with inplace=True
        target = op.call if op.kind == "kwarg" else op.constructor
        edits.replace_node(target, lambda u: set_kwarg(u, "inplace", "False"))
        if isinstance(op.small, cst.Expr) and op.small.value is op.call:
            edits.replace_node(op.small, lambda u: cst.Assign(targets=[cst.AssignTarget(cst.Name(op.name))],
                                                              value=u.value))
    return PatchResult.changed(edits.render(), f"{where} made out of place")


@register("clone-before-inplace", "clone the tensor before the in-place operation modifies it")
def clone_before_inplace(code: str, failure: Failure) -> PatchResult:
    s, op, origin = find_inplace_op(code, failure)
    edits = Edits(s)
    edits.insert_before(op.stmt, f"{op.name} = {op.name}.clone()")
    return PatchResult.changed(edits.render(), f"`{op.name}` cloned before line {s.line(op.stmt)} "
                                               f"(`{first_line(s, op.stmt)}`) modifies it in place")


# --- no-grad-fn --------------------------------------------------------------------------------

NO_GRAD_CONTEXTS = ("no_grad", "inference_mode")


def _disables_grad(s: Snippet, expr: cst.BaseExpression) -> bool:
    if not isinstance(expr, cst.Call):
        return False
    name = (dotted(expr.func) or "").split(".")[-1]
    if name in NO_GRAD_CONTEXTS:
        return not (positional(expr) and s.text(positional(expr)[0].value) == "False")
    if name == "set_grad_enabled":
        return bool(positional(expr)) and s.text(positional(expr)[0].value) == "False"
    return False


def _backward_inputs(s: Snippet, stmt, call: cst.Call) -> list[str]:
    tensor = backward_tensor(call)
    if tensor is None:
        raise NotApplicable(f"cannot tell which tensor `{first_line(s, stmt)}` differentiates")
    return [n for n in s.used_names(tensor) if s.is_variable(n)]


@register("remove-no-grad", "take the computation of the loss out of torch.no_grad() / inference_mode()")
def remove_no_grad(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt, call = failing_backward(s, failure.line)
    computed = s.backward_slice(_backward_inputs(s, stmt, call), stmt)
    edits = Edits(s)
    done: set[int] = set()
    lines = []
    for small, _line_stmt in computed:
        for anc in s.ancestors(small):
            if isinstance(anc, cst.With) and id(anc) not in done and any(_disables_grad(s, i.item) for i in anc.items):
                done.add(id(anc))
                lines.append(s.line(anc))
                if len(anc.items) == 1:
                    edits.unwrap_with(anc)
                else:
                    keep = [i for i in anc.items if not _disables_grad(s, i.item)]
                    keep[-1] = keep[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
                    edits.replace_node(anc, lambda u, keep=keep: u.with_changes(items=keep))
        # functions called in the computation that are decorated with @torch.no_grad()
        for c in s.find([small], cst.Call, nested=True):
            if isinstance(c.func, cst.Name):
                for fdef in s.find([s.module], cst.FunctionDef, lambda f, name=c.func.value: f.name.value == name,
                                   nested=True):
                    bad = [d for d in fdef.decorators if _disables_grad(s, d.decorator)]
                    if bad and id(fdef) not in done:
                        done.add(id(fdef))
                        lines.append(s.line(fdef))
                        edits.replace_node(fdef, lambda u: u.with_changes(
                            decorators=[d for d in u.decorators if not _disables_grad(s, d.decorator)]))
    for small, _line_stmt in s.preceding(stmt):  # torch.set_grad_enabled(False) as a statement
        if isinstance(small, cst.Expr) and _disables_grad(s, small.value):
            lines.append(s.line(small))
            edits.replace_node(small.value, lambda u: u.with_changes(
                args=[u.args[0].with_changes(value=cst.Name("True"))]))
    if edits.empty:
        raise NotApplicable("the computation of the differentiated tensor does not run under no_grad(), "
                            "inference_mode() or set_grad_enabled(False)")
    return PatchResult.changed(edits.render(), f"gradient recording switched back on at line(s) "
                                               f"{', '.join(map(str, sorted(set(lines))))}")


@register("remove-detach", "drop .detach() / .data on the path to the loss")
def remove_detach(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt, call = failing_backward(s, failure.line)
    computed = s.backward_slice(_backward_inputs(s, stmt, call), stmt)
    roots = [small for small, _ in computed] + [backward_tensor(call)]
    edits = Edits(s)
    lines = set()
    for root in roots:
        for c in s.find([root], cst.Call, lambda c: method(c) == "detach" and not c.args, nested=True):
            edits.replace_node(c, lambda u: u.func.value)
            lines.add(s.line(c))
        for a in s.find([root], cst.Attribute, lambda a: a.attr.value == "data", nested=True):
            if not isinstance(s.parent(a), cst.Call) or s.parent(a).func is not a:
                edits.replace_node(a, lambda u: u.value)
                lines.add(s.line(a))
    if edits.empty:
        raise NotApplicable("no .detach() or .data on the path to the differentiated tensor")
    return PatchResult.changed(edits.render(),
                               f".detach()/.data removed on line(s) {', '.join(map(str, sorted(lines)))}")


# A backslash at the end of a line joins it with the next in the string: the check's lines stay whole.
GRAD_CHECK = '''\
verify_scope = {{**globals(), **locals()}}
verify_leaves = [p for v in list(verify_scope.values()) if isinstance(v, {torch}.nn.Module) for p in v.parameters()]
verify_leaves += [v for v in list(verify_scope.values()) if isinstance(v, {torch}.Tensor) \
and v.is_leaf and v.requires_grad and v is not {loss}]
if verify_leaves and all(p.grad is None for p in verify_leaves):
    raise RuntimeError("requires-grad-on-loss check: backward() ran, but no gradient reached the model's \
parameters (every .grad is None)")
'''


@register("requires-grad-on-loss", "dead end: `loss.requires_grad_(True)` before backward; the error goes, "
                                   "but no gradient reaches the parameters (a check after the backward shows it)")
def requires_grad_on_loss(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt, call = failing_backward(s, failure.line)
    tensor = backward_tensor(call)
    if not isinstance(tensor, cst.Name):
        what = s.text(tensor) if tensor else "?"
        raise NotApplicable(f"the failing backward differentiates `{what}`, not a variable")
    edits = Edits(s)
    torch = edits.torch()
    edits.insert_before(stmt, f"{tensor.value}.requires_grad_(True)")
    check = cst.parse_module(GRAD_CHECK.format(torch=torch, loss=tensor.value)).body
    edits.insert_after(stmt, *check)
    return PatchResult.changed(edits.render(), f"`{tensor.value}.requires_grad_(True)` before line {s.line(stmt)}, "
                                               "and a check that the parameters got gradients after it")


# --- grad-scalar ---------------------------------------------------------------------------------


def _gradient_given(call: cst.Call) -> bool:
    if method(call) == "backward" and not (dotted(call.func) or "").endswith("autograd.backward"):
        return bool(positional(call)) or kwarg(call, "gradient") is not None
    if (dotted(call.func) or "").endswith("autograd.backward"):
        return len(positional(call)) > 1 or kwarg(call, "grad_tensors") is not None
    return len(positional(call)) > 2 or kwarg(call, "grad_outputs") is not None


@register("sum-before-backward", "`out.backward()` -> `out.sum().backward()`")
def sum_before_backward(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt, call = failing_backward(s, failure.line)
    tensor = backward_tensor(call)
    if tensor is None or _gradient_given(call):
        raise NotApplicable(f"`{first_line(s, stmt)}` already passes a gradient (or names no tensor)")
    edits = Edits(s)
    edits.replace_node(tensor, lambda u: call_method(u, "sum"))
    return PatchResult.changed(edits.render(),
                               f"`{s.text(tensor)}` summed to a scalar before the backward on line {s.line(stmt)}")


@register("grad-outputs-ones", "`out.backward()` -> `out.backward(torch.ones_like(out))`")
def grad_outputs_ones(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt, call = failing_backward(s, failure.line)
    tensor = backward_tensor(call)
    if tensor is None or _gradient_given(call):
        raise NotApplicable(f"`{first_line(s, stmt)}` already passes a gradient (or names no tensor)")
    edits = Edits(s)
    torch = edits.torch()
    name = s.text(tensor)
    if not isinstance(tensor, (cst.Name, cst.Attribute)):  # evaluate a call only once
        name = "output_to_differentiate"
        edits.insert_before(stmt, f"{name} = {s.text(tensor)}")
        edits.replace_node(tensor, cst.Name(name))
    ones = f"{torch}.ones_like({name})"
    if method(call) == "backward" and not (dotted(call.func) or "").endswith("autograd.backward"):
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")) if call.args else cst.MaybeSentinel.DEFAULT
        edits.replace_node(call, lambda u: u.with_changes(args=[cst.Arg(expression(ones), comma=comma)] + list(u.args)))
    elif (dotted(call.func) or "").endswith("autograd.backward"):
        edits.replace_node(call, lambda u: set_kwarg(u, "grad_tensors", ones))
    else:
        edits.replace_node(call, lambda u: set_kwarg(u, "grad_outputs", ones))
    return PatchResult.changed(edits.render(), f"backward on line {s.line(stmt)} given the gradient {ones}")
