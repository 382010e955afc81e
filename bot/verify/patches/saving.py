"""Patches for saving, loading and compiling models: corrupt checkpoints, TorchScript
archives, pickled whole models, torch.compile (Dynamo and its backends), ONNX export
and TorchScript scripting.

Each patch rewrites the call that the failure points at (the torch.load on the failing
line, the torch.compile that built the function called on the failing line, the
torch.jit.script call, the method the TorchScript message names) and leaves the rest
of the snippet as it was.
"""

from __future__ import annotations

import re

import libcst as cst

from bot.verify.patches.base import Failure, NotApplicable, PatchResult
from bot.verify.patches.calls import dotted, first_line, kwarg, positional, set_kwarg
from bot.verify.patches.registry import register
from bot.verify.patches.source import Edits, Snippet, expression

# --- loading ---------------------------------------------------------------------------------


def _torch_prefixes(s: Snippet) -> set[str]:
    return {s.torch_name() or "torch", "torch"}


def _calls_named(s: Snippet, stmt, names: set[str]) -> list[cst.Call]:
    return [c for c in s.find(s.header_nodes(stmt), cst.Call) if (dotted(c.func) or "") in names]


def _load_calls(s: Snippet, stmt) -> list[cst.Call]:
    return _calls_named(s, stmt, {f"{t}.load" for t in _torch_prefixes(s)})


def _jit_load_calls(s: Snippet, stmt) -> list[cst.Call]:
    return _calls_named(s, stmt, {f"{t}.jit.load" for t in _torch_prefixes(s)})


def _without_kwargs(call: cst.Call, names: set[str]) -> cst.Call:
    args = [a for a in call.args if a.keyword is None or a.keyword.value not in names]
    if args:
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return call.with_changes(args=args)


def _retarget(call: cst.Call, func: str) -> cst.Call:
    return call.with_changes(func=expression(func))


