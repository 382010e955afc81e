"""Patches for pytorch/weights-only-unpickling (torch.load's weights_only default)."""

from __future__ import annotations

import re

import libcst as cst

from bot.verify.patches.base import Failure, NotApplicable, PatchResult
from bot.verify.patches.calls import dotted, first_line, set_kwarg
from bot.verify.patches.registry import register
from bot.verify.patches.source import Edits, Snippet

# "Unsupported global: GLOBAL __main__.Config was not an allowed global by default."
GLOBAL_RES = (
    re.compile(r"GLOBAL ([A-Za-z_][\w.]*) was not an allowed global"),
    re.compile(r"Unsupported global: GLOBAL ([A-Za-z_][\w.]*)"),
    re.compile(r"add_safe_globals\(\[([A-Za-z_][\w.]*)\]\)"),
)


def _load_calls(s: Snippet, stmt) -> list[cst.Call]:
    return [c for c in s.find(s.header_nodes(stmt), cst.Call)
            if (dotted(c.func) or "") in ("torch.load", "load") or (dotted(c.func) or "").endswith(".torch.load")]


def _load_kwarg(code: str, failure: Failure, name: str, value: str) -> PatchResult:
    """Set `name=value` on every torch.load() call of the failing statement."""
    s = Snippet(code)
    stmt = s.statement_at(failure.line)
    calls = _load_calls(s, stmt)
    if not calls:
        raise NotApplicable(f"line {failure.line} (`{first_line(s, stmt)}`) has no torch.load() call")
    edits = Edits(s)
    for call in calls:
        edits.replace_node(call, lambda u: set_kwarg(u, name, value))
    return PatchResult.changed(edits.render(), f"{name}={value} on the torch.load() of line {s.line(stmt)}")


@register("weights-only-false", "`torch.load(f)` -> `torch.load(f, weights_only=False)` (trusted files only)")
def weights_only_false(code: str, failure: Failure) -> PatchResult:
    return _load_kwarg(code, failure, "weights_only", "False")


def unsupported_global(message: str) -> str | None:
    for regex in GLOBAL_RES:
        m = regex.search(message or "")
        if m:
            return m.group(1)
    return None


@register("allowlist-safe-globals", "`torch.serialization.add_safe_globals([...])` with the global named in the error")
def allowlist_safe_globals(code: str, failure: Failure) -> PatchResult:
    name = unsupported_global(failure.message)
    if name is None:
        raise NotApplicable("the error message names no unsupported global")
    s = Snippet(code)
    stmt = s.statement_at(failure.line)
    edits = Edits(s)
    torch = edits.torch()
    module, _, attr = name.rpartition(".")
    lines = []
    if module in ("__main__", "") or module.startswith("__main__."):
        # Defined in the snippet itself: refer to it by its name there.
        reference = name.removeprefix("__main__.")
    else:
        lines.append("import importlib")
        reference = f"importlib.import_module({module!r}).{attr}"
    lines.append(f"{torch}.serialization.add_safe_globals([{reference}])")
    edits.insert_before(stmt, *lines)
    return PatchResult.changed(edits.render(), f"{name} allowlisted before the torch.load() on line {s.line(stmt)}")


# --- py2-checkpoint-encoding ---------------------------------------------------------------------

@register("load-encoding-latin1", "`torch.load(f)` -> `torch.load(f, encoding=\"latin1\")` (byte strings that "
                                  "Python 2 pickled become str by latin1, which decodes every byte)")
def load_encoding_latin1(code: str, failure: Failure) -> PatchResult:
    return _load_kwarg(code, failure, "encoding", '"latin1"')
