"""Memory and process limits through cgroups, and killing every process of a run.

One cgroup per run, created under the worker's own cgroup in a `troubleshoot-sandbox`
folder. cgroup v2 is used where the memory and pids controllers can be had there;
otherwise cgroup v1 (separate memory, pids and, when mounted, freezer hierarchies);
where neither can be written, `detect()` says why and the runner falls back to rlimits.

The bwrap process joins the run's cgroups between fork and exec (see `join`), so every
process of the run, however it was started (double forks, setsid), is in them.
"""

from __future__ import annotations

import errno
import os
import signal
import time
import uuid
from dataclasses import dataclass, field

from .limits import format_bytes

GROUP_NAME = "troubleshoot-sandbox"


def _unescape(path: str) -> str:
    # mountinfo escapes space, tab, newline and backslash as octal.
    return path.replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n").replace("\\134", "\\")


@dataclass(frozen=True)
class Mount:
    root: str
    point: str
    fstype: str
    super_options: tuple[str, ...]


def parse_mountinfo(text: str) -> list[Mount]:
    mounts = []
    for line in text.splitlines():
        left, sep, right = line.partition(" - ")
        if not sep:
            continue
        a, b = left.split(), right.split()
        if len(a) < 5 or len(b) < 3:
            continue
        mounts.append(Mount(_unescape(a[3]), _unescape(a[4]), b[0], tuple(b[2].split(","))))
    return mounts


def parse_proc_cgroup(text: str) -> dict[str, str]:
    """{controller: path}; the v2 entry is under the key ''."""
    out = {}
    for line in text.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, path = parts
        for c in controllers.split(",") if controllers else [""]:
            out[c] = path
    return out


def _relative(own: str, mount_root: str) -> str:
    if mount_root != "/" and (own == mount_root or own.startswith(mount_root + "/")):
        own = own[len(mount_root):]
    return own.lstrip("/")


def _read(path: str) -> str:
    with open(path) as f:
        return f.read()


def _write(path: str, value: str) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, value.encode())
    finally:
        os.close(fd)


def _read_int_field(path: str, key: str) -> int | None:
    try:
        for line in _read(path).splitlines():
            k, _, v = line.partition(" ")
            if k == key:
                return int(v)
    except (OSError, ValueError):
        return None
    return None


def _mkdir(path: str) -> None:
    try:
        os.mkdir(path, 0o755)
    except FileExistsError:
        pass


