"""Patches for the CUDA, device and attention-backend classes.

- pytorch/flash-attention-unavailable: the `sdpa_kernel(...)` restriction around a failing
  scaled_dot_product_attention gets the math backend added, or is removed (both run on the
  CPU); forcing the global flash flag (a dead end) leaves the restriction in place.
- pytorch/cuda-fork-reinit: the fork start method becomes spawn (multiprocessing contexts,
  set_start_method, DataLoader workers), or the DataLoader loads in the main process.
- pytorch/invalid-device-ordinal: a literal GPU index on the failing line becomes the first
  visible GPU; torch.load maps storages saved on another GPU to the CPU. Only a GPU machine
  can run these two to the end; their tests check the transformation.
"""

from __future__ import annotations

import re

import libcst as cst

from bot.verify.patches.base import Failure, NotApplicable, PatchResult
from bot.verify.patches.calls import dotted, first_line, kwarg, positional, set_kwarg
from bot.verify.patches.registry import register
from bot.verify.patches.source import Edits, Snippet, expression

# --- flash-attention-unavailable -----------------------------------------------------------


def _is_sdpa_restriction(call: cst.CSTNode) -> bool:
    """`sdpa_kernel(...)` (torch.nn.attention, 2.3+) or the older `torch.backends.cuda.sdp_kernel(...)`."""
    name = dotted(call.func) if isinstance(call, cst.Call) else None
    return bool(name) and name.split(".")[-1] in ("sdpa_kernel", "sdp_kernel")


def _restricting_with(s: Snippet, failure: Failure) -> tuple[cst.With, cst.Call]:
    """The `with sdpa_kernel(...)` that encloses the failing statement, or the call of the
    snippet's traceback that led there (a model whose forward calls the attention)."""
    lines = [failure.line] + [f["line"] for f in reversed(failure.frames)
                              if f.get("in_snippet") and f.get("line") != failure.line]
    stmt = s.statement_at(failure.line)
    for line in lines:
        try:
            at = s.statement_at(line)
        except NotApplicable:
            continue
        for node in [at, *s.ancestors(at)]:
            if isinstance(node, cst.With):
                for item in node.items:
                    if _is_sdpa_restriction(item.item):
                        return node, item.item
    raise NotApplicable(f"line {failure.line} (`{first_line(s, stmt)}`) is not inside a `with sdpa_kernel(...)` block")


def _backend_list(call: cst.Call) -> cst.Arg:
    args = positional(call) or [a for a in call.args if a.keyword is not None and a.keyword.value == "backends"]
    if not args:
        raise NotApplicable("the sdpa_kernel() call names no backends")
    return args[0]


def _math_backend(reference: cst.BaseExpression, s: Snippet) -> str:
    """`SDPBackend.MATH`, spelled with the prefix the snippet uses for its other backend."""
    name = dotted(reference) if not isinstance(reference, (cst.List, cst.Tuple)) else None
    if isinstance(reference, (cst.List, cst.Tuple)) and reference.elements:
        name = dotted(reference.elements[0].value)
    if name and "." in name and name.rsplit(".", 1)[1].isupper():
        return name.rsplit(".", 1)[0] + ".MATH"
    raise NotApplicable(f"cannot tell how the snippet names SDPBackend (`{s.text(reference)}`)")


@register("sdpa-allow-math-fallback",
          "add SDPBackend.MATH to the `with sdpa_kernel(...)` around the failing attention call "
          "(enable_math=True for the older torch.backends.cuda.sdp_kernel)")
