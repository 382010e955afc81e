"""Which NVIDIA device nodes a run may see, and the CUDA environment that goes with them.

Only the assigned GPU's node is bound, plus the control nodes every CUDA process
needs (nvidiactl, nvidia-uvm) and the optional ones when present (nvidia-uvm-tools,
nvidia-modeset). The other GPUs' nodes stay invisible, so a snippet cannot open them.

CUDA_VISIBLE_DEVICES is set to the GPU's UUID when the driver tells us (it names one
GPU unambiguously, however CUDA numbers what it can see); without a UUID it is "0",
since the one bound node is the only device the sandbox has.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

CONTROL_NODES = ("nvidiactl", "nvidia-uvm")
OPTIONAL_NODES = ("nvidia-uvm-tools", "nvidia-modeset")


class GpuError(ValueError):
    """The requested GPU cannot be given to a run (bad index, node missing, MIG): an
    infrastructure error, never the asker's."""


def mig_instances(index: str, caps_dir: str = "/proc/driver/nvidia/capabilities") -> list[str]:
    """The MIG GPU instances the driver lists for the GPU of device minor `index`
    (<caps_dir>/gpu<N>/mig/gi<K>); [] when MIG is off or there is no such GPU."""
    try:
        names = os.listdir(os.path.join(caps_dir, f"gpu{index}", "mig"))
    except OSError:
        return []
    return sorted(n for n in names if re.fullmatch(r"gi\d+", n))


def mig_refusal(index: str, caps_dir: str = "/proc/driver/nvidia/capabilities") -> str | None:
    """Why GPU `index` cannot be given to runs because of MIG (None: MIG is off)."""
    instances = mig_instances(index, caps_dir)
    if not instances:
        return None
    return (f"GPU {index} is in MIG mode ({len(instances)} GPU instance(s): {', '.join(instances[:4])}): the "
            f"sandbox binds whole GPUs by their /dev/nvidiaN node and cannot give a run one MIG slice yet. "
            f"Disable MIG on it (`nvidia-smi -i {index} -mig 0` as root, then reset the GPU) or run the worker "
            f"on GPUs without MIG")


@dataclass(frozen=True)
class GpuPlan:
    index: str  # the host's GPU index (the minor number of /dev/nvidiaN)
    device_nodes: list[str]  # host paths to bind into the sandbox at the same path
    env: dict[str, str] = field(default_factory=dict)
    uuid: str | None = None
    groups: tuple[int, ...] = ()  # groups owning nodes that are not open to everyone (e.g. video)

    def describe(self) -> str:
        nodes = ", ".join(Path(p).name for p in self.device_nodes)
        return f"gpu {self.index} only (device nodes: {nodes}; CUDA_VISIBLE_DEVICES={self.env['CUDA_VISIBLE_DEVICES']})"


def all_gpu_nodes(dev_dir: str = "/dev") -> list[str]:
    """Every /dev/nvidia<N> on the host, e.g. to count the GPUs of a worker."""
    try:
        names = os.listdir(dev_dir)
    except OSError:
        return []
    return sorted((n for n in names if re.fullmatch(r"nvidia\d+", n)), key=lambda n: int(n[6:]))


def gpu_uuid(index: str, driver_dir: str = "/proc/driver/nvidia/gpus") -> str | None:
    """The UUID of the GPU whose device minor is `index`, from the driver's proc files."""
    try:
        buses = os.listdir(driver_dir)
    except OSError:
        return None
    for bus in buses:
        try:
            text = Path(driver_dir, bus, "information").read_text(errors="replace")
        except OSError:
            continue
        minor = re.search(r"^Device Minor:\s*(\d+)\s*$", text, re.M)
        uuid = re.search(r"^GPU UUID:\s*(GPU-[0-9a-fA-F-]+)\s*$", text, re.M)
        if minor and uuid and minor.group(1) == index:
            return uuid.group(1)
    return None


def plan(gpu: str, *, dev_dir: str = "/dev", driver_dir: str = "/proc/driver/nvidia/gpus",
         caps_dir: str | None = None) -> GpuPlan:
    """`caps_dir`: the driver's capabilities folder (default beside `driver_dir`), where MIG
    instances are listed."""
    if not isinstance(gpu, str) or not re.fullmatch(r"\d{1,3}", gpu):
        raise GpuError(f"gpu must be a GPU index such as '0' or '1', got {gpu!r}")
    index = str(int(gpu))
    refusal = mig_refusal(index, caps_dir or os.path.join(os.path.dirname(driver_dir), "capabilities"))
    if refusal:
        raise GpuError(refusal)
    node = os.path.join(dev_dir, f"nvidia{index}")
    if not os.path.exists(node):
        present = ", ".join(all_gpu_nodes(dev_dir)) or "none"
        raise GpuError(f"GPU {index} was asked for but {node} does not exist (GPU nodes here: {present})")
    nodes = [node]
    for name in CONTROL_NODES:
        path = os.path.join(dev_dir, name)
        if not os.path.exists(path):
            raise GpuError(f"GPU {index} was asked for but {path} does not exist (is the NVIDIA driver loaded?)")
        nodes.append(path)
    nodes += [os.path.join(dev_dir, n) for n in OPTIONAL_NODES if os.path.exists(os.path.join(dev_dir, n))]
    uuid = gpu_uuid(index, driver_dir)
    env = {"CUDA_VISIBLE_DEVICES": uuid or "0", "CUDA_DEVICE_ORDER": "PCI_BUS_ID"}
    # The sandbox runs as an unprivileged host user: where a node is 0660 root:video,
    # that user needs the group to open it.
    groups = sorted({st.st_gid for st in map(os.stat, nodes) if st.st_mode & 0o006 != 0o006 and st.st_gid != 0})
    return GpuPlan(index=index, device_nodes=nodes, env=env, uuid=uuid, groups=tuple(groups))