def _rmdir_retry(path: str, timeout: float = 2.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            os.rmdir(path)
            return
        except FileNotFoundError:
            return
        except OSError as e:
            if e.errno != errno.EBUSY or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _kill_pid(pid: int) -> None:
    """SIGKILL through a pidfd, so a recycled pid is never hit by mistake after the
    process it named is gone (the caller re-checks membership after opening)."""
    try:
        fd = os.pidfd_open(pid)
    except (ProcessLookupError, OSError):
        return
    try:
        signal.pidfd_send_signal(fd, signal.SIGKILL)
    except (ProcessLookupError, OSError):
        pass
    finally:
        os.close(fd)


class CgroupRun:
    """The cgroup(s) of one run."""

    version = ""

    @property
    def procs_files(self) -> list[str]:
        """cgroup.procs files the bwrap process writes its pid into before exec."""
        raise NotImplementedError

    def set_limits(self, memory_bytes: int, max_processes: int) -> None:
        raise NotImplementedError

    def pids(self) -> set[int]:
        raise NotImplementedError

    def kill_all(self, timeout: float = 3.0) -> bool:
        """SIGKILL every process in the run's cgroups; True once they are empty."""
        raise NotImplementedError

    def oom_killed(self) -> bool:
        raise NotImplementedError

    def peak_memory(self) -> int | None:
        raise NotImplementedError

    def remove(self) -> None:
        raise NotImplementedError

    def describe(self, memory_bytes: int, max_processes: int) -> list[str]:
        raise NotImplementedError

    def _kill_loop(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while True:
            pids = self.pids()
            if not pids:
                return True
            if time.monotonic() > deadline:
                return False
            for pid in pids:
                _kill_pid(pid)
            time.sleep(0.005)


@dataclass
class V1Run(CgroupRun):
    dirs: dict[str, str]  # controller -> this run's folder
    version: str = "v1"

    @property
    def procs_files(self) -> list[str]:
        return [os.path.join(d, "cgroup.procs") for d in self.dirs.values()]

    def set_limits(self, memory_bytes: int, max_processes: int) -> None:
        mem = self.dirs["memory"]
        _write(os.path.join(mem, "memory.limit_in_bytes"), str(memory_bytes))
        memsw = os.path.join(mem, "memory.memsw.limit_in_bytes")
        if os.path.exists(memsw):  # memory+swap equal to memory: no swapping out of the limit
            _write(memsw, str(memory_bytes))
        _write(os.path.join(self.dirs["pids"], "pids.max"), str(max_processes))

    def pids(self) -> set[int]:
        out: set[int] = set()
        for d in self.dirs.values():
            try:
                out.update(int(x) for x in _read(os.path.join(d, "cgroup.procs")).split())
            except (OSError, ValueError):
                pass
        return out

    def kill_all(self, timeout: float = 3.0) -> bool:
        freezer = self.dirs.get("freezer")
        if freezer and self.pids():
            # Frozen processes cannot fork or exit, so the list stays true while we kill.
            state = os.path.join(freezer, "freezer.state")
            try:
                _write(state, "FROZEN")
                deadline = time.monotonic() + 0.5
                while _read(state).strip() != "FROZEN" and time.monotonic() < deadline:
                    time.sleep(0.002)
                for pid in self.pids():
                    _kill_pid(pid)
            finally:
                try:
                    _write(state, "THAWED")
                except OSError:
                    pass
        return self._kill_loop(timeout)

    def oom_killed(self) -> bool:
        control = os.path.join(self.dirs["memory"], "memory.oom_control")
        kills = _read_int_field(control, "oom_kill")
        if kills is not None:
            return kills > 0
        try:  # old kernels: the limit was hit (not proof of a kill, the best there is)
            return int(_read(os.path.join(self.dirs["memory"], "memory.failcnt"))) > 0
        except (OSError, ValueError):
            return False

    def peak_memory(self) -> int | None:
        try:
            return int(_read(os.path.join(self.dirs["memory"], "memory.max_usage_in_bytes")))
        except (OSError, ValueError):
            return None

    def remove(self) -> None:
        for d in self.dirs.values():
            _rmdir_retry(d)

    def describe(self, memory_bytes: int, max_processes: int) -> list[str]:
        kill = "cgroup v1 freezer + SIGKILL" if "freezer" in self.dirs else "SIGKILL of every pid in the cgroup"
        return [
            f"memory {format_bytes(memory_bytes)} (cgroup v1 memory, swap included)",
            f"processes {max_processes} (cgroup v1 pids, threads count)",
            f"process tree killed at the end: pid namespace teardown + {kill}",
        ]


@dataclass
class V2Run(CgroupRun):
    path: str
    version: str = "v2"

    @property
    def procs_files(self) -> list[str]:
        return [os.path.join(self.path, "cgroup.procs")]

    def set_limits(self, memory_bytes: int, max_processes: int) -> None:
        _write(os.path.join(self.path, "memory.max"), str(memory_bytes))
        swap = os.path.join(self.path, "memory.swap.max")
        if os.path.exists(swap):
            _write(swap, "0")
        _write(os.path.join(self.path, "pids.max"), str(max_processes))

    def pids(self) -> set[int]:
        try:
            return {int(x) for x in _read(os.path.join(self.path, "cgroup.procs")).split()}
        except (OSError, ValueError):
            return set()

    def kill_all(self, timeout: float = 3.0) -> bool:
        kill = os.path.join(self.path, "cgroup.kill")
        if os.path.exists(kill):
            try:
                _write(kill, "1")
            except OSError:
                pass
        elif self.pids():
            freeze = os.path.join(self.path, "cgroup.freeze")
            try:
                _write(freeze, "1")
                for pid in self.pids():
                    _kill_pid(pid)
            finally:
                try:
                    _write(freeze, "0")
                except OSError:
                    pass
        return self._kill_loop(timeout)

    def oom_killed(self) -> bool:
        kills = _read_int_field(os.path.join(self.path, "memory.events"), "oom_kill")
        return bool(kills)

    def peak_memory(self) -> int | None:
        try:
            return int(_read(os.path.join(self.path, "memory.peak")))
        except (OSError, ValueError):
            return None

    def remove(self) -> None:
        _rmdir_retry(self.path)

    def describe(self, memory_bytes: int, max_processes: int) -> list[str]:
        return [
            f"memory {format_bytes(memory_bytes)} (cgroup v2 memory.max, no swap)",
            f"processes {max_processes} (cgroup v2 pids.max, threads count)",
            "process tree killed at the end: pid namespace teardown + cgroup v2 kill",
        ]


@dataclass
class Backend:
    """Where the runs' cgroups are made; version None means no usable cgroup."""

    version: str | None
    reason: str
    parents: dict[str, str] = field(default_factory=dict)  # controller ('' for v2) -> parent folder

    def create_run(self) -> CgroupRun:
        if self.version is None:
            raise RuntimeError(f"no usable cgroup: {self.reason}")
        name = f"run-{os.getpid()}-{uuid.uuid4().hex[:12]}"  # the owner's pid: see sweep_stale
        made: list[str] = []
        try:
            for parent in self.parents.values():
                path = os.path.join(parent, name)
                os.mkdir(path, 0o755)
                made.append(path)
        except OSError:
            for path in made:
                _rmdir_retry(path)
            raise
        if self.version == "v2":
            return V2Run(path=made[0])
        return V1Run(dirs={c: os.path.join(p, name) for c, p in self.parents.items()})

    def sweep_stale(self) -> list[str]:
        """Remove the run cgroups of workers that died mid-run (SIGKILL or SIGTERM skip
        the cleanup): those whose owner pid is gone. Their processes died with bwrap
        (--die-with-parent); any left are killed first. Returns the names removed."""
        removed = []
        for controller, parent in self.parents.items():
            try:
                names = os.listdir(parent)
            except OSError:
                continue
            for name in names:
                parts = name.split("-")
                if len(parts) != 3 or parts[0] != "run" or not parts[1].isdigit() or alive(int(parts[1])):
                    continue
                run = V2Run(os.path.join(parent, name)) if self.version == "v2" else \
                    V1Run({controller: os.path.join(parent, name)})
                try:
                    run.kill_all(timeout=1.0)
                    run.remove()
                    removed.append(name)
                except OSError:
                    pass
        return removed

    def remove_parents(self) -> None:
        """Remove the group folders once no run uses them (they are otherwise kept)."""
        for parent in self.parents.values():
            try:
                os.rmdir(parent)
            except OSError:
                pass


def _try_v2(mounts: list[Mount], own: dict[str, str], group: str) -> tuple[Backend | None, str]:
    m = next((m for m in mounts if m.fstype == "cgroup2"), None)
    if m is None or "" not in own:
        return None, "no cgroup v2 hierarchy"
    base = os.path.join(m.point, _relative(own[""], m.root))
    try:
        available = _read(os.path.join(base, "cgroup.controllers")).split()
    except OSError as e:
        return None, f"cgroup v2 at {base} unreadable ({e.strerror})"
    missing = [c for c in ("memory", "pids") if c not in available]
    if missing:
        return None, f"cgroup v2 at {m.point} lacks the {' and '.join(missing)} controller"
    try:
        enabled = _read(os.path.join(base, "cgroup.subtree_control")).split()
        if not {"memory", "pids"} <= set(enabled):
            # Fails with EBUSY where the worker's own cgroup holds processes (the
            # no-internal-processes rule) and EACCES where it is not delegated to us.
            _write(os.path.join(base, "cgroup.subtree_control"), "+memory +pids")
        parent = os.path.join(base, group)
        _mkdir(parent)
        _write(os.path.join(parent, "cgroup.subtree_control"), "+memory +pids")
    except OSError as e:
        return None, f"cgroup v2 at {base} cannot be written ({e.strerror})"
    return Backend("v2", f"cgroup v2 at {base}", {"": parent}), ""


def _try_v1(mounts: list[Mount], own: dict[str, str], group: str) -> tuple[Backend | None, str]:
    parents: dict[str, str] = {}
    for controller in ("memory", "pids", "freezer"):
        m = next((m for m in mounts if m.fstype == "cgroup" and controller in m.super_options), None)
        if m is None or controller not in own:
            if controller == "freezer":
                continue
            return None, f"no cgroup v1 {controller} hierarchy"
        parent = os.path.join(m.point, _relative(own[controller], m.root), group)
        try:
            _mkdir(parent)
            if not os.access(parent, os.W_OK):
                raise PermissionError(errno.EACCES, "not writable")
        except OSError as e:
            if controller == "freezer":
                continue
            return None, f"cgroup v1 {controller} at {os.path.dirname(parent)} cannot be written ({e.strerror})"
        parents[controller] = parent
    return Backend("v1", f"cgroup v1 at {parents['memory']}", parents), ""


def detect(proc: str = "/proc/self", group: str = GROUP_NAME) -> Backend:
    """Find a cgroup hierarchy this process can make run cgroups in (in the folder
    `group` under its own cgroup), and prove it can by making (and removing) one."""
    try:
        mounts = parse_mountinfo(_read(os.path.join(proc, "mountinfo")))
        own = parse_proc_cgroup(_read(os.path.join(proc, "cgroup")))
    except OSError as e:
        return Backend(None, f"cannot read {proc}/mountinfo or cgroup ({e.strerror})")
    reasons = []
    for attempt in (_try_v2, _try_v1):
        backend, why = attempt(mounts, own, group)
        if backend is None:
            reasons.append(why)
            continue
        try:
            probe = backend.create_run()
            probe.remove()
        except OSError as e:
            reasons.append(f"{backend.reason}: cannot create a run cgroup ({e.strerror})")
            continue
        return backend
    return Backend(None, "; ".join(reasons))


def join(procs_files: list[str]) -> None:
    """Move the calling process into the run's cgroups. Called between fork and exec,
    so it only does plain system calls."""
    pid = str(os.getpid()).encode()
    for path in procs_files:
        fd = os.open(path, os.O_WRONLY)
        try:
            os.write(fd, pid)
        finally:
            os.close(fd)
