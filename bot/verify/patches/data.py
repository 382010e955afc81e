"""Patches for data loading and process-group errors: collate-type, dataloader-shm,
too-many-open-files, worker-pickle, sampler-shuffle-exclusive, random-split-lengths,
process-group-not-initialized, ddp-mark-ready-twice and syncbn-cpu.

Most of these errors surface on a line that only iterates a loader or runs a model;
the call to change (the `DataLoader(...)`, the `DistributedDataParallel(...)`, the
`convert_sync_batchnorm(...)`) was made earlier. The patches find that call (on the
failing line first, then through the variable the failing line uses, then the only
such call in the snippet) and change it alone.
"""

from __future__ import annotations

import libcst as cst

from bot.verify.patches.base import Failure, NotApplicable, PatchResult
from bot.verify.patches.calls import dotted, first_line, kwarg, positional, set_kwarg
from bot.verify.patches.registry import register
from bot.verify.patches.source import Edits, Snippet, assigned_names, expression, statement

CHEAP = (cst.Name, cst.Attribute, cst.Subscript)


def _calls_named(s: Snippet, roots, *names: str) -> list[cst.Call]:
    return s.find(roots, cst.Call, lambda c: (dotted(c.func) or "").split(".")[-1] in names, nested=True)


def _target_calls(s: Snippet, failure: Failure, *names: str, what: str) -> list[cst.Call]:
    """The calls of `names` the failure goes back to: on the failing line; else the one
    that bound a variable the failing line reads; else the only one in the snippet."""
    stmt = s.statement_at(failure.line)
    calls = _calls_named(s, s.header_nodes(stmt), *names)
    if calls:
        return calls
    for root in s.header_nodes(stmt):
        for name in s.used_names(root):
            d = s.definition(name, stmt)
            if d is not None:
                found = _calls_named(s, [d[0]], *names)
                if found:
                    return found
    everywhere = _calls_named(s, [s.module], *names)
    if len(everywhere) == 1:
        return everywhere
    if not everywhere:
        raise NotApplicable(f"the snippet has no {what} call")
    raise NotApplicable(f"line {failure.line} (`{first_line(s, stmt)}`) uses none of the snippet's "
                        f"{len(everywhere)} {what} calls directly")


def _drop_kwarg(call: cst.Call, name: str) -> cst.Call:
    args = [a for a in call.args if not (a.keyword is not None and a.keyword.value == name)]
    if args and not isinstance(call.args[-1].comma, cst.Comma):  # no trailing comma before: none after
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return call.with_changes(args=args)


def _module_statement(s: Snippet, node: cst.CSTNode) -> cst.BaseStatement:
    """The module-level statement that holds `node`."""
    top = s.body_statement(node)
    while not isinstance(s.block_of(top), cst.Module):
        top = s.body_statement(s.parent(s.block_of(top)))
    return top


def _loaders(s: Snippet, failure: Failure) -> list[cst.Call]:
    return _target_calls(s, failure, "DataLoader", what="DataLoader(...)")


# --- DataLoader worker processes ------------------------------------------------------------------


@register("num-workers-zero", "diagnostic: `DataLoader(..., num_workers=0)` loads in the main process "
                              "(no worker processes, no shared memory, no pickling)")
