"""The GPU path on a real GPU, in one prepared run of under 10 minutes: what no test on a
CPU machine can show. Run it on the first machine with an NVIDIA GPU (the driver loaded,
torch's CUDA build installed, the sandbox working):

    PYTHONPATH=$PWD python bench/gpu_smoke.py [--gpu N] [--json]

Steps, each PASS, FAIL, SKIP (with the reason) or GAP (a part known not to exist yet,
with what was measured instead):
  sandbox         a CPU run in the sandbox (the plumbing every step needs)
  cuda-own-gpu    the canary: CUDA initialises in the sandbox, on the assigned GPU only
                  (one device, its UUID the host's, one /dev/nvidiaN node)
  warm-child      a zygote that imported torch stays free of GPU state, and its forked
                  children use CUDA
  stuck-kernel    a run that keeps the GPU busy past its deadline is killed, and the next
                  run gets the whole GPU's memory back
  gpu-oom         an allocation beyond the GPU's memory is reported as CUDA out of memory
  peak-gpu-memory the host's measurement of a run's peak GPU memory (nvidia-smi sampled too)
  torch-compile   torch.compile's default backend (Inductor, Triton) on the GPU
  nccl-one-rank   a one-rank NCCL process group and an all_reduce
On a machine without a GPU every GPU step is skipped with the reason; exit 0 unless a
step FAILed. Steps stop being started after --budget seconds (default 540).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.jobs.gpus import detect_gpus, unbindable_gpus_note  # noqa: E402
from bot.sandbox import Limits, run_snippet, sandbox_available  # noqa: E402
from bot.sandbox.canary import check_gpu  # noqa: E402
from bot.sandbox.gpu import gpu_uuid, mig_refusal  # noqa: E402
from bot.sandbox.limits import GiB  # noqa: E402

STEPS = ["sandbox", "cuda-own-gpu", "warm-child", "stuck-kernel", "gpu-oom", "peak-gpu-memory", "torch-compile",
         "nccl-one-rank"]


class Outcome(Exception):
    def __init__(self, status: str, detail: str):
        super().__init__(detail)
        self.status, self.detail = status, detail


def need(ok: bool, detail: str) -> None:
    if not ok:
        raise Outcome("FAIL", detail)


def tail(result) -> str:
    return " | ".join((result.output or "").strip().splitlines()[-4:])[-400:]


def run(code: str, gpu: str | None, seconds: float = 60, **limits) -> object:
    return run_snippet(code, gpu=gpu, limits=Limits(wall_seconds=seconds, **limits))


# --- the steps ----------------------------------------------------------------------------------

def step_sandbox(_gpu: str | None) -> str:
    ok, why = sandbox_available()
    if not ok:
        raise Outcome("FAIL", f"the sandbox cannot run here: {why}")
    r = run("import torch; print(torch.__version__, torch.version.cuda)", None, 120)
    need(r.exit_reason == "ok", f"import torch in the sandbox ended {r.exit_reason}: {tail(r)}")
    return f"torch {r.output.strip()} in the sandbox ({r.wall_seconds:.1f} s)"


def step_cuda_own_gpu(gpu: str) -> str:
    health = check_gpu(gpu)
    need(health.ok, f"the canary failed: {health.why}")
    r = run("import os, torch\n"
            "p = torch.cuda.get_device_properties(0)\n"
            "nodes = sorted(n for n in os.listdir('/dev') if n.startswith('nvidia') and n[6:].isdigit())\n"
            "print('SEEN', torch.cuda.device_count(), str(getattr(p, 'uuid', '')), ','.join(nodes))\n", gpu, 120)
    need(r.exit_reason == "ok", f"the device check ended {r.exit_reason}: {tail(r)}")
    found = re.search(r"^SEEN (\d+) (\S*) (\S*)$", r.output, re.M)
    need(found is not None, f"no answer from the device check: {tail(r)}")
    count, uuid, nodes = found.group(1), found.group(2), found.group(3)
    need(count == "1", f"the sandbox saw {count} CUDA devices")
    need(nodes == f"nvidia{gpu}", f"the sandbox saw device nodes {nodes!r}, not only nvidia{gpu}")
    host = gpu_uuid(gpu)
    if host and uuid:
        need(host.removeprefix("GPU-") == uuid.removeprefix("GPU-"), f"CUDA's device is {uuid}, the host's GPU {gpu} "
                                                                    f"is {host}")
    return f"{health.device_name}: canary {health.seconds:g} s; one device, uuid {uuid or '?'} (host {host or '?'})"


def step_warm_child(gpu: str) -> str:
    from bot.sandbox.zygote import Zygote

    started = time.monotonic()
    with Zygote(limits=Limits(wall_seconds=120), gpu=gpu, preload=["torch"]) as zygote:
        ready = time.monotonic() - started
        need("torch" in zygote.preloaded, f"the zygote did not preload torch: {zygote.preloaded}")
        outs = []
        for _ in range(2):
            r = zygote.run("import torch; x = torch.ones(4, device='cuda'); print(x.sum().item())",
                           limits=Limits(wall_seconds=60))
            need(r.exit_reason == "ok" and "4.0" in r.output, f"a warm child ended {r.exit_reason}: {tail(r)}")
            outs.append(r.wall_seconds)
    return f"zygote ready in {ready:.1f} s; two CUDA children in {outs[0]:.2f} s and {outs[1]:.2f} s"


STUCK = ("import torch\n"
         "x = torch.randn(8192, 8192, device='cuda')\n"
         "torch.cuda.synchronize(); print('busy', flush=True)\n"
         "while True:\n"
         "    x = torch.tanh(x @ x)\n")
GRAB = ("import torch\n"
        "free, total = torch.cuda.mem_get_info()\n"
        "t = torch.empty(int(free * 0.9), dtype=torch.uint8, device='cuda')\n"
        "print('FREE', free / total, flush=True)\n")


def step_stuck_kernel(gpu: str) -> str:
    r = run(STUCK, gpu, 20)
    need(r.exit_reason == "timeout", f"the busy run ended {r.exit_reason}, not timeout: {tail(r)}")
    after = run(GRAB, gpu, 120, memory_bytes=8 * GiB)
    need(after.exit_reason == "ok", f"the next run ended {after.exit_reason}: {tail(after)}")
    free = float(re.search(r"FREE ([0-9.]+)", after.output).group(1))
    need(free > 0.9, f"the next run found only {free:.0%} of the GPU's memory free")
    return f"killed at the deadline (run {r.wall_seconds:.1f} s); next run found {free:.1%} free and took 90% of it"


def step_gpu_oom(gpu: str) -> str:
    r = run("import torch\nx = torch.empty(1 << 50, dtype=torch.uint8, device='cuda')\n", gpu, 60)
    error = r.error or {}
    kind = error.get("type") if isinstance(error, dict) else getattr(error, "type", None)
    need(r.exit_reason == "error" and "OutOfMemoryError" in str(kind), f"ended {r.exit_reason} with {kind}: {tail(r)}")
    need("CUDA out of memory" in r.output, f"no 'CUDA out of memory' in the output: {tail(r)}")
    return f"{kind}: CUDA out of memory, reported as the run's error"


def nvidia_smi_peak(gpu: str, stop: threading.Event, seen: list[int]) -> None:
    exe = shutil.which("nvidia-smi")
    target = gpu_uuid(gpu) or gpu
    while exe and not stop.is_set():
        out = subprocess.run([exe, "-i", target, "--query-gpu=memory.used", "--format=csv,noheader,nounits"],
                             capture_output=True, text=True, timeout=10)
        if out.returncode == 0 and out.stdout.strip().isdigit():
            seen.append(int(out.stdout.strip()) * 1024 * 1024)
        stop.wait(0.2)


def step_peak_gpu_memory(gpu: str) -> str:
    seen: list[int] = []
    stop = threading.Event()
    sampler = threading.Thread(target=nvidia_smi_peak, args=(gpu, stop, seen), daemon=True)
    sampler.start()
    try:
        r = run("import torch, time\nx = torch.empty(2 << 30, dtype=torch.uint8, device='cuda')\n"
                "torch.cuda.synchronize(); time.sleep(3); print('held')\n", gpu, 60)
    finally:
        stop.set()
        sampler.join(15)
    need(r.exit_reason == "ok", f"the 2 GiB run ended {r.exit_reason}: {tail(r)}")
    sampled = f"nvidia-smi sampled a peak of {max(seen) / GiB:.2f} GiB used" if seen else "nvidia-smi gave no sample"
    if r.peak_gpu_memory_bytes is None:
        raise Outcome("GAP", f"the sandbox does not measure peak GPU memory yet (RunResult.peak_gpu_memory_bytes is "
                             f"None); {sampled}")
    need(r.peak_gpu_memory_bytes >= 2 * GiB, f"the host measured {r.peak_gpu_memory_bytes} bytes for a 2 GiB run")
    return f"host measured {r.peak_gpu_memory_bytes / GiB:.2f} GiB; {sampled}"


def step_torch_compile(gpu: str) -> str:
    r = run("import torch\n"
            "@torch.compile\n"
            "def f(x):\n    return torch.sin(x) + torch.cos(x)\n"
            "x = torch.randn(4096, device='cuda')\n"
            "print('SAME', torch.allclose(f(x), torch.sin(x) + torch.cos(x), atol=1e-5))\n", gpu, 240)
    need(r.exit_reason == "ok" and "SAME True" in r.output, f"torch.compile ended {r.exit_reason}: {tail(r)}")
    return f"Inductor compiled and ran on the GPU in {r.wall_seconds:.1f} s"


def step_nccl_one_rank(gpu: str) -> str:
    r = run("import os, torch, torch.distributed as dist\n"
            "os.environ.update(MASTER_ADDR='127.0.0.1', MASTER_PORT='29555')\n"
            "dist.init_process_group('nccl', rank=0, world_size=1)\n"
            "t = torch.ones(8, device='cuda'); dist.all_reduce(t); torch.cuda.synchronize()\n"
            "print('SUM', t.sum().item()); dist.destroy_process_group()\n", gpu, 120)
    need(r.exit_reason == "ok" and "SUM 8.0" in r.output, f"NCCL ended {r.exit_reason}: {tail(r)}")
    return f"one-rank all_reduce in {r.wall_seconds:.1f} s"


FUNCS: dict[str, Callable] = {"sandbox": step_sandbox, "cuda-own-gpu": step_cuda_own_gpu,
                              "warm-child": step_warm_child, "stuck-kernel": step_stuck_kernel,
                              "gpu-oom": step_gpu_oom, "peak-gpu-memory": step_peak_gpu_memory,
                              "torch-compile": step_torch_compile, "nccl-one-rank": step_nccl_one_rank}


def why_no_gpu(asked: str | None) -> str | None:
    gpus = detect_gpus()
    if asked is not None and asked not in gpus:
        return f"GPU {asked} has no /dev/nvidia{asked} (GPUs here: {', '.join(gpus) or 'none'})"
    if not gpus:
        return unbindable_gpus_note() or "no NVIDIA GPU here: no /dev/nvidiaN node"
    return mig_refusal(asked or gpus[0])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gpu", help="the GPU (device minor) to use; default the first")
    parser.add_argument("--budget", type=float, default=540, help="start no step after this many seconds")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    no_gpu = why_no_gpu(args.gpu)
    gpu = None if no_gpu else (args.gpu or detect_gpus()[0])
    started = time.monotonic()
    rows = []
    for name in STEPS:
        step_started = time.monotonic()
        if name != "sandbox" and no_gpu:
            status, detail = "SKIP", no_gpu
        elif step_started - started > args.budget:
            status, detail = "SKIP", f"the time budget of {args.budget:g} s was spent"
        else:
            try:
                status, detail = "PASS", FUNCS[name](gpu)
            except Outcome as outcome:
                status, detail = outcome.status, outcome.detail
            except Exception as exc:  # noqa: BLE001 - a step's crash is its FAIL, the next steps still run
                status, detail = "FAIL", f"{type(exc).__name__}: {exc}"
        seconds = round(time.monotonic() - step_started, 1)
        rows.append({"step": name, "status": status, "seconds": seconds, "detail": detail})
        print(f"{status:4} {name:16} {seconds:6.1f} s  {detail}", flush=True)
    total = round(time.monotonic() - started, 1)
    if args.json:
        print(json.dumps({"gpu": gpu, "total_seconds": total, "steps": rows}, indent=2))
    print(f"gpu smoke: {total} s; " + ", ".join(f"{s}: {sum(r['status'] == s for r in rows)}"
                                                 for s in ("PASS", "FAIL", "SKIP", "GAP")), flush=True)
    return 1 if any(r["status"] == "FAIL" for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
