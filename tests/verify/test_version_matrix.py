"""The version matrix: torch environments (bot/envs), the sandbox mounting one instead of
the worker's own packages, `verify --torch`, `kb verify --torch` and `envs`.

The environments are two made by pip from the same local torch wheel under two names of
one release ("2.13", "2.13.0"; see tests/conftest.py): no second torch release can be
had here without a multi-GB download, so what differs between the columns is the
environment, not torch. Both are real installs, checked by importing torch from them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli import main
from bot.envs import EnvError, EnvStore, UnknownVersion
from bot.envs.store import check_version, same_release
from bot.verify.matrix import combine, format_matrix
from bot.verify.report import ErrorInfo, ExitReason, FixRow, Status, VerifyReport

REPO = Path(__file__).resolve().parents[2]
SEED = REPO / "tests" / "verify" / "data" / "seed000_backward_twice.py"

pytestmark = pytest.mark.slow


def _sandbox():
    from bot.sandbox import sandbox_available

    ok, why = sandbox_available()
    if not ok:
        pytest.skip(f"the sandbox cannot run here: {why}")


# --- no environment needed ---------------------------------------------------------------------

@pytest.mark.parametrize("asked, got, same", [("2.13.0", "2.13.0+cpu", True), ("2.13", "2.13.0", True),
                                              ("2.9.1", "2.9.10", False), ("2.9", "2.9.1", False)])
def test_same_release(asked, got, same):
    assert same_release(asked, got) is same


@pytest.mark.parametrize("bad", ["", "latest", "2", "2.13.0; rm -rf /", "../x"])
def test_bad_version_numbers_are_refused(bad):
    with pytest.raises(EnvError):
        check_version(bad)


def test_unknown_release_is_refused_with_the_list(tmp_path):
    store = EnvStore(tmp_path / "envs", index_url="")
    with pytest.raises(UnknownVersion) as info:
        store.add("2.99.7")
    # The list is the package index's answer: the release this machine has on disk is in it.
    assert "2.13.0" in info.value.available and "2.99.7" not in info.value.available
    assert "2.13.0" in str(info.value)
    assert not (tmp_path / "envs" / "torch-2.99.7").exists()


def test_envs_add_cli_names_the_releases(tmp_path, capsys):
    assert main(["envs", "add", "2.99.7", "--dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "torch 2.99.7 is not a release" in err and "2.13.0" in err


def test_verify_torch_without_that_environment_names_those_installed(torch_envs, capsys):
    store, _ = torch_envs
    code = main(["verify", str(SEED), "--torch", "2.13.0,2.9.1", "--envs-dir", str(store.root), "--no-record"])
    err = capsys.readouterr().err
    assert code == 2
    assert "2.9.1" in err and "installed: 2.13, 2.13.0" in err


# --- the environments --------------------------------------------------------------------------

def test_environments_are_listed_with_size_and_check(torch_envs, capsys):
    store, envs = torch_envs
    assert [e.version for e in store.list()] == ["2.13", "2.13.0"]
    for env in envs:
        assert same_release(env.version, env.torch)
        assert env.size_bytes > 100 * 1024 * 1024  # torch itself, not an empty folder
        assert env.install_seconds > 0
        assert (Path(env.site_packages) / "torch" / "version.py").is_file()
        assert store.recheck(env.version)["torch"] == env.torch
    assert main(["envs", "list", "--dir", str(store.root), "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)["environments"]
    assert [e["version"] for e in listed] == ["2.13", "2.13.0"]
    assert all(e["size_bytes"] == env.size_bytes for e, env in zip(listed, envs, strict=True))


def test_the_sandbox_mounts_the_environment_instead_of_the_workers_packages(torch_envs):
    _sandbox()
    from bot.sandbox import run_snippet

    _, envs = torch_envs
    code = ("import sys, torch\nprint('TORCH', torch.__version__, torch.__file__)\n"
            "import celery\n")  # celery is in the worker's venv, never in an environment
    own = run_snippet(code)
    assert own.exit_reason == "ok", own.output
    mounted = run_snippet(code, site_packages=envs[0].site_packages)
    assert mounted.exit_reason == "error"
    assert mounted.error["type"] == "ModuleNotFoundError" and "celery" in mounted.error["message"]
    assert "TORCH 2.13.0" in mounted.output
    # The host names the torch from the folder it mounted.
    assert mounted.environment["torch"] == envs[0].torch


def test_an_environment_cannot_be_written_from_the_sandbox(torch_envs):
    _sandbox()
    from bot.sandbox import run_snippet

    _, envs = torch_envs
    target = Path(envs[1].site_packages) / "torch" / "version.py"
    before = target.read_bytes()
    result = run_snippet("import torch, os\nopen(os.path.join(os.path.dirname(torch.__file__), 'version.py'), 'a')"
                         ".write('x')\n", site_packages=envs[1].site_packages)
    assert result.exit_reason == "error" and result.error["type"] in ("OSError", "PermissionError")
    assert target.read_bytes() == before


def test_verify_on_two_environments(torch_envs, capsys):
    _sandbox()
    store, envs = torch_envs
    code = main(["verify", str(SEED), "--torch", "2.13,2.13.0", "--envs-dir", str(store.root), "--json",
                 "--no-record"])
    out = capsys.readouterr().out
    assert code == 0
    report = json.loads(out)
    versions = report["versions"]
    assert [v["environment"]["version"] for v in versions] == ["2.13", "2.13.0"]
    assert [v["environment"]["name"] for v in versions] == ["torch-2.13", "torch-2.13.0"]
    for row, env in zip(versions, envs, strict=True):
        assert row["environment"]["torch"] == env.torch
        assert row["reproduced"] is True
        assert row["error"]["entry_id"] == "pytorch/backward-twice"
        statuses = {f["workaround"]: f["status"] for f in row["fixes"]}
        assert statuses  # the entry's patches ran on this release
        assert any(s == "fixed" for s in statuses.values())
    # The matrix has the fixes of both columns, each with a status per release.
    for fix in report["matrix"]:
        assert set(fix["status"]) == {"2.13", "2.13.0"}
    # The same wheel twice: every fix ends the same way on both.
    assert all(len(set(f["status"].values())) == 1 for f in report["matrix"])
    table = format_matrix(VerifyReport.from_json(report))
    assert "torch 2.13" in table.splitlines()[0] and "torch 2.13.0" in table.splitlines()[0]


def test_kb_verify_records_a_version_table(torch_envs, capsys, tmp_path, monkeypatch):
    _sandbox()
    monkeypatch.setenv("TROUBLESHOOT_VAR_DIR", str(tmp_path / "var"))
    store, envs = torch_envs
    code = main(["kb", "verify", "backward-twice", "--torch", "2.13.0", "--envs-dir", str(store.root), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0, out
    from bot.verify.versions import VersionTable

    rows = VersionTable(tmp_path / "var" / "version-table.json").rows("pytorch/backward-twice")
    assert [r["version"] for r in rows] == ["2.13.0"]
    assert rows[0]["reproduced"] is True and rows[0]["torch"] == envs[1].torch
    assert rows[0]["fixes"] and all(s == "fixed" for s in rows[0]["fixes"].values())
    # The measured row reaches the answer JSON.
    from bot.answer.build import measured_version_rows

    assert measured_version_rows("pytorch/backward-twice")[0].version == "2.13.0"
    # The wording seen is one of the entry's examples already: no new signature case.
    assert out["entries"][0]["new_wordings"] == []


def test_remove(torch_envs, capsys):
    store, _ = torch_envs
    extra = EnvStore(store.root, index_url="")
    # Removing an environment that is not there says what is.
    assert main(["envs", "remove", "2.9.1", "--dir", str(store.root)]) == 2
    assert "installed: 2.13, 2.13.0" in capsys.readouterr().err
    assert extra.get("2.9.1") is None


# --- combining reports (no torch run) -------------------------------------------------------------

def _row(torch, reproduced, message, fixes):
    return VerifyReport(
        reproduced=reproduced, exit_reason=ExitReason.ERROR if reproduced else ExitReason.OK, output="",
        error=ErrorInfo(type="RuntimeError", message=message, entry_id="pytorch/x") if reproduced else None,
        environment={"torch": torch, "torch_env": {"version": torch.split("+")[0], "torch": torch}},
        fixes=[FixRow(workaround=w, status=Status(s), error=None, seconds=None, peak_memory_bytes=None,
                      kind="workaround", patch=w, title=None) for w, s in fixes.items()])


def test_combine_says_where_it_reproduced_and_which_fix_held_where():
    report = combine([_row("2.9.1", True, "old words", {"a": "fixed", "b": "still_fails"}),
                      _row("2.13.0+cpu", True, "new words", {"a": "fixed", "b": "fixed"}),
                      _row("2.14.1", False, None, {})])
    assert report.reproduced is True  # the first release's report stays the top level
    assert [r["environment"]["version"] for r in report.versions] == ["2.9.1", "2.13.0", "2.14.1"]
    b = next(f for f in report.matrix if f["workaround"] == "b")
    assert b["status"] == {"2.9.1": "still_fails", "2.13.0": "fixed", "2.14.1": None}
    summary = report.version_summary
    assert "not on 2.14.1" in summary and "wording differs" in summary
    assert "b holds on 2.13.0 but not on 2.9.1" in summary