def num_workers_zero(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    loaders = _loaders(s, failure)
    edits = Edits(s)
    for call in loaders:
        kw = kwarg(call, "num_workers")
        if kw is None and len(positional(call)) < 6:
            raise NotApplicable("the DataLoader already loads in the main process (no num_workers argument)")
        if kw is not None and s.text(kw.value) == "0":
            raise NotApplicable("the DataLoader already has num_workers=0")
        if kw is None:
            raise NotApplicable("num_workers is passed by position; rewrite it as a keyword first")
        edits.replace_node(call, lambda u: _drop_kwarg(u, "multiprocessing_context")
                           if kwarg(u, "multiprocessing_context") else u)
        edits.replace_node(kw, lambda u: u.with_changes(value=expression("0")))
    lines = sorted({s.line(c) for c in loaders})
    return PatchResult.changed(edits.render(),
                               f"num_workers=0 on the DataLoader of line(s) {', '.join(map(str, lines))}")


@register("sharing-strategy-file-system", "`torch.multiprocessing.set_sharing_strategy('file_system')` before the "
                                          "first DataLoader (tensors from workers no longer hold a file "
                                          "descriptor each)")
def sharing_strategy_file_system(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    loaders = _loaders(s, failure)
    if "set_sharing_strategy" in code:
        raise NotApplicable("the snippet already sets a sharing strategy")
    edits = Edits(s)
    torch = edits.torch()
    first = min(loaders, key=s.line)
    edits.insert_before(_module_statement(s, first), f'{torch}.multiprocessing.set_sharing_strategy("file_system")')
    return PatchResult.changed(edits.render(),
                               f"sharing strategy file_system set before the DataLoader of line {s.line(first)}")


WORKER_FUNCTIONS = ("collate_fn", "worker_init_fn")


@register("worker-fn-to-module-level", "a lambda or nested function passed as collate_fn/worker_init_fn becomes a "
                                       "module-level function (picklable by spawn)")
def worker_fn_to_module_level(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    loaders = _loaders(s, failure)
    edits = Edits(s)
    moved: list[str] = []
    for call in loaders:
        for key in WORKER_FUNCTIONS:
            arg = kwarg(call, key)
            if arg is None:
                continue
            top = _module_statement(s, call)
            if isinstance(arg.value, cst.Lambda):
                fn = f"_{key}"
                params = s.module.code_for_node(arg.value.params)
                edits.insert_before(top, statement(f"def {fn}({params}):\n    return {s.text(arg.value.body)}\n"))
                edits.replace_node(arg, lambda u, fn=fn: u.with_changes(value=cst.Name(fn)))
                moved.append(f"the {key} lambda")
            elif isinstance(arg.value, cst.Name):
                nested = _nested_def(s, arg.value.value, call)
                if nested is None:
                    continue
                edits.insert_before(_module_statement(s, nested), nested.with_changes(leading_lines=()))
                edits.replace_node(nested, statement(f"pass  # {nested.name.value}() moved to module level"))
                moved.append(f"{nested.name.value}()")
    if not moved:
        raise NotApplicable("the DataLoader's collate_fn/worker_init_fn is neither a lambda nor a function "
                            "defined inside another function")
    return PatchResult.changed(edits.render(), f"{', '.join(moved)} moved to module level")


def _nested_def(s: Snippet, name: str, at: cst.CSTNode) -> cst.FunctionDef | None:
    """The function `name` defined inside the function that holds `at`, when it can move
    to module level (it reads none of that function's local names)."""
    outer = s.enclosing_function(at)
    if outer is None:
        return None
    defs = s.find([outer.body], cst.FunctionDef, lambda f: f.name.value == name, nested=True)
    if not defs:
        return None
    nested = defs[-1]
    local = {p.name.value for p in outer.params.params} | {
        n for st in s.find([outer.body], (cst.Assign, cst.AnnAssign, cst.AugAssign, cst.For, cst.With), nested=True)
        for n in assigned_names(st)}
    own = {p.name.value for p in nested.params.params}
    reads = set(s.used_names(nested.body)) - own
    closes = sorted(reads & local)
    if closes:
        raise NotApplicable(f"{name}() reads {', '.join(closes)} of the enclosing function; pass them with "
                            "functools.partial instead")
    return nested


@register("keep-batch-as-list", "`DataLoader(..., collate_fn=list)`: a batch is the list of samples, "
                                "converted by the training loop")
def keep_batch_as_list(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    loaders = _loaders(s, failure)
    edits = Edits(s)
    for call in loaders:
        if kwarg(call, "collate_fn") is not None:
            raise NotApplicable("the DataLoader already has a collate_fn")
        edits.replace_node(call, lambda u: set_kwarg(u, "collate_fn", "list"))
    return PatchResult.changed(edits.render(), f"collate_fn=list on the DataLoader of line {s.line(loaders[0])}")


# --- sampler and shuffle ----------------------------------------------------------------------------


def _shuffled_loaders(s: Snippet, failure: Failure) -> list[cst.Call]:
    loaders = [c for c in _loaders(s, failure) if kwarg(c, "shuffle") is not None
               and (kwarg(c, "sampler") is not None or kwarg(c, "batch_sampler") is not None)]
    if not loaders:
        raise NotApplicable("the DataLoader does not pass both shuffle= and sampler=/batch_sampler=")
    return loaders


@register("drop-shuffle-with-sampler", "remove `shuffle=` from a DataLoader that has a sampler "
                                       "(the sampler decides the order)")
def drop_shuffle_with_sampler(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    edits = Edits(s)
    loaders = _shuffled_loaders(s, failure)
    for call in loaders:
        edits.replace_node(call, lambda u: _drop_kwarg(u, "shuffle"))
    return PatchResult.changed(edits.render(), f"shuffle= removed from the DataLoader of line {s.line(loaders[0])}")


@register("sampler-as-batch-sampler", "dead end: pass the sampler as batch_sampler= and keep shuffle=")
def sampler_as_batch_sampler(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    edits = Edits(s)
    loaders = [c for c in _shuffled_loaders(s, failure) if kwarg(c, "sampler") is not None]
    if not loaders:
        raise NotApplicable("the DataLoader passes no sampler= to rename")
    for call in loaders:
        edits.replace_node(kwarg(call, "sampler"), lambda u: u.with_changes(keyword=cst.Name("batch_sampler")))
    return PatchResult.changed(edits.render(), f"sampler= renamed batch_sampler= on line {s.line(loaders[0])}")


# --- random_split -------------------------------------------------------------------------------


def _split(s: Snippet, failure: Failure) -> tuple[cst.Call, cst.Arg, cst.Arg, list[cst.BaseExpression]]:
    stmt = s.statement_at(failure.line)
    calls = _calls_named(s, s.header_nodes(stmt), "random_split")
    if not calls:
        raise NotApplicable(f"line {failure.line} (`{first_line(s, stmt)}`) calls no random_split()")
    call = calls[0]
    pos = positional(call)
    dataset = kwarg(call, "dataset") or (pos[0] if pos else None)
    lengths = kwarg(call, "lengths") or (pos[1] if len(pos) > 1 else None)
    if dataset is None or lengths is None:
        raise NotApplicable("random_split() is not given a dataset and lengths")
    if not isinstance(lengths.value, (cst.List, cst.Tuple)):
        raise NotApplicable(f"the lengths `{s.text(lengths.value)}` are not a list written in the call")
    if not isinstance(dataset.value, CHEAP):
        raise NotApplicable(f"the dataset `{s.text(dataset.value)}` is an expression; bind it to a name first")
    elements = [e.value for e in lengths.value.elements]
    if len(elements) < 2:
        raise NotApplicable("random_split() is given fewer than two lengths")
    return call, dataset, lengths, elements


def _with_elements(s: Snippet, container, texts: list[str]):
    elements = list(container.elements)
    return container.with_changes(elements=[e.with_changes(value=expression(t))
                                            for e, t in zip(elements, texts, strict=True)])


@register("random-split-remainder", "random_split: the last length becomes `len(dataset) - (the others)`")
def random_split_remainder(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    call, dataset, lengths, elements = _split(s, failure)
    others = " + ".join(s.text(e) for e in elements[:-1])
    texts = [s.text(e) for e in elements[:-1]] + [f"len({s.text(dataset.value)}) - ({others})"]
    edits = Edits(s)
    edits.replace_node(lengths.value, lambda u: _with_elements(s, u, texts))
    return PatchResult.changed(edits.render(),
                               f"last length computed from len({s.text(dataset.value)}) on line {s.line(call)}")


def _int_lengths(s: Snippet, elements) -> list[int]:
    if not all(isinstance(e, cst.Integer) for e in elements):
        raise NotApplicable("the lengths are not all whole numbers written in the call")
    values = [int(e.value.replace("_", ""), 0) for e in elements]
    if sum(values) <= 0:
        raise NotApplicable("the lengths add up to zero")
    return values


@register("random-split-fractions", "random_split: the lengths become fractions of their sum "
                                    "(torch >= 1.13 spreads the remainder)")
def random_split_fractions(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    call, _, lengths, elements = _split(s, failure)
    values = _int_lengths(s, elements)
    total = sum(values)
    edits = Edits(s)
    edits.replace_node(lengths.value, lambda u: _with_elements(s, u, [f"{v} / {total}" for v in values]))
    return PatchResult.changed(edits.render(), f"lengths as fractions of {total} on line {s.line(call)}")


@register("random-split-int-of-fractions", "dead end: random_split lengths as `int(fraction * len(dataset))` "
                                           "(rounding down loses samples)")
def random_split_int_of_fractions(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    call, dataset, lengths, elements = _split(s, failure)
    values = _int_lengths(s, elements)
    total = sum(values)
    name = s.text(dataset.value)
    edits = Edits(s)
    edits.replace_node(lengths.value, lambda u: _with_elements(
        s, u, [f"int({v / total!r} * len({name}))" for v in values]))
    return PatchResult.changed(edits.render(), f"lengths as int(fraction * len({name})) on line {s.line(call)}")


# --- process groups, DDP and SyncBatchNorm ---------------------------------------------------------


def _dist_name(s: Snippet) -> str | None:
    """The name torch.distributed is reachable under (`dist`, `torch.distributed`)."""
    for stmt in s.module.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if isinstance(small, cst.Import):
                for alias in small.names:
                    if s.text(alias.name) == "torch.distributed":
                        return alias.asname.name.value if alias.asname else "torch.distributed"
            if isinstance(small, cst.ImportFrom) and small.module is not None and s.text(small.module) == "torch" \
                    and not isinstance(small.names, cst.ImportStar):
                for alias in small.names:
                    if s.text(alias.name) == "distributed":
                        return alias.asname.name.value if alias.asname else "distributed"
    return None


@register("init-process-group-guard", "initialise the default process group before the failing call when it is "
                                      "not (torchrun's environment, or a single-process group for a plain run)")
def init_process_group_guard(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt = s.statement_at(failure.line)
    if "init_process_group" in code:
        raise NotApplicable("the snippet already calls init_process_group(); check that it runs before line "
                            f"{failure.line}")
    edits = Edits(s)
    torch = edits.torch()
    dist = _dist_name(s)
    top = s.first_code_statement()
    if dist is None:
        dist = "dist"
        edits.insert_before(top, "import torch.distributed as dist")
    edits.insert_before(top, "import os", "import tempfile")
    guard = (
        f"if not {dist}.is_initialized():\n"
        f'    backend = "nccl" if {torch}.cuda.is_available() else "gloo"\n'
        f'    if "RANK" in os.environ:  # started by torchrun: it sets RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT\n'
        f"        {dist}.init_process_group(backend)\n"
        f"    else:  # a plain `python script.py`: a group of one process\n"
        f'        {dist}.init_process_group(backend, init_method=f"file://{{tempfile.mkdtemp()}}/store", '
        f"rank=0, world_size=1)\n"
    )
    edits.insert_before(stmt, statement(guard))
    return PatchResult.changed(edits.render(), f"process group initialised before line {s.line(stmt)} when missing")


@register("syncbn-convert-only-on-gpu", "`convert_sync_batchnorm(model)` only when CUDA is available "
                                        "(plain BatchNorm on CPU)")
def syncbn_convert_only_on_gpu(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    calls = _calls_named(s, [s.module], "convert_sync_batchnorm")
    if not calls:
        raise NotApplicable("the snippet makes no convert_sync_batchnorm() call (SyncBatchNorm built directly: "
                            "replace it by BatchNorm*d by hand)")
    edits = Edits(s)
    torch = edits.torch()
    for call in calls:
        pos = positional(call)
        module = kwarg(call, "module") or (pos[0] if pos else None)
        if module is None:
            raise NotApplicable("convert_sync_batchnorm() is not given a module")
        plain = s.text(module.value)
        edits.replace_node(call, lambda u, plain=plain: expression(
            f"({s.module.code_for_node(u)} if {torch}.cuda.is_available() else {plain})"))
    return PatchResult.changed(edits.render(), f"SyncBatchNorm conversion on line {s.line(calls[0])} only with CUDA")


def _ddp_calls(s: Snippet, failure: Failure) -> list[cst.Call]:
    return _target_calls(s, failure, "DistributedDataParallel", "DDP", what="DistributedDataParallel(...)")


def _ddp_kwarg_patch(code: str, failure: Failure, name: str, value: str | None) -> PatchResult:
    s = Snippet(code)
    calls = _ddp_calls(s, failure)
    edits = Edits(s)
    for call in calls:
        if value is None:
            if kwarg(call, name) is None:
                raise NotApplicable(f"the DistributedDataParallel(...) call passes no {name}=")
            edits.replace_node(call, lambda u: _drop_kwarg(u, name))
        else:
            edits.replace_node(call, lambda u: set_kwarg(u, name, value))
    what = f"{name}= removed" if value is None else f"{name}={value}"
    return PatchResult.changed(edits.render(), f"{what} on the DistributedDataParallel of line {s.line(calls[0])}")


@register("ddp-static-graph", "`DistributedDataParallel(..., static_graph=True)`")
def ddp_static_graph(code: str, failure: Failure) -> PatchResult:
    return _ddp_kwarg_patch(code, failure, "static_graph", "True")


@register("ddp-drop-find-unused", "remove `find_unused_parameters=True` from DistributedDataParallel(...)")
def ddp_drop_find_unused(code: str, failure: Failure) -> PatchResult:
    return _ddp_kwarg_patch(code, failure, "find_unused_parameters", None)


@register("ddp-broadcast-buffers-false", "dead end: `DistributedDataParallel(..., broadcast_buffers=False)`")
def ddp_broadcast_buffers_false(code: str, failure: Failure) -> PatchResult:
    return _ddp_kwarg_patch(code, failure, "broadcast_buffers", "False")


@register("checkpoint-non-reentrant", "`torch.utils.checkpoint.checkpoint(..., use_reentrant=False)`")
def checkpoint_non_reentrant(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    calls = [c for c in _calls_named(s, [s.module], "checkpoint")
             if kwarg(c, "use_reentrant") is None or s.text(kwarg(c, "use_reentrant").value) != "False"]
    if not calls:
        raise NotApplicable("the snippet has no reentrant checkpoint() call")
    edits = Edits(s)
    for call in calls:
        edits.replace_node(call, lambda u: set_kwarg(u, "use_reentrant", "False"))
    return PatchResult.changed(edits.render(), f"use_reentrant=False on {len(calls)} checkpoint() call(s)")
