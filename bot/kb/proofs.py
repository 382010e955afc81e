"""Proofs that ship with the knowledge base: what `troubleshoot kb verify --export` proved
on a torch release, in `knowledge/proofs.json` (committed with the entries).

One row per entry x claim x torch release:

    {"entry": "pytorch/backward-twice", "claim": "workaround:retain-graph", "expected": "fixed",
     "patch": "retain-graph", "torch": "2.13.0", "build": "2.13.0+cpu", "device": "cpu",
     "python": "3.11", "date": "2026-12-04", "entry_sha256": "…", "repro_sha256": "…"}

A claim is `repro` (the repro raises this entry's error, or, marked not_reproducible,
does not), `workaround:ID` (the patch makes the error go away) or `dead_end:ID` (the
patch still fails, or raises what `leads_to` names). `entry_sha256` hashes what the claim
rests on in the entry (its id, signatures and the item: patch, code, leads_to,
applies_when), `repro_sha256` the repro. A row whose hashes no longer match the entry
is stale: answers do not show it, and `kb check` names the entry to verify again. The
prose (titles, explanations in each language) and the priors are left out of the hash:
rewording a fix does not change what its patch does to the repro.

Rows are kept in a stable order (entry, claim, release), so that a second release's
run adds its rows beside the first's and the diff shows only what changed.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.kb import model as m
from bot.text.files import write_text_atomic

PROOFS_FILE = "proofs.json"
ABOUT = ("What `troubleshoot kb verify --export` proved, one row per entry, claim and torch release; "
         "a row whose hashes no longer match its entry is not shown (see bot/kb/proofs.py).")
HASH_CHARS = 16
ROW_KEYS = ("entry", "claim", "expected", "patch", "torch", "build", "device", "python", "date",
            "entry_sha256", "repro_sha256")


def _sha(data: Any) -> str:
    text = json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:HASH_CHARS]


def item_of(entry: m.Entry, claim: str) -> m.Workaround | m.DeadEnd | None:
    kind, _, item_id = claim.partition(":")
    items: list[Any] = entry.workarounds if kind == "workaround" else entry.dead_ends if kind == "dead_end" else []
    return next((i for i in items if i.id == item_id), None)


def claim_hash(entry: m.Entry, claim: str) -> str | None:
    """The hash of what `claim` rests on in `entry`; None when the entry no longer has
    the item the claim is about."""
    about: dict[str, Any] = {"entry": entry.id, "signatures": [s.pattern for s in entry.signatures], "claim": claim}
    if claim != "repro":
        item = item_of(entry, claim)
        if item is None:
            return None
        about["item"] = {"id": item.id, "patch": item.patch, "code": item.code,
                         "leads_to": getattr(item, "leads_to", None),
                         "applies_when": [s.pattern for s in getattr(item, "applies_when", [])]}
    return _sha(about)


def repro_hash(entry: m.Entry) -> str | None:
    repro = entry.repro
    if repro is None:
        return None
    return _sha({"runs_on": repro.runs_on, "code": repro.code, "not_reproducible": repro.not_reproducible is not None})


def expected_of(entry: m.Entry, claim: str) -> str:
    """The status the claim says the run has, in the words of the file."""
    if claim == "repro":
        return "no error" if entry.repro is not None and entry.repro.not_reproducible is not None else "raises"
    if claim.startswith("workaround:"):
        return "fixed"
    item = item_of(entry, claim)
    leads_to = getattr(item, "leads_to", None)
    return f"raises {leads_to}" if leads_to else "still fails"


def version_key(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", version.split("+", 1)[0])[:3])


def _claim_order(claim: str) -> tuple[int, str]:
    return ({"repro": 0, "workaround": 1, "dead_end": 2}.get(claim.partition(":")[0], 3), claim)


def sort_rows(rows: list[dict]) -> list[dict]:
    return sorted(rows, key=lambda r: (r["entry"], _claim_order(r["claim"]), version_key(r["torch"])))


# --- reading and writing the file ----------------------------------------------------------

class ProofsError(ValueError):
    """The proofs file cannot be read; the message names the file and what is wrong."""


def proofs_path(root: str | os.PathLike) -> Path:
    return Path(root) / PROOFS_FILE


def read_rows(path: str | os.PathLike) -> list[dict]:
    """The rows of a proofs file; [] where there is none. A malformed file is a ProofsError."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise ProofsError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ProofsError(f"{path}: not JSON ({exc})") from None
    rows = data.get("proofs") if isinstance(data, dict) else None
    if not isinstance(rows, list):
        raise ProofsError(f"{path}: expected an object with a list \"proofs\"")
    for n, row in enumerate(rows):
        missing = [k for k in ROW_KEYS if not isinstance(row, dict) or k not in row]
        if missing:
            raise ProofsError(f"{path}: proofs[{n}] lacks {', '.join(missing)}")
    return rows


