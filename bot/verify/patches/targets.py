"""Patches for shape and index errors of layers, losses and index tensors:
kernel-larger-than-input, batchnorm-single-value, loss-target-size, rnn-input-size,
pack-padded-lengths, gather-index-rank, one-hot-classes and index-dtype.

Each one finds the failing call on `Failure.line` (a module called inline, through a
variable or a `self.` attribute, a functional call, a subscript) and rewrites only that
call, or the constructor of the module it calls; what a patch needs to know about sizes
it reads from the error message, which prints them.
"""

from __future__ import annotations

import re

import libcst as cst

from bot.verify.patches.base import Failure, NotApplicable, PatchResult
from bot.verify.patches.calls import (argument, call_method, called_constructor, class_name, constructor_like, dotted,
                                      first_line, is_inline_module_call, kwarg, loss_calls, loss_input, loss_target,
                                      method, paren, positional, receiver, set_argument, set_kwarg, value_of)
from bot.verify.patches.registry import register
from bot.verify.patches.source import Edits, Snippet, expression
from bot.verify.patches.tensors import CHEAP, tensor_like


def _last(name: str | None) -> str:
    return (name or "").split(".")[-1]


def _ints(text: str) -> list[int]:
    return [int(n) for n in re.findall(r"-?\d+", text)]


# --- kernel-larger-than-input -------------------------------------------------------------------

# (kernel_size, stride, padding) positions of the constructor's parameters
_CONV = re.compile(r"^(Conv|ConvTranspose)[123]d$")
_POOL = re.compile(r"^(MaxPool|AvgPool)[123]d$")
_LPPOOL = re.compile(r"^LPPool[123]d$")


def _window_params(name: str) -> tuple[int, int, int] | None:
    if _CONV.match(name):
        return 2, 3, 4
    if _POOL.match(name):
        return 0, 1, 2
    if _LPPOOL.match(name):
        return 1, 2, 3
    return None


def _message_kernel(message: str) -> list[int] | None:
    m = re.search(r"Kernel size: \(([^)]*)\)", message)
    return _ints(m.group(1)) if m else None


def _literal_kernel(call: cst.Call, index: int) -> list[int] | None:
    arg = argument(call, "kernel_size", index)
    if arg is None:
        return None
    value = arg.value
    if isinstance(value, cst.Integer):
        return [int(value.value)]
    if isinstance(value, (cst.Tuple, cst.List)) and all(isinstance(e.value, cst.Integer) for e in value.elements):
        return [int(e.value.value) for e in value.elements]
    return None


def _windowed_layers(code: str, failure: Failure) -> tuple[Snippet, cst.BaseStatement, list[cst.Call]]:
    """The conv/pool constructors behind the failing call: the module called on the line
    (inline, variable, self.attribute); inside a container built there (nn.Sequential),
    the conv/pool layers whose kernel is the one the message names."""
    s = Snippet(code)
    stmt, calls = s.calls_at(failure.line)
    wanted = _message_kernel(failure.message)
    layers: list[cst.Call] = []
    for call in calls:
        if constructor_like(s, call):
            continue
        ctor = called_constructor(s, call, stmt)
        if ctor is None:
            continue
        if _window_params(class_name(ctor)):
            layers.append(ctor)
            continue
        inner = [c for c in s.find([ctor], cst.Call, lambda c: bool(_window_params(class_name(c))), nested=True)]
        if wanted is not None:
            matching = []
            for c in inner:
                k = _literal_kernel(c, _window_params(class_name(c))[0])
                if k is not None and (k == wanted or (len(k) == 1 and k * len(wanted) == wanted)):
                    matching.append(c)
            inner = matching or inner
        layers.extend(inner)
    if not layers:
        raise NotApplicable(f"line {failure.line} (`{first_line(s, stmt)}`) calls no convolution or pooling "
                            "module whose constructor the snippet shows")
    return s, stmt, layers


