"""The one verification path runs a job's variants in one warm sandbox (bot/sandbox/
zygote.py), and it reports what a sandbox per run reports."""

from __future__ import annotations

import pytest

from bot.sandbox import run_snippet
from bot.verify.report import VerifyReport
from bot.verify.service import run_verification

from .conftest import DATA

pytestmark = pytest.mark.requires_sandbox

SEED = (DATA / "seed000_backward_twice.py").read_text()


def _statuses(report: VerifyReport) -> list[tuple[str, str]]:
    return [(row.patch, row.status) for row in report.fixes]


def test_a_verification_runs_in_one_warm_sandbox_and_agrees_with_a_sandbox_per_run():
    warm = run_verification(SEED)
    cold = run_verification(SEED, runner=run_snippet)
    assert warm.reproduced and cold.reproduced
    assert warm.error == cold.error
    assert _statuses(warm) == _statuses(cold) and len(_statuses(warm)) >= 4
    assert any(line.startswith("warm sandbox:") for line in warm.limits), warm.limits
    assert not any(line.startswith("warm sandbox:") for line in cold.limits)
    assert not warm.notes, warm.notes  # every run was warm: nothing to explain


def test_the_warm_sandbox_can_be_turned_off(monkeypatch):
    monkeypatch.setenv("TROUBLESHOOT_WARM_SANDBOX", "0")
    report = run_verification("raise ValueError('plain')")
    assert report.reproduced and report.error.type == "ValueError"
    assert not any(line.startswith("warm sandbox:") for line in report.limits)


def test_a_snippet_whose_rlimits_differ_is_run_cold_with_a_note():
    from bot.sandbox import Limits
    from bot.sandbox.warm import WarmRunner

    with WarmRunner() as run:
        first = run("print(1)", limits=Limits(wall_seconds=20))
        other = run("print(2)", limits=Limits(wall_seconds=20, open_files=128))
    assert first.sandbox.get("warm") and not other.sandbox.get("warm")
    assert any("rlimits" in note for note in other.notes)


# Honest code that binds a fixed loopback port and leaves it in TIME_WAIT (the server
# side closes first): in one network namespace shared by warm siblings, the next variant's
# bind fails with "Address already in use" and a real fix reads as a new error (issue 27).
PORT_PRELUDE = """import socket
server = socket.socket()
server.bind(("127.0.0.1", 47123))
server.listen(1)
client = socket.create_connection(("127.0.0.1", 47123))
conn, _ = server.accept()
conn.close()
server.close()
client.close()
"""


def test_a_snippet_that_uses_sockets_runs_each_variant_in_a_sandbox_of_its_own():
    report = run_verification(PORT_PRELUDE + SEED)
    assert report.reproduced and report.error.type == "RuntimeError"
    fixes = {row.workaround: row.status.value for row in report.fixes if row.kind == "workaround"}
    assert fixes and all(status in ("fixed", "not_applicable") for status in fixes.values()), fixes
    assert "fixed" in fixes.values()
    assert any(note.startswith("every run in a sandbox of its own instead of a warm one: the snippet uses sockets")
               for note in report.notes), report.notes
    assert not any(line.startswith("warm sandbox:") for line in report.limits)


def test_a_snippet_that_reads_its_pid_sees_the_same_pid_in_every_run():
    """In a warm sandbox the original is the first child (pid 3) and each variant a later
    one: a snippet that branched on its pid could tell them apart. Code that reads its
    pid runs every variant in a sandbox of its own, where each run's snippet is pid 2."""
    report = run_verification("import os\nprint('pid', os.getpid(), flush=True)\n" + SEED)
    assert report.reproduced and "pid 2\n" in report.output
    ran = [row for row in report.fixes if row.status.value != "not_applicable"]
    assert ran and all("pid 2\n" in row.output_tail for row in ran), [row.output_tail[:40] for row in ran]
    assert any("the snippet uses its pid" in note for note in report.notes), report.notes
