"""The bwrap command line and the environment, checked as data."""

from __future__ import annotations

import os
import sys

from bot.sandbox import bwrap, environment
from bot.sandbox.limits import MiB


def build(**kw) -> list[str]:
    layout = bwrap.discover_host()
    spec = bwrap.Spec(layout=layout, tmp_bytes=32 * MiB, harness_config="{}",
                      seccomp_fd=3, harness_fd=4, data_fds={"/etc/passwd": 5}, file_fds={bwrap.SNIPPET_PATH: 6}, **kw)
    return bwrap.build_args(spec) + bwrap.command(spec)


def pairs(args: list[str], option: str) -> list[tuple[str, str]]:
    return [(args[i + 1], args[i + 2]) for i, a in enumerate(args) if a == option]


def test_namespaces_and_process_options():
    args = build()
    for flag in ("--unshare-user", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
                 "--unshare-cgroup-try", "--disable-userns", "--die-with-parent", "--new-session"):
        assert flag in args, flag
    assert args[args.index("--cap-drop") + 1] == "ALL"
    assert args[args.index("--uid") + 1] == "65534" and args[args.index("--gid") + 1] == "65534"
    assert "--share-net" not in args
    assert args[args.index("--seccomp") + 1] == "3"


def test_only_read_only_binds_of_what_python_needs():
    args = build()
    assert pairs(args, "--bind") == []  # nothing of the host is writable: the report goes through a memfd
    assert "--as-pid-1" in args  # the harness supervises the snippet as the pid namespace's init
    sources = [src for src, _ in pairs(args, "--ro-bind")]
    prefix = os.path.realpath(sys.base_prefix)
    for src in sources:
        assert src.startswith(("/usr/", "/etc/", prefix)) or "site-packages" in src, src
        assert not src.startswith(("/usr/local", "/work/wt", "/home"))
        assert src != "/" and src != "/root"
    assert ("/", "/") not in pairs(args, "--ro-bind")
    # the root is an empty tmpfs, made read-only after the mounts
    assert args[args.index("--remount-ro") + 1] == "/"
    assert args.index("--remount-ro") > max(i for i, a in enumerate(args) if a in ("--ro-bind", "--tmpfs", "--bind"))


def test_fresh_size_limited_tmpfs_for_tmp_home_and_shm():
    args = build()
    tmpfs = [args[i + 1] for i, a in enumerate(args) if a == "--tmpfs"]
    assert tmpfs == ["/tmp", "/home/sandbox", "/dev/shm"]
    for i, a in enumerate(args):
        if a == "--tmpfs":
            assert str(32 * MiB) in args[i - 4:i], args[i - 4:i + 2]
    assert ("6", bwrap.SNIPPET_PATH) in pairs(args, "--file")


def test_staged_folders_replace_their_sources():
    layout = bwrap.discover_host()
    args = build(staged={layout.python_prefix: "/tmp/run-x/stage0"})
    if bwrap.python_under_usr(layout):
        return
    assert ("/tmp/run-x/stage0", layout.python_prefix) in pairs(args, "--ro-bind")


def test_the_program_is_the_venv_python_running_the_harness():
    layout = bwrap.discover_host()
    args = build()
    cmd = args[args.index("--") + 1:]
    assert cmd[1:4] == ["-s", "-B", bwrap.HARNESS_PATH]
    if layout.site_packages:
        assert cmd[0] == bwrap.VENV_PYTHON
        assert (layout.python_exe, bwrap.VENV_PYTHON) in pairs(args, "--symlink")
        cfg = bwrap.venv_files(layout)[f"{bwrap.VENV}/pyvenv.cfg"].decode()
        assert "include-system-site-packages = false" in cfg
        assert f"home = {os.path.dirname(layout.python_exe)}" in cfg


def test_environment_is_an_allow_list():
    host = {"SLACK_BOT_TOKEN": "xoxb-1", "REDIS_URL": "redis://x", "DATABASE_URL": "postgres://x",
            "AWS_SECRET_ACCESS_KEY": "k", "HOME": "/root", "PYTHONPATH": "/work/main", "LD_PRELOAD": "/evil.so",
            "OMP_NUM_THREADS": "3", "TZ": "UTC"}
    env = environment.build("/py/bin", host_env=host)
    assert env["HOME"] == "/home/sandbox" and env["OMP_NUM_THREADS"] == "3" and env["TZ"] == "UTC"
    assert env["PATH"].startswith("/py/bin:")
    assert env["TORCHINDUCTOR_COMPILE_THREADS"] == "1"
    for secret in ("SLACK_BOT_TOKEN", "REDIS_URL", "DATABASE_URL", "AWS_SECRET_ACCESS_KEY", "PYTHONPATH", "LD_PRELOAD"):
        assert secret not in env
    assert "xoxb" not in repr(env)
    gpu_env = environment.build("/py/bin", host_env={}, gpu_env={"CUDA_VISIBLE_DEVICES": "GPU-1"})
    assert gpu_env["CUDA_VISIBLE_DEVICES"] == "GPU-1"
    assert environment.build("/py/bin", host_env={})["CUDA_VISIBLE_DEVICES"] == ""