def _half_kernel(s: Snippet, call: cst.Call, index: int) -> str:
    arg = argument(call, "kernel_size", index)
    if arg is None:
        raise NotApplicable(f"`{s.text(call)}` sets no kernel_size")
    value = arg.value
    if isinstance(value, cst.Integer):
        return str(int(value.value) // 2)
    if isinstance(value, (cst.Tuple, cst.List)) and all(isinstance(e.value, cst.Integer) for e in value.elements):
        return "(" + ", ".join(str(int(e.value.value) // 2) for e in value.elements) + ")"
    return f"{s.text(value)} // 2"


@register("padding-half-kernel", "pad the convolution/pooling that is larger than its input: "
                                 "`padding=kernel_size // 2` in its constructor")
def padding_half_kernel(code: str, failure: Failure) -> PatchResult:
    s, stmt, layers = _windowed_layers(code, failure)
    edits = Edits(s)
    done = []
    for layer in layers:
        k, _, p = _window_params(class_name(layer))
        value = _half_kernel(s, layer, k)
        edits.replace_node(layer, lambda u, k=k, p=p, value=value: set_argument(u, "padding", p, value))
        done.append(f"padding={value} for `{first_line(s, layer)}` (line {s.line(layer)})")
    return PatchResult.changed(edits.render(), "; ".join(done))


def _padded_input(message: str) -> list[int]:
    m = re.search(r"padded input size per channel: \(([^)]*)\)", message)
    if m:
        return _ints(m.group(1))
    m = re.search(r"Given input size: \(([^)]*)\)", message)  # pooling: (C x H x W)
    if m:
        return _ints(m.group(1))[1:]
    raise NotApplicable("the message does not print the input size the kernel has to fit")


@register("kernel-size-fit-input", "shrink kernel_size to the input size the error message prints")
def kernel_size_fit_input(code: str, failure: Failure) -> PatchResult:
    sizes = _padded_input(failure.message)
    if not sizes or min(sizes) < 1:
        raise NotApplicable("the input has no spatial element left: a smaller kernel cannot fit it")
    s, stmt, layers = _windowed_layers(code, failure)
    edits = Edits(s)
    value = str(sizes[0]) if len(set(sizes)) == 1 else "(" + ", ".join(map(str, sizes)) + ")"
    for layer in layers:
        k, _, _ = _window_params(class_name(layer))
        edits.replace_node(layer, lambda u, k=k: set_argument(u, "kernel_size", k, value))
    return PatchResult.changed(edits.render(), f"kernel_size={value} in " +
                               ", ".join(f"`{first_line(s, x)}`" for x in layers))


@register("stride-one-for-small-input", "dead end: `stride=1` in the constructor of the convolution/pooling "
                                        "(the window is still larger than the input)")
def stride_one_for_small_input(code: str, failure: Failure) -> PatchResult:
    s, stmt, layers = _windowed_layers(code, failure)
    edits = Edits(s)
    for layer in layers:
        _, st, _ = _window_params(class_name(layer))
        edits.replace_node(layer, lambda u, st=st: set_argument(u, "stride", st, "1"))
    return PatchResult.changed(edits.render(), "stride=1 in " + ", ".join(f"`{first_line(s, x)}`" for x in layers))


# --- batchnorm-single-value ---------------------------------------------------------------------

_BATCHNORM = re.compile(r"^(Lazy)?BatchNorm[123]d$")


def _loader_call(s: Snippet, stmt: cst.BaseStatement) -> cst.Call | None:
    """The DataLoader(...) constructor the failing statement's loop iterates over
    (`for x in loader`, `enumerate(loader)`, `tqdm(loader)`, inline), else the only one."""
    def loader_of(expr, at) -> cst.Call | None:
        for _ in range(4):
            if isinstance(expr, cst.Call) and _last(dotted(expr.func)) == "DataLoader":
                return expr
            if isinstance(expr, cst.Call) and positional(expr):  # enumerate(loader), tqdm(loader)
                expr = positional(expr)[0].value
                continue
            if isinstance(expr, cst.Name):
                d = s.definition(expr.value, at)
                expr = value_of(d[0]) if d else None
                continue
            return None
        return None

    for anc in s.ancestors(stmt):
        if isinstance(anc, cst.For):
            found = loader_of(anc.iter, anc)
            if found is not None:
                return found
    loaders = s.find([s.module], cst.Call, lambda c: _last(dotted(c.func)) == "DataLoader", nested=True)
    return loaders[0] if len(loaders) == 1 else None


@register("dataloader-drop-last", "`DataLoader(..., drop_last=True)`: no incomplete last batch of one sample")
def dataloader_drop_last(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt = s.statement_at(failure.line)
    loader = _loader_call(s, stmt)
    if loader is None:
        raise NotApplicable(f"no DataLoader(...) feeds line {failure.line} (`{first_line(s, stmt)}`): "
                            "the one-sample batch does not come from a loader's last batch")
    edits = Edits(s)
    edits.replace_node(loader, lambda u: set_kwarg(u, "drop_last", "True"))
    return PatchResult.changed(edits.render(), f"drop_last=True for the DataLoader on line {s.line(loader)}")


def _module_calls(s: Snippet, stmt) -> list[cst.Call]:
    return [c for c in s.find(s.header_nodes(stmt), cst.Call)
            if not constructor_like(s, c) and called_constructor(s, c, stmt) is not None]


@register("batchnorm-eval-mode", "put the model in evaluation mode before the failing call "
                                 "(BatchNorm then uses its running statistics)")
def batchnorm_eval_mode(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt = s.statement_at(failure.line)
    calls = _module_calls(s, stmt)
    if not calls:
        raise NotApplicable(f"line {failure.line} (`{first_line(s, stmt)}`) calls no module the snippet builds")
    edits = Edits(s)
    named = []
    for call in calls:
        if is_inline_module_call(s, call):
            edits.replace_node(call, lambda u: u.with_changes(func=call_method(u.func, "eval")))
            named.append(s.text(call.func))
        else:
            func = call.func.value if method(call) == "forward" else call.func
            named.append(s.text(func))
    for name in dict.fromkeys(n for c, n in zip(calls, named, strict=True) if not is_inline_module_call(s, c)):
        edits.insert_before(stmt, f"{name}.eval()")
    return PatchResult.changed(edits.render(), f"{', '.join(dict.fromkeys(named))} in eval mode on line {s.line(stmt)}")


def _batchnorms(s: Snippet) -> list[cst.Call]:
    return s.find([s.module], cst.Call, lambda c: bool(_BATCHNORM.match(class_name(c))), nested=True)


@register("batchnorm-to-groupnorm", "replace `nn.BatchNormXd(C)` by `nn.GroupNorm(1, C)` (no batch statistics)")
def batchnorm_to_groupnorm(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    norms = [c for c in _batchnorms(s) if not class_name(c).startswith("Lazy")]
    if not norms:
        raise NotApplicable("the snippet builds no BatchNorm layer (with its number of channels)")
    edits = Edits(s)
    for norm in norms:
        channels = argument(norm, "num_features", 0)
        if channels is None:
            raise NotApplicable(f"`{s.text(norm)}` gives no num_features")
        prefix = dotted(norm.func).rsplit(".", 1)
        func = f"{prefix[0]}.GroupNorm" if len(prefix) == 2 else "GroupNorm"
        new = expression(f"{func}(1, {s.text(channels.value)})")
        edits.replace_node(norm, new)
    return PatchResult.changed(edits.render(), "BatchNorm replaced by GroupNorm(1, C) on line(s) " +
                               ", ".join(str(s.line(n)) for n in norms))


@register("batchnorm-no-running-stats", "dead end: `track_running_stats=False` on the BatchNorm layers "
                                        "(they then need batch statistics in every mode)")
def batchnorm_no_running_stats(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    norms = _batchnorms(s)
    if not norms:
        raise NotApplicable("the snippet builds no BatchNorm layer")
    edits = Edits(s)
    for norm in norms:
        edits.replace_node(norm, lambda u: set_kwarg(u, "track_running_stats", "False"))
    return PatchResult.changed(edits.render(), "track_running_stats=False on line(s) " +
                               ", ".join(str(s.line(n)) for n in norms))


# --- loss-target-size ---------------------------------------------------------------------------

SIZE_LOSSES = {"binary_cross_entropy", "binary_cross_entropy_with_logits", "BCELoss", "BCEWithLogitsLoss",
               "mse_loss", "MSELoss", "l1_loss", "L1Loss", "smooth_l1_loss", "SmoothL1Loss", "huber_loss", "HuberLoss",
               "soft_margin_loss", "SoftMarginLoss", "multilabel_soft_margin_loss", "MultiLabelSoftMarginLoss"}


def _sizes(message: str) -> tuple[list[int], list[int]]:
    """(target size, input size) as the message prints them."""
    m = re.search(r"target size \(torch\.Size\(\[([^\]]*)\]\)\).*?input size \(torch\.Size\(\[([^\]]*)\]\)\)",
                  message, re.I | re.S)
    if not m:
        raise NotApplicable("the message does not print the target and input sizes")
    return _ints(m.group(1)), _ints(m.group(2))


def _size_loss(code: str, failure: Failure) -> tuple[Snippet, cst.BaseStatement, cst.Call, cst.Arg, cst.Arg]:
    s = Snippet(code)
    stmt = s.statement_at(failure.line)
    for call in loss_calls(s, stmt, SIZE_LOSSES):
        inp, target = loss_input(call), loss_target(call)
        if inp is not None and target is not None:
            return s, stmt, call, inp, target
    raise NotApplicable(f"line {failure.line} (`{first_line(s, stmt)}`) has no loss call with an input and a target")


def _numel(size: list[int]) -> int:
    n = 1
    for d in size:
        n *= d
    return n


@register("target-view-as-input", "`loss(out, y)` -> `loss(out, y.float().view_as(out))`: the target in the "
                                  "prediction's shape (and a float dtype)")
def target_view_as_input(code: str, failure: Failure) -> PatchResult:
    target_size, input_size = _sizes(failure.message)
    if _numel(target_size) != _numel(input_size):
        raise NotApplicable(f"target {target_size} and input {input_size} hold different numbers of elements: "
                            "reshaping cannot pair them (one label per sample against several outputs?)")
    s, stmt, call, inp, target = _size_loss(code, failure)
    if not isinstance(inp.value, CHEAP):
        raise NotApplicable(f"the prediction `{s.text(inp.value)}` is an expression; name it first to reshape the "
                            "target like it")
    edits = Edits(s)
    edits.replace_node(target, lambda u: u.with_changes(
        value=call_method(call_method(u.value, "float"), "view_as", s.text(inp.value))))
    return PatchResult.changed(edits.render(), f"target {s.text(target.value)} reshaped like "
                                               f"{s.text(inp.value)} on line {s.line(stmt)}")


@register("squeeze-input-last-dim", "`loss(out, y)` -> `loss(out.squeeze(-1), y)` when the prediction has a "
                                    "trailing size-1 dimension the target lacks")
def squeeze_input_last_dim(code: str, failure: Failure) -> PatchResult:
    target_size, input_size = _sizes(failure.message)
    if input_size != target_size + [1]:
        raise NotApplicable(f"the input {input_size} is not the target {target_size} with a trailing 1")
    s, stmt, call, inp, target = _size_loss(code, failure)
    edits = Edits(s)
    edits.replace_node(inp, lambda u: u.with_changes(value=call_method(u.value, "squeeze", "-1")))
    return PatchResult.changed(edits.render(), f"{s.text(inp.value)}.squeeze(-1) on line {s.line(stmt)}")


@register("target-unsqueeze-first", "dead end: `y.unsqueeze(0)` (adds the missing dimension in front, "
                                    "where the prediction has its batch)")
def target_unsqueeze_first(code: str, failure: Failure) -> PatchResult:
    target_size, input_size = _sizes(failure.message)
    if len(target_size) + 1 != len(input_size):
        raise NotApplicable("the target does not lack exactly one dimension")
    s, stmt, call, inp, target = _size_loss(code, failure)
    edits = Edits(s)
    edits.replace_node(target, lambda u: u.with_changes(value=call_method(u.value, "unsqueeze", "0")))
    return PatchResult.changed(edits.render(), f"{s.text(target.value)}.unsqueeze(0) on line {s.line(stmt)}")


# --- rnn-input-size -----------------------------------------------------------------------------

_RNN = re.compile(r"^(RNN|LSTM|GRU)(Cell)?$")


def _rnn_layers(code: str, failure: Failure) -> tuple[Snippet, cst.BaseStatement, list[cst.Call]]:
    s = Snippet(code)
    stmt, calls = s.calls_at(failure.line)
    layers = []
    for call in calls:
        if constructor_like(s, call):
            continue
        ctor = called_constructor(s, call, stmt)
        if ctor is not None and _RNN.match(class_name(ctor)):
            layers.append(ctor)
    if not layers:
        raise NotApplicable(f"line {failure.line} (`{first_line(s, stmt)}`) calls no nn.RNN/LSTM/GRU "
                            "whose constructor the snippet shows")
    return s, stmt, layers


def _feature_size(message: str) -> int:
    m = re.search(r"must be equal to input_size\. Expected \d+, got (\d+)", message) or \
        re.search(r"inconsistent input_size: got (\d+) expected \d+", message)
    if not m:
        raise NotApplicable("the message is not the input_size check (it names no feature size)")
    return int(m.group(1))


@register("rnn-input-size-from-data", "set the RNN's input_size to the feature size the input has "
                                      "(the number the message prints after `got`)")
def rnn_input_size_from_data(code: str, failure: Failure) -> PatchResult:
    features = _feature_size(failure.message)
    s, stmt, layers = _rnn_layers(code, failure)
    edits = Edits(s)
    for layer in layers:
        edits.replace_node(layer, lambda u: set_argument(u, "input_size", 0, str(features)))
    return PatchResult.changed(edits.render(), f"input_size={features} in " +
                               ", ".join(f"`{first_line(s, x)}`" for x in layers))


@register("rnn-batch-first", "dead end for an input_size error: `batch_first=True` on the RNN "
                             "(it swaps batch and time, not the feature axis)")
def rnn_batch_first(code: str, failure: Failure) -> PatchResult:
    s, stmt, layers = _rnn_layers(code, failure)
    layers = [x for x in layers if not class_name(x).endswith("Cell")
              and s.text(getattr(kwarg(x, "batch_first"), "value", cst.Name("False"))) != "True"]
    if not layers:
        raise NotApplicable("the RNN is a cell (no batch_first) or already has batch_first=True")
    edits = Edits(s)
    for layer in layers:
        edits.replace_node(layer, lambda u: set_kwarg(u, "batch_first", "True"))
    return PatchResult.changed(edits.render(), "batch_first=True in " +
                               ", ".join(f"`{first_line(s, x)}`" for x in layers))


# --- pack-padded-lengths ------------------------------------------------------------------------

PACKERS = {"pack_padded_sequence", "pack_sequence"}


def _pack_calls(code: str, failure: Failure, names=PACKERS) -> tuple[Snippet, cst.BaseStatement, list[cst.Call]]:
    s = Snippet(code)
    stmt, calls = s.calls_at(failure.line)
    found = [c for c in calls if _last(dotted(c.func)) in names]
    if not found:
        raise NotApplicable(f"line {failure.line} (`{first_line(s, stmt)}`) calls no {' or '.join(sorted(names))}")
    return s, stmt, found


@register("pack-enforce-sorted-false", "`pack_padded_sequence(..., enforce_sorted=False)`: it sorts the batch "
                                       "itself and restores the order on unpacking")
def pack_enforce_sorted_false(code: str, failure: Failure) -> PatchResult:
    s, stmt, calls = _pack_calls(code, failure)
    edits = Edits(s)
    for call in calls:
        edits.replace_node(call, lambda u: set_kwarg(u, "enforce_sorted", "False"))
    return PatchResult.changed(edits.render(), f"enforce_sorted=False on line {s.line(stmt)}")


def _fresh(s: Snippet, name: str) -> str:
    candidate, i = name, 2
    while s.is_variable(candidate) or s.is_definition(candidate):
        candidate, i = f"{name}_{i}", i + 1
    return candidate


@register("pack-sort-by-length", "sort the batch by decreasing length before pack_padded_sequence "
                                 "(and pack the sorted batch)")
def pack_sort_by_length(code: str, failure: Failure) -> PatchResult:
    s, stmt, calls = _pack_calls(code, failure, {"pack_padded_sequence"})
    call = calls[0]
    data, lengths = argument(call, "input", 0), argument(call, "lengths", 1)
    if data is None or lengths is None:
        raise NotApplicable("pack_padded_sequence is not given its input and lengths")
    first = kwarg(call, "batch_first")
    batch_first = first is not None and s.text(first.value) == "True"
    edits = Edits(s)
    torch = edits.torch()
    sorted_name, order = _fresh(s, "sorted_lengths"), _fresh(s, "sort_order")
    edits.insert_before(stmt, f"{sorted_name}, {order} = {torch}.as_tensor({s.text(lengths.value)})"
                              f".sort(descending=True)")
    index = f"[{order}]" if batch_first else f"[:, {order}]"
    edits.replace_node(data, lambda u: u.with_changes(value=expression(f"({s.text(data.value)}){index}")
                                                    if not isinstance(data.value, CHEAP)
                                                    else expression(f"{s.text(data.value)}{index}")))
    edits.replace_node(lengths, lambda u: u.with_changes(value=cst.Name(sorted_name)))
    return PatchResult.changed(edits.render(), f"batch sorted by length before line {s.line(stmt)} "
                                               f"({'batch_first' if batch_first else 'time-first'} layout)")


@register("lengths-to-cpu-int64", "`lengths` -> `lengths.cpu().long()` in pack_padded_sequence "
                                  "(a dead end when the lengths are unsorted)")
def lengths_to_cpu_int64(code: str, failure: Failure) -> PatchResult:
    s, stmt, calls = _pack_calls(code, failure, {"pack_padded_sequence"})
    edits = Edits(s)
    done = []
    for call in calls:
        lengths = argument(call, "lengths", 1)
        if lengths is None or not tensor_like(lengths.value) or isinstance(lengths.value, cst.List):
            continue
        done.append(s.text(lengths.value))
        edits.replace_node(lengths, lambda u: u.with_changes(value=call_method(call_method(u.value, "cpu"), "long")))
    if not done:
        raise NotApplicable("the lengths are not a tensor expression (a Python list is converted on the CPU anyway)")
    return PatchResult.changed(edits.render(), f"{', '.join(done)} moved to the CPU as int64 on line {s.line(stmt)}")


# --- gather-index-rank --------------------------------------------------------------------------

INDEXED = {"gather": 2, "take_along_dim": 1, "scatter": 2, "scatter_": 2, "scatter_add": 2, "scatter_add_": 2,
           "scatter_reduce": 2, "scatter_reduce_": 2}


def _index_calls(s: Snippet, stmt, names=("gather",)) -> list[tuple[cst.Call, cst.Arg, cst.Arg | None, bool]]:
    """(call, index argument, dim argument, is-a-method) for gather-like calls on the line."""
    out = []
    for call in s.find(s.header_nodes(stmt), cst.Call):
        name = _last(dotted(call.func)) if dotted(call.func) else method(call)
        if name not in names:
            continue
        is_function = (dotted(call.func) or "").split(".")[0] in ("torch",) or s.torch_name() == \
            (dotted(call.func) or "").split(".")[0]
        offset = 1 if is_function else 0  # torch.gather(x, dim, index) / x.gather(dim, index)
        dim = argument(call, "dim", offset)
        index = argument(call, "index", offset + 1)
        if index is not None:
            out.append((call, index, dim, not is_function))
    return out


@register("gather-index-unsqueeze", "give the gather index the input's rank: `index.unsqueeze(dim)`")
def gather_index_unsqueeze(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt = s.statement_at(failure.line)
    found = _index_calls(s, stmt, ("gather", "scatter", "scatter_", "scatter_add", "scatter_add_"))
    if not found:
        raise NotApplicable(f"line {failure.line} (`{first_line(s, stmt)}`) has no gather/scatter with an index")
    edits = Edits(s)
    for _call, index, dim, _ in found:
        d = s.text(dim.value) if dim is not None else "-1"
        edits.replace_node(index, lambda u, d=d: u.with_changes(value=call_method(u.value, "unsqueeze", d)))
    return PatchResult.changed(edits.render(), f"index unsqueezed along dim on line {s.line(stmt)}")


@register("gather-to-advanced-indexing", "`torch.gather(x, 1, idx)` with a 1-D idx -> "
                                         "`x[torch.arange(len(idx)), idx]` (one element per row)")
def gather_to_advanced_indexing(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt = s.statement_at(failure.line)
    found = _index_calls(s, stmt)
    edits = Edits(s)
    done = []
    for call, index, dim, is_method in found:
        if dim is None or s.text(dim.value) not in ("1", "-1"):
            continue
        source = receiver(call) if is_method else argument(call, "input", 0).value
        if source is None or not isinstance(index.value, CHEAP):
            continue
        torch = edits.torch()
        idx = s.text(index.value)
        new = expression(f"{s.text(paren(source))}[{torch}.arange({idx}.shape[0]), {idx}]")
        edits.replace_node(call, new)
        done.append(s.text(call))
    if not done:
        raise NotApplicable(f"line {failure.line} (`{first_line(s, stmt)}`) has no gather along dim 1 of a row "
                            "table with a named index")
    return PatchResult.changed(edits.render(), f"{', '.join(done)} replaced by row-wise indexing")


@register("gather-to-take-along-dim", "dead end: `torch.take_along_dim(x, idx, dim)` instead of gather "
                                      "(it has the same rank rule)")
def gather_to_take_along_dim(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt = s.statement_at(failure.line)
    found = _index_calls(s, stmt)
    if not found:
        raise NotApplicable(f"line {failure.line} (`{first_line(s, stmt)}`) has no gather with an index")
    edits = Edits(s)
    torch = edits.torch()
    for call, index, dim, is_method in found:
        source = receiver(call) if is_method else argument(call, "input", 0).value
        d = f", dim={s.text(dim.value)}" if dim is not None else ""
        edits.replace_node(call, expression(f"{torch}.take_along_dim({s.text(source)}, {s.text(index.value)}{d})"))
    return PatchResult.changed(edits.render(), f"gather replaced by take_along_dim on line {s.line(stmt)}")


# --- one-hot-classes ----------------------------------------------------------------------------


def _one_hots(code: str, failure: Failure) -> tuple[Snippet, cst.BaseStatement, list[cst.Call]]:
    s = Snippet(code)
    stmt, calls = s.calls_at(failure.line)
    found = [c for c in calls if _last(dotted(c.func)) == "one_hot" and positional(c)]
    if not found:
        raise NotApplicable(f"line {failure.line} (`{first_line(s, stmt)}`) calls no one_hot")
    return s, stmt, found


def _classes_value(s: Snippet, call: cst.Call, offset: str) -> str:
    labels = positional(call)[0].value
    if not isinstance(labels, CHEAP):
        raise NotApplicable(f"the labels `{s.text(labels)}` are an expression; name them first")
    return f"int({s.text(labels)}.max()){offset}"


@register("one-hot-classes-from-data", "`one_hot(y, n)` -> `one_hot(y, num_classes=int(y.max()) + 1)`")
def one_hot_classes_from_data(code: str, failure: Failure) -> PatchResult:
    if "non-negative" in failure.message:
        raise NotApplicable("a negative label (an ignore value such as -1) is not cured by more classes")
    s, stmt, calls = _one_hots(code, failure)
    edits = Edits(s)
    for call in calls:
        value = _classes_value(s, call, " + 1")
        edits.replace_node(call, lambda u, value=value: set_argument(u, "num_classes", 1, value))
    return PatchResult.changed(edits.render(), f"num_classes computed from the labels on line {s.line(stmt)}")


@register("one-hot-classes-max", "dead end: `num_classes=int(y.max())` (one too few: labels run from 0)")
def one_hot_classes_max(code: str, failure: Failure) -> PatchResult:
    s, stmt, calls = _one_hots(code, failure)
    edits = Edits(s)
    for call in calls:
        value = _classes_value(s, call, "")
        edits.replace_node(call, lambda u, value=value: set_argument(u, "num_classes", 1, value))
    return PatchResult.changed(edits.render(), f"num_classes=max label on line {s.line(stmt)}")


@register("one-hot-shift-labels", "labels that start at 1: `one_hot(y - 1, n)`")
def one_hot_shift_labels(code: str, failure: Failure) -> PatchResult:
    if "non-negative" in failure.message:
        raise NotApplicable("a negative label is already below 0; shifting the labels down makes it worse")
    s, stmt, calls = _one_hots(code, failure)
    edits = Edits(s)
    for call in calls:
        labels = positional(call)[0]
        edits.replace_node(labels, lambda u: u.with_changes(
            value=cst.BinaryOperation(left=u.value if isinstance(u.value, CHEAP) else u.value.with_changes(
                lpar=[cst.LeftParen()], rpar=[cst.RightParen()]),
                operator=cst.Subtract(whitespace_before=cst.SimpleWhitespace(" "),
                                      whitespace_after=cst.SimpleWhitespace(" ")),
                right=cst.Integer("1"))))
    return PatchResult.changed(edits.render(), f"labels shifted to start at 0 on line {s.line(stmt)}")


# --- index-dtype --------------------------------------------------------------------------------

# functions and methods whose index argument must be an integer tensor: name -> position
# (for torch.<name>(input, ...) add one)
INDEX_ARGS = {"index_select": 1, "gather": 1, "scatter": 1, "scatter_": 1, "scatter_add": 1, "scatter_add_": 1,
              "index_add": 1, "index_add_": 1, "index_copy": 1, "index_copy_": 1, "index_fill": 1, "index_fill_": 1,
              "take": 0, "one_hot": 0, "embedding": 0, "embedding_bag": 0}


def _index_nodes(s: Snippet, stmt) -> list[cst.CSTNode]:
    """The index expressions of the failing line: subscript elements that are tensors,
    index arguments of index_select/gather/take/one_hot/embedding, the input of an
    nn.Embedding(Bag) module call."""
    nodes: list[cst.CSTNode] = []
    roots = s.header_nodes(stmt)
    for sub in s.find(roots, cst.Subscript):
        for el in sub.slice:
            if isinstance(el.slice, cst.Index) and tensor_like(el.slice.value) and \
                    not isinstance(el.slice.value, (cst.Ellipsis, cst.Slice)):
                nodes.append(el.slice.value)
    for call in s.find(roots, cst.Call):
        name = _last(dotted(call.func)) if dotted(call.func) else method(call)
        if name in INDEX_ARGS:
            d = dotted(call.func) or ""
            is_function = d.split(".")[0] in ("torch", "F", s.torch_name() or "torch") or "functional" in d
            offset = 1 if is_function and name not in ("one_hot", "embedding", "embedding_bag") else 0
            args = positional(call)
            keywords = {"one_hot": "tensor", "embedding": "input", "embedding_bag": "input", "take": "index"}
            key = keywords.get(name, "index")
            position = INDEX_ARGS[name] + offset
            arg = kwarg(call, key) or (args[position] if len(args) > position else None)
            if arg is not None and tensor_like(arg.value):
                nodes.append(arg.value)
            continue
        if constructor_like(s, call):
            continue
        ctor = called_constructor(s, call, stmt)
        if ctor is not None and class_name(ctor) in ("Embedding", "EmbeddingBag") and positional(call):
            nodes.append(positional(call)[0].value)
    return nodes


def _cast_indices(code: str, failure: Failure, method_name: str) -> PatchResult:
    s = Snippet(code)
    stmt = s.statement_at(failure.line)
    nodes = _index_nodes(s, stmt)
    if not nodes:
        raise NotApplicable(f"line {failure.line} (`{first_line(s, stmt)}`) has no tensor used as an index")
    edits = Edits(s)
    for node in nodes:
        edits.replace_node(node, lambda u: call_method(u, method_name))
    return PatchResult.changed(edits.render(), f"{', '.join(s.text(n) for n in nodes)} cast with "
                                               f".{method_name}() on line {s.line(stmt)}")


@register("index-to-long", "cast the index tensor of the failing line to int64: `x[idx.long()]`")
def index_to_long(code: str, failure: Failure) -> PatchResult:
    return _cast_indices(code, failure, "long")


@register("index-round", "dead end: `idx.round()` (rounds the values but keeps the float dtype)")
def index_round(code: str, failure: Failure) -> PatchResult:
    return _cast_indices(code, failure, "round")


@register("floor-divide-index", "compute the index with `//` instead of `/` (true division gives floats)")
def floor_divide_index(code: str, failure: Failure) -> PatchResult:
    s = Snippet(code)
    stmt = s.statement_at(failure.line)
    nodes = _index_nodes(s, stmt)
    edits = Edits(s)
    changed = []
    for node in nodes:
        divisions = s.find([node], cst.BinaryOperation, lambda b: isinstance(b.operator, cst.Divide))
        if not divisions and isinstance(node, cst.Name):
            d = s.definition(node.value, stmt)
            value = value_of(d[0]) if d else None
            if value is not None:
                divisions = s.find([value], cst.BinaryOperation, lambda b: isinstance(b.operator, cst.Divide))
        for div in divisions:
            edits.replace_node(div, lambda u: u.with_changes(operator=cst.FloorDivide(
                whitespace_before=u.operator.whitespace_before, whitespace_after=u.operator.whitespace_after)))
            changed.append(s.line(div))
    if not changed:
        raise NotApplicable(f"the index of line {failure.line} (`{first_line(s, stmt)}`) is not computed with `/` "
                            "on that line or in the assignment that defines it")
    return PatchResult.changed(edits.render(),
                               f"`/` replaced by `//` on line(s) {', '.join(map(str, sorted(set(changed))))}")
