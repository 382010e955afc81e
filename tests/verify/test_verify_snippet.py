"""verify_snippet end to end through the real sandbox: the seed's example, a snippet
that does not fail, the asker's own fix, an error without an entry, an entry without
patches, patches that do not apply, and a run that times out."""

from __future__ import annotations

import dataclasses
import threading
from pathlib import Path
from textwrap import dedent

import pytest

from bot.verify import verify_snippet
from bot.verify.report import ErrorInfo

DATA = Path(__file__).resolve().parent / "data"
SEED = (DATA / "seed000_backward_twice.py").read_text()
SEED_FIXED = SEED.replace("loss.backward()\nloss.backward()", "loss.backward(retain_graph=True)\nloss.backward()")
CONTRACT_KEYS = {"reproduced", "exit_reason", "output", "error", "environment", "fixes"}
FIX_KEYS = {"workaround", "status", "error", "seconds", "peak_memory_bytes"}


@pytest.fixture(scope="module")
def seed_report(sandbox_runner, kb):
    stages = []
    finished = []
    others_done = threading.Event()
    lock = threading.Lock()
    busy: set[str] = set()
    gpu_clashes = []
    gpus_used = []

    def runner(code, **options):
        # This machine has no GPU: note which one each run was given and run it on the
        # CPU, to check that two runs never share one.
        gpu = options.pop("gpu")
        with lock:
            gpu_clashes.extend([gpu] if gpu in busy else [])
            busy.add(gpu)
            gpus_used.append(gpu)
        try:
            # Hold the first workaround's run back until the other four fixes have run, so
            # that it finishes last: the report must still list the fixes in the entry's order.
            if "retain_graph=True" in code:
                others_done.wait(timeout=120)
            result = sandbox_runner(code, **options)
        finally:
            with lock:
                busy.discard(gpu)
        finished.append(code)
        if len(finished) == 5:  # the original and four fixes
            others_done.set()
        return result

    report = verify_snippet(SEED, runner=runner, kb=kb, gpus=["0", "1"], progress=lambda *a: stages.append(a))
    return report, stages, finished, (gpu_clashes, gpus_used)


def test_seed_reproduces_and_matches_backward_twice(seed_report):
    report, *_ = seed_report
    assert CONTRACT_KEYS <= set(report.as_json())
    assert report.reproduced is True
    assert report.exit_reason == "error"
    assert report.error.type == "RuntimeError"
    assert report.error.entry_id == "pytorch/backward-twice"
    assert report.confidence >= 0.9
    assert report.environment["torch"].startswith("2.13")
    assert any("seccomp" in limit for limit in report.limits)  # it ran in the sandbox


def test_the_real_report_is_its_typed_model(seed_report):
    import json

    from bot.verify.report import FixRow, VerifyReport

    report, *_ = seed_report
    assert isinstance(report, VerifyReport)
    assert all(isinstance(row, FixRow) for row in report.fixes) and len(report.fixes) == 5
    data = json.loads(json.dumps(report.as_json(), ensure_ascii=False))
    model = VerifyReport.from_json(data)  # the JSON an executor's worker sends reads back as the same report
    assert model == report and json.dumps(model.as_json(), ensure_ascii=False) == json.dumps(data, ensure_ascii=False)


def test_seed_fixes_and_dead_ends(seed_report):
    report, *_ = seed_report
    rows = {row.patch: row for row in report.fixes}
    assert [r.patch for r in report.fixes] == ["retain-graph", "recompute-forward", "detach-before-backward",
                                                      "no-grad-forward", "move-model-roundtrip"]
    for row in report.fixes:
        assert FIX_KEYS <= set(row.as_json())
    assert rows["retain-graph"].status == "fixed"
    assert rows["recompute-forward"].status == "fixed"
    for dead_end in ("detach-before-backward", "no-grad-forward"):
        assert rows[dead_end].status == "new_error"
        assert rows[dead_end].error.entry_id == "pytorch/no-grad-fn"
        assert rows[dead_end].kind == "dead_end"
    assert rows["move-model-roundtrip"].status == "still_fails"
    assert rows["move-model-roundtrip"].error.entry_id == "pytorch/backward-twice"
    assert all(row.as_expected for row in report.fixes)
    fixed = rows["retain-graph"]
    assert fixed.seconds > 0 and fixed.peak_memory_bytes > 0
    assert isinstance(fixed.memory_change, float)
    assert "+loss.backward(retain_graph=True)" in fixed.diff
    assert "retain-graph fixes it" in report.summary
    assert "detach-before-backward does not fix it: it raises pytorch/no-grad-fn instead" in report.summary


def test_seed_runs_keep_their_order_and_report_progress(seed_report):
    report, stages, finished, _ = seed_report
    assert "retain_graph=True" in finished[-1]  # it really finished last ...
    assert report.fixes[0].patch == "retain-graph"  # ... and is still listed first
    names = [s[0] for s in stages]
    assert names[0] == "running original"
    assert names[-1] == "done" and stages[-1][1] == stages[-1][2] == 6
    assert {n for n in names if n.startswith("fix ")} == {
        "fix 1 of 5: retain-graph", "fix 2 of 5: recompute-forward", "fix 3 of 5: detach-before-backward",
        "fix 4 of 5: no-grad-forward", "fix 5 of 5: move-model-roundtrip"}
    done_counts = [s[1] for s in stages]
    assert done_counts == sorted(done_counts)


