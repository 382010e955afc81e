"""Memory and process limits through cgroups, and killing every process of a run.

One cgroup per run, created under the worker's own cgroup in a `troubleshoot-sandbox`
folder. cgroup v2 is used where the memory and pids controllers can be had there;
otherwise cgroup v1 (separate memory, pids and, when mounted, freezer hierarchies);
where neither can be written, `detect()` says why and the runner falls back to rlimits.

cgroup v2 lets a cgroup hand controllers to its children only while it holds no
processes itself (the "no internal processes" rule: EBUSY otherwise). So, as systemd
and container runtimes do, the processes of the worker's cgroup are first moved into a
leaf child of it (`troubleshoot-supervisor`), then memory and pids are enabled, and the
runs' cgroups are made beside that leaf:

    <worker's cgroup>/troubleshoot-supervisor/   the worker (and every process that was there)
    <worker's cgroup>/troubleshoot-sandbox/run-<pid>-<id>/   one per run

The bwrap process joins the run's cgroups between fork and exec (see `join`), so every
process of the run, however it was started (double forks, setsid), is in them.

The v2 steps go through a `CgroupFS` so that tests can play the kernel's rules on a
tree of plain files.
"""

from __future__ import annotations

import errno
import os
import signal
import threading
import time
import uuid
from dataclasses import dataclass, field

from .limits import format_bytes

GROUP_NAME = "troubleshoot-sandbox"
LEAF_NAME = "troubleshoot-supervisor"  # cgroup v2: where the worker's cgroup's own processes go
V2_CONTROLLERS = ("memory", "pids")
MOVE_ROUNDS = 20  # cgroup v2: passes over a cgroup's processes while new ones keep appearing


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


class CgroupFS:
    """The file operations the cgroup code does, on the real cgroup filesystem. Tests
    pass a fake that keeps a tree of plain files and plays the kernel's rules."""

    def read(self, path: str) -> str:
        return _read(path)

    def write(self, path: str, value: str) -> None:
        _write(path, value)

    def mkdir(self, path: str) -> None:
        os.mkdir(path, 0o755)

    def rmdir(self, path: str) -> None:
        os.rmdir(path)

    def exists(self, path: str) -> bool:
        return os.path.exists(path)


REAL_FS = CgroupFS()


def _read_int_field(path: str, key: str, fs: CgroupFS = REAL_FS) -> int | None:
    try:
        for line in fs.read(path).splitlines():
            k, _, v = line.partition(" ")
            if k == key:
                return int(v)
    except (OSError, ValueError):
        return None
    return None


def _mkdir(path: str, fs: CgroupFS = REAL_FS) -> None:
    try:
        fs.mkdir(path)
    except FileExistsError:
        pass


