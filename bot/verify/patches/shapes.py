"""Patches for shape and size errors: conv-input-channels, conv-input-rank,
stack-unequal-size, cat-size-mismatch, reshape-invalid-size, expand-size-mismatch,
dim-out-of-range and broadcast-size-mismatch.

Each patch rewrites the call on the failing line (`Failure.line`) and leaves the rest
of the snippet as it was. Where the fix needs sizes, they come from the error message
(PyTorch prints them) or, for broadcasting, from one diagnostic run that prints the
shapes of the names the failing line reads.
"""

from __future__ import annotations

import re

import libcst as cst

from bot.verify.patches.base import Failure, NotApplicable, PatchResult
from bot.verify.patches.calls import (call_method, constructor_like, dotted, first_line, is_module_call, kwarg, method,
                                      module_like_names, paren, positional, receiver, set_kwarg, value_of)
from bot.verify.patches.registry import register
from bot.verify.patches.source import Edits, Snippet, expression
from bot.verify.patches.tensors import tensor_like

CONV_RE = re.compile(r"^(?:Lazy)?Conv(?:Transpose)?[123]d$")
CONV_FUNCTIONS = re.compile(r"^conv(?:_transpose)?[123]d$")


def _ints(text: str) -> list[int]:
    return [int(v) for v in re.findall(r"-?\d+", text)]


def _top_level(s: Snippet, node: cst.CSTNode) -> cst.BaseStatement:
    """The module-level statement that holds `node` (where a helper function can go)."""
    stmt = s.body_statement(node)
    while not isinstance(s.parent(stmt), cst.Module):
        stmt = s.body_statement(s.parent(stmt))
    return stmt


def _conv_constructor(s: Snippet, node: cst.CSTNode) -> bool:
    return isinstance(node, cst.Call) and bool(CONV_RE.match((dotted(node.func) or "").split(".")[-1]))


def _conv_call(s: Snippet, stmt) -> tuple[cst.Call, cst.Arg]:
    """The call on the failing line that feeds a convolution, and its input argument:
    `conv(x)`, `nn.Conv2d(1, 8, 3)(x)`, `model(x)`, `self.conv1(x)` or `F.conv2d(x, w)`."""
    models = module_like_names(s, stmt)
    for call in s.find(s.header_nodes(stmt), cst.Call):
        args = [a for a in positional(call) if tensor_like(a.value)]
        if not args:
            continue
        name = (dotted(call.func) or "").split(".")[-1]
        inline = isinstance(call.func, cst.Call) and constructor_like(s, call.func)
        if CONV_FUNCTIONS.match(name) or inline or is_module_call(s, call, models):
            return call, args[0]
    raise NotApplicable(f"line {s.line(stmt)} (`{first_line(s, stmt)}`) calls no convolution or model with a tensor")


# --- conv-input-channels --------------------------------------------------------------------------

CHANNELS_RE = re.compile(r"weight(?: of size)?\s*\[?([\d, ]+?)\]?,? (?:so )?expected input\[([\d, ]+)\] "
                         r"to have (\d+) channels, but got (\d+) channels")


def _channels(failure: Failure) -> tuple[list[int], list[int], int, int]:
    m = CHANNELS_RE.search(failure.message)
    if not m:
        raise NotApplicable("the message does not give the expected and the actual number of channels")
    return _ints(m.group(1)), _ints(m.group(2)), int(m.group(3)), int(m.group(4))


@register("repeat-gray-channel", "repeat a one-channel (grayscale) input to the channels the convolution expects")
def repeat_gray_channel(code: str, failure: Failure) -> PatchResult:
    weight, _, expected, got = _channels(failure)
    if got != 1:
        raise NotApplicable(f"the input has {got} channels, not one: repeating a gray channel does not apply")
    s = Snippet(code)
    stmt = s.statement_at(failure.line)
    call, arg = _conv_call(s, stmt)
    channel_dim = -(len(weight) - 1)  # counted from the end: works batched and unbatched
    edits = Edits(s)
    edits.replace_node(arg, lambda u: u.with_changes(
        value=call_method(u.value, "repeat_interleave", f"{expected}, dim={channel_dim}")))
    return PatchResult.changed(edits.render(),
                               f"{s.text(arg.value)} repeated to {expected} channels on line {s.line(stmt)}")