def write_rows(path: str | os.PathLike, rows: list[dict]) -> None:
    """The file, whole, through a rename: one row a line, in the stable order."""
    path = Path(path)
    lines = [json.dumps({k: row[k] for k in ROW_KEYS}, ensure_ascii=False) for row in sort_rows(rows)]
    body = "{\n\"about\": " + json.dumps(ABOUT) + ",\n\"proofs\": [\n" + ",\n".join(lines) + "\n]\n}\n"
    write_text_atomic(path, body)


def merge(old: list[dict], new: list[dict], *, replaced: set[tuple[str, str]], entries: set[str]) -> list[dict]:
    """`old` with the (entry, release) pairs of this run replaced by `new`: the rows of
    other releases and of entries not run stay; rows of entries that are gone go."""
    kept = [r for r in old if (r["entry"], r["torch"]) not in replaced and r["entry"] in entries]
    return sort_rows(kept + new)


# --- what answers read -------------------------------------------------------------------------

@dataclass
class Proof:
    """What the shipped proofs say about one claim of an entry, over the releases that held it."""

    claim: str
    expected: str
    torch: list[str] = field(default_factory=list)  # releases, oldest first
    devices: list[str] = field(default_factory=list)
    date: str = ""  # the latest proof's date

    def as_json(self) -> dict[str, Any]:
        return {"claim": self.claim, "expected": self.expected, "torch": list(self.torch),
                "devices": list(self.devices), "date": self.date}


@dataclass
class Stale:
    entry: str
    claim: str
    torch: str
    why: str

    def describe(self) -> str:
        if not self.entry:
            return f"{PROOFS_FILE}: {self.why}"
        return (f"{self.entry}: the proof of {self.claim} on torch {self.torch} no longer holds ({self.why}); "
                f"run `troubleshoot kb verify {self.entry} --torch {self.torch} --export`")


def check_row(entry: m.Entry | None, row: dict) -> str | None:
    """None when the row still holds for `entry` as it is now; else why not."""
    if entry is None:
        return "the entry is gone"
    if row["claim"] != "repro" and item_of(entry, row["claim"]) is None:
        return "the entry no longer has that item"
    if claim_hash(entry, row["claim"]) != row["entry_sha256"]:
        return "the entry changed after its proof"
    if repro_hash(entry) != row["repro_sha256"]:
        return "the repro changed after its proof"
    return None


def attach(kb: m.KnowledgeBase) -> None:
    """Give each entry its proofs that still hold (`entry.proofs`, claim -> Proof) and
    keep those that do not in `kb.stale_proofs`. A file that cannot be read is one
    stale note and no proofs: answers then show the team's estimates."""
    kb.stale_proofs = []
    for entry in kb.entries.values():
        entry.proofs = {}
    try:
        rows = read_rows(proofs_path(kb.root))
    except ProofsError as exc:
        kb.stale_proofs.append(Stale("", PROOFS_FILE, "", str(exc)))
        return
    for row in sort_rows(rows):
        entry = kb.resolve(row["entry"])
        why = check_row(entry, row)
        if why is not None or entry is None:
            kb.stale_proofs.append(Stale(row["entry"], row["claim"], row["torch"], why or ""))
            continue
        proof = entry.proofs.setdefault(row["claim"], Proof(row["claim"], row["expected"]))
        if row["torch"] not in proof.torch:
            proof.torch.append(row["torch"])
        if row["device"] not in proof.devices:
            proof.devices.append(row["device"])
        proof.date = max(proof.date, str(row["date"]))