def _rmdir_retry(path: str, timeout: float = 2.0, fs: CgroupFS = REAL_FS) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            fs.rmdir(path)
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

    def set_cpu_quota(self, cpus: float) -> str | None:
        """Limit the run to `cpus` CPUs of bandwidth; returns how (for the report), or
        None where this cgroup has no cpu controller."""
        return None

    def pids(self) -> set[int]:
        raise NotImplementedError

    def kill_all(self, timeout: float = 3.0) -> bool:
        """SIGKILL every process in the run's cgroups; True once they are empty."""
        raise NotImplementedError

    def oom_killed(self) -> bool:
        raise NotImplementedError

    def peak_memory(self) -> int | None:
        raise NotImplementedError

    def cpu_seconds(self) -> float | None:
        """CPU time used by every process of the run (None where not accounted)."""
        return None

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

    def set_cpu_quota(self, cpus: float) -> str | None:
        d = self.dirs.get("cpu")
        if not d:
            return None
        period = 100_000
        quota = max(1000, int(cpus * period))
        _write(os.path.join(d, "cpu.cfs_period_us"), str(period))
        _write(os.path.join(d, "cpu.cfs_quota_us"), str(quota))
        return f"cpu {cpus:g} CPU (cgroup v1 cpu.cfs_quota_us {quota} per {period} us)"

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
        # Charged to the cgroup: anonymous memory, page cache, tmpfs/shm pages and (on
        # current kernels) kernel memory such as the inodes of a tmpfs file flood.
        try:
            return int(_read(os.path.join(self.dirs["memory"], "memory.max_usage_in_bytes")))
        except (OSError, ValueError):
            return None

    def cpu_seconds(self) -> float | None:
        d = self.dirs.get("cpuacct")
        if not d:
            return None
        try:
            return int(_read(os.path.join(d, "cpuacct.usage"))) / 1e9
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
    fs: CgroupFS = field(default=REAL_FS, repr=False)

    def _file(self, name: str) -> str:
        return os.path.join(self.path, name)

    @property
    def procs_files(self) -> list[str]:
        return [self._file("cgroup.procs")]

    def set_limits(self, memory_bytes: int, max_processes: int) -> None:
        self.fs.write(self._file("memory.max"), str(memory_bytes))
        if self.fs.exists(self._file("memory.swap.max")):  # absent without swap accounting
            self.fs.write(self._file("memory.swap.max"), "0")
        self.fs.write(self._file("pids.max"), str(max_processes))

    def set_cpu_quota(self, cpus: float) -> str | None:
        if not self.fs.exists(self._file("cpu.max")):  # the cpu controller is not delegated here
            return None
        period = 100_000
        quota = max(1000, int(cpus * period))
        self.fs.write(self._file("cpu.max"), f"{quota} {period}")
        return f"cpu {cpus:g} CPU (cgroup v2 cpu.max {quota} {period})"

    def pids(self) -> set[int]:
        try:
            return {int(x) for x in self.fs.read(self._file("cgroup.procs")).split()}
        except (OSError, ValueError):
            return set()

    def kill_all(self, timeout: float = 3.0) -> bool:
        if self.fs.exists(self._file("cgroup.kill")):  # Linux 5.14 and later
            try:
                self.fs.write(self._file("cgroup.kill"), "1")
            except OSError:
                pass
        elif self.pids():
            # Frozen processes cannot fork or exit, so the list stays true while we kill.
            freeze = self._file("cgroup.freeze")
            try:
                self.fs.write(freeze, "1")
                deadline = time.monotonic() + 0.5
                while _read_int_field(self._file("cgroup.events"), "frozen", self.fs) != 1 \
                        and time.monotonic() < deadline:
                    time.sleep(0.002)
                for pid in self.pids():
                    _kill_pid(pid)
            except OSError:
                pass  # no freezer (before Linux 5.2): the kill loop below still does it
            finally:
                try:
                    self.fs.write(freeze, "0")
                except OSError:
                    pass
        return self._kill_loop(timeout)

    def oom_killed(self) -> bool:
        return bool(_read_int_field(self._file("memory.events"), "oom_kill", self.fs))

    def peak_memory(self) -> int | None:
        try:  # memory.peak: Linux 5.19 and later
            return int(self.fs.read(self._file("memory.peak")))
        except (OSError, ValueError):
            return None

    def cpu_seconds(self) -> float | None:
        usec = _read_int_field(self._file("cpu.stat"), "usage_usec", self.fs)
        return None if usec is None else usec / 1e6

    def remove(self) -> None:
        _rmdir_retry(self.path, fs=self.fs)

    def describe(self, memory_bytes: int, max_processes: int) -> list[str]:
        kill = "cgroup.kill" if self.fs.exists(self._file("cgroup.kill")) else "cgroup v2 freezer + SIGKILL"
        return [
            f"memory {format_bytes(memory_bytes)} (cgroup v2 memory.max, no swap)",
            f"processes {max_processes} (cgroup v2 pids.max, threads count)",
            f"process tree killed at the end: pid namespace teardown + {kill}",
        ]


@dataclass
class Backend:
    """Where the runs' cgroups are made; version None means no usable cgroup."""

    version: str | None
    reason: str
    parents: dict[str, str] = field(default_factory=dict)  # controller ('' for v2) -> parent folder
    passed_over: str = ""  # why the hierarchies tried before this one were not used
    fs: CgroupFS = field(default=REAL_FS, repr=False)

    def create_run(self) -> CgroupRun:
        if self.version is None:
            raise RuntimeError(f"no usable cgroup: {self.reason}")
        name = f"run-{os.getpid()}-{uuid.uuid4().hex[:12]}"  # the owner's pid: see sweep_stale
        made: list[str] = []
        try:
            for parent in self.parents.values():
                path = os.path.join(parent, name)
                self.fs.mkdir(path)
                made.append(path)
        except OSError:
            for path in made:
                _rmdir_retry(path, fs=self.fs)
            raise
        if self.version == "v2":
            return V2Run(path=made[0], fs=self.fs)
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
                run = V2Run(os.path.join(parent, name), fs=self.fs) if self.version == "v2" else \
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
                self.fs.rmdir(parent)
            except OSError:
                pass


class V2SetupError(Exception):
    """Why cgroup v2 cannot hold the runs' cgroups; the text ends up in every report."""


