"""`troubleshoot worker [--concurrency N]` and the `--queue` side of
`troubleshoot verify FILE.py --queue [--fixed F] [--json]`."""

from __future__ import annotations

import json
import logging
import os
import socket
import sys

from bot.jobs.gpus import detect_gpus
from bot.jobs.settings import QUEUE, ConfigError, JobSettings, redact_url
from bot.jobs.state import JobState, Repeater, client_for
from bot.jobs.tasks import configure_worker
from bot.kb.loader import current_knowledge
from bot.sandbox import sandbox_available
from bot.settings import get_settings

SECRET_PREFIXES = ("SLACK_",)
PRESENCE_TTL = 30.0  # a worker's presence key outlives three missed refreshes
PRESENCE_EVERY = 10.0

log = logging.getLogger("bot.jobs.worker")


def _fail(prog: str, message: str) -> int:
    print(f"{prog}: {message}", file=sys.stderr)
    return 2


# --- troubleshoot worker -----------------------------------------------------------------------

def _drop_secrets() -> list[str]:
    """A worker runs untrusted code: it must not hold the bot's Slack secrets. The
    sandbox builds its environment from an allow-list anyway; this is the second line."""
    dropped = sorted(name for name in os.environ if name.startswith(SECRET_PREFIXES))  # ENV-WRITE: removes them
    for name in dropped:
        del os.environ[name]
    return dropped


def _start_presence(settings: JobSettings, info: dict) -> None:
    """Announce this worker in Redis while it runs (tests, health checks and
    `verify --queue` read it)."""
    from celery import signals

    state = JobState(client_for(settings.redis_url), settings.result_expires)
    repeater = Repeater(lambda: state.announce_worker(info["name"], info, PRESENCE_TTL), PRESENCE_EVERY,
                        "worker-presence")

    @signals.worker_ready.connect(weak=False)
    def _ready(**_kwargs) -> None:
        repeater.start()
        log.info("troubleshoot worker %s: ready for jobs", info["name"])

    @signals.worker_shutting_down.connect(weak=False)
    def _down(**_kwargs) -> None:
        repeater.stop()
        try:
            state.withdraw_worker(info["name"])
        except Exception:  # noqa: BLE001 - Redis may be the reason we stop
            pass


def worker(args) -> int:
    prog = "troubleshoot worker"
    try:
        settings = JobSettings.from_env()
    except ConfigError as exc:
        return _fail(prog, str(exc))
    if not settings.redis_url:
        return _fail(prog, "REDIS_URL is not set: point it at the broker the bot uses, e.g. redis://redis-host:6379/0")
    concurrency = getattr(args, "concurrency", None)
    if concurrency is not None and concurrency < 1:
        return _fail(prog, f"--concurrency must be at least 1, got {concurrency}")
    dropped = _drop_secrets()

    ok, why = sandbox_available()
    if not ok:
        return _fail(prog, f"the sandbox cannot run on this machine, so this worker cannot take jobs: {why}")
    try:  # load the knowledge base once, before the pool forks
        entries = len(list(current_knowledge().entries))
    except Exception as exc:  # noqa: BLE001 - say what is wrong instead of a traceback
        return _fail(prog, f"cannot load the knowledge base ({type(exc).__name__}: {exc})")

    # lazy: importing celery_app builds its module-level app from the environment, checked above
    from bot.jobs.celery_app import make_app

    gpus = detect_gpus()
    concurrency = concurrency or settings.concurrency or max(1, len(gpus))
    configure_worker(gpus)
    name = settings.worker_name or f"gpu-{os.getpid()}@{socket.gethostname()}"
    info = {"name": name, "hostname": socket.gethostname(), "pid": os.getpid(), "gpus": gpus,
            "concurrency": concurrency, "queue": QUEUE}
    app = make_app(settings)
    _start_presence(settings, info)

    where = f"GPUs {', '.join(gpus)}" if gpus else "no GPU: jobs run on the CPU and their reports say so"
    print(f"{prog}: {name} on queue '{QUEUE}', {concurrency} job(s) at a time, {where}; "
          f"{entries} knowledge entries; broker {redact_url(settings.redis_url)}; {settings.describe_limits()}",
          flush=True)
    if dropped:
        print(f"{prog}: removed {', '.join(dropped)} from this worker's environment: a worker needs no Slack "
              "secrets (leave them out of its container)", file=sys.stderr, flush=True)
    if gpus and concurrency > len(gpus):
        print(f"{prog}: --concurrency {concurrency} is more than the {len(gpus)} GPU(s): some GPUs will run two "
              "jobs at once", file=sys.stderr, flush=True)
    loglevel = get_settings().log_level
    app.worker_main(["worker", "--queues", QUEUE, "--concurrency", str(concurrency), "--pool", "prefork",
                     "-O", "fair", "--hostname", name, "--loglevel", loglevel, "--without-mingle",
                     "--without-gossip"])
    return 0
