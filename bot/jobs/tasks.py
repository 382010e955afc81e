"""The verification task, run in a worker's pool process.

Each pool process owns one GPU (process slot k gets GPU k; see `worker_process_init`
below), so with one process per GPU there is one job per GPU at a time.

What keeps a job from running twice, or forever:
- a job that already has a final state (done, declared lost or given up by its
  submitter) is not started again when Redis hands its message out a second time
  (task_track_started stays off: Celery would overwrite that state with STARTED
  before the task could read it);
- a job is started at most MAX_STARTS times (counted in Redis): a snippet that kills
  its worker gets one retry, then the report says "worker lost";
- a lost pool process (SIGKILL, OOM kill) is retried once by Celery
  (retry_on_worker_lost, max_retries=1), then stored as a WorkerLostError failure.
"""

from __future__ import annotations

import logging
import os
import threading

from billiard.exceptions import WorkerLostError
from celery import signals, states
from celery.exceptions import Ignore, SoftTimeLimitExceeded

from bot.envs import EnvError, EnvStore
from bot.jobs.gpus import gpu_for_slot
from bot.jobs.reports import over_time_report
from bot.jobs.settings import MAX_STARTS, TASK_NAME, JobSettings, env_queue
from bot.jobs.state import JobState, Repeater, client_for
from bot.jobs.verification import on_healthy_gpu, worker_info
from bot.sandbox.gpu import gpu_uuid
from bot.sandbox.warm import ZygotePool, start_pool
from bot.text.lang import LANGUAGES
from bot.verify.service import run_verification

log = logging.getLogger("bot.jobs.worker")


