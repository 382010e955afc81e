"""Facts about a run that the host decides itself, from what it mounted and measured:
never from what the run prints or writes.

- torch's version and CUDA build: read from torch/version.py in the host's
  site-packages, the very folder the sandbox binds read-only (the snippet cannot
  change it, and a snippet that never imports torch still ran against that torch);
- Python's version: the host's interpreter, which the sandbox runs;
- the device: the GPU the host assigned (its model name from the NVIDIA driver's proc
  files), or none;
- how the run ended: from the supervisor's wait status (see harness.py), the host's
  deadline and the cgroup's counters.
"""

from __future__ import annotations

import hashlib
import os
import platform
import re
import signal
import site
import sys
import sysconfig
from functools import lru_cache
from pathlib import Path

_VERSION = re.compile(r"^__version__\s*=\s*['\"]([^'\"]+)['\"]", re.M)
_CUDA = re.compile(r"^cuda\s*(?::[^=]*)?=\s*(?:['\"]([^'\"]+)['\"]|None)", re.M)


@lru_cache(maxsize=16)
def _torch_build_cached(path: str, mtime_ns: int) -> tuple[str | None, str | None]:
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None, None
    version = _VERSION.search(text)
    cuda = _CUDA.search(text)
    return (version.group(1)[:64] if version else None), (cuda.group(1)[:32] if cuda and cuda.group(1) else None)


def torch_build(site_packages: list[str]) -> tuple[str | None, str | None]:
    """(torch version, CUDA version torch was built with) of the first torch found in the
    host's `site_packages` (the folders the sandbox binds); (None, None) without torch."""
    for folder in site_packages:
        path = os.path.join(folder, "torch", "version.py")
        try:
            st = os.stat(path)
        except OSError:
            continue
        return _torch_build_cached(path, st.st_mtime_ns)
    return None, None


def python_site_dirs(prefix: str, version: str) -> list[str]:
    """The package folders of the Python install at `prefix` (no venv): where a system
    Python, such as the one in the Docker images, keeps torch. The install's own scheme
    first (lib/pythonX.Y/site-packages, or Debian's dist-packages), then the usual
    places, so a prefix laid out by another Python is still searched."""
    paths = sysconfig.get_paths(vars={"base": prefix, "platbase": prefix, "installed_base": prefix,
                                      "installed_platbase": prefix, "py_version_short": version})
    found = [paths["purelib"], paths["platlib"], *site.getsitepackages([prefix])]
    for lib in ("lib", "lib64"):
        for name in ("site-packages", "dist-packages"):
            found.append(os.path.join(prefix, lib, f"python{version}", name))
    found.append(os.path.join(prefix, "lib", "python3", "dist-packages"))
    return [d for d in dict.fromkeys(found) if os.path.isdir(d)]


def torch_site_dirs(site_packages: list[str], python_prefix: str, python_version: str) -> list[str]:
    """Where the sandbox's torch lies: the venv's (or a torch environment's) package
    folders when there are any, else the Python install's own."""
    return list(site_packages) or python_site_dirs(python_prefix, python_version)


def gpu_model(index: str, driver_dir: str = "/proc/driver/nvidia/gpus") -> str | None:
    """The model name the NVIDIA driver gives the GPU of device minor `index`."""
    try:
        buses = os.listdir(driver_dir)
    except OSError:
        return None
    for bus in buses:
        try:
            text = Path(driver_dir, bus, "information").read_text(errors="replace")
        except OSError:
            continue
        minor = re.search(r"^Device Minor:\s*(\d+)\s*$", text, re.M)
        model = re.search(r"^Model:\s*(.+?)\s*$", text, re.M)
        if minor and model and minor.group(1) == index:
            return model.group(1)[:200]
    return None


@lru_cache(maxsize=1)
def host_id() -> str:
    """A short stable id of this machine (a hash: no hostname or machine id in reports)."""
    for path in ("/etc/machine-id", "/var/lib/dbus/machine-id"):
        try:
            raw = Path(path).read_text().strip()
        except OSError:
            continue
        if raw:
            return hashlib.sha256(raw.encode()).hexdigest()[:12]
    return hashlib.sha256(platform.node().encode()).hexdigest()[:12]


def environment(site_packages: list[str], *, gpu_index: str | None, cuda_visible: str | None,
                driver_dir: str = "/proc/driver/nvidia/gpus") -> dict:
    torch, cuda = torch_build(site_packages)
    return {
        "python": platform.python_version(),
        "torch": torch,
        "cuda": cuda,
        # A GPU was given to the run and this torch was built for CUDA: the host's
        # expectation, not the run's word.
        "cuda_available": bool(gpu_index is not None and cuda),
        "device_name": gpu_model(gpu_index, driver_dir) if gpu_index is not None else None,
        "gpu": gpu_index,
        "cuda_visible_devices": cuda_visible,
        "host": host_id(),
        "kernel": platform.release(),
        "decided_by": "host",
    }


def signal_name(sig: int) -> str:
    try:
        return signal.Signals(sig).name
    except ValueError:
        return f"signal {sig}"


def python_version() -> str:
    return sys.version.split()[0]
