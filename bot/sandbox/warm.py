"""Warm sandboxes for jobs: the runner one verification uses, and the pool a worker
keeps started ahead of its jobs.

    pool = ZygotePool(size=1)                      # a worker's, for its whole life
    with WarmRunner(preload=preload_list(code), pool=pool) as run:
        result = run(code, limits=limits, gpu=None)   # same call and result as run_snippet

A WarmRunner belongs to one job: its zygotes (one per torch environment and GPU) are
closed with it, and a zygote taken from the pool is never handed to another job. Where
no zygote can serve a run (it could not start, the snippet's imports are not safe to
preload, the run's limits need a sandbox of their own), the run gets a sandbox of its
own, as `run_snippet` does, and its notes say why.
"""

from __future__ import annotations

import logging
import queue
import threading
from typing import Callable

from bot.settings import get_settings

from .gpu import GpuError
from .limits import Limits
from .result import RunResult
from .runner import Sandbox, SandboxUnavailable, cancelled, default_sandbox, run_snippet
from .zygote import BASE_PRELOAD, START_SECONDS, WarmUnavailable, Zygote, preload_list

log = logging.getLogger(__name__)
Key = tuple[str | None, str | None]  # (gpu, site_packages)

__all__ = ["WarmRunner", "ZygotePool", "preload_list", "start_pool"]


class ZygotePool:
    """Zygotes started ahead of jobs, per (gpu, site_packages): `take` gives one to one
    job and starts its replacement in the background."""

    def __init__(self, size: int = 1, *, sandbox: Sandbox | None = None, limits: Limits | None = None,
                 start: Callable[..., Zygote] = Zygote):
        self.size = size
        self.limits = limits or Limits()
        self._sandbox = sandbox
        self._start = start
        self._ready: dict[Key, list[Zygote]] = {}
        self._starting: dict[Key, int] = {}
        self._lock = threading.Lock()
        self._closed = False
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._thread: threading.Thread | None = None

    def prime(self, gpu: str | None = None, site_packages: str | None = None) -> None:
        """Start zygotes for this key in the background until `size` are ready."""
        key = (gpu, site_packages)
        with self._lock:
            if self._closed:
                return
            missing = max(0, self.size - len(self._ready.get(key, [])) - self._starting.get(key, 0))
            self._starting[key] = self._starting.get(key, 0) + missing
            if missing and self._thread is None:
                # One long-lived thread starts them all: bwrap's --die-with-parent is tied
                # to the thread that started it, so a short-lived thread would take the
                # zygote with it when it ends.
                self._thread = threading.Thread(target=self._starter, name="zygote-pool", daemon=True)
                self._thread.start()
        for _ in range(missing):
            self._queue.put(key)

    def _starter(self) -> None:
        while True:
            key = self._queue.get()
            if key is None or self._closed:
                return
            self._fill(key)

    def _fill(self, key: Key) -> None:
        zygote = None
        try:
            zygote = self._start(self._sandbox or default_sandbox(), limits=self.limits, gpu=key[0],
                                 site_packages=key[1], preload=BASE_PRELOAD)
        except (WarmUnavailable, SandboxUnavailable, GpuError, OSError) as e:
            # GpuError too (a node missing, MIG): this thread starts every zygote of the
            # pool, and must outlive a GPU that cannot be given out now.
            if not cancelled():  # killed by Ctrl-C: nothing to warn about
                log.warning("a warm sandbox could not be started ahead: %s", e)
        with self._lock:
            self._starting[key] -= 1
            if zygote is not None and not self._closed:
                self._ready.setdefault(key, []).append(zygote)
                zygote = None
        if zygote is not None:
            zygote.close()

    def take(self, gpu: str | None, site_packages: str | None, limits: Limits) -> Zygote | None:
        """A started zygote for this key and these limits, now the caller's alone (None:
        none is ready); a replacement starts in the background."""
        key = (gpu, site_packages)
        with self._lock:
            ready = self._ready.get(key, [])
            found = next((z for z in ready if z.fits(limits) is None), None)
            if found is not None:
                ready.remove(found)
        self.prime(gpu, site_packages)
        return found

    def ready(self) -> int:
        with self._lock:
            return sum(len(v) for v in self._ready.values())

    def close(self) -> None:
        with self._lock:
            self._closed = True
            zygotes = [z for v in self._ready.values() for z in v]
            self._ready.clear()
        self._queue.put(None)
        for zygote in zygotes:
            zygote.close()
        if self._thread is not None:  # a start in progress ends, and its zygote is closed
            self._thread.join(timeout=START_SECONDS)