def _v2_kind(cgroup: str, fs: CgroupFS) -> str | None:
    """The cgroup's type ('domain', 'threaded', 'domain threaded', 'domain invalid'),
    or None for the root of the hierarchy, which has neither cgroup.type (Linux 4.14+)
    nor cgroup.events."""
    try:
        return fs.read(os.path.join(cgroup, "cgroup.type")).strip()
    except FileNotFoundError:
        return "domain" if fs.exists(os.path.join(cgroup, "cgroup.events")) else None
    except OSError as e:
        raise V2SetupError(f"cgroup v2 at {cgroup}: cannot read cgroup.type ({e.strerror})") from e


def _move_processes_to_leaf(cgroup: str, fs: CgroupFS) -> list[int]:
    """Move every process of `cgroup` into its child LEAF_NAME (a process's threads go
    with it). Repeats while processes forked meanwhile keep appearing."""
    leaf = os.path.join(cgroup, LEAF_NAME)
    moved: list[int] = []
    for _ in range(MOVE_ROUNDS):
        try:
            pids = [int(p) for p in fs.read(os.path.join(cgroup, "cgroup.procs")).split()]
        except (OSError, ValueError) as e:
            raise V2SetupError(f"cgroup v2 at {cgroup}: cannot read cgroup.procs ({e})") from e
        if not pids:
            return moved
        try:
            _mkdir(leaf, fs)
        except OSError as e:
            raise V2SetupError(f"cgroup v2 at {cgroup} holds processes and no leaf cgroup can be made "
                               f"there to move them into ({e.strerror})") from e
        for pid in pids:
            try:
                fs.write(os.path.join(leaf, "cgroup.procs"), str(pid))
            except ProcessLookupError:
                continue  # it exited meanwhile
            except OSError as e:
                raise V2SetupError(f"cgroup v2 at {cgroup}: cannot move process {pid} into "
                                   f"{LEAF_NAME} ({e.strerror})") from e
            moved.append(pid)
    raise V2SetupError(f"cgroup v2 at {cgroup}: new processes kept appearing there while its "
                       f"processes were moved into {LEAF_NAME}")


def enable_v2_controllers(cgroup: str, fs: CgroupFS = REAL_FS,
                          controllers: tuple[str, ...] = V2_CONTROLLERS) -> list[int]:
    """Let the children of `cgroup` (the worker's own) have `controllers`: move its
    processes into a leaf child first, then enable them in its cgroup.subtree_control.
    Each step checks the tree first, so a repeat, or another process doing the same at
    the same time, is harmless. Returns the pids this call moved; V2SetupError says why
    it cannot be done."""
    try:
        available = fs.read(os.path.join(cgroup, "cgroup.controllers")).split()
    except OSError as e:
        raise V2SetupError(f"cgroup v2 at {cgroup} unreadable ({e.strerror})") from e
    missing = [c for c in controllers if c not in available]
    if missing:
        plural = "s" if len(missing) > 1 else ""
        raise V2SetupError(f"cgroup v2 at {cgroup} lacks the {' and '.join(missing)} controller{plural} "
                           f"(its cgroup.controllers: {' '.join(available) or 'none'})")
    kind = _v2_kind(cgroup, fs)
    if kind not in (None, "domain"):
        raise V2SetupError(f"cgroup v2 at {cgroup} is of type '{kind}' (cgroup.type): memory and pids "
                           f"cannot be enabled in a threaded subtree")
    subtree = os.path.join(cgroup, "cgroup.subtree_control")
    moved: list[int] = []
    for _ in range(MOVE_ROUNDS):
        if kind is not None:  # the root cgroup is exempt from the rule: never move the host's processes
            moved += _move_processes_to_leaf(cgroup, fs)
        try:
            todo = [c for c in controllers if c not in fs.read(subtree).split()]
            if todo:
                fs.write(subtree, " ".join(f"+{c}" for c in todo))
            return moved
        except OSError as e:
            if e.errno == errno.EBUSY and kind is not None:
                continue  # a process forked into the cgroup after the move: move again
            first = f" (its processes were moved into {LEAF_NAME} first)" if moved else ""
            raise V2SetupError(f"cgroup v2 at {cgroup}: enabling {' '.join(controllers)} in "
                               f"cgroup.subtree_control failed ({e.strerror}){first}") from e
    raise V2SetupError(f"cgroup v2 at {cgroup}: enabling {' '.join(controllers)} kept failing with EBUSY "
                       f"(processes keep appearing there)")


# Once per process: the outcome for each (fs, cgroup, controllers), "" when it worked.
_enabled: dict[tuple[CgroupFS, str, tuple[str, ...]], str] = {}
_enabled_lock = threading.Lock()


