"""What a patch gets and gives back.

A patch rewrites the asker's repro snippet to apply one workaround (or one dead end,
to show by running it that it fails). It gets the snippet and the `Failure` of the
original run (the error and the line of the failing call) and returns a
`PatchResult`: the new code, or "not applicable" with the reason.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Callable


@dataclass
class Failure:
    """The original run's error, as the patches need it."""

    type: str
    message: str
    line: int | None  # line of the failing call in the snippet (innermost snippet frame)
    frames: list[dict] = field(default_factory=list)
    entry_id: str | None = None
    # Runs a variant of the snippet (same sandbox as the verification) and returns
    # the runner's result; patches use it for diagnostic runs (anomaly detection).
    run: Callable[[str], Any] | None = field(default=None, repr=False, compare=False)
    _cache: dict = field(default_factory=dict, repr=False, compare=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    @classmethod
    def from_error(cls, error: dict, *, entry_id: str | None = None, run=None) -> "Failure":
        """Build it from a sandbox result's `error` dict."""
        frames = list(error.get("frames") or [])
        line = error.get("snippet_line")
        if line is None:
            # The deepest frame of the snippet file itself (the outermost snippet frame
            # names it); frames of helper files beside it do not count.
            in_snippet = [f for f in frames if f.get("in_snippet")]
            main = [f for f in in_snippet if f.get("file") == in_snippet[0].get("file")] if in_snippet else []
            line = main[-1]["line"] if main else None
        return cls(type=error.get("type") or "", message=error.get("message") or "", line=line,
                   frames=frames, entry_id=entry_id, run=run)

    @property
    def snippet_files(self) -> set[str]:
        """The file name(s) the snippet ran under, as its traceback frames name it."""
        return {f["file"] for f in self.frames if f.get("in_snippet") and f.get("file")}

    def memo(self, key: str, compute: Callable[[], Any]) -> Any:
        """Compute a diagnostic once per failure, even when patches run in parallel."""
        with self._lock:
            if key not in self._cache:
                self._cache[key] = compute()
            return self._cache[key]


@dataclass
class PatchResult:
    code: str | None  # the patched snippet; None when the patch does not apply
    reason: str | None = None  # why it does not apply
    note: str | None = None  # what was changed, in one line, for the report

    @property
    def applicable(self) -> bool:
        return self.code is not None

    @classmethod
    def changed(cls, code: str, note: str) -> "PatchResult":
        return cls(code=code, note=note)

    @classmethod
    def not_applicable(cls, reason: str) -> "PatchResult":
        return cls(code=None, reason=reason)


class NotApplicable(Exception):
    """Raised inside a patch to give up with a reason (turned into a PatchResult)."""


class SnippetSyntaxError(Exception):
    """The snippet does not parse (raised by source.Snippet; a patch then does not apply)."""


@dataclass(frozen=True)
class Patch:
    name: str
    description: str
    func: Callable[[str, Failure], PatchResult] = field(repr=False)

    def apply(self, code: str, failure: Failure) -> PatchResult:
        try:
            result = self.func(code, failure)
        except NotApplicable as exc:
            return PatchResult.not_applicable(str(exc))
        except SnippetSyntaxError as exc:
            return PatchResult.not_applicable(f"the snippet does not parse: {exc}")
        if result.applicable and result.code == code:
            return PatchResult.not_applicable("the patch found nothing to change")
        return result
