"""Fixtures for the verification tests.

`runner` runs a snippet the way verification does: through the real sandbox
(bot.sandbox.run_snippet) when it is available here, otherwise through
`plain_run`, a small test-only stand-in that runs the venv's python in a
subprocess and reports the same fields (it has no isolation: tests only).

The patch tests (test_patch_*.py) share these helpers:
- `try_patch(code, name, fails_with=...)`: run a repro, apply a patch to its real error,
  run the result; the PatchOutcome's `ok()` / `fails(text)` say what the patched run did;
- `apply_patch(name, code, line, message=...)`: a patch applied for an error on `line`,
  without running anything (what it changes, or why it does not apply);
- `entry_repro(entry_id)`: an entry's repro snippet from the project's knowledge.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from probes import sandbox_probe

from bot.sandbox import run_snippet
from bot.sandbox.warm import WarmRunner
from bot.verify.patches import registry
from bot.verify.patches.base import Failure, PatchResult

DATA = Path(__file__).resolve().parent / "data"
REPO = Path(__file__).resolve().parents[2]

_HARNESS = r'''
import json, runpy, sys, traceback
snippet, out = sys.argv[1], sys.argv[2]
result = {"error": None}
try:
    runpy.run_path(snippet, run_name="__main__")
except BaseException as exc:
    frames = [{"file": f.filename, "line": f.lineno, "function": f.name, "in_snippet": f.filename == snippet}
              for f in traceback.extract_tb(exc.__traceback__)]
    in_snippet = [f["line"] for f in frames if f["in_snippet"]]
    cls = type(exc)
    name = cls.__qualname__ if cls.__module__ in ("builtins", "__main__") else cls.__module__ + "." + cls.__qualname__
    result["error"] = {"type": name, "message": str(exc),
                       "traceback": "".join(traceback.format_exception(exc)), "frames": frames,
                       "snippet_line": in_snippet[-1] if in_snippet else None}
try:
    import torch
    result["environment"] = {"python": sys.version.split()[0], "torch": torch.__version__,
                             "cuda_available": torch.cuda.is_available(), "device_name": None, "gpu": None}
except Exception:
    result["environment"] = {"python": sys.version.split()[0]}
import resource
result["peak_memory_bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
with open(out, "w") as f:
    json.dump(result, f)
'''


@dataclass
class PlainResult:
    exit_reason: str
    error: dict | None
    output: str
    output_truncated: bool
    wall_seconds: float
    peak_memory_bytes: int
    peak_gpu_memory_bytes: int | None = None
    environment: dict = field(default_factory=dict)
    limits: list = field(default_factory=lambda: ["none: test-only subprocess runner, no sandbox"])

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def plain_run(code: str, *, limits=None, gpu=None, files=None, timeout: float = 60) -> PlainResult:
    """Run `code` with this interpreter in a subprocess (test-only: no isolation)."""
    with tempfile.TemporaryDirectory() as tmp:
        snippet, out = os.path.join(tmp, "snippet.py"), os.path.join(tmp, "result.json")
        Path(snippet).write_text(code)
        for name, data in (files or {}).items():
            Path(tmp, name).write_bytes(data)
        start = time.monotonic()
        proc = subprocess.Popen([sys.executable, "-c", _HARNESS, snippet, out], cwd=tmp,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        try:
            output, _ = proc.communicate(timeout=timeout)
            reason = None
        except subprocess.TimeoutExpired:
            proc.kill()
            output, _ = proc.communicate()
            reason = "timeout"
        wall = time.monotonic() - start
        data = json.loads(Path(out).read_text()) if os.path.exists(out) else {"error": None}
    error = data.get("error")
    if reason is None:
        reason = "error" if error else ("ok" if proc.returncode == 0 else "killed")
    return PlainResult(exit_reason=reason, error=error, output=output.decode(errors="replace")[-20000:],
                       output_truncated=False, wall_seconds=wall,
                       peak_memory_bytes=data.get("peak_memory_bytes", 0),
                       environment=data.get("environment", {}))


def _real_sandbox():
    ok, why = sandbox_probe()
    return (run_snippet, None) if ok else (None, why)


@pytest.fixture(scope="session")
def sandbox_runner():
    """The real sandbox's run_snippet; skips with the reason where it cannot run here."""
    run, why = _real_sandbox()
    if run is None:
        pytest.skip(f"the sandbox cannot run here: {why}")
    return run


