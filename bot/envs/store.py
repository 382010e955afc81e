"""Torch environments: one folder of packages per torch release, which the sandbox
mounts as its site-packages instead of the worker's own (see bot/sandbox/bwrap.py).

    <envs dir>/torch-2.13.0/
        site-packages/   torch, what it depends on, and EXTRAS (what repros import)
        env.json         what was installed, from where, how long it took, its size,
                         and the check that torch imports from there at that version

An environment is made with pip (`pip install --target`) by the interpreter the
sandbox runs, so that its compiled packages fit that Python. pip takes the wheels from
the package indexes it is configured with (a local wheel folder included, see pip's
own configuration); TROUBLESHOOT_ENVS_INDEX_URL adds an index that has CPU builds
(such as PyTorch's own CPU index where it can be reached). Nothing else is
downloaded. A folder is only listed as an environment once its check passed: a
half-finished install is built under a temporary name and moved in place at the end.
"""

from __future__ import annotations

import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from bot.settings import get_settings
from bot.text.jsonin import loads as json_loads

EXTRAS = ("numpy",)  # imported by some repros; the harness itself needs only the standard library
META = "env.json"
SITE = "site-packages"
VERSION = re.compile(r"^\d+\.\d+(\.\d+)?([a-z]+\d+)?$")  # a torch release as asked for: 2.9.1, 2.13.0, 2.10.0rc1
PIP_SECONDS = 3600.0


class EnvError(Exception):
    """An environment cannot be made, found or removed; the message says why."""


class UnknownVersion(EnvError):
    def __init__(self, version: str, available: list[str]):
        self.version = version
        self.available = available
        shown = ", ".join(available) if available else "none (no package index answered)"
        super().__init__(f"torch {version} is not a release the package index has; it has: {shown}")


@dataclass
class Environment:
    """One installed environment (the contents of its env.json)."""

    version: str  # the release asked for ("2.13.0"); the environment's name
    path: str  # the environment's folder
    torch: str  # torch.__version__ as imported from it ("2.13.0+cpu")
    cuda: str | None  # the CUDA version torch was built with, None for a CPU build
    python: str  # "3.11": the interpreter it was made for
    installed_at: float
    install_seconds: float
    size_bytes: int
    packages: dict[str, str] = field(default_factory=dict)
    installer: str = ""
    checked: dict = field(default_factory=dict)  # the import check: {"torch", "file", "seconds"}

    @property
    def site_packages(self) -> str:
        return os.path.join(self.path, SITE)

    @property
    def build(self) -> str:
        return f"CUDA {self.cuda}" if self.cuda else "CPU"

    def describe(self) -> dict:
        """What a report says about the environment a run used."""
        return {"torch": self.torch, "version": self.version, "cuda": self.cuda, "python": self.python,
                "name": env_name(self.version)}

    def as_json(self) -> dict:
        out = asdict(self)
        out["site_packages"] = self.site_packages
        out["build"] = self.build
        return out


def env_name(version: str) -> str:
    return f"torch-{version}"


def public_version(version: str) -> str:
    """2.13.0+cpu -> 2.13.0."""
    return version.split("+", 1)[0]


def same_release(asked: str, got: str) -> bool:
    """Is `got` (torch.__version__) the release `asked` names? 2.13 and 2.13.0 are one."""
    def parts(v: str) -> list[str]:
        items = public_version(v).split(".")
        while len(items) > 2 and items[-1] == "0":
            items.pop()
        return items
    return parts(asked) == parts(got)


def check_version(version: str) -> str:
    version = (version or "").strip()
    if not VERSION.fullmatch(version):
        raise EnvError(f"{version!r} is not a torch release number (e.g. 2.13.0)")
    return version


def dir_size(path: str | os.PathLike) -> int:
    """Bytes on disk of the files under `path` (hard links counted once)."""
    total, seen = 0, set()
    for root, _dirs, files in os.walk(path):
        for name in files:
            try:
                st = os.lstat(os.path.join(root, name))
            except OSError:
                continue
            if (st.st_dev, st.st_ino) in seen:
                continue
            seen.add((st.st_dev, st.st_ino))
            total += st.st_blocks * 512
    return total


