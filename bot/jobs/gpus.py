"""Which GPUs this machine has, as the indexes the sandbox takes (`gpu="0"`).

An index is the device minor of /dev/nvidiaN, the node the sandbox binds: only GPUs
with such a node can be given to a run. It is not a CUDA ordinal (CUDA numbers the
devices it sees fastest first, or by PCI bus, and inside the sandbox the one bound GPU
is device 0), nor nvidia-smi's index (PCI bus order), so neither is ever used as one.
Where nvidia-smi lists GPUs but /dev has no node for them (a container given the
driver's tools without the devices), the worker has no GPU and says why.
"""

from __future__ import annotations

import re
import shutil
import subprocess

from bot.sandbox.gpu import all_gpu_nodes

NO_GPU_NOTE = "no GPU on this worker: ran on CPU"


def from_nvidia_smi(timeout: float = 10.0) -> list[str]:
    """nvidia-smi's GPU lines (`GPU 0: NVIDIA H200 (UUID: GPU-...)`): to say that GPUs
    exist that the sandbox cannot bind, never as indexes for it."""
    exe = shutil.which("nvidia-smi")
    if exe is None:
        return []
    try:
        out = subprocess.run([exe, "-L"], capture_output=True, text=True, timeout=timeout).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return [m.group(0).strip() for m in re.finditer(r"^GPU \d+:.*$", out, re.M)]


def detect_gpus(dev_dir: str = "/dev") -> list[str]:
    """GPU indexes (device minors), e.g. ["0", "1"]; [] on a machine without NVIDIA GPU nodes."""
    return [name[len("nvidia"):] for name in all_gpu_nodes(dev_dir)]


def unbindable_gpus_note(dev_dir: str = "/dev", listed: list[str] | None = None) -> str | None:
    """Why GPUs that nvidia-smi lists get no jobs (no /dev/nvidiaN for them), or None."""
    if detect_gpus(dev_dir):
        return None
    listed = from_nvidia_smi() if listed is None else listed
    if not listed:
        return None
    return (f"nvidia-smi lists {len(listed)} GPU(s) ({'; '.join(listed[:2])}) but {dev_dir} has no nvidiaN node: "
            f"the sandbox binds a GPU by its node, so this worker runs jobs on the CPU. Give the container the "
            f"devices (the NVIDIA Container Toolkit, or devices: in docker-compose.yml)")


def gpu_for_slot(gpus: list[str], slot: int) -> str | None:
    """The GPU of pool slot `slot` (slots beyond the GPU count share them round-robin)."""
    return gpus[slot % len(gpus)] if gpus else None
