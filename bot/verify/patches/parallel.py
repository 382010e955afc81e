"""Patches for pytorch/dataparallel-module-attr: an attribute looked up on the wrong side of
the DataParallel / DistributedDataParallel wrapper (the real model is the wrapper's `.module`)."""

from __future__ import annotations

import re

import libcst as cst

from bot.verify.patches.base import Failure, NotApplicable, PatchResult
from bot.verify.patches.calls import first_line
from bot.verify.patches.registry import register
from bot.verify.patches.source import Edits, Snippet

# "'DataParallel' object has no attribute 'features'", "'Net' object has no attribute 'module'"
MISSING_ATTRIBUTE = re.compile(r"'(\w+)' object has no attribute '(\w+)'")
WRAPPERS = {"DataParallel", "DistributedDataParallel"}


def _is_module_of(node: cst.CSTNode) -> bool:
    return isinstance(node, cst.Attribute) and node.attr.value == "module"


@register("reach-through-module", "on the failing line, `model.X` -> `model.module.X` when the DataParallel/DDP "
                                  "wrapper lacks X, and `model.module` -> `model` when the model is not wrapped")
def reach_through_module(code: str, failure: Failure) -> PatchResult:
    m = MISSING_ATTRIBUTE.search(failure.message or "")
    if not m:
        raise NotApplicable("the message names no missing attribute ('<type>' object has no attribute '<name>')")
    owner, attr = m.groups()
    if owner not in WRAPPERS and attr != "module":
        raise NotApplicable(f"'{owner}' is not a DataParallel/DDP wrapper and the missing attribute is not 'module'")
    s = Snippet(code)
    stmt = s.statement_at(failure.line)
    found = s.find(s.header_nodes(stmt), cst.Attribute, lambda n: n.attr.value == attr)
    edits = Edits(s)
    if owner in WRAPPERS:
        # the wrapper forwards only forward(); every other attribute lives on the wrapped model
        targets = [n for n in found if not _is_module_of(n.value)]
        for node in targets:
            edits.replace_node(node, lambda u: u.with_changes(value=cst.Attribute(value=u.value,
                                                                                   attr=cst.Name("module"))))
        what = f"`.{attr}` looked up on `.module` (the wrapped model)"
    else:
        # the model was never wrapped (one GPU, CPU, evaluation script): it is its own module
        targets = [n for n in found if not any(_is_module_of(a) for a in s.ancestors(n))]
        for node in targets:
            edits.replace_node(node, lambda u: u.value)
        what = "`.module` dropped (the model is not wrapped)"
    if not targets:
        raise NotApplicable(f"line {failure.line} (`{first_line(s, stmt)}`) has no `.{attr}` lookup")
    return PatchResult.changed(edits.render(), f"{what} on line {s.line(stmt)}")
