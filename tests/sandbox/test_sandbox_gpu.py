"""GPU runs, tested with a fake /dev (this machine has no GPU): which device nodes a
run sees, CUDA_VISIBLE_DEVICES, and no address-space limit.

The fake nodes are regular files, bound into a real sandbox exactly as the real
character devices would be; what CUDA does with them cannot be tested here.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from bot.sandbox import Limits, Sandbox, rlimits
from bot.sandbox import bwrap, gpu
from bot.sandbox.limits import MiB

from .sandbox_helpers import LIMITS, show

UUID1 = "GPU-11111111-2222-3333-4444-555555555555"


@pytest.fixture(scope="module")
def fake_host():
    # World-traversable, like the real /dev: the sandbox's host user must reach it.
    root = Path(tempfile.mkdtemp(prefix="fake-gpu-host-"))
    root.chmod(0o755)
    dev = root / "dev"
    dev.mkdir(mode=0o755)
    for name in ("nvidia0", "nvidia1", "nvidia2", "nvidiactl", "nvidia-uvm", "nvidia-uvm-tools", "nvidia-modeset"):
        (dev / name).write_text(name)
        (dev / name).chmod(0o666)
    (dev / "nvidia-caps").mkdir()
    driver = root / "gpus"
    for bus, minor, uuid in (("0000:01:00.0", 0, "GPU-00000000-0000-0000-0000-000000000000"),
                             ("0000:02:00.0", 1, UUID1)):
        (driver / bus).mkdir(parents=True)
        (driver / bus / "information").write_text(
            f"Model: \t\t NVIDIA H200\nIRQ:   \t\t 42\nGPU UUID: \t {uuid}\n"
            f"Video BIOS: \t ??\nDevice Minor: \t {minor}\n")
    yield root
    shutil.rmtree(root)


def test_plan_binds_only_the_assigned_gpu(fake_host):
    p = gpu.plan("1", dev_dir=str(fake_host / "dev"), driver_dir=str(fake_host / "gpus"))
    names = [os.path.basename(n) for n in p.device_nodes]
    assert names == ["nvidia1", "nvidiactl", "nvidia-uvm", "nvidia-uvm-tools", "nvidia-modeset"]
    assert p.env["CUDA_VISIBLE_DEVICES"] == UUID1
    assert p.groups == ()


def test_plan_without_driver_info_uses_index_0(fake_host):
    p = gpu.plan("2", dev_dir=str(fake_host / "dev"), driver_dir=str(fake_host / "nothing"))
    assert p.env["CUDA_VISIBLE_DEVICES"] == "0"  # the only device the sandbox has
    assert os.path.basename(p.device_nodes[0]) == "nvidia2"


def test_plan_adds_the_group_of_a_restricted_node(fake_host, tmp_path):
    dev = tmp_path / "dev"
    shutil.copytree(fake_host / "dev", dev)
    os.chown(dev / "nvidia0", 0, 44)
    (dev / "nvidia0").chmod(0o660)
    assert gpu.plan("0", dev_dir=str(dev)).groups == (44,)


@pytest.mark.parametrize("bad, why", [("x", "GPU index"), ("-1", "GPU index"), ("0,1", "GPU index"), (1, "GPU index"),
                                      ("7", "does not exist")])
def test_plan_rejects_bad_gpus(fake_host, bad, why):
    with pytest.raises(gpu.GpuError, match=why):
        gpu.plan(bad, dev_dir=str(fake_host / "dev"))


def test_plan_needs_the_control_nodes(tmp_path):
    (tmp_path / "nvidia0").write_text("")
    with pytest.raises(gpu.GpuError, match="nvidiactl does not exist"):
        gpu.plan("0", dev_dir=str(tmp_path))


def test_bwrap_arguments_bind_exactly_those_nodes(fake_host):
    p = gpu.plan("1", dev_dir=str(fake_host / "dev"))
    spec = bwrap.Spec(layout=bwrap.discover_host(), tmp_bytes=MiB, harness_config="{}",
                      seccomp_fd=3, harness_fd=5, data_fds={}, file_fds={}, device_nodes=p.device_nodes)
    args = bwrap.build_args(spec)
    binds = [(args[i + 1], args[i + 2]) for i, a in enumerate(args) if a == "--dev-bind"]
    assert [dest for _, dest in binds] == ["/dev/nvidia1", "/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools",
                                          "/dev/nvidia-modeset"]
    assert all(src.startswith(str(fake_host)) for src, _ in binds)


def test_no_address_space_limit_with_a_gpu_even_without_cgroups():
    with_gpu, notes = rlimits.plan(Limits(), gpu=True, memory_by_cgroup=False, pids_by_cgroup=True)
    assert "RLIMIT_AS" not in [r.name for r in with_gpu]
    assert any("memory: NOT enforced" in n for n in notes)
    without, _ = rlimits.plan(Limits(), gpu=False, memory_by_cgroup=False, pids_by_cgroup=True)
    assert "RLIMIT_AS" in [r.name for r in without]
    with_cgroup, _ = rlimits.plan(Limits(), gpu=False, memory_by_cgroup=True, pids_by_cgroup=True)
    assert "RLIMIT_AS" not in [r.name for r in with_cgroup]


SHOW_DEVICES = (
    "import os, json, resource\n"
    "print(json.dumps({'dev': sorted(n for n in os.listdir('/dev') if n.startswith('nvidia')),\n"
    "                  'content': open('/dev/nvidia' + os.environ['EXPECT']).read() "
    "if os.environ.get('EXPECT') else None,\n"
    "                  'cvd': os.environ.get('CUDA_VISIBLE_DEVICES'),\n"
    "                  'as': resource.getrlimit(resource.RLIMIT_AS)[0]}))\n"
)


def test_run_with_fake_gpu_sees_only_its_nodes(sandbox, fake_host, run_dir_base, cgroup_group):
    box = Sandbox(dev_dir=str(fake_host / "dev"), gpu_driver_dir=str(fake_host / "gpus"),
                  run_dir_base=str(run_dir_base), cgroup_group=cgroup_group)
    r = box.run(SHOW_DEVICES.replace("os.environ.get('EXPECT')", "'1'").replace("os.environ['EXPECT']", "'1'"),
                limits=LIMITS, gpu="1")
    assert r.exit_reason == "ok", show(r)
    seen = json.loads(r.output)
    assert seen["dev"] == ["nvidia-modeset", "nvidia-uvm", "nvidia-uvm-tools", "nvidia1", "nvidiactl"]
    assert seen["content"] == "nvidia1"  # the node bound is the host's node 1
    assert seen["cvd"] == UUID1
    assert seen["as"] == -1  # RLIM_INFINITY
    assert r.environment["gpu"] == "1" and r.environment["cuda_visible_devices"] == UUID1
    assert "gpu 1 only" in "\n".join(r.limits)


def test_run_with_fake_gpu_without_cgroups_has_no_address_space_limit(sandbox, fake_host, run_dir_base):
    box = Sandbox(dev_dir=str(fake_host / "dev"), gpu_driver_dir=str(fake_host / "gpus"),
                  run_dir_base=str(run_dir_base), use_cgroups=False, allow_rlimit_fallback=True)
    r = box.run(SHOW_DEVICES, limits=LIMITS, gpu="0")
    assert r.exit_reason == "ok", show(r)
    assert json.loads(r.output)["as"] == -1
    assert "memory: NOT enforced" in "\n".join(r.limits)


def test_run_without_gpu_sees_no_nvidia_nodes(sandbox, fake_host, run_dir_base):
    box = Sandbox(dev_dir=str(fake_host / "dev"), run_dir_base=str(run_dir_base), use_cgroups=False,
                  allow_rlimit_fallback=True)
    r = box.run(SHOW_DEVICES, limits=LIMITS)
    seen = json.loads(r.output)
    assert seen["dev"] == [] and seen["cvd"] == ""
    assert r.environment["gpu"] is None


def test_a_gpu_run_gets_more_cpu(sandbox, fake_host, run_dir_base, cgroup_group):
    from bot.settings import sandbox_gpu_cpus

    box = Sandbox(dev_dir=str(fake_host / "dev"), gpu_driver_dir=str(fake_host / "gpus"),
                  run_dir_base=str(run_dir_base), cgroup_group=cgroup_group)
    on_gpu = box.run("pass", limits=LIMITS, gpu="0")
    on_cpu = box.run("pass", limits=LIMITS)
    cpu_lines = [line for line in on_cpu.limits if line.startswith("cpu ")]
    if not any("(cgroup" in line for line in cpu_lines):
        pytest.skip(f"no cgroup cpu controller here: {cpu_lines}")
    assert any(line.startswith("cpu 1 CPU (cgroup") for line in on_cpu.limits), on_cpu.limits
    assert any(line.startswith(f"cpu {sandbox_gpu_cpus():g} CPU (cgroup") for line in on_gpu.limits), on_gpu.limits


def test_the_canary_fails_in_a_real_sandbox_without_a_real_gpu(sandbox, fake_host, run_dir_base, cgroup_group):
    """The canary's program in the real sandbox on a fake GPU: the torch here cannot use
    it, and the canary says so; a GPU without its node is a GpuError, caught and named."""
    from bot.sandbox.canary import check_gpu

    box = Sandbox(dev_dir=str(fake_host / "dev"), gpu_driver_dir=str(fake_host / "gpus"),
                  run_dir_base=str(run_dir_base), cgroup_group=cgroup_group)
    health = check_gpu("1", run=box.run)
    assert not health.ok
    assert "CPU build" in health.why or "CUDA is not available" in health.why, health
    missing = check_gpu("7", run=box.run)
    assert not missing.ok and "nvidia7 does not exist" in missing.why, missing


def test_the_zygote_check_sees_open_gpu_descriptors(tmp_path):
    """harness._preload calls forking unsafe once any descriptor is open on an NVIDIA node
    (what is_available()/device_count() leave behind, with is_initialized() still False).
    In a fresh process: the suite's own threads would make _preload unsafe for another reason."""
    import subprocess
    import sys

    from bot.sandbox.runner import HARNESS_SOURCE

    node = tmp_path / "dev" / "nvidiactl"
    node.parent.mkdir()
    node.write_text("")
    program = (
        "import importlib.util, json, sys\n"
        "spec = importlib.util.spec_from_file_location('harness_under_test', sys.argv[1])\n"
        "h = importlib.util.module_from_spec(spec); spec.loader.exec_module(h)\n"
        "before = (h._gpu_fds(), h._preload([], None)['unsafe'])\n"
        "held = open(sys.argv[2])\n"
        "during = (h._gpu_fds(), h._preload([], None)['unsafe'])\n"
        "held.close()\n"
        "print(json.dumps({'before': before, 'during': during, 'after': h._gpu_fds()}))\n"
    )
    out = subprocess.run([sys.executable, "-c", program, str(HARNESS_SOURCE), str(node)], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    seen = json.loads(out.stdout)
    assert seen["before"] == [[], None]
    fds, unsafe = seen["during"]
    assert fds == [str(node)]
    assert unsafe and "opened the GPU's device nodes" in unsafe and str(node) in unsafe
    assert seen["after"] == []