@pytest.fixture(scope="session")
def runner():
    """The real sandbox where it runs here, as a verification runs it: each snippet a
    child of a warm sandbox (bot/sandbox/zygote.py; one for the session here, and each
    child still starts with nothing of the one before). Else the test-only subprocess
    runner."""
    run, _ = _real_sandbox()
    if run is None:
        yield plain_run
        return
    with WarmRunner() as warm:
        yield warm


@dataclass
class PatchOutcome:
    original: object  # the runner's result for the unpatched snippet
    patch: object  # the PatchResult
    patched: object | None  # the runner's result for the patched snippet

    @property
    def message(self) -> str:
        error = getattr(self.patched, "error", None) or {}
        return error.get("message", "")

    def ok(self) -> None:
        """The patched snippet ran without an error."""
        assert self.patched.exit_reason == "ok", (self.patch.code, self.patched.error)

    def fails(self, text: str) -> None:
        """The patched snippet still failed, with an error that says `text`."""
        assert self.patched.exit_reason == "error" and text in self.message, (self.patch.code, self.patched.error)


def apply_patch(name: str, code: str, line: int | None, message: str = "", type_: str = "RuntimeError") -> PatchResult:
    """Patch `name` applied to `code` for an error on `line` (nothing runs)."""
    return registry.get(name).apply(code, Failure(type=type_, message=message, line=line))


def project_entry(entry_id: str):
    """A project entry ("pytorch/<name>" or "<name>"), from the knowledge as it is loaded once per process."""
    from bot.kb.loader import cached_knowledge

    kb, _ = cached_knowledge(REPO / "knowledge")
    return kb.entries[entry_id if "/" in entry_id else f"pytorch/{entry_id}"]


def entry_repro(entry_id: str) -> str:
    """The repro snippet of a project entry, as kb verify runs it."""
    return project_entry(entry_id).repro.code


@pytest.fixture(scope="session")
def original_run(runner):
    """Run an unpatched repro once per session (several patches share a repro)."""
    cache: dict[str, object] = {}

    def run(code: str):
        if code not in cache:
            cache[code] = runner(code)
        return cache[code]

    return run


@pytest.fixture(scope="session")
def try_patch(runner, original_run):
    """Run a repro, check it fails with `fails_with`, apply patch `name`, run the result."""
    failures: dict[str, Failure] = {}  # one per repro, so diagnostic runs are shared

    def attempt(code: str, name: str, *, fails_with: str, run_patched: bool = True) -> PatchOutcome:
        original = original_run(code)
        assert original.exit_reason == "error", f"the repro did not fail: {original.exit_reason}\n{original.output}"
        assert fails_with in original.error["message"], original.error
        failure = failures.setdefault(code, Failure.from_error(original.error, run=runner))
        result = registry.get(name).apply(code, failure)
        assert result.applicable, f"{name} did not apply: {result.reason}"
        patched = runner(result.code) if run_patched else None
        return PatchOutcome(original, result, patched)

    return attempt


STAND_INS = DATA / "knowledge"  # test stand-ins for entries other branches are writing


@pytest.fixture(scope="session")
def knowledge_dir(tmp_path_factory) -> Path:
    """The project's knowledge, plus a stand-in for each entry the tests need that it
    does not have yet (pytorch/no-grad-fn is written on another branch)."""
    import shutil

    from bot.kb.loader import check_knowledge
    from bot.settings import knowledge_dir as project_knowledge

    target = tmp_path_factory.mktemp("kb") / "knowledge"
    shutil.copytree(project_knowledge(), target)
    kb, _ = check_knowledge(target)
    import yaml

    for path in sorted(STAND_INS.glob("*.yml")):
        entry_id = yaml.safe_load(path.read_text())["id"]
        if kb.resolve(entry_id) is None:
            shutil.copy(path, target / "entries" / "pytorch" / path.name)
    return target


@pytest.fixture(scope="session")
def kb(knowledge_dir):
    from bot.kb.loader import check_knowledge

    kb, _ = check_knowledge(knowledge_dir)
    return kb
