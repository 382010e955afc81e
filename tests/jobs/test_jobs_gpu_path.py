"""The GPU path without a GPU: the canary's verdicts, infrastructure errors kept out of
the asker's report and the evidence, GpuError caught where the pool and the runner meet
it, MIG refused, and GPU indexes never taken for CUDA ordinals. Only the GPU is faked
(the canary's verdict, fake driver folders); the executor, the store and the warm pool
are the real ones."""

from __future__ import annotations

import threading
import time
from types import SimpleNamespace

import pytest

from bot.errors import ConfigurationError
from bot.jobs.gpus import detect_gpus, unbindable_gpus_note
from bot.jobs.local import LocalExecutor
from bot.jobs.settings import JobSettings
from bot.jobs.tasks import pool_cuda_visible
from bot.jobs.verification import on_healthy_gpu
from bot.sandbox import canary, gpu
from bot.sandbox.canary import GpuHealth
from bot.verify.report import VerifyReport

from .conftest import SEED

UUID1 = "GPU-11111111-2222-3333-4444-555555555555"
HEALTHY = 'CANARY {"cuda_available": true, "torch_cuda": "12.8", "devices": 1, "name": "NVIDIA H200", "sum": 523776.0}'
CODE = SEED.read_text()
ERROR = {"type": "RuntimeError", "message": "Trying to backward through the graph a second time"}


# --- the canary's verdict on what a run printed -------------------------------------------------

@pytest.mark.parametrize("exit_reason, output, ok, why", [
    ("ok", HEALTHY, True, ""),
    ("ok", 'CANARY {"cuda_available": false, "torch_cuda": null}', False, "CPU build"),
    ("ok", "UserWarning: CUDA initialization: The NVIDIA driver on your system is too old (found version 11040)\n"
           'CANARY {"cuda_available": false, "torch_cuda": "12.8"}', False, "driver on your system is too old"),
    ("ok", HEALTHY.replace('"devices": 1', '"devices": 2'), False, "exactly its own GPU"),
    ("ok", HEALTHY.replace("523776.0", "0.0"), False, "wrong result"),
    ("error", "RuntimeError: CUDA error: no CUDA-capable device is detected", False, "before CUDA answered"),
    ("timeout", "", False, "ended 'timeout'"),
])
def test_canary_verdicts(exit_reason, output, ok, why):
    healthy, reason, _name = canary.judge("0", exit_reason, output)
    assert healthy is ok and why in reason


def test_check_gpu_keeps_the_last_verdict_and_catches_gpu_errors():
    def refused(code, *, limits, gpu):
        raise gpu_mod_error()

    def gpu_mod_error():
        return gpu.GpuError("GPU 0 was asked for but /dev/nvidia-uvm does not exist (is the NVIDIA driver loaded?)")

    health = canary.check_gpu("0", run=refused)
    assert not health.ok and "nvidia-uvm does not exist" in health.why
    assert canary.last_health("0") == health
    good = canary.check_gpu("0", run=lambda code, **_: SimpleNamespace(exit_reason="ok", output=HEALTHY))
    assert good.ok and good.device_name == "NVIDIA H200" and canary.last_health("0") == good
    assert "torch.cuda.is_available()" in canary.CANARY_CODE and "device=\"cuda\"" in canary.CANARY_CODE


# --- infrastructure errors are never the asker's --------------------------------------------------

def fake_report(message: str | None = None) -> VerifyReport:
    error = {"type": "RuntimeError", "message": message, "entry_id": None} if message else None
    return VerifyReport.from_json({"reproduced": bool(message), "exit_reason": "error" if message else "ok",
                                   "output": message or "", "error": error, "environment": {}, "fixes": []})