def _enable_once(cgroup: str, fs: CgroupFS, controllers: tuple[str, ...]) -> None:
    key = (fs, cgroup, controllers)
    with _enabled_lock:  # several runs (threads) may start at once
        if key not in _enabled:
            try:
                enable_v2_controllers(cgroup, fs, controllers)
                _enabled[key] = ""
            except V2SetupError as e:
                _enabled[key] = str(e)
        why = _enabled[key]
    if why:
        raise V2SetupError(why)


def v2_backend(cgroup: str, group: str = GROUP_NAME, fs: CgroupFS = REAL_FS,
               controllers: tuple[str, ...] = V2_CONTROLLERS) -> Backend:
    """The runs' parent `group` under the worker's cgroup v2 `cgroup`, with
    `controllers` handed down to the runs (see enable_v2_controllers)."""
    _enable_once(cgroup, fs, controllers)
    parent = os.path.join(cgroup, group)
    try:
        _mkdir(parent, fs)
        subtree = os.path.join(parent, "cgroup.subtree_control")
        todo = [c for c in controllers if c not in fs.read(subtree).split()]
        if todo:
            fs.write(subtree, " ".join(f"+{c}" for c in todo))
    except OSError as e:
        raise V2SetupError(f"cgroup v2 at {cgroup}: cannot set up {group} for the runs ({e.strerror})") from e
    return Backend("v2", f"cgroup v2 at {cgroup}", {"": parent}, fs=fs)


def _try_v2(mounts: list[Mount], own: dict[str, str], group: str,
            fs: CgroupFS = REAL_FS) -> tuple[Backend | None, str]:
    m = next((m for m in mounts if m.fstype == "cgroup2"), None)
    if m is None or "" not in own:
        return None, "no cgroup v2 hierarchy"
    relative = _relative(own[""], m.root)
    if os.path.basename(relative) == LEAF_NAME:
        relative = os.path.dirname(relative)  # moved there by an earlier setup (this process or another)
    try:
        return v2_backend(os.path.join(m.point, relative) if relative else m.point, group, fs), ""
    except V2SetupError as e:
        return None, str(e)


def _try_v1(mounts: list[Mount], own: dict[str, str], group: str) -> tuple[Backend | None, str]:
    parents: dict[str, str] = {}
    optional = ("freezer", "cpu", "cpuacct")  # used where they can be had
    for controller in ("memory", "pids", *optional):
        m = next((m for m in mounts if m.fstype == "cgroup" and controller in m.super_options), None)
        if m is None or controller not in own:
            if controller in optional:
                continue
            return None, f"no cgroup v1 {controller} hierarchy"
        parent = os.path.join(m.point, _relative(own[controller], m.root), group)
        try:
            _mkdir(parent)
            if not os.access(parent, os.W_OK):
                raise PermissionError(errno.EACCES, "not writable")
        except OSError as e:
            if controller in optional:
                continue
            return None, f"cgroup v1 {controller} at {os.path.dirname(parent)} cannot be written ({e.strerror})"
        parents[controller] = parent
    return Backend("v1", f"cgroup v1 at {parents['memory']}", parents), ""


def detect(proc: str = "/proc/self", group: str = GROUP_NAME, fs: CgroupFS = REAL_FS) -> Backend:
    """Find a cgroup hierarchy this process can make run cgroups in (in the folder
    `group` under its own cgroup), and prove it can by making (and removing) one.
    `fs` is used for cgroup v2 only (tests give a fake tree; cgroup v1 is always real)."""
    try:
        mounts = parse_mountinfo(_read(os.path.join(proc, "mountinfo")))
        own = parse_proc_cgroup(_read(os.path.join(proc, "cgroup")))
    except OSError as e:
        return Backend(None, f"cannot read {proc}/mountinfo or cgroup ({e.strerror})")
    reasons = []
    for attempt in (lambda: _try_v2(mounts, own, group, fs), lambda: _try_v1(mounts, own, group)):
        backend, why = attempt()
        if backend is None:
            reasons.append(why)
            continue
        try:
            probe = backend.create_run()
            probe.remove()
        except OSError as e:
            reasons.append(f"{backend.reason}: cannot create a run cgroup ({e.strerror})")
            continue
        backend.passed_over = "; ".join(reasons)
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


def move(pid: int, procs_files: list[str]) -> None:
    """Move process `pid` (a warm sandbox's child, waiting before it runs anything of the
    snippet) into a run's cgroups."""
    for path in procs_files:
        with open(path, "w") as f:
            f.write(str(pid))