def python_for_sandbox() -> str:
    """The interpreter the sandbox runs (the base install of the running venv)."""
    return os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable)


_CHECK = r"""
import json, site, sys, time
t = time.perf_counter()
site.addsitedir(sys.argv[1])
import torch
print(json.dumps({"torch": torch.__version__, "cuda": torch.version.cuda, "file": torch.__file__,
                  "seconds": round(time.perf_counter() - t, 2)}))
"""


def check_import(site_packages: str, timeout: float = 300.0) -> dict:
    """Import torch from `site_packages` alone (the base interpreter without any
    site-packages of its own: -S -s -E), in a process of its own, as a run would."""
    try:
        out = subprocess.run([python_for_sandbox(), "-S", "-s", "-E", "-c", _CHECK, site_packages],
                             capture_output=True, text=True, timeout=timeout, cwd=site_packages)
    except subprocess.TimeoutExpired:
        raise EnvError(f"importing torch from {site_packages} took more than {timeout:g} s") from None
    if out.returncode != 0:
        tail = (out.stderr or out.stdout).strip().splitlines()[-1:] or [f"exit {out.returncode}"]
        raise EnvError(f"torch does not import from {site_packages}: {tail[0]}")
    got = json_loads(out.stdout.strip().splitlines()[-1])
    if not os.path.realpath(got["file"]).startswith(os.path.realpath(site_packages) + os.sep):
        raise EnvError(f"torch was imported from {got['file']}, not from {site_packages}")
    return got