def test_on_healthy_gpu_runs_nothing_on_a_failed_gpu():
    ran = []
    info: dict = {}
    report = on_healthy_gpu("0", info, lambda: ran.append(1) or fake_report(),
                            canary=lambda g: GpuHealth(g, False, "CUDA is not available in the sandbox"))
    assert ran == []
    assert report.infrastructure_error == "CUDA is not available in the sandbox"
    assert "not of the snippet" in report.summary and report.fixes == [] and report.reproduced is False
    assert info["gpu_canary"]["ok"] is False
    assert on_healthy_gpu(None, {}, lambda: fake_report("x"), canary=None).error.message == "x"  # CPU: no canary


def test_a_gpu_error_mid_job_and_a_confirmed_gpu_fault_become_infrastructure_errors():
    def raises():
        raise gpu.GpuError("GPU 0 was asked for but /dev/nvidia0 does not exist")

    healthy = [GpuHealth("0", True, "")]
    report = on_healthy_gpu("0", {}, raises, canary=lambda g: healthy[0])
    assert "does not exist" in report.infrastructure_error
    # The original run died of a GPU fault and the canary then fails too: the GPU, not the snippet.
    verdicts = iter([GpuHealth("0", True, ""), GpuHealth("0", False, "CUDA error: uncorrectable ECC error")])
    fault = fake_report("RuntimeError: CUDA error: uncorrectable ECC error encountered")
    report = on_healthy_gpu("0", {}, lambda: fault, canary=lambda g: next(verdicts))
    assert report.infrastructure_error and "after the run" in report.summary
    # Same message, but the GPU passes again afterwards: the report stands as the run's.
    verdicts = iter([GpuHealth("0", True, ""), GpuHealth("0", True, "")])
    assert on_healthy_gpu("0", {}, lambda: fault, canary=lambda g: next(verdicts)) is fault
    # An ordinary error never triggers the second check.
    once = iter([GpuHealth("0", True, "")])
    assert on_healthy_gpu("0", {}, lambda: fake_report("ValueError: bad shape"), canary=lambda g: next(once))


def test_the_local_executor_keeps_a_failed_gpus_job_out_of_the_evidence(tmp_path):
    from sqlalchemy import select

    from bot.evidence.record import Recording
    from bot.store import open_store
    from bot.store.models import Verification

    def runner(code, **_options):  # the original fails; every patched version runs
        failing = code == CODE
        return SimpleNamespace(exit_reason="error" if failing else "ok", error=ERROR if failing else None,
                               output="", environment={"torch": "2.13.0"}, wall_seconds=1.0)

    store = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    verdict = {"ok": False}
    executor = LocalExecutor(JobSettings.from_env({}), gpus=["0"], runner=runner, warm_pool=False,
                             canary=lambda g: GpuHealth(g, verdict["ok"], "" if verdict["ok"] else "no CUDA device"))
    recording = Recording("slack", "asker-1", answer_id=None, store=store)
    report = executor.verify(CODE, record=recording, timeout=60)
    assert report.infrastructure_error == "no CUDA device" and report.job["executor"] == "local"
    assert recording.ids == [] and recording.failed == 0
    verdict["ok"] = True  # the GPU is back: the same job is verified and recorded
    report = executor.verify(CODE, record=recording, timeout=60)
    executor.shutdown()
    assert report.reproduced and report.error.entry_id == "pytorch/backward-twice" and not report.infrastructure_error
    assert report.environment["worker"]["gpu_canary"]["ok"] is True
    with store.session() as session:
        assert len(list(session.scalars(select(Verification)))) == 1
    assert recording.save(on_healthy_gpu("0", {}, lambda: report, canary=lambda g: GpuHealth(g, False, "x")),
                          CODE) is None


# --- the pool thread outlives a GPU error ---------------------------------------------------------

