"""`troubleshoot kb verify`: every entry's own repro through the one verification path.

For each entry it answers the questions the knowledge base makes claims about:
- did the repro reproduce here (a `cpu` repro must; one marked `not_reproducible` must not),
- was its error classified as this entry, not a neighbour,
- did each patched workaround fix it,
- did each patched dead end still fail, or raise what its `leads_to` names.

A claim that does not hold is a failure (exit 1): the knowledge base is tested like code.
Repros for a GPU, several processes, Windows or a broken installation are not run on a
machine without them; they are listed as not run, with the reason.
"""

from __future__ import annotations

import functools
import platform
import time
from dataclasses import dataclass, field, replace
from importlib import metadata
from typing import Any, Callable

from bot.kb import proofs
from bot.kb.model import Entry, KnowledgeBase
from bot.sandbox.warm import ZygotePool, start_pool
from bot.verify.report import ReportRecorder, Status, VerifyReport
from bot.verify.service import run_verification
from bot.verify.verify import Runner

# Where a repro can run, per platform named in `repro.runs_on`.
RUNNABLE_HERE = ("cpu",)


@dataclass
class EntryResult:
    """One entry's outcome, in the JSON shape of `kb verify --json`."""

    id: str
    reproduce: str | None
    ran: bool = False
    reproduced: bool | None = None
    matched: bool | None = None
    error: dict | None = None
    fixes: list[dict] = field(default_factory=list)
    dead_ends: list[dict] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)  # claims that did not hold, in words
    note: str | None = None  # why it was not run, or what was not tested
    seconds: float | None = None
    report: VerifyReport | None = field(default=None, repr=False)  # the verification report
    code: str | None = field(default=None, repr=False)  # the repro that ran

    def as_json(self) -> dict:
        return {"id": self.id, "reproduce": self.reproduce, "ran": self.ran, "reproduced": self.reproduced,
                "matched": self.matched, "error": self.error, "fixes": self.fixes, "dead_ends": self.dead_ends,
                "failures": self.failures, "note": self.note, "seconds": self.seconds}


def env_environment(environment) -> dict:
    """Like host_environment, for a run on a torch environment (bot.envs)."""
    return {"torch": environment.torch, "cuda": environment.cuda, "python": platform.python_version(),
            "device": "cpu", "source": "kb verify", "torch_env": environment.describe()}


@functools.cache
def _host_torch() -> str | None:
    """This process's torch (looked up once: every entry's run asks)."""
    try:
        return metadata.version("torch")
    except metadata.PackageNotFoundError:
        return None


def host_environment() -> dict:
    """What the host knows about where the repros ran: its own torch and Python, not
    what a run says about itself."""
    return {"torch": _host_torch(), "python": platform.python_version(), "device": "cpu", "source": "kb verify"}


def _judge(entry: Entry, report: VerifyReport, result: EntryResult) -> None:
    """Fill `result` from a verification report of the entry's repro."""
    kb_entry_id = entry.id
    result.reproduced = bool(report.reproduced)
    error = report.error
    result.error = {"type": error.type, "message": (error.message or "")[:500],
                    "entry_id": error.entry_id} if error else None
    if entry.repro.not_reproducible is not None:
        # The entry says its error no longer raises here (or only in a place verification
        # cannot see, such as a child process): check that this entry's error does not.
        # Another error (the generic one the main process sees) is consistent with that.
        if result.reproduced and error and error.entry_id == kb_entry_id:
            result.failures.append("the repro is marked not_reproducible but raised "
                                   f"{error.type}: {(error.message or '')[:120]}")
        return
    if not result.reproduced:
        result.failures.append(f"did not reproduce: {report.summary or report.exit_reason}")
        return
    result.matched = error is not None and error.entry_id == kb_entry_id
    if error is None or not result.matched:
        result.failures.append(f"classified as {(error.entry_id if error else None) or 'no entry'}, not {kb_entry_id}")
        return
    items = {w.id: w for w in entry.workarounds} | {d.id: d for d in entry.dead_ends}
    for row in (fix.as_json() for fix in report.fixes):  # the rows kb verify --json shows
        item = items.get(row.get("workaround"))
        status = row.get("status")
        if row.get("kind") == "workaround":
            result.fixes.append({"workaround": row["workaround"], "patch": row.get("patch"), "status": status})
            if status == Status.NOT_APPLICABLE and item is not None and item.applies_when:
                continue  # a scenario-specific fix: the general repro need not contain its scenario
            if status != Status.FIXED:
                result.failures.append(f"workaround {row['workaround']} ({row.get('patch')}): {_said(row)}")
        elif row.get("kind") == "dead_end":
            result.dead_ends.append({"id": row["workaround"], "patch": row.get("patch"), "status": status,
                                     "leads_to": row.get("expected") if row.get("expected") != "not fixed" else None,
                                     "raised": row.get("new_entry_id")})
            if row.get("as_expected") is not True:
                expected = getattr(item, "leads_to", None)
                want = f"raise {expected}" if expected else "still fail"
                result.failures.append(f"dead end {row['workaround']} ({row.get('patch')}) should {want}: {_said(row)}")


