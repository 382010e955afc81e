"""`troubleshoot kb verify`: each entry's own repro runs through the real sandbox and
the verification path; a claim that does not hold fails (exit 1) and says which.

The last test is CI's check of the whole knowledge base: every `cpu` repro must
reproduce here, be classified as its own entry, and every patched workaround and dead
end must do what the entry says."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli import main

needs_sandbox = pytest.mark.requires_sandbox


def kb_verify(capsys, *args: str) -> tuple[int, dict]:
    code = main(["kb", "verify", "--json", "--no-record", *args])
    return code, json.loads(capsys.readouterr().out)


def edit(kb_dir: Path, name: str, old: str, new: str) -> None:
    path = kb_dir / "entries" / "pytorch" / f"{name}.yml"
    text = path.read_text(encoding="utf-8")
    assert old in text, f"test setup: {old!r} not in {name}.yml"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


@needs_sandbox
def test_an_entry_whose_claims_hold_passes(kb_dir, capsys):
    code, out = kb_verify(capsys, "--dir", str(kb_dir), "pytorch/view-stride")
    [entry] = out["entries"]
    assert code == 0, entry["failures"]
    assert entry["ran"] and entry["reproduced"] and entry["matched"]
    assert {f["workaround"]: f["status"] for f in entry["fixes"]} == {
        "reshape-instead-of-view": "fixed", "contiguous-before-view": "fixed"}
    assert [d["status"] for d in entry["dead_ends"]] == ["still_fails"]
    assert out["summary"]["proven"] == 1


@needs_sandbox
def test_a_dead_end_claimed_as_a_fix_fails_and_is_named(kb_dir, capsys):
    # Claim that cloning before the view fixes it: the run says otherwise.
    edit(kb_dir, "view-stride", "    patch: reshape-instead-of-view", "    patch: clone-before-view")
    code, out = kb_verify(capsys, "--dir", str(kb_dir), "view-stride")
    assert code == 1
    [failure] = out["entries"][0]["failures"]
    assert "clone-before-view" in failure and "still_fails" in failure


@needs_sandbox
def test_a_repro_that_no_longer_raises_fails(kb_dir, capsys):
    edit(kb_dir, "view-stride", "runs_on: cpu\n  code: |\n", "runs_on: cpu\n  code: |\n    raise SystemExit(0)\n")
    code, out = kb_verify(capsys, "--dir", str(kb_dir), "pytorch/view-stride")
    assert code == 1
    entry = out["entries"][0]
    assert entry["reproduced"] is False and "did not reproduce" in entry["failures"][0]


@needs_sandbox
def test_a_repro_classified_as_a_neighbour_fails(kb_dir, capsys):
    # The view-stride entry's repro replaced by a backward-twice one.
    edit(kb_dir, "view-stride", "runs_on: cpu\n  code: |\n",
         "runs_on: cpu\n  code: |\n    import torch\n    x = torch.ones(2, requires_grad=True)\n"
         "    y = (x * x).sum()\n    y.backward()\n    y.backward()\n")
    code, out = kb_verify(capsys, "--dir", str(kb_dir), "pytorch/view-stride")
    assert code == 1
    entry = out["entries"][0]
    assert entry["matched"] is False
    assert "classified as pytorch/backward-twice" in entry["failures"][0]


def test_a_gpu_repro_is_listed_as_not_run(kb_dir, capsys):
    code, out = kb_verify(capsys, "--dir", str(kb_dir), "pytorch/cuda-oom")
    assert code == 0
    [entry] = out["entries"]
    assert entry["ran"] is False and entry["reproduce"] == "cuda"
    assert "not run on this machine" in entry["note"]


def test_an_unknown_id_is_named(kb_dir, capsys):
    code = main(["kb", "verify", "--dir", str(kb_dir), "pytorch/view-strid"])
    assert code == 2
    assert "no entry named pytorch/view-strid" in capsys.readouterr().err


@needs_sandbox
def test_outcomes_are_recorded_once_under_the_hosts_environment_and_not_with_no_record(kb_dir, capsys):
    from importlib import metadata

    from bot.evidence.db import get_store
    from bot.store.models import Verification

    def recorded() -> list[tuple]:
        with get_store().session() as session:
            return [(r.entry_id, r.torch, r.surface) for r in session.query(Verification).order_by(Verification.id)]

    before = recorded()
    assert main(["kb", "verify", "--no-record", "--dir", str(kb_dir), "pytorch/view-stride"]) == 0
    assert recorded() == before  # --no-record: nothing
    assert main(["kb", "verify", "--dir", str(kb_dir), "pytorch/view-stride"]) == 0
    assert recorded() == before + [("pytorch/view-stride", metadata.version("torch"), "kb verify")]  # once


@pytest.mark.slow
@pytest.mark.timeout(2400)  # about 7 minutes on 2 cores: every cpu repro and every patch claim
@needs_sandbox
def test_every_cpu_entry_proves_its_claims(capsys):
    """CI: the knowledge base is tested like code."""
    code, out = kb_verify(capsys)
    failed = {e["id"]: e["failures"] for e in out["entries"] if e["failures"]}
    assert code == 0 and not failed, json.dumps(failed, indent=1)
    ran = [e["id"] for e in out["entries"] if e["ran"]]
    assert len(ran) >= 20, ran


@needs_sandbox
def test_a_repro_marked_not_reproducible_that_raises_its_own_error_fails(kb_dir, capsys):
    edit(kb_dir, "view-stride", "repro:\n  runs_on: cpu\n",
         "repro:\n  runs_on: cpu\n  not_reproducible: {en: gone on 2.13, ko: 2.13에서 사라짐, zh: 2.13已不再出现}\n")
    code, out = kb_verify(capsys, "--dir", str(kb_dir), "pytorch/view-stride")
    assert code == 1
    assert "marked not_reproducible but raised" in out["entries"][0]["failures"][0]