def test_a_snippet_that_does_not_fail(sandbox_runner, kb):
    report = verify_snippet(SEED_FIXED, runner=sandbox_runner, kb=kb, fixed_code=SEED_FIXED)
    assert report.reproduced is False
    assert report.exit_reason == "ok"
    assert report.error is None
    assert report.fixes == []
    assert report.summary.startswith("does not reproduce on torch 2.13")
    assert "two backward passes done" in report.output


def test_the_askers_fixed_version(sandbox_runner, kb):
    still_broken = SEED.replace("loss.backward()\nloss.backward()", "loss.backward()\nloss.sum().backward()")
    entry = kb.resolve("pytorch/backward-twice")
    no_patches = _without_patches(kb, entry)
    good = verify_snippet(SEED, fixed_code=SEED_FIXED, runner=sandbox_runner, kb=no_patches)
    bad = verify_snippet(SEED, fixed_code=still_broken, runner=sandbox_runner, kb=no_patches)
    assert [r.workaround for r in good.fixes] == ["user-fixed"]
    assert good.fixes[0].status == "fixed"
    assert bad.fixes[0].status == "still_fails"
    assert "Your fixed version fixes it" in good.summary


def _without_patches(kb, entry):
    """The same knowledge, with `entry`'s patches taken away."""
    stripped = dataclasses.replace(entry, workarounds=[dataclasses.replace(w, patch=None) for w in entry.workarounds],
                                   dead_ends=[dataclasses.replace(d, patch=None) for d in entry.dead_ends])
    return dataclasses.replace(kb, entries={**kb.entries, entry.id: stripped})


def test_an_entry_without_a_mechanical_fix_gives_the_diagnosis(sandbox_runner, kb):
    entry = kb.resolve("pytorch/backward-twice")
    report = verify_snippet(SEED, runner=sandbox_runner, kb=_without_patches(kb, entry))
    assert report.reproduced is True and report.fixes == []
    assert report.diagnosis == entry.diagnosis["en"]
    assert "no safe mechanical fix" in report.summary
    assert "Find the tensor that lives across the two backward calls" in report.summary


def test_an_error_without_an_entry(sandbox_runner, kb):
    code = "def load(path):\n    raise ValueError('config file has no [train] section')\n\nload('x.toml')\n"
    report = verify_snippet(code, runner=sandbox_runner, kb=kb)
    assert report.reproduced is True
    assert report.error == ErrorInfo(type="ValueError", message="config file has no [train] section", entry_id=None)
    assert report.fixes == []
    assert "matches no known entry" in report.summary


def test_patches_that_do_not_apply_say_why(sandbox_runner, kb):
    code = dedent("""\
        import torch
        w = torch.randn(2, requires_grad=True)
        h = w.exp()
        parts = [h.sum(), (h * 2).sum()]
        parts[0].backward()
        parts[1].backward()
    """)
    report = verify_snippet(code, runner=sandbox_runner, kb=kb)
    rows = {row.patch: row for row in report.fixes}
    assert rows["retain-graph"].status == "fixed"
    for name in ("recompute-forward", "no-grad-forward", "move-model-roundtrip"):
        assert rows[name].status == "not_applicable"
        assert "`parts[1]`" in rows[name].reason
        assert rows[name].seconds is None
    assert rows["detach-before-backward"].status == "new_error"


def test_a_fix_that_runs_past_the_deadline_is_a_timeout(sandbox_runner, kb):
    from bot.sandbox import Limits

    sleeper = SEED_FIXED.replace('print("two backward passes done")', "import time\ntime.sleep(60)")
    entry = kb.resolve("pytorch/backward-twice")
    report = verify_snippet(SEED, fixed_code=sleeper, runner=sandbox_runner, kb=_without_patches(kb, entry),
                            run_options={"limits": Limits(wall_seconds=8)})
    assert report.reproduced is True
    assert report.fixes[0].status == "timeout"


def test_with_gpus_runs_go_one_per_gpu(seed_report):
    *_, (clashes, used) = seed_report
    assert clashes == []  # never two runs on one GPU at once
    assert len(used) == 6 and set(used) == {"0", "1"}


def test_the_human_report(seed_report):
    from bot.verify.report import format_report

    text = format_report(seed_report[0])
    assert text.startswith("Original run: RuntimeError (")
    assert "Matched: pytorch/backward-twice - Backward through the same graph a second time (confidence 0.95)" in text
    table = text.split("Fixes tried (5):")[1].split("What each one changed:")[0].splitlines()
    assert table[1].split()[:2] == ["#", "kind"]
    rows = [line.split() for line in table[2:] if line.strip()]
    assert [(r[2], r[3], r[4]) for r in rows[:2]] == [("retain-graph-all-but-last", "retain-graph", "fixed"),
                                                      ("recompute-forward", "recompute-forward", "fixed")]
    assert rows[2][:6] == ["3", "dead", "end", "detach-before-backward", "detach-before-backward", "new_error"]
    assert "pytorch/no-grad-fn" in " ".join(rows[2]) and "pytorch/no-grad-fn" in " ".join(rows[3])
    assert rows[4][5] == "still_fails"
    assert "1. retain_graph=True added to the backward call(s) on line(s) 21" in text
    assert "Sandbox limits: wall clock" in text


def test_empty_snippet_is_refused(kb):
    with pytest.raises(ValueError, match="empty"):
        verify_snippet("   \n", kb=kb, runner=lambda code: None)