class WarmRunner:
    """`run_snippet` for the runs of one job, through warm sandboxes (see the module
    docstring). Thread-safe; runs that share a zygote go one at a time."""

    def __init__(self, *, preload: list[str] | None = None, pool: ZygotePool | None = None,
                 sandbox: Sandbox | None = None, cold: Callable[..., RunResult] = run_snippet):
        self.preload = list(preload or [])
        self.pool = pool
        self._sandbox = sandbox
        self._cold = cold
        self._zygotes: dict[Key, Zygote] = {}
        self._why_cold: dict[Key, str] = {}
        self._lock = threading.Lock()
        self.warm_runs = 0
        self.cold_runs = 0

    def __enter__(self) -> "WarmRunner":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        with self._lock:
            zygotes = list(self._zygotes.values())
            self._zygotes.clear()
        for zygote in zygotes:
            zygote.close()

    def why_cold(self) -> list[str]:
        """Why runs of this job did not use a warm sandbox (empty: every run did)."""
        with self._lock:
            return list(dict.fromkeys(self._why_cold.values()))

    def _zygote(self, key: Key, limits: Limits) -> tuple[Zygote | None, str | None]:
        with self._lock:
            if key in self._why_cold:
                return None, self._why_cold[key]
            zygote = self._zygotes.get(key)
            if zygote is None:
                try:
                    zygote = self.pool.take(*key, limits) if self.pool is not None else None
                    if zygote is None:
                        zygote = Zygote(self._sandbox or default_sandbox(), limits=limits, gpu=key[0],
                                        site_packages=key[1])
                    self._zygotes[key] = zygote
                    zygote.preload(self.preload)
                except (WarmUnavailable, SandboxUnavailable, GpuError, OSError) as e:
                    self._give_up(key, f"{e}")
                    return None, self._why_cold[key]
            return zygote, None

    def _give_up(self, key: Key, why: str) -> None:
        """Called with the lock held: later runs of this key get sandboxes of their own."""
        self._why_cold[key] = why
        zygote = self._zygotes.pop(key, None)
        if zygote is not None:
            zygote.close()
        if not cancelled():
            log.debug("running in one sandbox per run: %s", why)

    def __call__(self, code: str, *, limits: Limits | None = None, gpu: str | None = None,
                 files: dict[str, bytes] | None = None, site_packages: str | None = None) -> RunResult:
        limits = limits or Limits()
        key = (gpu, site_packages)
        zygote, why = self._zygote(key, limits)
        if zygote is not None:
            why = zygote.fits(limits)
            if why is None:
                try:
                    result = zygote.run(code, limits=limits, files=files)
                    with self._lock:
                        self.warm_runs += 1
                    return result
                except WarmUnavailable as e:
                    why = str(e)
                    with self._lock:
                        self._give_up(key, why)
        result = self._cold(code, limits=limits, gpu=gpu, files=files, site_packages=site_packages)
        with self._lock:
            self.cold_runs += 1
        result.notes.append(f"run in a sandbox of its own, not a warm one: {why}")
        return result


def start_pool(keys: list[str | None], site_packages: str | None = None) -> ZygotePool | None:
    """A worker's warm sandboxes (TROUBLESHOOT_WARM_POOL per GPU in `keys`), started in the
    background now so that a job's first run does not wait for `import torch`; None when
    warm sandboxes are off. A zygote the pool hands out serves that one job only."""
    settings = get_settings()
    if not settings.warm_sandbox or settings.warm_pool < 1:
        return None
    pool = ZygotePool(size=settings.warm_pool)
    for gpu in keys:
        pool.prime(gpu, site_packages)
    return pool
