"""`troubleshoot worker [--concurrency N]` and the `--queue` side of
`troubleshoot verify FILE.py --queue [--fixed F] [--json]`."""

from __future__ import annotations

import argparse
import logging
import os
import socket
import sys
from typing import Any

from bot.errors import ConfigurationError, Unavailable
from bot.jobs.settings import QUEUE, JobSettings, env_queue, redact_url
from bot.settings import get_settings

SECRET_PREFIXES = ("SLACK_",)
PRESENCE_TTL = 30.0  # a worker's presence key outlives three missed refreshes
PRESENCE_EVERY = 10.0

log = logging.getLogger("bot.jobs.worker")


def _broker_problem(url: str) -> str | None:
    """Why the broker cannot be used now (refused, no answer within the Redis timeout),
    or None: said before the ready banner, instead of Celery's 100 silent retries."""
    from bot.jobs.state import client_for

    client = None
    try:
        client = client_for(url)
        client.ping()
        return None
    except Exception as exc:  # noqa: BLE001 - redis' connection, timeout and auth errors alike
        return f"{type(exc).__name__}: {str(exc).strip()[:200]}"
    finally:
        if client is not None:
            try:
                client.close()
            except Exception:  # noqa: BLE001
                pass


# --- troubleshoot worker -----------------------------------------------------------------------

def _drop_secrets() -> list[str]:
    """A worker runs untrusted code: it must not hold the bot's Slack secrets. The
    sandbox builds its environment from an allow-list anyway; this is the second line."""
    dropped = sorted(name for name in os.environ if name.startswith(SECRET_PREFIXES))  # ENV-WRITE: removes them
    for name in dropped:
        del os.environ[name]
    return dropped


def _start_presence(settings: JobSettings, info: dict[str, Any]) -> None:
    """Announce this worker in Redis while it runs (tests, health checks and
    `verify --queue` read it)."""
    from celery import signals  # celery ships no type information (pyproject: ignore_missing_imports)

    from bot.jobs.state import JobState, Repeater, client_for

    assert settings.redis_url, "worker() checked it"
    state = JobState(client_for(settings.redis_url), settings.result_expires)
    repeater = Repeater(lambda: state.announce_worker(info["name"], info, PRESENCE_TTL), PRESENCE_EVERY,
                        "worker-presence")

    def _ready(**_kwargs: Any) -> None:
        repeater.start()
        log.info("troubleshoot worker %s: ready for jobs", info["name"])

    def _down(**_kwargs: Any) -> None:
        repeater.stop()
        try:
            state.withdraw_worker(info["name"])
        except Exception:  # noqa: BLE001 - Redis may be the reason we stop
            pass

    signals.worker_ready.connect(_ready, weak=False)
    signals.worker_shutting_down.connect(_down, weak=False)


def _refuse_mig(gpus: list[str]) -> None:
    """MIG is not supported yet: a worker on a GPU in MIG mode refuses to start, saying so."""
    from bot.sandbox.gpu import mig_refusal

    refusals = [why for why in map(mig_refusal, gpus) if why]
    if refusals:
        raise ConfigurationError("; ".join(refusals))


def _gpu_canaries(prog: str, gpus: list[str]) -> dict[str, Any]:
    """The canary on every GPU before the worker takes jobs (bot/sandbox/canary.py). A GPU
    that fails is named with the reason; its jobs run the canary again first and are
    reported as infrastructure errors while it fails."""
    from bot.sandbox.canary import check_gpu

    health = {}
    for gpu in gpus:
        health[gpu] = h = check_gpu(gpu)
        if h.ok:
            print(f"{prog}: GPU {gpu} ({h.device_name}) passed its canary in {h.seconds:g} s", flush=True)
        else:
            print(f"{prog}: GPU {gpu} FAILED its canary: {h.why}. Its jobs are answered as an infrastructure "
                  f"error, not run, until it passes again (checked before each job)", file=sys.stderr, flush=True)
    return health