def test_the_warm_pools_thread_survives_gpu_errors():
    from bot.sandbox.warm import ZygotePool

    calls = []
    done = threading.Event()

    def start(_sandbox, **kw):
        calls.append(kw["gpu"])
        if len(calls) >= 2:
            done.set()
        raise gpu.GpuError(f"GPU {kw['gpu']} was asked for but /dev/nvidia-uvm does not exist")

    pool = ZygotePool(size=1, sandbox=SimpleNamespace(), start=start)
    try:
        pool.prime("0")
        deadline = time.monotonic() + 10
        while len(calls) < 1 and time.monotonic() < deadline:
            time.sleep(0.01)
        pool.prime("0")  # the thread that met the GpuError starts the next one too
        assert done.wait(10), calls
        assert pool._thread is not None and pool._thread.is_alive()
        assert pool.ready() == 0
    finally:
        pool.close()


# --- MIG, and indexes that are not CUDA ordinals ---------------------------------------------------

def fake_driver(root, minors_with_mig=()):
    dev = root / "dev"
    dev.mkdir()
    for name in ("nvidia0", "nvidia1", "nvidiactl", "nvidia-uvm"):
        (dev / name).write_text(name)
    gpus = root / "nvidia" / "gpus"
    for bus, minor, uuid in (("0000:01:00.0", 0, "GPU-00000000-0000-0000-0000-000000000000"),
                             ("0000:02:00.0", 1, UUID1)):
        (gpus / bus).mkdir(parents=True)
        (gpus / bus / "information").write_text(
            f"Model: \t\t NVIDIA A100\nGPU UUID: \t {uuid}\nDevice Minor: \t {minor}\n")
    for minor in minors_with_mig:
        for gi in ("gi1", "gi2"):
            (root / "nvidia" / "capabilities" / f"gpu{minor}" / "mig" / gi).mkdir(parents=True)
    return dev, gpus


def test_a_mig_gpu_is_refused_with_the_way_out(tmp_path, monkeypatch):
    dev, gpus = fake_driver(tmp_path, minors_with_mig=[1])
    caps = str(tmp_path / "nvidia" / "capabilities")
    assert gpu.mig_instances("1", caps) == ["gi1", "gi2"] and gpu.mig_instances("0", caps) == []
    assert gpu.plan("0", dev_dir=str(dev), driver_dir=str(gpus)).env["CUDA_VISIBLE_DEVICES"].startswith("GPU-0000")
    with pytest.raises(gpu.GpuError, match=r"GPU 1 is in MIG mode \(2 GPU instance") as refused:
        gpu.plan("1", dev_dir=str(dev), driver_dir=str(gpus))
    assert "nvidia-smi -i 1 -mig 0" in str(refused.value)
    # The worker refuses to start on it, with the same words.
    from bot.cli import worker as worker_cli

    monkeypatch.setattr(gpu, "mig_refusal", lambda index: gpu.mig_instances(index, caps) and
                        f"GPU {index} is in MIG mode")
    with pytest.raises(ConfigurationError, match="GPU 1 is in MIG mode"):
        worker_cli._refuse_mig(["0", "1"])
    worker_cli._refuse_mig(["0"])


def test_gpu_indexes_are_device_minors_never_cuda_ordinals(tmp_path):
    dev, gpus = fake_driver(tmp_path)
    assert detect_gpus(str(dev)) == ["0", "1"]
    # The pool process of GPU (minor) 1 sees that GPU by its UUID, never as CUDA device "1".
    assert pool_cuda_visible("1", str(gpus)) == UUID1
    assert pool_cuda_visible("5", str(gpus)) == "" and pool_cuda_visible(None, str(gpus)) == ""
    # nvidia-smi's indexes are PCI order: without /dev nodes they are named, never used.
    empty = tmp_path / "empty"
    empty.mkdir()
    listed = ["GPU 0: NVIDIA H200 (UUID: GPU-aaaa)", "GPU 1: NVIDIA H200 (UUID: GPU-bbbb)"]
    assert detect_gpus(str(empty)) == []
    note = unbindable_gpus_note(str(empty), listed)
    assert note and "2 GPU(s)" in note and "no nvidiaN node" in note and "on the CPU" in note
    assert unbindable_gpus_note(str(dev), listed) is None and unbindable_gpus_note(str(empty), []) is None
