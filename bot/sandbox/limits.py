"""The resource limits of one sandboxed run, and how to print them."""

from __future__ import annotations

from dataclasses import dataclass, fields

from bot.settings import sandbox_cpus

KiB = 1024
MiB = 1024 * KiB
GiB = 1024 * MiB

# RLIMIT_CPU counts the CPU time of every thread of a process, so a snippet that
# keeps 8 threads busy uses 8 CPU seconds per wall second. The wall-clock deadline is
# the real limit; the CPU limit is a second line behind it.
CPU_SECONDS_PER_WALL_SECOND = 8


@dataclass(frozen=True)
class Limits:
    wall_seconds: float = 60
    memory_bytes: int = 4 * GiB
    max_processes: int = 64  # tasks, threads included (that is what pids controllers count)
    cpu_seconds: float | None = None  # None: CPU_SECONDS_PER_WALL_SECOND x wall_seconds
    file_size_bytes: int = 64 * MiB
    open_files: int = 256
    output_bytes: int = 64 * KiB
    tmp_bytes: int = 256 * MiB  # size of each tmpfs: /tmp, the home directory, /dev/shm
    # CPU bandwidth (cgroup cpu.max / cfs_quota); None: the setting TROUBLESHOOT_SANDBOX_CPUS (default 1)
    cpus: float | None = None

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in ("cpu_seconds", "cpus") and value is None:
                continue
            floats_ok = f.name in ("wall_seconds", "cpu_seconds", "cpus")
            ok_type = isinstance(value, (int, float)) if floats_ok else isinstance(value, int)
            if isinstance(value, bool) or not ok_type or not value > 0:
                kind = "a positive number" if floats_ok else "a positive integer"
                raise ValueError(f"Limits.{f.name} must be {kind}, got {value!r}")
        if self.cpu_seconds is None:
            object.__setattr__(self, "cpu_seconds", self.wall_seconds * CPU_SECONDS_PER_WALL_SECOND)
        if self.cpus is None:
            object.__setattr__(self, "cpus", sandbox_cpus())


def format_bytes(n: int) -> str:
    for unit, size in (("GiB", GiB), ("MiB", MiB), ("KiB", KiB)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"


def format_seconds(s: float) -> str:
    return f"{s:g} s"
