"""Each entry's measured version table: what `kb verify --torch V1,V2` saw on each
torch release (did the repro raise, with which wording, which fixes held).

Kept as one JSON file (default <var dir>/version-table.json, written whole through a
rename), keyed by entry id, then by release:

    {"pytorch/backward-twice": {"2.13.0": {"torch": "2.13.0+cpu", "reproduced": true,
        "error_type": "RuntimeError", "message": "Trying to backward ...", "matched": true,
        "fixes": {"retain-graph": "fixed"}, "dead_ends": {...}, "checked_at": "..."}}}

`rows(entry_id)` is what a page, the answer JSON or a Slack detail shows: measured
rows only, newest release first. `new_wordings` lists messages a release gave that the
entry's examples do not hold yet: the signature test cases to add.
"""

from __future__ import annotations

import json
import os
import tempfile
from datetime import datetime, timezone
from pathlib import Path

from bot.settings import var_dir
from bot.text.jsonin import loads as json_loads

MESSAGE_CHARS = 300


def default_path() -> Path:
    return var_dir() / "version-table.json"


def _first_line(message: str | None) -> str:
    text = (message or "").strip().splitlines()
    return text[0][:MESSAGE_CHARS] if text else ""


class VersionTable:
    def __init__(self, path: str | os.PathLike | None = None):
        self.path = Path(path) if path is not None else default_path()

    def load(self) -> dict:
        try:
            data = json_loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def rows(self, entry_id: str) -> list[dict]:
        table = self.load().get(entry_id) or {}
        out = [dict(row, version=v) for v, row in table.items() if isinstance(row, dict)]
        return sorted(out, key=lambda r: _key(r["version"]), reverse=True)

    def record(self, entry_id: str, version: str, row: dict) -> None:
        data = self.load()
        data.setdefault(entry_id, {})[version] = row
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".version-table-", dir=self.path.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=1, ensure_ascii=False, sort_keys=True)
        os.replace(tmp, self.path)


def row_from(result, environment) -> dict:
    """A table row from one entry's kb-verify result on one environment."""
    error = result.error or {}
    return {
        "torch": environment.torch,
        "cuda": environment.cuda,
        "python": environment.python,
        "ran": result.ran,
        "reproduced": result.reproduced,
        "error_type": error.get("type"),
        "message": _first_line(error.get("message")),
        "classified_as": error.get("entry_id"),
        "matched": result.matched,
        "fixes": {f["workaround"]: f["status"] for f in result.fixes},
        "dead_ends": {d["id"]: d["status"] for d in result.dead_ends},
        "failures": list(result.failures),
        "checked_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }


def new_wordings(entry, rows_by_version: dict[str, dict]) -> list[dict]:
    """Messages the releases gave that no example of the entry holds: each one a
    signature test case to add (with whether the entry's signatures match it now)."""
    known = {" ".join(e.split(":", 1)[-1].split()) for e in entry.examples}
    known |= {" ".join(e.split()) for e in entry.examples}
    out, seen = [], set()
    for version, row in rows_by_version.items():
        message = row.get("message")
        if not row.get("reproduced") or not message:
            continue
        flat = " ".join(message.split())
        if flat in known or flat in seen or any(flat in k or k.endswith(flat) for k in known):
            continue
        seen.add(flat)
        example = f"{row.get('error_type')}: {message}" if row.get("error_type") else message
        out.append({"entry": entry.id, "torch": version, "example": example,
                    "signature_matches": any(s.regex.search(example) for s in entry.signatures)})
    return out


def _key(version: str) -> tuple:
    return tuple(int(p) if p.isdigit() else 0 for p in version.split("+")[0].split("."))