def sdpa_allow_math_fallback(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    with_stmt, call = _restricting_with(s, failure)
    edits = Edits(s)
    if (dotted(call.func) or "").endswith("sdp_kernel"):
        edits.replace_node(call, lambda u: set_kwarg(u, "enable_math", "True"))
        return PatchResult.changed(edits.render(), f"enable_math=True in the sdp_kernel() of line {s.line(with_stmt)}")
    arg = _backend_list(call)
    value = arg.value
    if any(_text_is_math(s, e.value) for e in getattr(value, "elements", [])) or _text_is_math(s, value):
        raise NotApplicable("the math backend is already allowed")
    math = _math_backend(value, s)
    if isinstance(value, (cst.List, cst.Tuple)):
        new_value = expression(f"[{', '.join([s.text(e.value) for e in value.elements] + [math])}]")
    else:
        new_value = expression(f"[{s.text(value)}, {math}]")
    edits.replace_node(value, new_value)
    return PatchResult.changed(edits.render(), f"{math} allowed by the sdpa_kernel() of line {s.line(with_stmt)}")


def _text_is_math(s: Snippet, node: cst.CSTNode) -> bool:
    return (dotted(node) or "").endswith(".MATH")


@register("remove-sdpa-kernel-restriction",
          "remove the `with sdpa_kernel(...)` around the failing attention call so PyTorch picks a backend")
def remove_sdpa_kernel_restriction(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    with_stmt, _ = _restricting_with(s, failure)
    if len(with_stmt.items) != 1:
        raise NotApplicable("the `with` also enters other context managers")
    if not isinstance(with_stmt.body, cst.IndentedBlock):
        raise NotApplicable("the `with` body is on its own line")
    edits = Edits(s)
    edits.unwrap_with(with_stmt)
    return PatchResult.changed(edits.render(), f"the sdpa_kernel() restriction of line {s.line(with_stmt)} removed")


@register("force-enable-flash-sdp",
          "call torch.backends.cuda.enable_flash_sdp(True) before the restricted attention block (a dead end)")
def force_enable_flash_sdp(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    with_stmt, _ = _restricting_with(s, failure)
    edits = Edits(s)
    torch = edits.torch()
    edits.insert_before(s.body_statement(with_stmt), f"{torch}.backends.cuda.enable_flash_sdp(True)")
    return PatchResult.changed(edits.render(), f"enable_flash_sdp(True) before line {s.line(with_stmt)}")


# --- cuda-fork-reinit ----------------------------------------------------------------------

_START_CALLS = ("get_context", "set_start_method")


def _fork_literals(s: Snippet) -> list[cst.SimpleString]:
    """The "fork" arguments of get_context()/set_start_method() and multiprocessing_context=."""
    found = []
    for call in s.find([s.module], cst.Call, nested=True):
        name = (dotted(call.func) or "").split(".")[-1]
        args = []
        if name in _START_CALLS:
            args = positional(call)[:1] + [a for a in call.args
                                           if a.keyword is not None and a.keyword.value == "method"]
        context = kwarg(call, "multiprocessing_context")
        if context is not None:
            args.append(context)
        for arg in args:
            if isinstance(arg.value, cst.SimpleString) and arg.value.evaluated_value == "fork":
                found.append(arg.value)
    return found


def _main_guard(s: Snippet) -> cst.If | None:
    for stmt in s.module.body:
        if isinstance(stmt, cst.If) and re.fullmatch(r"__name__\s*==\s*['\"]__main__['\"]", s.text(stmt.test)):
            return stmt
    return None


def _multiprocessing_name(s: Snippet) -> str | None:
    """The name the snippet imports multiprocessing (or torch.multiprocessing) under."""
    for stmt in s.module.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Import):
                    for alias in small.names:
                        if s.text(alias.name) in ("multiprocessing", "torch.multiprocessing"):
                            return s.text(alias.asname.name) if alias.asname else s.text(alias.name)
    return None


@register("multiprocessing-spawn",
          "start worker processes with spawn instead of fork: \"fork\" -> \"spawn\" in get_context/set_start_method, "
          "or set_start_method(\"spawn\", force=True) first thing under `if __name__ == \"__main__\":`")
def multiprocessing_spawn(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    edits = Edits(s)
    literals = _fork_literals(s)
    if literals:
        for literal in literals:
            quote = literal.value[0]
            edits.replace_node(literal, cst.SimpleString(f"{quote}spawn{quote}"))
        return PatchResult.changed(edits.render(), f"{len(literals)} \"fork\" start method(s) changed to \"spawn\"")
    guard = _main_guard(s)
    if guard is None or not isinstance(guard.body, cst.IndentedBlock):
        raise NotApplicable("spawn re-imports the main module in every child: the snippet needs its process "
                            "start under `if __name__ == \"__main__\":` first")
    mp = _multiprocessing_name(s)
    line = f"{mp}.set_start_method(\"spawn\", force=True)" if mp else \
        "import multiprocessing; multiprocessing.set_start_method(\"spawn\", force=True)"
    edits.insert_before(guard.body.body[0], line)
    return PatchResult.changed(edits.render(), "set_start_method(\"spawn\") at the start of the __main__ block")


def _dataloaders(s: Snippet) -> list[cst.Call]:
    return [c for c in s.find([s.module], cst.Call, nested=True)
            if (dotted(c.func) or "").split(".")[-1] == "DataLoader"]


def _worker_count(call: cst.Call) -> cst.Arg | None:
    arg = kwarg(call, "num_workers")
    if arg is None or (isinstance(arg.value, cst.Integer) and arg.value.evaluated_value == 0):
        return None
    return arg


@register("dataloader-spawn-workers",
          "DataLoader(..., num_workers=N) -> DataLoader(..., num_workers=N, multiprocessing_context=\"spawn\")")
def dataloader_spawn_workers(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    loaders = [c for c in _dataloaders(s) if _worker_count(c) is not None]
    if not loaders:
        raise NotApplicable("the snippet builds no DataLoader with worker processes (num_workers > 0)")
    edits = Edits(s)
    for call in loaders:
        edits.replace_node(call, lambda u: set_kwarg(u, "multiprocessing_context", "\"spawn\""))
    return PatchResult.changed(edits.render(), f"multiprocessing_context=\"spawn\" on {len(loaders)} DataLoader(s)")


@register("dataloader-main-process",
          "DataLoader(..., num_workers=N) -> num_workers=0: load batches in the main process, no fork at all")
def dataloader_main_process(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    loaders = [c for c in _dataloaders(s) if _worker_count(c) is not None]
    if not loaders:
        raise NotApplicable("the snippet builds no DataLoader with worker processes (num_workers > 0)")
    edits = Edits(s)
    for call in loaders:
        edits.replace_node(call, lambda u: set_kwarg(u, "num_workers", "0"))
    return PatchResult.changed(edits.render(), f"num_workers=0 on {len(loaders)} DataLoader(s)")


# --- invalid-device-ordinal ----------------------------------------------------------------

_ORDINAL = re.compile(r"^(cuda|gpu):(\d+)$")


def _ordinal_nodes(s: Snippet, stmt: cst.BaseStatement) -> list[tuple[cst.CSTNode, str]]:
    """Literal GPU indices on the statement, with what to put there instead."""
    found: list[tuple[cst.CSTNode, str]] = []
    roots = s.header_nodes(stmt)
    for string in s.find(roots, cst.SimpleString):
        value = string.evaluated_value
        if isinstance(value, str):
            m = _ORDINAL.match(value)
            if m and m.group(2) != "0":
                quote = string.value[0]
                found.append((string, f"{quote}{m.group(1)}:0{quote}"))
    for call in s.find(roots, cst.Call):
        name = dotted(call.func) or (call.func.attr.value if isinstance(call.func, cst.Attribute) else "")
        args = positional(call)
        if name.split(".")[-1] in ("set_device", "cuda") and args and isinstance(args[0].value, cst.Integer):
            index = args[0].value
        elif name.endswith("device") and len(args) >= 2 and isinstance(args[1].value, cst.Integer) \
                and isinstance(args[0].value, cst.SimpleString) and args[0].value.evaluated_value == "cuda":
            index = args[1].value  # torch.device("cuda", 3)
        else:
            continue
        if index.evaluated_value != 0:
            found.append((index, "0"))
    return found


@register("first-visible-gpu",
          "a literal GPU index on the failing line (\"cuda:3\", set_device(3), .cuda(3), torch.device(\"cuda\", 3)) "
          "-> index 0, the first GPU this process can see")
def first_visible_gpu(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt = s.statement_at(failure.line)
    nodes = _ordinal_nodes(s, stmt)
    if not nodes:
        raise NotApplicable(f"line {failure.line} (`{first_line(s, stmt)}`) names no literal GPU index other than 0")
    edits = Edits(s)
    for node, replacement in nodes:
        edits.replace_node(node, expression(replacement))
    return PatchResult.changed(edits.render(), f"{len(nodes)} GPU index(es) on line {s.line(stmt)} set to 0")


@register("load-map-location-cpu",
          "torch.load(f) -> torch.load(f, map_location=\"cpu\"): storages saved on a GPU this machine lacks "
          "load on the CPU")
def load_map_location_cpu(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt = s.statement_at(failure.line)
    calls = [c for c in s.find(s.header_nodes(stmt), cst.Call)
             if (dotted(c.func) or "") in ("torch.load", "load") or (dotted(c.func) or "").endswith(".torch.load")]
    if not calls:
        raise NotApplicable(f"line {failure.line} (`{first_line(s, stmt)}`) has no torch.load() call")
    edits = Edits(s)
    for call in calls:
        edits.replace_node(call, lambda u: set_kwarg(u, "map_location", "\"cpu\""))
    return PatchResult.changed(edits.render(), f"map_location=\"cpu\" on the torch.load() of line {s.line(stmt)}")
