"""The work the bot owes for each acknowledged Slack request, kept in the store (issue 29).

Before Slack gets its ack, the request (its body as sent) is recorded as owed work
(bot/store/owed.py), held by this process under a lease. The ack itself runs bolt's ack
function only (`ack_only`); the work (bolt's lazy listeners) runs after, on the work pool,
as a replay of the recorded request through bolt (`mode="socket_mode"`: the signature was
checked when the request came, and a replay minutes later must not fail its timestamp
check). So what a crash, a deploy or a failed attempt leaves behind is still in the store:

- this process renews the leases of what it holds; a process that dies stops renewing,
  and when the lease runs out any process of the bot (a restart, another replica) takes
  the row and replays it;
- a replay is the same work (store.owed.current_owner): the dedupe keys its first attempt
  claimed are its own, so it goes on instead of taking itself for a duplicate; an event
  whose answer is already posted (in the store, or found in the thread by its reference)
  is not answered again;
- a store that stops answering is a transient failure: the row goes back with a back-off
  and is tried again (TROUBLESHOOT_WORK_ATTEMPTS in all); the last attempt that fails gets
  the apology, never silence;
- `stop(budget)` (SIGTERM): nothing new starts, the work in hand gets `budget` seconds,
  and what is left is handed back to the store for the next process.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import secrets
import socket
import threading
import time
import urllib.parse
from concurrent.futures import Executor, Future
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Callable

from slack_bolt.kwargs_injection import build_required_kwargs
from slack_bolt.lazy_listener.internals import build_runnable_function
from slack_bolt.lazy_listener.runner import LazyListenerRunner
from slack_bolt.request import BoltRequest
from slack_bolt.util.utils import get_arg_names_of_callable
from sqlalchemy.exc import DBAPIError, DisconnectionError, TimeoutError as PoolTimeout

from bot.backoff import ServiceUnavailable
from bot.settings import get_settings
from bot.slack.blocks import apology_message
from bot.slack.services.slack_api import Where, post
from bot.slack.services.errors import log_failure
from bot.store.models import utcnow
from bot.store.owed import DONE, FAILED, current_owner, work_owner

if TYPE_CHECKING:
    from slack_bolt import App

    from bot.slack.services.context import BotContext
    from bot.store.models import OwedWork

log = logging.getLogger(__name__)


@dataclass
class _Replay:
    """The attempt the current thread is making of one owed row."""
    work_id: int
    last_attempt: bool
    errors: list[BaseException] = field(default_factory=list)


@dataclass
class Work:
    """One owed request, as this process works on it."""
    id: int
    kind: str
    content_type: str
    body: str
    attempts: int          # counting the one being made
    replay: bool           # taken from the store (not the process that acked it, or not at once)

    @classmethod
    def of(cls, row: OwedWork) -> "Work":
        return cls(row.id, row.kind, row.content_type, row.body, row.attempts, replay=True)


@dataclass
class _Pending:
    request: tuple[str, str, str]
    done: threading.Event = field(default_factory=threading.Event)
    work_id: int | None = None
    error: BaseException | None = None


class _Recorder:
    """Records requests in the store for the acks, several at a time: while one transaction
    commits, the requests that arrive wait for the next, which takes them all (a burst of 50
    acks is a few transactions, not 50 turns at the store's write lock)."""

    def __init__(self, queue: "WorkQueue"):
        self.queue = queue
        self._pending: list[_Pending] = []
        self._cond = threading.Condition()
        threading.Thread(target=self._loop, name="work-recorder", daemon=True).start()

    def record(self, request: tuple[str, str, str], timeout: float) -> int:
        pending = _Pending(request)
        with self._cond:
            self._pending.append(pending)
            self._cond.notify()
        if not pending.done.wait(timeout):
            raise TimeoutError("the store did not record the request in time")
        if pending.error is not None:
            raise pending.error
        assert pending.work_id is not None
        return pending.work_id

    def _loop(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: bool(self._pending))
                batch, self._pending = self._pending, []
            holder = None if self.queue.stopping else self.queue.holder
            try:
                ids = self.queue.ctx.store.record_works([p.request for p in batch], holder=holder,
                                                        lease_seconds=self.queue.lease_seconds)
            except Exception as exc:  # noqa: BLE001 - each ack says so (a 503: Slack retries)
                for p in batch:
                    p.error = exc
                    p.done.set()
                continue
            if holder is not None:
                with self.queue._lock:
                    for p, work_id in zip(batch, ids, strict=True):
                        self.queue._held[work_id] = None
                        self.queue._fresh[work_id] = Work(work_id, *p.request, attempts=1, replay=False)
            for p, work_id in zip(batch, ids, strict=True):
                p.work_id = work_id
                p.done.set()


ACK_FIRST_S = 0.5
_ACK_ONLY = object()
_mode: ContextVar[object | _Replay | None] = ContextVar("work_queue_mode", default=None)


@contextlib.contextmanager
def ack_only():
    """Within it, bolt runs the ack functions and starts no lazy listener: the owed work
    runs them (WorkQueue.start)."""
    token = _mode.set(_ACK_ONLY)
    try:
        yield
    finally:
        _mode.reset(token)


def retry_later(exc: BaseException) -> bool:
    """True when `exc` should send the owed work back for another attempt rather than end
    in an apology: a store (or other service) that stopped answering, on an attempt that
    is not the last. The listeners' apology wrapper asks this (listeners/_common.py)."""
    mode = _mode.get()
    return isinstance(mode, _Replay) and not mode.last_attempt and is_transient(exc)


_GONE = re.compile(r"connect|closed|terminat|time(?:d )?out|locked|network|reset|refused|unreachable|EOF|"
                   r"shutting down|in recovery", re.IGNORECASE)


def is_transient(exc: BaseException) -> bool:
    """A store (or service) that stopped answering, as opposed to one that answered "no"
    (a missing table, a constraint): only the first is worth another attempt."""
    if isinstance(exc, (DisconnectionError, PoolTimeout, ServiceUnavailable, ConnectionError)):
        return True
    if isinstance(exc, DBAPIError):
        return bool(exc.connection_invalidated) or bool(_GONE.search(str(exc.orig)))
    return False


class LazyRunner(LazyListenerRunner):
    """bolt's lazy listeners: on the pool for an ordinary request, not at all at ack time
    (`ack_only`), and in the calling thread during a replay, their failures collected for
    the replay to judge (bolt's own runner logs and drops them)."""

    def __init__(self, logger: logging.Logger, executor: Executor):
        self.logger = logger
        self.executor = executor

    def start(self, function: Callable[..., None], request: BoltRequest) -> None:
        mode = _mode.get()
        if mode is _ACK_ONLY:
            return
        if isinstance(mode, _Replay):
            try:
                function(**build_required_kwargs(logger=self.logger, request=request, response=None,
                                                 required_arg_names=get_arg_names_of_callable(function),
                                                 this_func=function))
            except Exception as exc:  # noqa: BLE001 - judged by the replay
                mode.errors.append(exc)
            return
        self.executor.submit(build_runnable_function(func=function, logger=self.logger, request=request))


def kind_of(body: str, content_type: str) -> str | None:
    """event, command or interaction for a request that owes work; None for the rest
    (url_verification, ssl_check, ...)."""
    try:
        if "json" in content_type:
            doc = json.loads(body)
            if not isinstance(doc, dict):
                return None
            if doc.get("type") == "event_callback":
                return "event"
            if doc.get("command"):
                return "command"  # Socket Mode delivers commands as JSON
            return "interaction" if doc.get("type") else None
        form = urllib.parse.parse_qs(body, keep_blank_values=True)
    except ValueError:
        return None
    if form.get("payload"):
        return "interaction"
    if form.get("command"):
        return "command"
    return None


class WorkQueue:
    def __init__(self, ctx: BotContext, app: App, pool: Executor, *, lease_seconds: float | None = None,
                 attempts: int | None = None):
        cfg = get_settings()
        self.ctx, self.app, self.pool = ctx, app, pool
        self.lease_seconds = lease_seconds or cfg.work_lease_seconds
        self.attempts = attempts or cfg.work_attempts
        # who holds a lease: this process, told apart from its restarts and other replicas
        self.holder = f"{socket.gethostname()[:40]}:{os.getpid()}:{secrets.token_hex(4)}"
        self._lock = threading.Lock()
        self._held: dict[int, Future | None] = {}      # work id -> its run on the pool (None: not started)
        self._fresh: dict[int, Work] = {}              # recorded here, held since: no need to take it again
        self._unfinished: dict[int, tuple[str, str | None]] = {}  # finishes the store did not take yet
        self._stopping = threading.Event()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._recorder = _Recorder(self)
        self._acking = 0
        self._acks_done = threading.Condition()

    # -- taking requests ------------------------------------------------------------------
    @property
    def stopping(self) -> bool:
        return self._stopping.is_set()

    def accept(self, body: str, content_type: str, kind: str) -> int:
        """Record a request as owed, before it is acknowledged (raises when the store cannot
        take it: then it must not be acknowledged). While stopping, it is recorded for the
        next process and not held."""
        return self._recorder.record((kind, content_type, body), timeout=self.lease_seconds)

    @contextlib.contextmanager
    def acking(self):
        """Around an HTTP request being acknowledged: new work waits for the acks in
        progress (ACK_FIRST_S at most). Under a burst the acks and the answers share the GIL;
        an answer started a little later costs nothing, an ack near Slack's 3 s costs a retry."""
        with self._acks_done:
            self._acking += 1
        try:
            yield
        finally:
            with self._acks_done:
                self._acking -= 1
                if not self._acking:
                    self._acks_done.notify_all()

    def start(self, work_id: int) -> None:
        """Run recorded work on the pool (after its ack has gone out)."""
        with self._lock:
            if work_id not in self._held:
                return  # recorded while stopping: left for the next process
            try:
                self._held[work_id] = self.pool.submit(self._run, work_id)
            except RuntimeError:  # the pool is shut down: the lease runs out, another process takes it
                self._held.pop(work_id, None)

    # -- the background loop: leases, pick-ups, finishes the store missed --------------------
    def start_background(self) -> None:
        self._thread = threading.Thread(target=self._loop, name="work-queue", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        period = max(0.2, self.lease_seconds / 3)
        while not self._stopping.is_set():
            try:
                self._flush_unfinished()
                with self._lock:
                    held = list(self._held)
                self.ctx.store.renew_work(held, self.holder, self.lease_seconds)
                self._pick_up()
            except Exception as exc:  # noqa: BLE001 - the store is down now; the next round tries again
                log.warning("work queue round failed: %s", type(exc).__name__)
            self._wake.wait(period)
            self._wake.clear()

    def _pick_up(self) -> None:
        capacity = max(0, getattr(self.pool, "_max_workers", 16) * 2 - len(self._held))
        if not capacity or self._stopping.is_set():
            return
        for work_id in self.ctx.store.due_work(capacity):
            with self._lock:
                if work_id in self._held or self._stopping.is_set():
                    continue
                self._held[work_id] = None
            log.info("picking up owed work W%s", work_id)
            self.start(work_id)

    # -- one attempt ------------------------------------------------------------------------
    def _run(self, work_id: int) -> None:
        with self._acks_done:
            self._acks_done.wait_for(lambda: not self._acking, ACK_FIRST_S)
        with self._lock:
            work = self._fresh.pop(work_id, None)
        try:
            if work is None:  # picked up from the store: take it (a write) and count the attempt
                row = self.ctx.store.take_work(work_id, self.holder, self.lease_seconds)
                work = Work.of(row) if row is not None else None
        except Exception as exc:  # noqa: BLE001 - the store is down: the lease runs out, then it is retried
            log.warning("could not take owed work W%s: %s", work_id, type(exc).__name__)
        try:
            if work is not None:
                self._attempt(work)
        finally:
            self._forget(work_id)

    def _attempt(self, row: Work) -> None:
        try:
            if row.replay and row.kind == "event" and self._already_answered(row):
                log.info("owed work W%s was answered before its process stopped", row.id)
                self._finish(row.id, DONE)
                return
        except Exception as exc:  # noqa: BLE001 - the store is down: try again later
            self._again(row, f"{type(exc).__name__}", 1.0)
            return
        replay = _Replay(row.id, last_attempt=row.attempts >= self.attempts)
        mode_token, owner_token = _mode.set(replay), current_owner.set(work_owner(row.id))
        try:
            # The ack function runs again (they are all free of side effects; its answer goes
            # nowhere): bolt then stops at the first listener that matches, as on the first delivery.
            request = BoltRequest(body=row.body, mode="socket_mode", headers={"content-type": row.content_type})
            self.app.dispatch(request)
        except Exception as exc:  # noqa: BLE001 - judged below like a listener's
            replay.errors.append(exc)
        finally:
            current_owner.reset(owner_token)
            _mode.reset(mode_token)
        if not replay.errors:
            self._finish(row.id, DONE)
            return
        error = replay.errors[0]
        what = f"{type(error).__name__}: {str(error).strip().splitlines()[0][:150] if str(error).strip() else ''}"
        if is_transient(error) and not replay.last_attempt:
            self._again(row, what, min(30.0, 1.0 * 2 ** (row.attempts - 1)))
            return
        ref = log_failure(f"owed work W{row.id} ({row.kind}, attempt {row.attempts})", error)
        self._apologise(row, ref)
        self._finish(row.id, FAILED, what)

    def _again(self, row: Work, what: str, delay: float) -> None:
        log.warning("owed work W%s attempt %d failed (%s); again in %.0f s", row.id, row.attempts, what, delay)
        try:
            self.ctx.store.release_work([row.id], self.holder, retry_at=utcnow() + timedelta(seconds=delay),
                                        error=what, attempts=row.attempts)
        except Exception:  # noqa: BLE001 - the store is down: the lease runs out instead
            pass
        self._wake.set()

    def _finish(self, work_id: int, state: str, error: str | None = None) -> None:
        try:
            self.ctx.store.finish_work(work_id, self.holder, state, error)
        except Exception as exc:  # noqa: BLE001 - keep the lease and say it again when the store is back
            log.warning("owed work W%s finished but not recorded yet: %s", work_id, type(exc).__name__)
            with self._lock:
                self._unfinished[work_id] = (state, error)
                self._held[work_id] = None

    def _flush_unfinished(self) -> None:
        with self._lock:
            pending = dict(self._unfinished)
        for work_id, (state, error) in pending.items():
            self.ctx.store.finish_work(work_id, self.holder, state, error)
            with self._lock:
                self._unfinished.pop(work_id, None)
                self._held.pop(work_id, None)

    def _forget(self, work_id: int) -> None:
        with self._lock:
            if work_id not in self._unfinished:
                self._held.pop(work_id, None)

    # -- what a replay finds already done ----------------------------------------------------
    def _question_of(self, row: Work) -> tuple[str, str, str | None] | None:
        """(channel, question ts, thread ts) of an event's message."""
        try:
            event = (json.loads(row.body).get("event") or {})
        except ValueError:
            return None
        if event.get("subtype") == "message_changed":
            event = dict(event.get("message") or {}, channel=event.get("channel"))
        if not event.get("channel") or not event.get("ts"):
            return None
        return event["channel"], event["ts"], event.get("thread_ts")

    def _already_answered(self, row: Work) -> bool:
        """The answer to this event's message is posted: its row has Slack's ts, or the
        message whose reference it bears is in the thread (posted, then the process died
        before it stored the ts). A "Looking this up…" left behind is taken away."""
        question = self._question_of(row)
        if question is None:
            return False
        channel, ts, _thread = question
        rows = self.ctx.store.answers_to_message(channel, ts)
        if any(r.ts for r in rows):
            return True
        try:
            replies = self.ctx.client.conversations_replies(channel=channel, ts=ts, limit=200)["messages"]
        except Exception as exc:  # noqa: BLE001 - not readable: answer (at worst twice, never not)
            log.info("thread of W%s not readable: %s", row.id, type(exc).__name__)
            return False
        ours = [m for m in replies if m.get("ts") != ts and ((self.ctx.bot_user_id and m.get("user") ==
                                                             self.ctx.bot_user_id) or
                                                            (self.ctx.bot_id and m.get("bot_id") == self.ctx.bot_id))]
        for answer in rows:
            mark = re.compile(rf"\bA{answer.id}\b|\"answer-{answer.id}\"")
            for message in ours:
                if mark.search(json.dumps(message.get("blocks") or [])) and answer.id:
                    self.ctx.store.set_answer_posted(answer.id, channel, message["ts"])
                    return True
        for message in ours:
            if ":hourglass_flowing_sand:" in json.dumps(message.get("blocks") or []):
                with contextlib.suppress(Exception):
                    self.ctx.client.chat_delete(channel=channel, ts=message["ts"])
        return False

    def _apologise(self, row: Work, ref: str) -> None:
        """The apology for work that failed for good and was not apologised for by its
        listener: in the event's thread, or to a command's response_url."""
        where = None
        if row.kind == "event":
            question = self._question_of(row)
            if question is not None:
                channel, ts, thread = question
                where = Where(channel=channel, thread_ts=thread or ts)
        elif row.kind == "command":
            form = {k: v[0] for k, v in urllib.parse.parse_qs(row.body).items()} if "json" not in row.content_type \
                else json.loads(row.body)
            where = Where(channel=form.get("channel_id"), user=form.get("user_id"),
                          response_url=form.get("response_url"), private=True)
        if where is None:
            return
        try:
            post(self.ctx.client, where, [apology_message(ref, "en")])
        except Exception as exc:  # noqa: BLE001
            log_failure(f"apology for {ref}", exc)

    # -- a graceful stop --------------------------------------------------------------------
    def stop(self, budget: float) -> dict[str, float]:
        """Take no new work (nothing is picked up from the store; requests still arriving are
        recorded for the next process); work through what this process holds for `budget`
        seconds; hand the rest back to the store (released leases: the next process takes
        it at once)."""
        started = time.monotonic()
        deadline = started + budget
        self._stopping.set()
        self._wake.set()
        with self._lock:
            held = dict(self._held)
        for future in held.values():
            if future is not None:
                with contextlib.suppress(Exception):
                    future.result(timeout=max(0.0, deadline - time.monotonic()))
        with self._lock:
            left = dict(self._held)
        for future in left.values():  # what has not started by now will not
            if future is not None:
                future.cancel()
        with contextlib.suppress(Exception):
            self._flush_unfinished()
        handed_back = 0
        try:
            handed_back = self.ctx.store.release_work(list(left), self.holder)
        except Exception as exc:  # noqa: BLE001 - the store is down: the leases run out instead
            log.warning("could not hand %d owed work back: %s", len(left), type(exc).__name__)
        finished = sum(1 for work_id in held if work_id not in left)
        summary = {"finished": finished, "handed_back": handed_back, "seconds": round(time.monotonic() - started, 2)}
        log.info("stopped: %(finished)d finished, %(handed_back)d handed back, in %(seconds).1f s", summary)
        return summary

    @property
    def held(self) -> int:
        return len(self._held)