def _said(row: dict) -> str:
    status = row.get("status")
    if status == Status.FIXED:
        return "it ran without an error"
    if status == Status.NOT_APPLICABLE:
        return f"the patch did not apply ({row.get('reason')})"
    if status in (Status.STILL_FAILS, Status.NEW_ERROR):
        err = row.get("error") or {}
        what = row.get("new_entry_id") or f"{err.get('type')}: {(err.get('message') or '')[:100]}"
        return f"{status} ({what})"
    return str(status)


def verify_entry(entry: Entry, kb: KnowledgeBase, *, runner: Runner | None = None,
                 environment=None, pool: ZygotePool | None = None, record: ReportRecorder | None = None) -> EntryResult:
    """`environment`: a torch environment (bot.envs) to run on instead of the worker's own torch.
    `record`: a repro classified as its entry is evidence, under the host's environment
    (what it mounted, not what the run said about itself)."""
    repro = entry.repro
    result = EntryResult(id=entry.id, reproduce=repro.runs_on if repro else None)
    if repro is None:
        result.failures.append("the entry has no repro")
        return result
    if repro.runs_on not in RUNNABLE_HERE:
        result.note = f"runs on {repro.runs_on}: not run on this machine"
        return result
    started = time.monotonic()
    report = run_verification(repro.code, runner=runner, kb=kb, info={"executor": "kb verify"},
                              environment=environment, pool=pool)
    result.seconds = round(time.monotonic() - started, 2)
    result.ran = True
    result.report, result.code = report, repro.code
    _judge(entry, report, result)
    if record is not None and result.matched:
        where = env_environment(environment) if environment is not None else host_environment()
        record.save(replace(report, environment=where), repro.code)
    return result


def select_entries(kb: KnowledgeBase, ids: list[str]) -> list[Entry]:
    """The entries named (ids or aliases), or all of them; an unknown id is a KeyError
    naming it."""
    if not ids:
        return [kb.entries[i] for i in sorted(kb.entries)]
    chosen, unknown = [], []
    for name in ids:
        entry = kb.resolve(name) or kb.resolve(f"pytorch/{name}")
        if entry is None:
            unknown.append(name)
        elif entry not in chosen:
            chosen.append(entry)
    if unknown:
        raise KeyError(", ".join(unknown))
    return chosen


def verify_knowledge(kb: KnowledgeBase, entries: list[Entry], *, runner: Runner | None = None,
                     progress: Callable[[EntryResult, int, int], None] | None = None,
                     environment=None, record: ReportRecorder | None = None) -> list[EntryResult]:
    results = []
    # The next entry's warm sandbox starts while this one runs (one zygote per entry,
    # never shared between two entries).
    pool = start_pool([None], environment.site_packages if environment is not None else None) \
        if runner is None else None
    try:
        for n, entry in enumerate(entries, 1):
            result = verify_entry(entry, kb, runner=runner, environment=environment, pool=pool, record=record)
            results.append(result)
            if progress is not None:
                progress(result, n, len(entries))
    finally:
        if pool is not None:
            pool.close()
    return results


def summary(results: list[EntryResult]) -> dict[str, Any]:
    ran = [r for r in results if r.ran]
    claims = [(r, row) for r in ran for row in (*r.fixes, *r.dead_ends)]
    return {
        "entries": len(results),
        "ran": len(ran),
        "not_run": len(results) - len(ran),
        "proven": sum(1 for r in ran if not r.failures),
        "failed": sum(1 for r in results if r.failures),
        "patch_claims": len(claims),
        "patch_claims_failed": sum(len([f for f in r.failures if f.startswith(("workaround", "dead end"))])
                                   for r in ran),
    }


# --- proofs that ship (knowledge/proofs.json, bot/kb/proofs.py) -----------------------------

def proof_rows(entry: Entry, result: EntryResult, where: dict[str, Any], date: str) -> list[dict[str, Any]]:
    """The claims of `entry` this run proved, one row each (none when the repro did not
    do what the entry says: then no fix was tested on this entry's error). `where`:
    torch (the release), build, device and python of the run."""
    if not result.ran or result.report is None:
        return []
    repro_failed = any(f.startswith(("did not reproduce", "classified as", "the repro is marked"))
                       for f in result.failures)
    if repro_failed:
        return []
    held = ["repro"]
    for row in (fix.as_json() for fix in result.report.fixes):
        kind, item = row.get("kind"), row.get("workaround")
        if kind == "workaround" and row.get("status") == Status.FIXED:
            held.append(f"workaround:{item}")
        elif kind == "dead_end" and row.get("as_expected") is True:
            held.append(f"dead_end:{item}")
    out = []
    for claim in held:
        entry_sha = proofs.claim_hash(entry, claim)
        if entry_sha is None:
            continue
        item = proofs.item_of(entry, claim)
        out.append({"entry": entry.id, "claim": claim, "expected": proofs.expected_of(entry, claim),
                    "patch": getattr(item, "patch", None), **where, "date": date,
                    "entry_sha256": entry_sha, "repro_sha256": proofs.repro_hash(entry)})
    return out


def where_ran(environment=None) -> dict[str, Any]:
    """The release, build, device and Python a kb verify run used (its environment, or this
    process's own torch)."""
    if environment is not None:
        return {"torch": environment.version, "build": environment.torch, "device": "cpu",
                "python": environment.python}
    build = _host_torch() or ""
    return {"torch": build.split("+", 1)[0], "build": build, "device": "cpu",
            "python": ".".join(platform.python_version_tuple()[:2])}
