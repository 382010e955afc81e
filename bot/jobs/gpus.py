"""Which GPUs this machine has, as the indexes the sandbox takes (`gpu="0"`).

The device nodes /dev/nvidia0, /dev/nvidia1, ... are the first source: they are what
the sandbox binds, and they exist wherever the driver is loaded (also inside a
container that was given GPUs). `nvidia-smi -L` is the fallback where /dev is not
the host's; it numbers GPUs the same way only when no CUDA_VISIBLE_DEVICES reorders
them, which it does not in the worker's own environment.
"""

from __future__ import annotations

import re
import shutil
import subprocess

from bot.sandbox.gpu import all_gpu_nodes

NO_GPU_NOTE = "no GPU on this worker: ran on CPU"


def from_nvidia_smi(timeout: float = 10.0) -> list[str]:
    exe = shutil.which("nvidia-smi")
    if exe is None:
        return []
    try:
        out = subprocess.run([exe, "-L"], capture_output=True, text=True, timeout=timeout).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return [m.group(1) for m in re.finditer(r"^GPU (\d+):", out, re.M)]


def detect_gpus(dev_dir: str = "/dev") -> list[str]:
    """GPU indexes, e.g. ["0", "1"]; [] on a machine without NVIDIA GPUs."""
    nodes = all_gpu_nodes(dev_dir)
    if nodes:
        return [name[len("nvidia"):] for name in nodes]
    return from_nvidia_smi() if dev_dir == "/dev" else []


def gpu_for_slot(gpus: list[str], slot: int) -> str | None:
    """The GPU of pool slot `slot` (slots beyond the GPU count share them round-robin)."""
    return gpus[slot % len(gpus)] if gpus else None
