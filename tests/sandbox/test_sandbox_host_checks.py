"""What the worker's start-up check says when bwrap cannot mount a fresh /proc: the mounts
over /proc found in a real mountinfo layout (Docker's masked paths, the NVIDIA Container
Toolkit's files), named with the supported setups."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from bot.sandbox import bwrap, runner

# /proc/self/mountinfo lines as Docker with the NVIDIA Container Toolkit (legacy mode) leaves them.
PROC = "812 790 0:75 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw\n"
MASKED = ("830 812 0:77 / /proc/kcore rw,nosuid - tmpfs tmpfs ro,size=0k\n"
          "831 812 0:77 / /proc/keys rw,nosuid - tmpfs tmpfs ro,size=0k\n")
NVIDIA = ("845 812 0:84 /driver/nvidia/params /proc/driver/nvidia/params ro,nosuid - tmpfs tmpfs rw\n"
          "846 812 0:5 /driver/nvidia/gpus/0000:01:00.0 /proc/driver/nvidia/gpus/0000:01:00.0 ro - proc proc rw\n")
OTHER = "700 690 8:1 / / rw,relatime - ext4 /dev/sda1 rw\n" "701 700 0:30 / /sys ro - sysfs sysfs ro\n"


def write(tmp_path, text: str) -> str:
    path = tmp_path / "mountinfo"
    path.write_text(text)
    return str(path)


def test_mounts_over_proc_are_found(tmp_path):
    assert bwrap.mounts_over_proc(write(tmp_path, OTHER + PROC)) == []
    assert bwrap.mounts_over_proc(write(tmp_path, OTHER + PROC + MASKED + NVIDIA)) == [
        "/proc/driver/nvidia/gpus/0000:01:00.0", "/proc/driver/nvidia/params", "/proc/kcore", "/proc/keys"]
    assert bwrap.mounts_over_proc(str(tmp_path / "missing")) == []


def test_the_nvidia_toolkits_mounts_name_the_supported_setups(tmp_path):
    text = bwrap.explain_proc_mounts(bwrap.mounts_over_proc(write(tmp_path, PROC + NVIDIA)))
    assert "/proc/driver/nvidia/params" in text and "NVIDIA Container Toolkit" in text
    assert "CDI mode" in text and "outside Docker" in text and "bot/jobs/README.md" in text
    masked = bwrap.explain_proc_mounts(bwrap.mounts_over_proc(write(tmp_path, PROC + MASKED)))
    assert "systempaths=unconfined" in masked and "NVIDIA" not in masked
    assert bwrap.explain_proc_mounts([]) == ""


def test_the_start_up_check_adds_the_reason_when_bwrap_fails(tmp_path):
    """A bwrap that fails as the real one does under the toolkit's mounts (in a folder the
    unprivileged user a root worker's probe runs as can reach)."""
    folder = Path(tempfile.mkdtemp(prefix="fake-bwrap-"))
    folder.chmod(0o755)
    fake = folder / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: Can'\"'\"'t mount proc on /newroot/proc: Operation not permitted' >&2\n"
                    "exit 1\n")
    fake.chmod(0o755)
    ok, why = runner._check(str(fake), mountinfo=write(tmp_path, OTHER + PROC + NVIDIA))
    assert not ok
    assert "Can't mount proc on /newroot/proc" in why and "CDI mode" in why, why
    ok, why = runner._check(str(fake), mountinfo=write(tmp_path, OTHER + PROC))
    assert not ok and "CDI" not in why  # nothing over /proc: only bwrap's own words
    shutil.rmtree(folder)
