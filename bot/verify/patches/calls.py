"""Small helpers over libcst call and expression nodes."""

from __future__ import annotations

import libcst as cst

from bot.verify.patches.base import NotApplicable
from bot.verify.patches.source import Snippet, expression

ATOMS = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float, cst.SimpleString)


def dotted(node: cst.CSTNode) -> str | None:
    """`torch.autograd.grad` for an Attribute/Name chain, else None."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        inner = dotted(node.value)
        return f"{inner}.{node.attr.value}" if inner else None
    return None


def method(call: cst.Call) -> str | None:
    """The method name of `x.name(...)`, else None."""
    return call.func.attr.value if isinstance(call.func, cst.Attribute) else None


def receiver(call: cst.Call) -> cst.BaseExpression | None:
    return call.func.value if isinstance(call.func, cst.Attribute) else None


def kwarg(call: cst.Call, name: str) -> cst.Arg | None:
    return next((a for a in call.args if a.keyword is not None and a.keyword.value == name), None)


def positional(call: cst.Call) -> list[cst.Arg]:
    return [a for a in call.args if a.keyword is None and not a.star]


def set_kwarg(call: cst.Call, name: str, value: str) -> cst.Call:
    """`f(a)` -> `f(a, name=value)`; replaces the value when the keyword is there."""
    new_value = expression(value)
    if kwarg(call, name) is not None:
        return call.with_changes(args=[a.with_changes(value=new_value)
                                       if a.keyword is not None and a.keyword.value == name else a
                                       for a in call.args])
    args = list(call.args)
    if args and args[-1].comma is cst.MaybeSentinel.DEFAULT:
        args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    args.append(cst.Arg(value=new_value, keyword=cst.Name(name),
                        equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                              whitespace_after=cst.SimpleWhitespace(""))))
    return call.with_changes(args=args)


def paren(expr: cst.BaseExpression) -> cst.BaseExpression:
    """Parenthesise an expression that would bind wrongly before `.method()`."""
    if isinstance(expr, ATOMS) or expr.lpar:
        return expr
    return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def call_method(expr: cst.BaseExpression, name: str, args: str = "") -> cst.Call:
    """`expr` -> `expr.name(args)`."""
    call = expression(f"_.{name}({args})")
    return call.with_changes(func=call.func.with_changes(value=paren(expr)))


def is_backward(call: cst.Call) -> bool:
    """`t.backward(...)`, `torch.autograd.backward(...)` or `torch.autograd.grad(...)`."""
    name = method(call)
    if name == "backward":
        return True
    return name == "grad" and (dotted(call.func) or "").endswith("autograd.grad")


def backward_tensor(call: cst.Call) -> cst.BaseExpression | None:
    """The tensor a backward call differentiates: the receiver, or the first argument
    of torch.autograd.backward/grad."""
    if method(call) == "backward" and not (dotted(call.func) or "").endswith("autograd.backward"):
        return receiver(call)
    args = positional(call)
    if args:
        return args[0].value
    for key in ("tensors", "outputs"):
        arg = kwarg(call, key)
        if arg is not None:
            return arg.value
    return None


def failing_backward(s: Snippet, line: int | None) -> tuple[cst.BaseStatement, cst.Call]:
    """The statement on the failing line and the backward call in it."""
    stmt, calls = s.calls_at(line)
    backwards = [c for c in calls if is_backward(c)]
    if not backwards:
        raise NotApplicable(f"line {line} (`{first_line(s, stmt)}`) calls no backward()")
    return stmt, backwards[-1]


def first_line(s: Snippet, node: cst.CSTNode) -> str:
    return s.text(node).splitlines()[0] if s.text(node) else ""


def constructor_like(s: Snippet, call: cst.CSTNode) -> bool:
    """`Net()`, `nn.Linear(3, 1).to(dev)`, `torch.optim.SGD(...)`: a call of a class
    (by the naming convention), possibly followed by `.to()`/`.cuda()`-style calls.
    A call of a variable (`G(z)` where `G = nn.Sequential(...)`) is not one."""
    while isinstance(call, cst.Call) and method(call) in {"to", "cuda", "cpu", "double", "float", "half", "bfloat16",
                                                          "train", "eval", "requires_grad_"}:
        call = receiver(call)
    if not isinstance(call, cst.Call):
        return False
    name = dotted(call.func)
    return bool(name) and name.split(".")[-1][:1].isupper() and not s.is_variable(name.split(".")[0])


def loss_constructor(s: Snippet, call: cst.CSTNode) -> bool:
    """`nn.CrossEntropyLoss()`, `torch.nn.BCEWithLogitsLoss(...)`: a loss object (no parameters)."""
    return isinstance(call, cst.Call) and constructor_like(s, call) and (dotted(call.func) or "").endswith("Loss")


def value_of(small: cst.CSTNode) -> cst.BaseExpression | None:
    if isinstance(small, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
        return small.value
    return None


def module_like_names(s: Snippet, before: cst.CSTNode) -> set[str]:
    """Variables that hold a model (or another callable object) at `before`: bound by a
    class-like constructor call, e.g. `model = Net()`, `act = nn.ReLU(inplace=True)`."""
    names = set()
    for small, _ in s.preceding(before):
        value = value_of(small)
        if isinstance(small, cst.Assign) and value is not None and constructor_like(s, value):
            for t in small.targets:
                if isinstance(t.target, cst.Name):
                    names.add(t.target.value)
    return names


def is_module_call(s: Snippet, call: cst.Call, models: set[str]) -> bool:
    """A call of a model object: `model(x)`, `self.encoder(x)`, `net.forward(x)`, `nn.Linear(3, 1)(x)`."""
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value == "forward":
        func = func.value
    if isinstance(func, cst.Call):  # built and called inline: `nn.Linear(3, 1)(x)`
        return constructor_like(s, func)
    if isinstance(func, cst.Name):
        return func.value in models or (s.is_variable(func.value) and not s.is_definition(func.value))
    return isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self"


# --- the object a call calls, inline or through a variable ------------------------------------

CHAINED = {"to", "cuda", "cpu", "double", "float", "half", "bfloat16", "train", "eval", "requires_grad_"}


def strip_chain(call: cst.CSTNode) -> cst.CSTNode:
    """`nn.Linear(3, 1).to(dev).eval()` -> `nn.Linear(3, 1)`."""
    while isinstance(call, cst.Call) and method(call) in CHAINED:
        call = receiver(call)
    return call


def is_inline_module_call(s: Snippet, call: cst.Call) -> bool:
    """`nn.Conv2d(1, 8, 3)(x)`, `nn.CrossEntropyLoss()(logits, target)`: the module is built
    and called in one expression."""
    return isinstance(call.func, cst.Call) and constructor_like(s, call.func)


def _self_attribute_value(s: Snippet, attr: str) -> cst.BaseExpression | None:
    """The value last assigned to `self.<attr>` anywhere in the snippet (an __init__)."""
    found = []

    class V(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign):
            for t in node.targets:
                if dotted(t.target) == f"self.{attr}":
                    found.append(node.value)

    s.module.visit(V())
    return found[-1] if found else None


def called_constructor(s: Snippet, call: cst.Call, before: cst.CSTNode) -> cst.Call | None:
    """The constructor call that built the object `call` calls: `nn.Conv2d(1, 8, 3)` for
    `nn.Conv2d(1, 8, 3)(x)` (inline), for `conv(x)` after `conv = nn.Conv2d(1, 8, 3)`, and for
    `self.conv(x)` after `self.conv = nn.Conv2d(1, 8, 3)`; through `.to()`/`.eval()` chains.
    None when the object was not built by a class-like call the snippet shows."""
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value == "forward":
        func = func.value
    value: cst.CSTNode | None = None
    if isinstance(func, cst.Call):
        value = func
    elif isinstance(func, cst.Name):
        d = s.definition(func.value, before)
        value = value_of(d[0]) if d else None
    elif isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
        value = _self_attribute_value(s, func.attr.value)
    value = strip_chain(value) if value is not None else None
    if isinstance(value, cst.Call) and constructor_like(s, value):
        return value
    return None


def class_name(call: cst.Call) -> str:
    """`Conv2d` for `torch.nn.Conv2d(...)`."""
    return (dotted(call.func) or "").split(".")[-1]


def loss_calls(s: Snippet, stmt: cst.BaseStatement, names: set[str]) -> list[cst.Call]:
    """The loss calls on a statement's line: a functional loss named in `names`
    (`F.cross_entropy(...)`), a loss module of a class named in `names` called inline
    (`nn.CrossEntropyLoss()(out, y)`) or through a variable or `self.` attribute
    (`criterion(out, y)` after `criterion = nn.CrossEntropyLoss()`); failing those, a call
    whose name says loss or criterion (a criterion built outside the snippet)."""
    calls = s.find(s.header_nodes(stmt), cst.Call)
    found = []
    for call in calls:
        if constructor_like(s, call):  # the constructor itself, not a call of the loss
            continue
        if class_name(call) in names:
            found.append(call)
            continue
        ctor = called_constructor(s, call, stmt)
        if ctor is not None and class_name(ctor) in names:
            found.append(call)
    if not found:
        found = [c for c in calls if not constructor_like(s, c)
                 and any(w in (dotted(c.func) or "").split(".")[-1].lower() for w in ("loss", "criterion"))]
    return found


def loss_input(call: cst.Call) -> cst.Arg | None:
    """The prediction argument of a loss call: `input=` or the first positional one."""
    args = positional(call)
    return kwarg(call, "input") or (args[0] if args else None)


def loss_target(call: cst.Call) -> cst.Arg | None:
    """The target argument of a loss call: `target=` or the second positional one."""
    args = positional(call)
    return kwarg(call, "target") or (args[1] if len(args) > 1 else None)


def argument(call: cst.Call, name: str, index: int) -> cst.Arg | None:
    """The argument of parameter `name` (keyword, or positional at `index`)."""
    args = positional(call)
    return kwarg(call, name) or (args[index] if index < len(args) else None)


def set_argument(call: cst.Call, name: str, index: int, value: str) -> cst.Call:
    """Set parameter `name` (positional at `index`) to `value`: replaces the positional
    argument when it is given that way, else sets the keyword."""
    args = positional(call)
    if kwarg(call, name) is None and index < len(args):
        target = args[index]
        new_value = expression(value)
        return call.with_changes(args=[a.with_changes(value=new_value) if a is target else a for a in call.args])
    return set_kwarg(call, name, value)