class EnvStore:
    """The environments under one folder (default: TROUBLESHOOT_ENVS_DIR, else
    <var dir>/envs)."""

    def __init__(self, root: str | os.PathLike | None = None, *, index_url: str | None = None,
                 extras: tuple[str, ...] = EXTRAS, pip: list[str] | None = None):
        if root is None or index_url is None:
            settings = get_settings()
            root = root if root is not None else (settings.envs_dir or settings.var_dir / "envs")
            index_url = index_url if index_url is not None else settings.envs_index_url
        self.root = Path(root)
        self.index_url = index_url
        self.extras = tuple(extras)
        # pip's own configuration (indexes, a local wheel folder) applies: it inherits the environment.
        self.pip = pip or [python_for_pip(), "-m", "pip", "--disable-pip-version-check", "--no-input"]

    # --- reading -------------------------------------------------------------------------

    def path(self, version: str) -> Path:
        return self.root / env_name(check_version(version))

    def get(self, version: str) -> Environment | None:
        """The environment of that release, or None where there is none (or it is broken)."""
        try:
            folder = self.path(version)
        except EnvError:
            return None
        return _load(folder)

    def list(self) -> list[Environment]:
        if not self.root.is_dir():
            return []
        found = [_load(p) for p in sorted(self.root.iterdir()) if p.name.startswith("torch-")]
        envs = [e for e in found if e is not None]
        return sorted(envs, key=lambda e: _sort_key(e.version))

    def versions(self) -> list[str]:
        return [e.version for e in self.list()]

    def require(self, version: str) -> Environment:
        env = self.get(version)
        if env is None:
            have = ", ".join(self.versions()) or "none"
            raise EnvError(f"no environment for torch {version} here (installed: {have}); "
                           f"make one with `troubleshoot envs add {version}`")
        return env

    # --- the package index -------------------------------------------------------------

    def _index_args(self) -> list[str]:
        return ["--extra-index-url", self.index_url] if self.index_url else []

    def available(self, timeout: float = 120.0) -> list[str]:
        """The torch releases the configured package indexes offer (pip index versions)."""
        try:
            out = subprocess.run([*self.pip, "index", "versions", "torch", *self._index_args()],
                                 capture_output=True, text=True, timeout=timeout)
        except (OSError, subprocess.SubprocessError) as exc:
            raise EnvError(f"could not ask the package index for torch releases ({exc})") from None
        match = re.search(r"^Available versions:\s*(.+)$", out.stdout, re.M)
        if not match:
            why = (out.stderr or out.stdout).strip().splitlines()[-1:] or ["no answer"]
            raise EnvError(f"the package index lists no torch releases ({why[0]})")
        seen: list[str] = []
        for v in match.group(1).split(","):
            v = public_version(v.strip())
            if v and v not in seen:
                seen.append(v)
        return seen

    # --- making and removing -------------------------------------------------------------

    def add(self, version: str, *, log=None, check_index: bool = True) -> Environment:
        """Install torch `version` (+ EXTRAS) into a new environment and check it.

        `check_index`: first ask the index whether the release exists (UnknownVersion
        with the list when not); `log(line)` gets pip's output as it comes."""
        version = check_version(version)
        if self.get(version) is not None:
            raise EnvError(f"torch {version} is installed already ({self.path(version)}); "
                           f"`troubleshoot envs remove {version}` first to make it again")
        if check_index:
            offered = self.available()
            if not any(same_release(version, v) for v in offered):
                raise UnknownVersion(version, offered)
        self.root.mkdir(parents=True, exist_ok=True)
        self.root.chmod(0o755)  # the sandbox's host user must reach the folders it mounts
        work = Path(tempfile.mkdtemp(prefix=f".{env_name(version)}-", dir=self.root))
        try:
            site_dir = work / SITE
            started = time.monotonic()
            cmd = [*self.pip, "install", "--target", str(site_dir), "--only-binary=:all:", "--no-compile",
                   "--progress-bar", "off", *self._index_args(), f"torch=={version}", *self.extras]
            output = _stream(cmd, log)
            if output.returncode != 0:
                raise EnvError(f"pip could not install torch {version} (exit {output.returncode}): "
                               f"{_pip_reason(output.text)}")
            seconds = time.monotonic() - started
            checked = check_import(str(site_dir))
            if not same_release(version, checked["torch"]):
                raise EnvError(f"asked for torch {version}, but {checked['torch']} was installed")
            _make_readable(work)
            env = Environment(
                version=version, path=str(self.path(version)), torch=checked["torch"], cuda=checked.get("cuda"),
                python=f"{sys.version_info.major}.{sys.version_info.minor}", installed_at=time.time(),
                install_seconds=round(seconds, 1), size_bytes=dir_size(work), packages=_packages(site_dir),
                installer=_pip_version(self.pip), checked={k: checked[k] for k in ("torch", "seconds")},
            )
            (work / META).write_text(json.dumps(env.as_json(), indent=2) + "\n")
            (work / META).chmod(0o644)
            os.rename(work, self.path(version))
            return env
        finally:
            if work.exists():
                shutil.rmtree(work, ignore_errors=True)

    def remove(self, version: str) -> Environment:
        env = self.require(version)
        # Renamed first, so that a worker never mounts a half-deleted folder.
        gone = self.root / f".removing-{env_name(env.version)}-{os.getpid()}"
        os.rename(env.path, gone)
        shutil.rmtree(gone, ignore_errors=True)
        return env

    def recheck(self, version: str) -> dict:
        """Import torch from an installed environment again (it may have been changed)."""
        env = self.require(version)
        got = check_import(env.site_packages)
        if not same_release(env.version, got["torch"]):
            raise EnvError(f"the environment of torch {env.version} now imports torch {got['torch']}")
        return got


def python_for_pip() -> str:
    """pip must install for the interpreter the sandbox runs; the running one has the
    same version (the sandbox runs the base install of this venv) and has pip."""
    return sys.executable


@dataclass
class _Output:
    returncode: int
    text: str


