"""bench/gpu_smoke.py on a machine without a GPU: it runs, the sandbox step passes, and
every GPU step is skipped with the reason (on a GPU machine it is run by hand)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.jobs.gpus import detect_gpus

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_gpu_smoke_skips_every_gpu_step_without_a_gpu(sandbox_ok):
    if detect_gpus():
        pytest.skip("this machine has a GPU: run bench/gpu_smoke.py by hand")
    out = subprocess.run([sys.executable, str(REPO / "bench" / "gpu_smoke.py"), "--json"], cwd=REPO,
                         capture_output=True, text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout[out.stdout.index("{"):out.stdout.rindex("}") + 1])
    steps = {row["step"]: row for row in summary["steps"]}
    assert list(steps) == ["sandbox", "cuda-own-gpu", "warm-child", "stuck-kernel", "gpu-oom", "peak-gpu-memory",
                           "torch-compile", "nccl-one-rank"]
    assert steps.pop("sandbox")["status"] == "PASS"
    for name, row in steps.items():
        why = row["detail"]
        assert row["status"] == "SKIP" and ("no NVIDIA GPU here" in why or "nvidia-smi lists" in why), (name, row)
    assert summary["gpu"] is None