@register("jit-load-for-torchscript", "`torch.load(f)` of a TorchScript archive -> `torch.jit.load(f)`")
def jit_load_for_torchscript(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt = s.statement_at(failure.line)
    calls = _load_calls(s, stmt)
    if not calls:
        raise NotApplicable(f"line {failure.line} (`{first_line(s, stmt)}`) has no torch.load() call")
    torch = s.torch_name() or "torch"
    edits = Edits(s)
    for call in calls:
        # torch.jit.load takes (f, map_location, _extra_files): keep the file and map_location only.
        edits.replace_node(call, lambda u: _retarget(_without_kwargs(u, {"weights_only", "pickle_module", "mmap"}),
                                                     f"{torch}.jit.load"))
    return PatchResult.changed(edits.render(), f"torch.jit.load instead of torch.load on line {s.line(stmt)}")


@register("torch-load-for-state-dict-file", "`torch.jit.load(f)` of a torch.save file -> `torch.load(f)`")
def torch_load_for_state_dict_file(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt = s.statement_at(failure.line)
    calls = _jit_load_calls(s, stmt)
    if not calls:
        raise NotApplicable(f"line {failure.line} (`{first_line(s, stmt)}`) has no torch.jit.load() call")
    torch = s.torch_name() or "torch"
    edits = Edits(s)
    for call in calls:
        edits.replace_node(call, lambda u: _retarget(_without_kwargs(u, {"_extra_files"}), f"{torch}.load"))
    return PatchResult.changed(edits.render(), f"torch.load instead of torch.jit.load on line {s.line(stmt)}")


@register("torch-load-map-location-cpu", "`torch.load(f)` / `torch.jit.load(f)` -> `...(f, map_location=\"cpu\")`")
def torch_load_map_location_cpu(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt = s.statement_at(failure.line)
    calls = _load_calls(s, stmt) + _jit_load_calls(s, stmt)
    calls = [c for c in calls if kwarg(c, "map_location") is None and len(positional(c)) < 2]
    if not calls:
        raise NotApplicable(f"line {failure.line} (`{first_line(s, stmt)}`) has no load call without map_location")
    edits = Edits(s)
    for call in calls:
        edits.replace_node(call, lambda u: set_kwarg(u, "map_location", '"cpu"'))
    return PatchResult.changed(edits.render(), f"map_location=\"cpu\" on the load of line {s.line(stmt)}")


@register("weights-only-true", "`torch.load(f, weights_only=False)` -> `torch.load(f, weights_only=True)`")
def weights_only_true(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt = s.statement_at(failure.line)
    calls = [c for c in _load_calls(s, stmt) if (kwarg(c, "weights_only") is None
                                                  or s.text(kwarg(c, "weights_only").value) != "True")]
    if not calls:
        raise NotApplicable(f"line {failure.line} (`{first_line(s, stmt)}`) has no torch.load() without "
                            "weights_only=True")
    edits = Edits(s)
    for call in calls:
        edits.replace_node(call, lambda u: set_kwarg(u, "weights_only", "True"))
    return PatchResult.changed(edits.render(), f"weights_only=True on the torch.load() of line {s.line(stmt)}")


# "No module named 'models'", "No module named 'models.yolo'"
_MISSING_MODULE = re.compile(r"No module named '([A-Za-z_][\w.]*)'")
# "Can't get attribute 'Net' on <module '__main__' from '/x/predict.py'>"
_MISSING_ATTRIBUTE = re.compile(r"Can't get attribute '([A-Za-z_]\w*)' on <module '([A-Za-z_][\w.]*)'")


def _defined_classes(s: Snippet) -> list[str]:
    """Classes the snippet defines or imports at module level (capitalised names)."""
    names = []
    for stmt in s.module.body:
        if isinstance(stmt, cst.ClassDef):
            names.append(stmt.name.value)
        elif isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar):
                    for alias in small.names:
                        bound = alias.asname.name if alias.asname else alias.name
                        if isinstance(bound, cst.Name) and bound.value[:1].isupper():
                            names.append(bound.value)
    return names


@register("pickle-module-alias",
          "register the module or class the pickle names (missing at load time) as this script's own definition")
def alias_missing_module(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt = s.statement_at(failure.line)
    if not (_load_calls(s, stmt) or "torch.load" in s.text(stmt)):
        raise NotApplicable(f"line {failure.line} (`{first_line(s, stmt)}`) has no torch.load() call")
    classes = _defined_classes(s)
    edits = Edits(s)
    attribute = _MISSING_ATTRIBUTE.search(failure.message or "")
    module = _MISSING_MODULE.search(failure.message or "")
    if attribute:
        name, owner = attribute.groups()
        if name not in classes:
            raise NotApplicable(f"the snippet neither defines nor imports a class named {name}")
        edits.insert_before(stmt, "import sys", f"setattr(sys.modules[{owner!r}], {name!r}, {name})")
        note = f"{owner}.{name} pointed at the snippet's {name} before line {s.line(stmt)}"
    elif module:
        missing = module.group(1)
        if not classes:
            raise NotApplicable("the snippet defines or imports no class the pickle could find under the missing "
                                "module")
        lines = ["import sys"]
        parts = missing.split(".")
        for i in range(1, len(parts) + 1):  # models and models.yolo both resolve to this script
            lines.append(f"sys.modules.setdefault({'.'.join(parts[:i])!r}, sys.modules[__name__])")
        edits.insert_before(stmt, *lines)
        note = f"module {missing} aliased to the snippet's own module before line {s.line(stmt)}"
    else:
        raise NotApplicable("the message names no missing module or attribute")
    return PatchResult.changed(edits.render(), note)


# --- torch.compile -------------------------------------------------------------------------------


def _is_compile(s: Snippet, node: cst.CSTNode) -> bool:
    return (dotted(node) or "") in {f"{t}.compile" for t in _torch_prefixes(s)}


def _compile_sites(s: Snippet, failure: Failure) -> list[cst.CSTNode]:
    """The torch.compile calls (or bare `@torch.compile` decorators) behind the call that
    failed: the function or model called on the failing line, else the only one there is."""
    every: list[cst.CSTNode] = []
    for fn in s.find([s.module], cst.FunctionDef, nested=True):
        every += [d.decorator for d in fn.decorators
                  if _is_compile(s, d.decorator)
                  or (isinstance(d.decorator, cst.Call) and _is_compile(s, d.decorator.func))]
    every += [c for c in s.find([s.module], cst.Call, nested=True) if _is_compile(s, c.func)
              and not isinstance(s.parent(c), cst.Decorator)]
    if not every:
        raise NotApplicable("the snippet has no torch.compile")
    found: list[cst.CSTNode] = []
    try:
        stmt, calls = s.calls_at(failure.line)
    except NotApplicable:
        calls = []
    for call in calls:
        if _is_compile(s, call.func):
            found.append(call)
            continue
        name = dotted(call.func)
        if not name or "." in name:
            continue
        for fn in s.find([s.module], cst.FunctionDef, nested=True, where=lambda f, name=name: f.name.value == name):
            found += [site for site in every if any(d.decorator is site for d in fn.decorators)]
        d = s.definition(name, stmt)
        if d is not None:
            inside = {id(c) for c in s.find([d[0]], cst.Call, nested=True)}
            found += [site for site in every if id(site) in inside]
    if not found and len(every) == 1:
        found = every
    if not found:
        raise NotApplicable("cannot tell which torch.compile built the function called on the failing line")
    return list({id(n): n for n in found}.values())


def _as_call(node: cst.CSTNode) -> cst.Call:
    return node if isinstance(node, cst.Call) else cst.Call(func=node)


def _compile_kwarg(code: str, failure: Failure, name: str, value: str, *, only_if=None, what: str) -> PatchResult:
    s = Snippet(code)
    sites = _compile_sites(s, failure)
    if only_if is not None:
        sites = [n for n in sites if only_if(s, n)]
        if not sites:
            raise NotApplicable(f"no torch.compile here {what}")
    edits = Edits(s)
    for site in sites:
        edits.replace_node(site, lambda u: set_kwarg(_as_call(u), name, value))
    lines = ", ".join(str(s.line(n)) for n in sites)
    return PatchResult.changed(edits.render(), f"torch.compile(..., {name}={value}) on line {lines}")


def _fullgraph_true(s: Snippet, node: cst.CSTNode) -> bool:
    arg = kwarg(node, "fullgraph") if isinstance(node, cst.Call) else None
    return arg is not None and s.text(arg.value) == "True"


def _backend_is_not(value: str):
    def check(s: Snippet, node: cst.CSTNode) -> bool:
        arg = kwarg(node, "backend") if isinstance(node, cst.Call) else None
        return arg is None or s.text(arg.value).strip("'\"") != value
    return check


@register("compile-fullgraph-false", "`torch.compile(f, fullgraph=True)` -> `fullgraph=False` "
                                    "(graph breaks run eagerly)")
def compile_fullgraph_false(code: str, failure: Failure) -> PatchResult:
    return _compile_kwarg(code, failure, "fullgraph", "False", only_if=_fullgraph_true, what="passes fullgraph=True")


@register("compile-backend-eager", "`torch.compile(f)` -> `torch.compile(f, backend=\"eager\")` "
                                  "(Dynamo only, no code generation)")
def compile_backend_eager(code: str, failure: Failure) -> PatchResult:
    return _compile_kwarg(code, failure, "backend", '"eager"', only_if=_backend_is_not("eager"),
                          what="without backend=\"eager\"")


@register("compile-backend-aot-eager", "`torch.compile(f)` -> `torch.compile(f, backend=\"aot_eager\")` "
                                      "(no C++/Triton code)")
def compile_backend_aot_eager(code: str, failure: Failure) -> PatchResult:
    return _compile_kwarg(code, failure, "backend", '"aot_eager"', only_if=_backend_is_not("aot_eager"),
                          what="without backend=\"aot_eager\"")


@register("compile-mode-reduce-overhead", "`torch.compile(f)` -> `torch.compile(f, mode=\"reduce-overhead\")`")
def compile_mode_reduce_overhead(code: str, failure: Failure) -> PatchResult:
    def other_mode(s: Snippet, node: cst.CSTNode) -> bool:
        arg = kwarg(node, "mode") if isinstance(node, cst.Call) else None
        return arg is None or s.text(arg.value).strip("'\"") != "reduce-overhead"
    return _compile_kwarg(code, failure, "mode", '"reduce-overhead"', only_if=other_mode,
                          what="without mode=\"reduce-overhead\"")


@register("dynamo-suppress-errors", "`torch._dynamo.config.suppress_errors = True` before the compiled call "
                                   "(fall back to eager)")
def dynamo_suppress_errors(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    if "suppress_errors" in code:
        raise NotApplicable("the snippet already sets suppress_errors")
    _compile_sites(s, failure)  # only where a torch.compile is behind the failure
    edits = Edits(s)
    torch = edits.torch()
    # Right after `import torch`: the setting must be in place before the compiled function runs.
    setting = f"{torch}._dynamo.config.suppress_errors = True"
    anchor = next((st for st in s.module.body if isinstance(st, cst.SimpleStatementLine)
                   and any(isinstance(x, cst.Import) and any(s.text(a.name) == "torch" for a in x.names)
                           for x in st.body)), None)
    if anchor is not None:
        edits.insert_after(anchor, setting)
    else:  # `import torch` was just added before the first statement
        edits.insert_before(s.first_code_statement(), setting)
    return PatchResult.changed(edits.render(), "torch._dynamo.config.suppress_errors = True after import torch")


# --- ONNX export ---------------------------------------------------------------------------------

_ADDED_IN = re.compile(r"was added in version (\d+)")
NEWER_OPSET = 17  # the legacy exporter's opsets reach further; 17 is what current runtimes all read


def _export_calls(s: Snippet, failure: Failure) -> list[cst.Call]:
    stmt, calls = s.calls_at(failure.line)
    names = {f"{t}.onnx.export" for t in _torch_prefixes(s)}
    found = [c for c in calls if (dotted(c.func) or "") in names]
    if not found:
        raise NotApplicable(f"line {failure.line} (`{first_line(s, stmt)}`) has no torch.onnx.export() call")
    return found


@register("onnx-newer-opset", "`torch.onnx.export(..., opset_version=11)` -> the opset the message names (or 17)")
def onnx_newer_opset(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    calls = _export_calls(s, failure)
    m = _ADDED_IN.search(failure.message or "")
    target = max(int(m.group(1)), NEWER_OPSET) if m else NEWER_OPSET
    current = [kwarg(c, "opset_version") for c in calls]
    for arg in current:
        if arg is not None and isinstance(arg.value, cst.Integer) and int(arg.value.value) >= target:
            raise NotApplicable(f"the export already asks for opset {arg.value.value}")
    edits = Edits(s)
    for call in calls:
        edits.replace_node(call, lambda u: set_kwarg(u, "opset_version", str(target)))
    return PatchResult.changed(edits.render(), f"opset_version={target} on line {failure.line}")


@register("onnx-no-constant-folding", "`torch.onnx.export(...)` -> `torch.onnx.export(..., do_constant_folding=False)`")
def onnx_no_constant_folding(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    calls = [c for c in _export_calls(s, failure) if kwarg(c, "do_constant_folding") is None
             or s.text(kwarg(c, "do_constant_folding").value) != "False"]
    if not calls:
        raise NotApplicable("the export already passes do_constant_folding=False")
    edits = Edits(s)
    for call in calls:
        edits.replace_node(call, lambda u: set_kwarg(u, "do_constant_folding", "False"))
    return PatchResult.changed(edits.render(), f"do_constant_folding=False on line {failure.line}")


# --- TorchScript scripting ----------------------------------------------------------------------

# `  File "/tmp/x/snippet.py", line 11` in the frontend's message
_SOURCE_LINE = re.compile(r'File "([^"]+)", line (\d+)')


def _unsupported_method(s: Snippet, failure: Failure) -> cst.FunctionDef:
    """The method of a class in the snippet that holds the construct the message points at."""
    files = failure.snippet_files
    lines = [int(n) for f, n in _SOURCE_LINE.findall(failure.message or "") if not files or f in files]
    if not lines:
        raise NotApplicable("the message points at no line of the snippet")
    line = lines[-1]
    for fn in s.find([s.module], cst.FunctionDef, nested=True):
        start, end = s.lines(fn)
        if start <= line <= end and not any(start <= s.line(inner) and s.lines(inner)[1] <= end and inner is not fn
                                            and s.line(inner) <= line <= s.lines(inner)[1]
                                            for inner in s.find([fn.body], cst.FunctionDef, nested=True)):
            if not isinstance(s.parent(s.parent(fn)), cst.ClassDef):
                raise NotApplicable(f"{fn.name.value} is not a method of a class (the scripted function itself)")
            if fn.name.value in ("forward", "__init__"):
                raise NotApplicable(f"the unsupported code is in {fn.name.value}, which scripting cannot skip")
            return fn
    raise NotApplicable(f"line {line} of the snippet is in no function")


def _decorate(code: str, failure: Failure, decorator: str) -> PatchResult:
    s = Snippet(code)
    fn = _unsupported_method(s, failure)
    torch = s.torch_name() or "torch"
    full = f"{torch}.jit.{decorator}"
    if any((dotted(d.decorator) or "") == full for d in fn.decorators):
        raise NotApplicable(f"{fn.name.value} is already decorated with @{full}")
    edits = Edits(s)
    edits.torch()
    edits.replace_node(fn, lambda u: u.with_changes(
        decorators=[*u.decorators, cst.Decorator(decorator=expression(full))]))
    return PatchResult.changed(edits.render(), f"@{full} on {fn.name.value} (line {s.line(fn)})")


@register("jit-ignore-unsupported-method", "`@torch.jit.ignore` on the method TorchScript cannot compile "
                                           "(it stays Python)")
def jit_ignore_unsupported_method(code: str, failure: Failure) -> PatchResult:
    return _decorate(code, failure, "ignore")


@register("jit-export-unsupported-method", "`@torch.jit.export` on the method TorchScript cannot compile")
def jit_export_unsupported_method(code: str, failure: Failure) -> PatchResult:
    return _decorate(code, failure, "export")


@register("jit-trace-instead-of-script",
          "`torch.jit.script(m)` -> `torch.jit.trace(m, example)` with the input the snippet later calls it with")
def jit_trace_instead_of_script(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt, calls = s.calls_at(failure.line)
    names = {f"{t}.jit.script" for t in _torch_prefixes(s)}
    scripts = [c for c in calls if (dotted(c.func) or "") in names and len(positional(c)) == 1]
    if not scripts:
        raise NotApplicable(f"line {failure.line} (`{first_line(s, stmt)}`) has no torch.jit.script(obj) call")
    script = scripts[0]
    small = next((x for x in s.header_nodes(stmt) if script in s.find([x], cst.Call)), None)
    if (not isinstance(small, cst.Assign) or len(small.targets) != 1
            or not isinstance(small.targets[0].target, cst.Name)):
        raise NotApplicable("the scripted module is not assigned to a name, so no example input can be found")
    target = small.targets[0].target.value
    # The first later call of the scripted module gives the example input.
    later = [c for c in s.find([s.module], cst.Call, nested=True, where=lambda c: dotted(c.func) == target)
             if s.line(c) > s.lines(stmt)[1]]
    if not later or not positional(later[0]) or len(positional(later[0])) != len(later[0].args):
        raise NotApplicable(f"{target} is never called with positional inputs after it is scripted")
    example = later[0]
    for arg in positional(example):
        for used in s.used_names(arg.value):
            if s.is_variable(used) and s.definition(used, stmt) is None:
                raise NotApplicable(f"the example input {used} is computed after the script call")
    inputs = ", ".join(s.text(a.value) for a in positional(example))
    torch = s.torch_name() or "torch"
    edits = Edits(s)
    edits.replace_node(script, lambda u: u.with_changes(
        func=expression(f"{torch}.jit.trace"),
        args=[u.args[0].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
              cst.Arg(value=expression(f"({inputs},)"))]))
    return PatchResult.changed(edits.render(),
                               f"torch.jit.trace with ({inputs},) instead of torch.jit.script on line {s.line(stmt)}")