class NoTaskResult(logging.Filter):
    """Celery logs every finished task with its return value ("Task ... succeeded in
    1.2s: {...}"): for a verification that is the report, with the asker's program
    output (their data, and a "Traceback" that log alerts would fire on). The line
    keeps its task name, id and run time; the result is left out."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, dict) and "return_value" in args:
            record.args = {**args, "return_value": "(report not logged)"}
        return True


# celery.app.trace is the logger of that line (it is a child of "celery", whose handlers
# Celery sets up; a logger's filters stay through that set-up).
logging.getLogger("celery.app.trace").addFilter(NoTaskResult())


class WorkerConfig:
    """Set by `troubleshoot worker` in the main process before the pool forks."""

    gpus: list[str] = []
    slot_gpu: str | None = None  # this pool process's GPU
    envs_dir: str | None = None  # where its torch environments are (None: the setting)
    active = False
    pool: ZygotePool | None = None  # this pool process's warm sandboxes, started ahead of its jobs


def configure_worker(gpus: list[str], envs_dir: str | None = None) -> None:
    WorkerConfig.gpus = list(gpus)
    WorkerConfig.envs_dir = envs_dir
    WorkerConfig.active = True


@signals.worker_process_init.connect
def _assign_gpu(**_kwargs) -> None:
    if not WorkerConfig.active:
        return
    from billiard.process import current_process

    slot = getattr(current_process(), "index", 0) or 0
    gpu = gpu_for_slot(WorkerConfig.gpus, slot)
    WorkerConfig.slot_gpu = gpu
    # The sandbox sets CUDA_VISIBLE_DEVICES for each run from the GPU it is given. The
    # pool process itself needs no CUDA; if anything in it does, it sees this slot's GPU
    # only, named by its UUID: `gpu` is a device-node number (/dev/nvidiaN), which is not
    # a CUDA ordinal (CUDA numbers devices fastest first, or by PCI bus).
    os.environ["CUDA_VISIBLE_DEVICES"] = pool_cuda_visible(gpu)
    WorkerConfig.pool = start_pool([gpu])


def pool_cuda_visible(gpu: str | None, driver_dir: str = "/proc/driver/nvidia/gpus") -> str:
    """CUDA_VISIBLE_DEVICES of a pool process whose slot has GPU (device minor) `gpu`: its
    UUID from the driver, or "" (no CUDA device) where the UUID is not known."""
    if gpu is None:
        return ""
    return gpu_uuid(gpu, driver_dir) or ""


_state_lock = threading.Lock()
_states: dict[str, JobState] = {}


def job_state(settings: JobSettings) -> JobState:
    with _state_lock:
        state = _states.get(settings.redis_url)
        if state is None:
            state = _states[settings.redis_url] = JobState(client_for(settings.redis_url), settings.result_expires)
        return state


def run_job(task, settings: JobSettings, code: str, fixed_code: str | None, lang: str = "en",
            torch: str | None = None) -> dict:
    job_id = task.request.id
    store = job_state(settings)
    meta = task.backend.get_task_meta(job_id, cache=False)
    if meta.get("status") in states.READY_STATES:
        log.warning("job %s already ended (%s): not running it again", job_id, meta.get("status"))
        raise Ignore()
    starts = store.count_start(job_id)
    if starts > MAX_STARTS:
        log.error("job %s was started %d times and its worker was lost each time: giving up", job_id, starts - 1)
        task.backend.mark_as_failure(job_id, WorkerLostError(
            f"the job was started {starts - 1} times and its worker was lost each time; it is not started again"))
        raise Ignore()

    gpu = WorkerConfig.slot_gpu
    info = worker_info(gpu, name=task.request.hostname, executor="celery", attempt=starts)
    environment = None
    if torch:
        try:  # routed here because this worker advertised it; it may have been removed since
            environment = EnvStore(WorkerConfig.envs_dir).require(torch)
        except EnvError as exc:
            raise RuntimeError(f"worker {task.request.hostname}: {exc}") from None
    lock = threading.Lock()

    def progress(stage: str, done: int, total: int, *, event: bool = True) -> None:
        with lock:  # verify reports from several threads; keep the events in order
            if event:
                store.push_event(job_id, stage, done, total)
            task.update_state(task_id=job_id, state="PROGRESS",
                              meta={"stage": stage, "done": done, "total": total, "worker": info})

    beat_every = max(0.5, settings.heartbeat_seconds / 4)
    with Repeater(lambda: store.beat(job_id, info, settings.heartbeat_seconds), beat_every, "job-heartbeat"):
        progress("starting", 0, 0, event=False)  # running from here: the submitter watches the heartbeat
        try:
            # The GPU's canary first: a faulty GPU gives an infrastructure report, not one about the snippet.
            report = on_healthy_gpu(gpu, info, lambda: run_verification(
                code, fixed_code=fixed_code, gpu=gpu, progress=progress, job_seconds=settings.job_seconds, info=info,
                lang=lang if lang in LANGUAGES else "en", environment=environment, pool=WorkerConfig.pool))
        except SoftTimeLimitExceeded:
            report = over_time_report(settings, info)
    report.job = {"id": job_id, "executor": "celery", "queue": env_queue(torch), "attempt": starts}
    return report.as_json()  # Celery's result backend holds JSON; the submitter reads it back (remote.py)


def register(app, settings: JobSettings) -> None:
    @app.task(name=TASK_NAME, bind=True, shared=False, acks_late=True, reject_on_worker_lost=False,
              retry_on_worker_lost=True, max_retries=MAX_STARTS - 1, default_retry_delay=0,
              soft_time_limit=settings.soft_time_limit, time_limit=settings.time_limit,
              resultrepr_maxsize=64)  # never logged anyway (NoTaskResult)
    def verify(self, code: str, fixed_code: str | None = None, lang: str = "en", torch: str | None = None) -> dict:
        return run_job(self, settings, code, fixed_code, lang, torch)

    verify.job_settings = settings


@signals.task_retry.connect
def _queued_again(sender=None, request=None, **_kwargs) -> None:
    """Celery queued a job again after its pool process was lost (in the main process):
    tell the submitter, in order with the job's other progress events."""
    settings = getattr(sender, "job_settings", None)
    if settings is None or request is None or getattr(sender, "name", None) != TASK_NAME:
        return
    try:
        job_state(settings).push_event(request.id, "queued", 0, 0, retry=True)
    except Exception:  # noqa: BLE001 - a lost progress line must not stop the retry
        log.warning("could not record the retry of job %s", request.id)
