"""The GPU canary: a tiny CUDA program run in the sandbox on one GPU, before a worker
takes jobs and before each job. A run on a GPU that fails it (no device, a CUDA
initialisation error, a driver too old for the wheel, a MIG GPU, a missing
/dev/nvidia-uvm) says nothing about the asker's snippet: the job is reported as an
infrastructure error, and nothing of it is recorded as evidence.

    health = check_gpu("0")        # GpuHealth(ok=True, device_name="NVIDIA H200", ...)

Each check's result is kept per GPU (`last_health`), for the worker's presence and logs.
"""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import asdict, dataclass
from typing import Callable

from .gpu import GpuError
from .limits import Limits
from .runner import SandboxUnavailable, run_snippet

MARK = "CANARY "
EXPECTED_SUM = 523776.0  # sum(range(1024))
# The canary's program: CUDA must initialise on the one GPU the sandbox was given and run a kernel.
CANARY_CODE = f"""\
import json, torch
seen = {{"cuda_available": torch.cuda.is_available(), "torch_cuda": torch.version.cuda}}
if seen["cuda_available"]:
    seen["devices"] = torch.cuda.device_count()
    seen["name"] = torch.cuda.get_device_name(0)
    x = torch.arange(1024, device="cuda", dtype=torch.float32)
    seen["sum"] = float(x.sum().item())
    torch.cuda.synchronize()
print({MARK!r} + json.dumps(seen), flush=True)
"""
CANARY_LIMITS = Limits(wall_seconds=120, max_processes=64)


@dataclass(frozen=True)
class GpuHealth:
    gpu: str
    ok: bool
    why: str  # what failed ("" when ok)
    device_name: str | None = None
    seconds: float = 0.0
    checked_at: float = 0.0  # time.time()

    def brief(self) -> dict:
        return {k: v for k, v in asdict(self).items() if v not in (None, "")}


_lock = threading.Lock()
_last: dict[str, GpuHealth] = {}


def last_health(gpu: str) -> GpuHealth | None:
    with _lock:
        return _last.get(gpu)


def _tail(text: str, lines: int = 6) -> str:
    kept = [line for line in (text or "").strip().splitlines() if not line.startswith(MARK)]
    return " | ".join(kept[-lines:])[-600:]


def judge(gpu: str, exit_reason: str | None, output: str) -> tuple[bool, str, str | None]:
    """(healthy, why not, device name) from the canary's run."""
    found = re.search(rf"^{MARK}(\{{.*\}})\s*$", output or "", re.M)
    seen = json.loads(found.group(1)) if found else None
    if seen is None:
        return False, f"the canary run ended '{exit_reason}' before CUDA answered: {_tail(output) or 'no output'}", None
    name = seen.get("name")
    if not seen.get("cuda_available"):
        if not seen.get("torch_cuda"):
            return False, "this torch is a CPU build (torch.version.cuda is None): it cannot use the GPU", None
        return False, f"CUDA is not available in the sandbox: {_tail(output) or 'torch gave no reason'}", None
    if seen.get("devices") != 1:
        return False, f"the sandbox saw {seen.get('devices')} CUDA devices; it must see exactly its own GPU", name
    if seen.get("sum") != EXPECTED_SUM:
        return False, f"a CUDA kernel gave a wrong result ({seen.get('sum')} instead of {EXPECTED_SUM})", name
    if exit_reason != "ok":
        return False, f"the canary run ended '{exit_reason}': {_tail(output)}", name
    return True, "", name


def check_gpu(gpu: str, *, run: Callable[..., object] | None = None) -> GpuHealth:
    """Run the canary on `gpu` in the sandbox (or with `run`, run_snippet's signature)."""
    runner = run or run_snippet
    started = time.monotonic()
    try:
        result = runner(CANARY_CODE, limits=CANARY_LIMITS, gpu=gpu)
        ok, why, name = judge(gpu, getattr(result, "exit_reason", None), getattr(result, "output", ""))
    except (GpuError, SandboxUnavailable) as exc:
        ok, why, name = False, str(exc), None
    health = GpuHealth(gpu=gpu, ok=ok, why=why, device_name=name, seconds=round(time.monotonic() - started, 2),
                       checked_at=time.time())
    with _lock:
        _last[gpu] = health
    return health


# What a run's error says when the GPU itself, not the snippet, failed: after a job whose
# original run ended so, the canary runs again, and a failure makes the job an
# infrastructure error too.
GPU_FAULT = re.compile(
    r"no CUDA-capable device is detected|CUDA driver version is insufficient|Found no NVIDIA driver|"
    r"NVIDIA driver on your system is too old|CUDA error: unknown error|cudaErrorDevicesUnavailable|"
    r"CUDA-capable device\(s\) is/are busy or unavailable|CUDA error: uncorrectable ECC error|cuInit|"
    r"CUDA initialization|NVML",
    re.I)


def looks_like_gpu_fault(text: str | None) -> bool:
    return bool(text and GPU_FAULT.search(text))
