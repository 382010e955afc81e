"""Running untrusted Python snippets in a sandbox (bubblewrap + cgroups + rlimits +
seccomp), one module per concern:

    bwrap.py       finding bubblewrap, the sandbox's filesystem and its command line
    cgroups.py     memory and process limits (cgroup v2, v1), killing a run's processes
    rlimits.py     CPU time, file size, open files, core dumps (+ fallbacks)
    seccomp.py     the syscall filter (classic BPF, x86_64)
    gpu.py         which /dev/nvidia* nodes a run sees, CUDA_VISIBLE_DEVICES
    environment.py the allow-listed environment variables
    harness.py     the program that runs inside and writes the result
    result.py      RunResult, reading the result file as untrusted data
    procio.py      around one run's process: input checks, memfds, output read with a cap and a
                   deadline, the RunResult from what the host saw (runner and zygote alike)
    runner.py      the host side: run_snippet
    zygote.py      a warm sandbox: one supervisor imports torch once and forks a child per run
    warm.py        the runner of one job (WarmRunner) and a worker's pool of started zygotes
"""

from .limits import Limits
from .result import EXIT_REASONS, RunResult
from .runner import Sandbox, SandboxUnavailable, run_snippet, sandbox_available

__all__ = ["EXIT_REASONS", "Limits", "RunResult", "Sandbox", "SandboxUnavailable", "run_snippet", "sandbox_available"]