def _in_channels_arg(call: cst.Call) -> cst.Arg | None:
    arg = kwarg(call, "in_channels")
    if arg is not None:
        return arg
    args = positional(call)
    return args[0] if args else None


@register("conv-in-channels-from-input", "set the convolution's in_channels to the number of channels the input has")
def conv_in_channels_from_input(code: str, failure: Failure) -> PatchResult:
    _, _, expected, got = _channels(failure)
    s = Snippet(code)
    stmt = s.statement_at(failure.line)
    call, _ = _conv_call(s, stmt)

    def literal(c: cst.Call) -> bool:
        arg = _in_channels_arg(c)
        return arg is not None and isinstance(arg.value, cst.Integer) and int(arg.value.value) == expected

    # The layer the failing call uses: inline, a variable bound to it, or a container holding it.
    scope: list[cst.CSTNode] = []
    func = call.func
    if isinstance(func, cst.Call):
        scope = [func]
    elif isinstance(func, cst.Name):
        d = s.definition(func.value, stmt)
        if d is not None and value_of(d[0]) is not None:
            scope = [value_of(d[0])]
    candidates = [c for c in s.find(scope, cst.Call, lambda c: _conv_constructor(s, c), nested=True) if literal(c)]
    if not candidates:  # a model class: the first convolution anywhere that expects that many channels
        candidates = [c for c in s.find([s.module], cst.Call, lambda c: _conv_constructor(s, c), nested=True)
                      if literal(c)]
    if not candidates:
        raise NotApplicable(f"no convolution with a literal in_channels of {expected} was found")
    target = candidates[0]
    edits = Edits(s)
    arg = _in_channels_arg(target)
    edits.replace_node(arg, lambda u: u.with_changes(value=cst.Integer(str(got))))
    return PatchResult.changed(edits.render(), f"in_channels {expected} -> {got} on line {s.line(target)}")


@register("view-input-as-expected-channels", "dead end: reshape the input to (-1, expected channels, ...) "
                                             "(regroups values instead of adding channels)")
def view_input_as_expected_channels(code: str, failure: Failure) -> PatchResult:
    weight, _, expected, _ = _channels(failure)
    s = Snippet(code)
    stmt = s.statement_at(failure.line)
    _, arg = _conv_call(s, stmt)
    if not isinstance(arg.value, (cst.Name, cst.Attribute)):
        raise NotApplicable("the convolution's input is not a plain name")
    name = s.text(arg.value)
    spatial = len(weight) - 2
    edits = Edits(s)
    edits.replace_node(arg, lambda u: u.with_changes(
        value=expression(f"{name}.reshape(-1, {expected}, *{name}.shape[-{spatial}:])")))
    return PatchResult.changed(edits.render(), f"{name} reshaped to {expected} channels on line {s.line(stmt)}")


# --- conv-input-rank ------------------------------------------------------------------------------

RANK_RE = re.compile(r"Expected (\d)D \(unbatched\) or (\d)D \(batched\) input to \w+, "
                     r"but got input of size: \[([\d, ]*)\]")
OLD_RANK_RE = re.compile(r"Expected (\d+)-dimensional input for \d+-dimensional weight.*?, "
                         r"but got (\d+)-dimensional input")


def _ranks(failure: Failure) -> tuple[int, int]:
    """(the batched rank the layer wants, the rank it got)."""
    m = RANK_RE.search(failure.message)
    if m:
        return int(m.group(2)), len(_ints(m.group(3)))
    m = OLD_RANK_RE.search(failure.message)
    if m:
        return int(m.group(1)), int(m.group(2))
    raise NotApplicable("the message does not give the expected and the actual number of dimensions")