def _stream(cmd: list[str], log) -> _Output:
    lines: list[str] = []
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    except OSError as exc:
        raise EnvError(f"could not start pip ({exc})") from None
    assert proc.stdout is not None
    try:
        for line in proc.stdout:
            lines.append(line.rstrip("\n"))
            if log is not None:
                log(lines[-1])
        proc.wait(timeout=PIP_SECONDS)
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    return _Output(proc.returncode, "\n".join(lines[-200:]))


def _pip_reason(text: str) -> str:
    errors = [line for line in text.splitlines() if line.startswith("ERROR")]
    return " ".join((errors or text.splitlines()[-1:] or ["no output"])[:3])[:600]


def _pip_version(pip: list[str]) -> str:
    try:
        out = subprocess.run([*pip, "--version"], capture_output=True, text=True, timeout=60)
        return " ".join(out.stdout.split()[:2])
    except (OSError, subprocess.SubprocessError):
        return "pip"


def _packages(site_dir: Path) -> dict[str, str]:
    out = {}
    for meta in site_dir.glob("*.dist-info"):
        name, _, version = meta.name[: -len(".dist-info")].partition("-")
        out[name.lower().replace("_", "-")] = version
    return dict(sorted(out.items()))


def _make_readable(path: Path) -> None:
    """Everyone may read the environment (the sandbox's host user mounts it); nobody
    but its owner may change it."""
    for root, dirs, files in os.walk(path):
        for d in dirs:
            os.chmod(os.path.join(root, d), 0o755)
        for f in files:
            p = os.path.join(root, f)
            if not os.path.islink(p):
                os.chmod(p, (os.stat(p).st_mode & 0o111) | 0o644)
    os.chmod(path, 0o755)


def _sort_key(version: str) -> tuple:
    return tuple(int(p) if p.isdigit() else 0 for p in re.split(r"[.a-z]+", public_version(version)) if p)


def _load(folder: Path) -> Environment | None:
    try:
        data = json_loads((folder / META).read_text())
        names = set(Environment.__dataclass_fields__)
        env = Environment(**{k: v for k, v in data.items() if k in names})
    except (OSError, ValueError, TypeError):
        return None
    env.path = str(folder)  # where it is now, whatever it was built as
    if not (folder / SITE / "torch").is_dir():
        return None
    return env


def host_description() -> dict:
    return {"python": platform.python_version(), "machine": platform.machine()}


@dataclass
class HostEnvironment(Environment):
    """The worker's own torch, standing for a requested release it already is: the
    sandbox mounts nothing (`site_packages` None), as for a run without `--torch`."""

    @property
    def site_packages(self) -> str | None:  # type: ignore[override]
        return None

    def describe(self) -> dict:
        return super().describe() | {"name": "host"}


def host_torch() -> tuple[str, str | None, str] | None:
    """This interpreter's torch as (torch.__version__, its CUDA version or None, its
    folder), read from torch/version.py without importing torch; None without torch."""
    import importlib.util

    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = list(spec.submodule_search_locations)[0]
    found: dict = {}
    try:
        source = Path(folder, "version.py").read_text(encoding="utf-8")
    except OSError:
        return None
    for name in ("__version__", "cuda"):
        match = re.search(rf"^{re.escape(name)}\s*(?::[^=]*)?=\s*(?:'([^']*)'|\"([^\"]*)\"|None)", source, re.M)
        if match:
            found[name] = match.group(1) or match.group(2)
    if not found.get("__version__"):
        return None
    return found["__version__"], found.get("cuda"), folder


def host_environment(version: str) -> HostEnvironment | None:
    """The worker's own torch as the environment of `version`, where it is that release
    (2.13 and 2.13.0 are one); None where it is not, or there is no torch here."""
    found = host_torch()
    if found is None or not same_release(version, found[0]):
        return None
    torch_version, cuda, folder = found
    return HostEnvironment(version=check_version(version), path=os.path.dirname(folder), torch=torch_version,
                           cuda=cuda, python=f"{sys.version_info.major}.{sys.version_info.minor}",
                           installed_at=0.0, install_seconds=0.0, size_bytes=0, installer="host",
                           checked={"torch": torch_version})
