""".ci/services.sh installs the browser tests' Chromium and CJK fonts the way that works
on an image with old package lists: `apt-get update` first, only what is missing, and
never failing CI because of it. Run against a PATH of stand-ins that log their calls."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from .conftest import REPO

SCRIPT = REPO / ".ci" / "services.sh"


def _stand_ins(tmp_path: Path, *, have: tuple[str, ...] = (), apt_fails: bool = False) -> tuple[dict, Path]:
    """A bin folder with a logging apt-get, `id -u` = 0 and the tools in `have`."""
    bin_dir, log = tmp_path / "bin", tmp_path / "apt.log"
    bin_dir.mkdir(parents=True)

    def script(name: str, body: str) -> None:
        path = bin_dir / name
        path.write_text("#!/bin/sh\n" + body + "\n")
        path.chmod(0o755)

    script("apt-get", f'echo "$*" >> {log}\nexit {1 if apt_fails else 0}')
    script("id", "echo 0")
    for tool in ("grep", "mkdir", "sleep"):
        os.symlink(subprocess.run(["sh", "-c", f"command -v {tool}"], capture_output=True, text=True,
                                  check=True).stdout.strip(), bin_dir / tool)
    if "chromium" in have:
        script("chromium", "exit 0")
    if "fonts" in have:  # fontconfig that knows a Noto CJK font for Korean
        script("fc-list", 'echo "/usr/share/fonts/NotoSansCJK-Regular.ttc: Noto Sans CJK KR:style=Regular"')
    return {"PATH": str(bin_dir), "HOME": str(tmp_path)}, log


def _run(env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(["/bin/bash", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=60)


def _browser_calls(log: Path) -> list[str]:
    lines = log.read_text().splitlines() if log.exists() else []
    # The Redis install has its own update; the browser's is the last update before its install.
    at = next((i for i, line in enumerate(lines) if "chromium" in line or "fonts-noto-cjk" in line), None)
    return [] if at is None else lines[at - 1:at + 1]


def test_updates_the_package_lists_before_installing_chromium_and_the_cjk_fonts(tmp_path):
    env, log = _stand_ins(tmp_path)
    _run(env)
    update, install = _browser_calls(log)
    assert update.startswith("update")
    assert install.startswith("install") and "chromium" in install.split() and "fonts-noto-cjk" in install.split()


def test_installs_only_what_is_missing(tmp_path):
    env, log = _stand_ins(tmp_path, have=("chromium",))
    _run(env)
    assert _browser_calls(log)[1].split()[-1:] == ["fonts-noto-cjk"]
    assert "chromium" not in log.read_text()

    env, log = _stand_ins(tmp_path / "both", have=("chromium", "fonts"))
    _run(env)
    assert _browser_calls(log) == []


def test_a_failed_install_does_not_fail_ci(tmp_path):
    env, log = _stand_ins(tmp_path, apt_fails=True, have=("chromium",))
    failed = _run(env)
    env_ok, _ = _stand_ins(tmp_path / "ok", have=("chromium",))
    # The exit status is the services' (Redis, PostgreSQL), the same whether apt-get works or not.
    assert failed.returncode == _run(env_ok).returncode
    assert log.exists() and "update" in log.read_text()