@register("match-conv-input-rank", "add leading batch/channel dimensions of size 1 to a low-rank conv input, "
                                   "or fold extra leading dimensions into the batch")
def match_conv_input_rank(code: str, failure: Failure) -> PatchResult:
    want, have = _ranks(failure)
    s = Snippet(code)
    stmt = s.statement_at(failure.line)
    _, arg = _conv_call(s, stmt)
    edits = Edits(s)
    if have < want:
        new = arg.value
        for _ in range(want - have):
            new = call_method(new, "unsqueeze", "0")
        note = f"{want - have} leading dimension(s) added to {s.text(arg.value)}"
    elif have > want:
        new = call_method(arg.value, "flatten", f"0, {have - want}")
        note = f"the first {have - want + 1} dimensions of {s.text(arg.value)} folded into the batch"
    else:
        raise NotApplicable("the input already has the batched rank")
    edits.replace_node(arg, lambda u: u.with_changes(value=new))
    return PatchResult.changed(edits.render(), f"{note} on line {s.line(stmt)}")


@register("unsqueeze-channel-last", "dead end: add the missing channel dimension at the end (HWC habit)")
def unsqueeze_channel_last(code: str, failure: Failure) -> PatchResult:
    want, have = _ranks(failure)
    if have >= want:
        raise NotApplicable("the input does not lack a dimension")
    s = Snippet(code)
    stmt = s.statement_at(failure.line)
    _, arg = _conv_call(s, stmt)
    edits = Edits(s)
    edits.replace_node(arg, lambda u: u.with_changes(value=call_method(u.value, "unsqueeze", "-1")))
    return PatchResult.changed(edits.render(), f"{s.text(arg.value)}.unsqueeze(-1) on line {s.line(stmt)}")


# --- helpers inserted into the snippet ---------------------------------------------------------------

PAD_HELPER = '''\
def _pad_to_largest(tensors, skip_dim=None):
    """Zero-pad tensors at the end of every dimension (but skip_dim) to the largest size."""
    import torch.nn.functional as F
    tensors = list(tensors)
    dims = tensors[0].dim()
    skip = None if skip_dim is None else skip_dim % dims
    largest = [max(t.shape[d] for t in tensors) for d in range(dims)]
    out = []
    for t in tensors:
        pad = []
        for d in reversed(range(dims)):
            pad += [0, 0 if d == skip else largest[d] - t.shape[d]]
        out.append(F.pad(t, pad))
    return out
'''

CROP_HELPER = '''\
def _crop_to_smallest(tensors, skip_dim=None):
    """Center-crop tensors in every dimension (but skip_dim) to the smallest size."""
    tensors = list(tensors)
    dims = tensors[0].dim()
    skip = None if skip_dim is None else skip_dim % dims
    smallest = [min(t.shape[d] for t in tensors) for d in range(dims)]
    out = []
    for t in tensors:
        for d in range(dims):
            if d != skip:
                start = (t.shape[d] - smallest[d]) // 2
                t = t.narrow(d, start, smallest[d])
        out.append(t)
    return out
'''

COLLATE_HELPER = '''\
def _pad_collate(batch):
    """default_collate, but tensors of one field are zero-padded to the largest first."""
    import torch
    from torch.utils.data import default_collate
    first = batch[0]
    if isinstance(first, torch.Tensor):
        return torch.stack(_pad_to_largest(batch))
    if isinstance(first, (tuple, list)):
        return [_pad_collate(list(field)) for field in zip(*batch)]
    if isinstance(first, dict):
        return {key: _pad_collate([sample[key] for sample in batch]) for key in first}
    return default_collate(batch)
'''


def _defines(s: Snippet, name: str) -> bool:
    return s.is_definition(name)


def _insert_helpers(s: Snippet, edits: Edits, at: cst.CSTNode, *helpers: str) -> None:
    top = _top_level(s, at)
    for helper in helpers:
        name = re.match(r"def (\w+)", helper).group(1)
        if not _defines(s, name):
            edits.insert_before(top, helper)


