"""Resource limits set with setrlimit on the sandbox's first process (inherited by
everything it starts).

Memory and process count belong to cgroups; the rlimits for them (RLIMIT_AS,
RLIMIT_NPROC) are only a fallback where no cgroup can be written, and RLIMIT_AS is
never set when a GPU is used: CUDA reserves far more address space than it touches.
"""

from __future__ import annotations

import resource
from dataclasses import dataclass

from .limits import Limits, format_bytes, format_seconds


@dataclass(frozen=True)
class RLimit:
    name: str  # e.g. "RLIMIT_CPU"
    resource: int
    soft: int
    hard: int
    described: str | None  # e.g. "cpu time 480 s (RLIMIT_CPU)"; None where the kernel ignores it


def plan(limits: Limits, *, gpu: bool, memory_by_cgroup: bool, pids_by_cgroup: bool,
         host_root: bool = False) -> tuple[list[RLimit], list[str]]:
    """The rlimits to set, and notes on limits that could not be enforced at all."""
    cpu = int(limits.cpu_seconds + 0.999)
    out = [
        # At the soft limit the kernel sends SIGXCPU, one second later SIGKILL.
        RLimit("RLIMIT_CPU", resource.RLIMIT_CPU, cpu, cpu + 1, f"cpu time {format_seconds(cpu)} (RLIMIT_CPU)"),
        RLimit("RLIMIT_FSIZE", resource.RLIMIT_FSIZE, limits.file_size_bytes, limits.file_size_bytes,
               f"file size {format_bytes(limits.file_size_bytes)} (RLIMIT_FSIZE)"),
        RLimit("RLIMIT_NOFILE", resource.RLIMIT_NOFILE, limits.open_files, limits.open_files,
               f"open files {limits.open_files} (RLIMIT_NOFILE)"),
        # (1, 1), not (0, 0): where the host pipes core dumps to a helper (apport,
        # systemd-coredump) the kernel ignores a limit of 0 but skips the dump at 1
        # (core(5)); a 1-byte core file is never written either.
        RLimit("RLIMIT_CORE", resource.RLIMIT_CORE, 1, 1, "core dumps off (RLIMIT_CORE=1: no file, no piped dump)"),
    ]
    notes: list[str] = []
    if not memory_by_cgroup:
        if gpu:
            notes.append("memory: NOT enforced (no writable cgroup, and an address-space limit would break CUDA)")
        else:
            out.append(RLimit("RLIMIT_AS", resource.RLIMIT_AS, limits.memory_bytes, limits.memory_bytes,
                              f"memory {format_bytes(limits.memory_bytes)} (RLIMIT_AS address space, "
                              "fallback: no writable cgroup; tmpfs pages and kernel memory are NOT counted)"))
    if not pids_by_cgroup:
        n = limits.max_processes
        described: str | None = (f"processes {n} (RLIMIT_NPROC, fallback: no writable cgroup; one budget for "
                                 f"every process of the sandbox's host uid, concurrent runs included)")
        if host_root:
            # The kernel exempts processes of the initial namespace's root from
            # RLIMIT_NPROC; only when the sandbox's user is host root (see privileges.py).
            described = None
            notes.append(f"processes: NOT enforced (no writable cgroup; RLIMIT_NPROC {n} is set "
                         "but the kernel exempts root)")
        out.append(RLimit("RLIMIT_NPROC", resource.RLIMIT_NPROC, n, n, described))
    return out, notes


def apply(rlimits: list[RLimit]) -> None:
    """Called in the child between fork and exec: setrlimit only, nothing that locks."""
    for r in rlimits:
        resource.setrlimit(r.resource, (r.soft, r.hard))
