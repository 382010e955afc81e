"""The sandbox's environment variables: built from an allow-list, never copied
wholesale from the worker (which holds tokens and broker URLs)."""

from __future__ import annotations

import os
from collections.abc import Mapping

HOME = "/home/sandbox"

# Taken from the worker's environment when set there: tuning knobs, no secrets.
PASSTHROUGH = (
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "TZ",
    "CUDA_LAUNCH_BLOCKING",
    "CUBLAS_WORKSPACE_CONFIG",
    "PYTORCH_CUDA_ALLOC_CONF",
    "TORCH_SHOW_CPP_STACKTRACES",
    "TORCH_USE_CUDA_DSA",
)


def build(python_bin_dir: str, *, gpu_env: Mapping[str, str] | None = None, max_processes: int = 64,
          host_env: Mapping[str, str] | None = None) -> dict[str, str]:
    host_env = os.environ if host_env is None else host_env
    env = {
        "PATH": f"{python_bin_dir}:/usr/bin:/bin",
        "HOME": HOME,
        "USER": "sandbox",
        "LOGNAME": "sandbox",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TMPDIR": "/tmp",
        "PYTHONUNBUFFERED": "1",  # stdout and stderr interleave in the order written
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONIOENCODING": "utf-8",
        "PYTHONFAULTHANDLER": "1",  # a segfault in a native extension prints the Python stack
        # Threads count against the process limit, so keep the thread pools in it.
        "OMP_NUM_THREADS": str(max(1, min(os.cpu_count() or 1, max_processes // 4, 16))),
        # torch.compile's Inductor starts a pool of compile workers (one per CPU) that would
        # meet the run's process limit: one compile thread, in the run's own process.
        "TORCHINDUCTOR_COMPILE_THREADS": "1",
    }
    for name in PASSTHROUGH:
        value = host_env.get(name)
        if value is not None and len(value) < 256:
            env[name] = value
    env["CUDA_VISIBLE_DEVICES"] = ""  # no GPU unless one is assigned below
    if gpu_env:
        env.update(gpu_env)
    return env