def _torch_calls(s: Snippet, stmt, names: set[str]) -> list[cst.Call]:
    return [c for c in s.find(s.header_nodes(stmt), cst.Call)
            if (dotted(c.func) or "").split(".")[-1] in names and positional(c)]


def _dim_of(call: cst.Call) -> str:
    arg = kwarg(call, "dim") or kwarg(call, "axis")
    if arg is None:
        args = positional(call)
        arg = args[1] if len(args) > 1 else None
    return "0" if arg is None else _code(arg.value)


def _code(node: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(node)


def _wrap_first_arg(edits: Edits, call: cst.Call, template: str) -> None:
    first = positional(call)[0]
    edits.replace_node(first, lambda u: u.with_changes(value=expression(template.format(_code(u.value)))))


# --- stack-unequal-size -------------------------------------------------------------------------------


def _dataloader_constructor(s: Snippet, stmt) -> cst.Call | None:
    def is_loader(node) -> bool:
        return isinstance(node, cst.Call) and (dotted(node.func) or "").split(".")[-1] == "DataLoader"

    found = s.find(s.header_nodes(stmt), cst.Call, is_loader)
    if found:
        return found[0]
    for name in s.used_names(stmt) if isinstance(stmt, cst.SimpleStatementLine) else \
            [n for part in s.header_nodes(stmt) for n in s.used_names(part)]:
        if not s.is_variable(name):
            continue
        d = s.definition(name, stmt)
        value = value_of(d[0]) if d else None
        if value is not None:
            loaders = s.find([value], cst.Call, is_loader, nested=True)
            if loaders:
                return loaders[0]
    return None


@register("pad-to-largest-before-stack", "zero-pad the tensors to the largest size before they are stacked: "
                                         "around torch.stack on the failing line, or as the DataLoader's collate_fn")
def pad_to_largest_before_stack(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt = s.statement_at(failure.line)
    edits = Edits(s)
    stacks = _torch_calls(s, stmt, {"stack", "vstack", "hstack"})
    stacks = [c for c in stacks if (dotted(c.func) or "").split(".")[0] in {"torch", s.torch_name() or "torch"}]
    if stacks:
        for call in stacks:
            _wrap_first_arg(edits, call, "_pad_to_largest({})")
        _insert_helpers(s, edits, stmt, PAD_HELPER)
        return PatchResult.changed(edits.render(),
                                   f"tensors padded to the largest size before torch.stack on line {s.line(stmt)}")
    loader = _dataloader_constructor(s, stmt)
    if loader is None:
        raise NotApplicable(f"line {failure.line} (`{first_line(s, stmt)}`) has no torch.stack and reads no DataLoader")
    if kwarg(loader, "collate_fn") is not None:
        raise NotApplicable("the DataLoader already has a collate_fn: pad inside it")
    edits.replace_node(loader, lambda u: set_kwarg(u, "collate_fn", "_pad_collate"))
    _insert_helpers(s, edits, loader, PAD_HELPER, COLLATE_HELPER)
    return PatchResult.changed(edits.render(),
                               f"collate_fn=_pad_collate added to the DataLoader on line {s.line(loader)}")


@register("drop-last-for-unequal-sizes", "dead end: drop_last=True on the DataLoader (the sizes differ inside a batch)")
def drop_last_for_unequal_sizes(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt = s.statement_at(failure.line)
    loader = _dataloader_constructor(s, stmt)
    if loader is None:
        raise NotApplicable(f"line {failure.line} (`{first_line(s, stmt)}`) reads no DataLoader")
    edits = Edits(s)
    edits.replace_node(loader, lambda u: set_kwarg(u, "drop_last", "True"))
    return PatchResult.changed(edits.render(), f"drop_last=True on the DataLoader on line {s.line(loader)}")


# --- cat-size-mismatch ----------------------------------------------------------------------------------


def _cats(s: Snippet, stmt) -> list[cst.Call]:
    cats = _torch_calls(s, stmt, {"cat", "concat", "concatenate"})
    if not cats:
        raise NotApplicable(f"line {s.line(stmt)} (`{first_line(s, stmt)}`) has no torch.cat")
    return cats


def _around_cat(code: str, failure: Failure, helper: str, name: str, what: str) -> PatchResult:
    s = Snippet(code)
    stmt = s.statement_at(failure.line)
    edits = Edits(s)
    for call in _cats(s, stmt):
        _wrap_first_arg(edits, call, f"{name}({{}}, skip_dim={_dim_of(call)})")
    _insert_helpers(s, edits, stmt, helper)
    return PatchResult.changed(edits.render(), f"{what} before torch.cat on line {s.line(stmt)}")


@register("crop-to-smallest-before-cat", "center-crop the tensors to the smallest size (except the cat dimension) "
                                         "before torch.cat")
def crop_to_smallest_before_cat(code: str, failure: Failure) -> PatchResult:
    return _around_cat(code, failure, CROP_HELPER, "_crop_to_smallest", "tensors cropped to the smallest size")


@register("pad-to-largest-before-cat", "zero-pad the tensors to the largest size (except the cat dimension) "
                                       "before torch.cat")
def pad_to_largest_before_cat(code: str, failure: Failure) -> PatchResult:
    return _around_cat(code, failure, PAD_HELPER, "_pad_to_largest", "tensors padded to the largest size")


@register("stack-instead-of-cat", "dead end: torch.stack instead of torch.cat (stack needs every size equal)")
def stack_instead_of_cat(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt = s.statement_at(failure.line)
    edits = Edits(s)
    for call in _cats(s, stmt):
        edits.replace_node(call.func, lambda u: u.with_changes(attr=cst.Name("stack"))
                           if isinstance(u, cst.Attribute) else cst.Name("stack"))
    return PatchResult.changed(edits.render(), f"torch.cat -> torch.stack on line {s.line(stmt)}")


# --- reshape-invalid-size ---------------------------------------------------------------------------------


def _reshapes(s: Snippet, stmt) -> list[cst.Call]:
    found = [c for c in s.find(s.header_nodes(stmt), cst.Call)
             if method(c) in {"view", "reshape"} and receiver(c) is not None and len(positional(c)) >= 2
             and (dotted(receiver(c)) or "") not in {"torch", s.torch_name() or "torch"}]
    if not found:
        raise NotApplicable(f"line {s.line(stmt)} (`{first_line(s, stmt)}`) has no .view/.reshape with several sizes")
    return found


@register("flatten-keeping-batch", "`x.view(N, F)` -> `x.flatten(1)`: keep the batch dimension, infer the rest")
def flatten_keeping_batch(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt = s.statement_at(failure.line)
    calls = [c for c in _reshapes(s, stmt) if len(positional(c)) == 2]
    if not calls:
        raise NotApplicable("the reshape on the failing line does not flatten to two dimensions")
    edits = Edits(s)
    for call in calls:
        edits.replace_node(call, lambda u: call_method(u.func.value, "flatten", "1"))
    return PatchResult.changed(edits.render(), f".view/.reshape to two sizes -> .flatten(1) on line {s.line(stmt)}")


@register("minus-one-for-batch", "dead end: `x.view(-1, F)` keeps the wrong per-sample size and lets -1 absorb it")
def minus_one_for_batch(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt = s.statement_at(failure.line)
    edits = Edits(s)
    changed = False
    for call in _reshapes(s, stmt):
        first = positional(call)[0]
        if isinstance(first.value, cst.UnaryOperation) and s.text(first.value) == "-1":
            continue
        edits.replace_node(first, lambda u: u.with_changes(value=expression("-1")))
        changed = True
    if not changed:
        raise NotApplicable("the first size is already -1")
    return PatchResult.changed(edits.render(), f"first size -> -1 on line {s.line(stmt)}")


# --- expand-size-mismatch ----------------------------------------------------------------------------------

EXPAND_RE = re.compile(r"Target sizes: \[([-\d, ]*)\]\.\s+Tensor sizes: \[([\d, ]*)\]")


def _align(target: list[int], sizes: list[int]) -> list[int] | None:
    """Positions in `target` for each existing size, matched from the right (size equal,
    size 1, or -1 in the target), so that the existing dimensions keep their order."""
    positions: list[int] = []
    t = len(target) - 1
    for size in reversed(sizes):
        while t >= 0 and not (target[t] == size or size == 1 or target[t] == -1):
            t -= 1
        if t < 0:
            return None
        positions.append(t)
        t -= 1
    return list(reversed(positions))


@register("unsqueeze-before-expand", "insert size-1 dimensions so that the tensor's sizes line up with the "
                                     "target sizes of expand")
def unsqueeze_before_expand(code: str, failure: Failure) -> PatchResult:
    m = EXPAND_RE.search(failure.message)
    if not m:
        raise NotApplicable("the message does not give the target and the tensor sizes")
    target, sizes = _ints(m.group(1)), _ints(m.group(2))
    positions = _align(target, sizes)
    if positions is None or len(target) == len(sizes):
        raise NotApplicable(f"the sizes {sizes} cannot be lined up with {target} by adding dimensions")
    s = Snippet(code)
    stmt = s.statement_at(failure.line)
    calls = [c for c in s.find(s.header_nodes(stmt), cst.Call)
             if method(c) in {"expand", "expand_as"} and receiver(c) is not None]
    if not calls:
        raise NotApplicable(f"line {failure.line} (`{first_line(s, stmt)}`) has no .expand call")
    index = ", ".join(":" if i in positions else "None" for i in range(len(target)))
    edits = Edits(s)
    for call in calls:
        edits.replace_node(call, lambda u: u.with_changes(func=u.func.with_changes(
            value=expression(f"{_code(paren(u.func.value))}[{index}]"))))
    return PatchResult.changed(edits.render(), f"[{index}] before .expand on line {s.line(stmt)}")


@register("reshape-instead-of-expand", "dead end: `.reshape(target)` instead of `.expand(target)` "
                                       "(reshape cannot add elements)")
def reshape_instead_of_expand(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt = s.statement_at(failure.line)
    calls = [c for c in s.find(s.header_nodes(stmt), cst.Call) if method(c) == "expand" and receiver(c) is not None]
    if not calls:
        raise NotApplicable(f"line {failure.line} (`{first_line(s, stmt)}`) has no .expand call")
    edits = Edits(s)
    for call in calls:
        edits.replace_node(call, lambda u: u.with_changes(func=u.func.with_changes(attr=cst.Name("reshape"))))
    return PatchResult.changed(edits.render(), f".expand -> .reshape on line {s.line(stmt)}")


# --- dim-out-of-range -----------------------------------------------------------------------------------------

DIM_RE = re.compile(r"expected to be in range of \[(-?\d+), (-?\d+)\], but got (-?\d+)\)")
DIM_FUNCTIONS = {"softmax", "log_softmax", "argmax", "argmin", "sum", "mean", "max", "min", "cat", "stack", "squeeze",
                 "unsqueeze", "size", "transpose", "flatten", "norm", "cumsum", "topk", "sort", "gather", "std", "var",
                 "prod", "amax", "amin", "all", "any", "logsumexp", "normalize", "cross_entropy", "nll_loss", "select",
                 "index_select", "narrow", "split", "chunk", "unbind", "movedim", "median", "mode", "Softmax",
                 "LogSoftmax"}


def _dim_failure(failure: Failure) -> tuple[int, int, int]:
    m = DIM_RE.search(failure.message)
    if not m:
        raise NotApplicable("the message does not give the valid range and the dim that was asked for")
    return int(m.group(1)), int(m.group(2)), int(m.group(3))


def _bad_dim_args(s: Snippet, stmt, got: int) -> list[tuple[cst.Call, cst.Arg]]:
    found = []
    for call in s.find(s.header_nodes(stmt), cst.Call):
        name = (dotted(call.func) or method(call) or "").split(".")[-1]
        if name not in DIM_FUNCTIONS:
            continue
        for arg in call.args:
            keyword = arg.keyword.value if arg.keyword is not None else None
            if keyword in {"dim", "axis", "dim0", "dim1"} or (keyword is None and name in {"size", "unsqueeze",
                                                                                          "squeeze", "transpose"}):
                if s.text(arg.value) == str(got):
                    found.append((call, arg))
        if not found and name != "size":
            args = positional(call)
            # torch.softmax(x, 1), x.sum(1), torch.cat(xs, 1): the dim is positional
            by_function = receiver(call) is None or (dotted(receiver(call)) or "") in {"torch", "F"}
            candidates = args[1:] if by_function else args
            found += [(call, a) for a in candidates if s.text(a.value) == str(got)]
    return found


@register("last-dim-instead", "dim=<out of range> -> dim=-1 (the last dimension, whatever the rank)")
def last_dim_instead(code: str, failure: Failure) -> PatchResult:
    low, high, got = _dim_failure(failure)
    if got < 0:
        raise NotApplicable("the dim asked for is already counted from the end")
    s = Snippet(code)
    stmt = s.statement_at(failure.line)
    found = _bad_dim_args(s, stmt, got)
    if not found:
        raise NotApplicable(f"line {failure.line} (`{first_line(s, stmt)}`) passes no dim={got}")
    edits = Edits(s)
    for _, arg in found:
        edits.replace_node(arg, lambda u: u.with_changes(value=expression("-1")))
    return PatchResult.changed(edits.render(), f"dim={got} -> dim=-1 on line {s.line(stmt)}")


def _dim_input(s: Snippet, call: cst.Call) -> cst.CSTNode | None:
    """The tensor a dim-taking call works on: the receiver of x.sum(1), the first argument of torch.softmax(x, 1)."""
    recv = receiver(call)
    if recv is not None and (dotted(recv) or "") not in {"torch", "F", "nn.functional", "torch.nn.functional"}:
        return recv
    args = positional(call)
    return args[0] if args and tensor_like(args[0].value) else None


def _wrap_dim_input(code: str, failure: Failure, name: str, args: str, note: str) -> PatchResult:
    _, _, got = _dim_failure(failure)
    s = Snippet(code)
    stmt = s.statement_at(failure.line)
    found = _bad_dim_args(s, stmt, got)
    if not found:
        raise NotApplicable(f"line {failure.line} (`{first_line(s, stmt)}`) passes no dim={got}")
    call = found[0][0]
    target = _dim_input(s, call)
    if target is None:
        raise NotApplicable("cannot tell which tensor the dim refers to")
    edits = Edits(s)
    if isinstance(target, cst.Arg):
        edits.replace_node(target, lambda u: u.with_changes(value=call_method(u.value, name, args)))
    else:
        edits.replace_node(call, lambda u: u.with_changes(func=u.func.with_changes(
            value=call_method(u.func.value, name, args))))
    return PatchResult.changed(edits.render(), f"{note} on line {s.line(stmt)}")


@register("unsqueeze-missing-batch-dim", "add the missing leading (batch) dimension with .unsqueeze(0) to the "
                                         "tensor the out-of-range dim refers to")
def unsqueeze_missing_batch_dim(code: str, failure: Failure) -> PatchResult:
    return _wrap_dim_input(code, failure, "unsqueeze", "0", ".unsqueeze(0) on the input")


@register("flatten-before-dim-op", "dead end: flatten the input (it removes dimensions, never adds them)")
def flatten_before_dim_op(code: str, failure: Failure) -> PatchResult:
    return _wrap_dim_input(code, failure, "flatten", "", ".flatten() on the input")


# --- broadcast-size-mismatch ------------------------------------------------------------------------------------

SHAPES_MARK = re.compile(r"<<shapes>>(.*?)<</shapes>>", re.S)


def _shapes_before(code: str, failure: Failure, s: Snippet, stmt) -> dict[str, tuple[int, ...]]:
    """Run the snippet with a line before the failing statement that prints the shape of
    every name the statement reads (one diagnostic run, shared by the patches)."""
    if failure.run is None:
        raise NotApplicable("no sandbox run is available to read the shapes")
    names = [n for part in s.header_nodes(stmt) for n in s.used_names(part) if s.is_variable(n)]
    names = list(dict.fromkeys(names))
    if not names:
        raise NotApplicable("the failing line reads no variables")

    def compute():
        probe = ("print('<<shapes>>' + repr({" + ", ".join(
            f"{n!r}: tuple(getattr({n}, 'shape', ()))" for n in names) + "}) + '<</shapes>>', flush=True)")
        edits = Edits(s)
        edits.insert_before(stmt, probe)
        result = failure.run(edits.render())
        found = SHAPES_MARK.findall(getattr(result, "output", "") or "")
        import ast
        return ast.literal_eval(found[-1]) if found else None

    shapes = failure.memo("broadcast_shapes", compute)
    if shapes is None:
        raise NotApplicable("the diagnostic run printed no shapes")
    return {k: tuple(v) for k, v in shapes.items()}


def _channel_stats(code: str, failure: Failure) -> tuple[Snippet, object, list[cst.Name], int]:
    """The 1-D names on the failing line whose length is the channel count (dim 1) of a
    higher-rank operand on the same line but not its last size: per-channel statistics
    that broadcasting lines up with the width instead."""
    s = Snippet(code)
    stmt = s.statement_at(failure.line)
    shapes = _shapes_before(code, failure, s, stmt)
    big = [shape for shape in shapes.values() if len(shape) >= 3]
    stats = {name for name, shape in shapes.items() if len(shape) == 1
             and any(b[1] == shape[0] and b[-1] != shape[0] for b in big)}
    if not stats:
        raise NotApplicable("no 1-D tensor on the failing line matches the channel dimension of another operand")
    rank = max(len(b) for b in big)
    nodes = s.find(s.header_nodes(stmt), cst.Name, lambda n: n.value in stats and not (
        isinstance(s.parent(n), cst.Attribute) and s.parent(n).attr is n) and not (
        isinstance(s.parent(n), cst.Arg) and s.parent(n).keyword is n))
    return s, stmt, nodes, rank


@register("reshape-channel-stats", "view a per-channel 1-D tensor as (C, 1, ..., 1) so it broadcasts over the "
                                   "channel dimension, not the last one")
def reshape_channel_stats(code: str, failure: Failure) -> PatchResult:
    s, stmt, nodes, rank = _channel_stats(code, failure)
    edits = Edits(s)
    ones = ", ".join(["1"] * (rank - 2))
    for node in nodes:
        edits.replace_node(node, lambda u: call_method(u, "view", f"-1, {ones}"))
    names = ", ".join(dict.fromkeys(n.value for n in nodes))
    return PatchResult.changed(edits.render(), f"{names} viewed as (C, {ones}) on line {s.line(stmt)}")


@register("unsqueeze-stats-front", "dead end: `.unsqueeze(0)` on the per-channel tensor (a leading 1 changes "
                                   "nothing: broadcasting aligns from the right)")
def unsqueeze_stats_front(code: str, failure: Failure) -> PatchResult:
    s, stmt, nodes, _ = _channel_stats(code, failure)
    edits = Edits(s)
    for node in nodes:
        edits.replace_node(node, lambda u: call_method(u, "unsqueeze", "0"))
    names = ", ".join(dict.fromkeys(n.value for n in nodes))
    return PatchResult.changed(edits.render(), f"{names}.unsqueeze(0) on line {s.line(stmt)}")