def worker(args: argparse.Namespace) -> int:
    prog = "troubleshoot worker"
    settings = JobSettings.from_env()  # a malformed setting: ConfigError, a ConfigurationError
    if not settings.redis_url:
        raise ConfigurationError("REDIS_URL is not set: point it at the broker the bot uses, "
                                 "e.g. redis://redis-host:6379/0")
    concurrency = getattr(args, "concurrency", None)
    if concurrency is not None and concurrency < 1:
        raise ConfigurationError(f"--concurrency must be at least 1, got {concurrency}")
    problem = _broker_problem(settings.redis_url)
    if problem:
        raise Unavailable(f"cannot reach the broker at {redact_url(settings.redis_url)} ({problem}); start Redis or "
                          f"fix REDIS_URL (TROUBLESHOOT_REDIS_TIMEOUT_SECONDS="
                          f"{get_settings().redis_timeout_seconds:g})")
    dropped = _drop_secrets()

    from bot.sandbox import sandbox_available

    ok, why = sandbox_available()
    if not ok:
        raise Unavailable(f"the sandbox cannot run on this machine, so this worker cannot take jobs: {why}")
    try:  # load the knowledge base once, before the pool forks
        from bot.kb.loader import current_knowledge as knowledge

        entries = len(list(knowledge().entries))
    except Exception as exc:  # noqa: BLE001 - say what is wrong instead of a traceback
        raise ConfigurationError(f"cannot load the knowledge base ({type(exc).__name__}: {exc})") from None

    from bot.jobs.celery_app import make_app
    from bot.jobs.gpus import detect_gpus, unbindable_gpus_note
    from bot.jobs.tasks import configure_worker

    gpus = detect_gpus()
    unbindable = unbindable_gpus_note()
    if unbindable:
        print(f"{prog}: {unbindable}", file=sys.stderr, flush=True)
    _refuse_mig(gpus)
    health = _gpu_canaries(prog, gpus)
    concurrency = concurrency or settings.concurrency or max(1, len(gpus))
    from bot.envs import EnvStore

    envs_dir = getattr(args, "envs_dir", None)
    environments = EnvStore(envs_dir).list()  # advertised; a queue each
    queues = [QUEUE, *(env_queue(e.version) for e in environments)]
    configure_worker(gpus, envs_dir)
    name = settings.worker_name or f"gpu-{os.getpid()}@{socket.gethostname()}"
    info = {"name": name, "hostname": socket.gethostname(), "pid": os.getpid(), "gpus": gpus,
            "gpu_health": {gpu: h.brief() for gpu, h in health.items()},
            "concurrency": concurrency, "queue": QUEUE, "queues": queues,
            "environments": [{"version": e.version, "torch": e.torch, "cuda": e.cuda} for e in environments]}
    app = make_app(settings)
    _start_presence(settings, info)

    where = f"GPUs {', '.join(gpus)}" if gpus else "no GPU: jobs run on the CPU and their reports say so"
    held = f"torch environments {', '.join(e.version for e in environments)}" if environments else \
        "no torch environments (only the worker's own torch)"
    print(f"{prog}: {name} on queues {', '.join(queues)}, {concurrency} job(s) at a time, {where}; {held}; "
          f"{entries} knowledge entries; broker {redact_url(settings.redis_url)}; {settings.describe_limits()}",
          flush=True)
    if dropped:
        print(f"{prog}: removed {', '.join(dropped)} from this worker's environment: a worker needs no Slack "
              "secrets (leave them out of its container)", file=sys.stderr, flush=True)
    if gpus and concurrency > len(gpus):
        print(f"{prog}: --concurrency {concurrency} is more than the {len(gpus)} GPU(s): some GPUs will run two "
              "jobs at once", file=sys.stderr, flush=True)
    loglevel = get_settings().log_level
    app.worker_main(["worker", "--queues", ",".join(queues), "--concurrency", str(concurrency), "--pool", "prefork",
                     "-O", "fair", "--hostname", name, "--loglevel", loglevel, "--without-mingle",
                     "--without-gossip"])
    return 0
