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
        return call.with_changes(args=[a.with_changes(value=new_value) if a.keyword is not None and a.keyword.value == name
                                       else a for a in call.args])
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
    """A call of a model object: `model(x)`, `self.encoder(x)`, `net.forward(x)`."""
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value == "forward":
        func = func.value
    if isinstance(func, cst.Name):
        return func.value in models or (s.is_variable(func.value) and not s.is_definition(func.value))
    return isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self"
