"""Build the bolt App and its context, and serve it over HTTP or Socket Mode."""

from __future__ import annotations

import io
import json
import logging
import urllib.parse
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Callable

from slack_bolt import App
from slack_bolt.adapter.wsgi import SlackRequestHandler
from sqlalchemy import text

from bot.settings import get_settings
from bot.pages.site import KnowledgePages, handles as is_page
from bot.slack import listeners
from bot.slack.services.context import BotContext, SlackSettings
from bot.slack.services.errors import log_failure
from bot.slack.services.slack_api import make_client
from bot.slack.services.verification import default_executor
from bot.slack.work_queue import LazyRunner, WorkQueue, ack_only, kind_of
from bot.store import Store, open_store

if TYPE_CHECKING:
    from bot.answer.document import AnswerDocument

log = logging.getLogger(__name__)

EVENTS_PATH = "/slack/events"
HEALTH_PATH = "/health"   # liveness: the process answers
READY_PATH = "/ready"     # readiness: the store answers, the index is loaded, not stopping
WORKER_THREADS = 16
HTTP_THREADS = 8


def default_answer_fn(text: str, lang: str | None = None, top: int = 3) -> AnswerDocument:
    from bot.answer import answer  # lazy: loads the index and embedding model on first use

    return answer(text, lang=lang, top=top)


def build_context(settings: SlackSettings, *, store: Store | None = None,
                  answer_fn: Callable[..., AnswerDocument] | None = None, executor=None) -> BotContext:
    client = make_client(settings.bot_token, settings.api_url)
    auth = client.auth_test()
    ctx = BotContext(settings=settings, client=client, store=store or open_store(),
                     answer_fn=answer_fn or default_answer_fn, executor=executor or default_executor(),
                     bot_user_id=auth.get("user_id"), bot_id=auth.get("bot_id"), team_id=auth.get("team_id"))
    log.info("connected to Slack as %s (team %s) at %s", ctx.bot_user_id, ctx.team_id, client.base_url)
    return ctx


# Under a burst, the acks (tiny) share the GIL with answers being built (CPU-bound); with
# the default 5 ms switch interval an ack waits through many such slices. 1 ms lets the
# request threads in sooner, at a small cost in throughput.
SWITCH_INTERVAL_S = 0.001


def build_app(ctx: BotContext) -> App:
    import sys

    sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_INTERVAL_S))
    ctx.work_pool = WorkPool(WORKER_THREADS)
    ctx.verify_pool = WorkPool(max(1, ctx.settings.verify_threads))
    app = App(
        client=ctx.client,
        signing_secret=ctx.settings.signing_secret or "socket-mode-needs-no-signing-secret",
        # Every listener's ack function is tiny and runs before the HTTP response; the work
        # is in lazy functions, which bolt starts on this pool. So an ack never waits for
        # a free worker, however busy the pool is.
        process_before_response=True,
        listener_executor=ctx.work_pool,
        # The request is answered without waiting for anything else than our ack.
        raise_error_for_unhandled_request=False,
    )
    # bolt's lazy listeners run as owed work (bot/slack/work_queue.py): recorded before the
    # ack, replayed after it. bolt takes no runner in its constructor, hence the attribute.
    app._listener_runner.lazy_listener_runner = LazyRunner(app.logger, ctx.work_pool)
    ctx.work_queue = WorkQueue(ctx, app, ctx.work_pool)
    ctx.work_queue.start_background()
    listeners.register(app, ctx)

    @app.error
    def on_error(error, body, logger):  # errors bolt caught outside our own handlers
        log_failure(f"bolt listener ({(body or {}).get('type')})", error)

    return app


def warm_up(ctx: BotContext) -> None:
    """Load the index and model before the first question, off the request path."""
    try:
        ctx.answer_fn("RuntimeError: warm-up", top=1)
        ctx.ready = True
        log.info("answer index loaded; ready")
    except Exception as exc:  # noqa: BLE001 - the bot still serves; questions get apologies
        ctx.ready = False
        log.error("warm-up failed: %s: %s", type(exc).__name__, exc)


class WorkPool(ThreadPoolExecutor):
    """The pool bolt runs listeners and lazy functions on, counting work in flight (shown
    by /health; tests and benchmarks wait for it to drain)."""

    def __init__(self, max_workers: int):
        super().__init__(max_workers=max_workers, thread_name_prefix="slack-work")
        self._in_flight = 0
        self._idle = threading.Condition()

    def submit(self, fn, /, *args, **kwargs):
        with self._idle:
            self._in_flight += 1
        future = super().submit(fn, *args, **kwargs)
        future.add_done_callback(self._done)
        return future

    def _done(self, _future) -> None:
        with self._idle:
            self._in_flight -= 1
            self._idle.notify_all()

    @property
    def in_flight(self) -> int:
        return self._in_flight

    def wait_idle(self, timeout: float | None = None) -> bool:
        with self._idle:
            return self._idle.wait_for(lambda: self._in_flight == 0, timeout)


def parse_body(body: bytes, content_type: str) -> tuple[dict | None, str | None]:
    """(the JSON document of an event body, or None for forms) and why Slack's parser would
    choke on the body (None when it would not): a JSON body that is not a JSON object, or
    an interactivity `payload=` that is not JSON."""
    try:
        text = body.decode("utf-8")
        if "json" in content_type:
            doc = json.loads(text)
            return (doc, None) if isinstance(doc, dict) else (None, "the JSON body is not an object")
        if "payload=" in text or text.startswith("payload"):
            form = urllib.parse.parse_qs(text, keep_blank_values=True)
            payload = (form.get("payload") or [""])[0]
            if not isinstance(json.loads(payload), dict):
                return None, "payload is not a JSON object"
    except (UnicodeDecodeError, ValueError) as exc:
        return None, f"{type(exc).__name__}"
    return None, None


def wsgi_app(app: App, ctx: BotContext):
    slack = SlackRequestHandler(app, path=EVENTS_PATH)
    pages = KnowledgePages(store=ctx.store)  # the knowledge pages at /kb (bot/pages/site.py)
    from slack_sdk.signature import SignatureVerifier

    verifier = SignatureVerifier(ctx.settings.signing_secret or "socket-mode-needs-no-signing-secret")

    def checked(environ, start_response):
        """Signed events are acknowledged at once (bolt runs them on the work pool); signed
        requests whose body Slack's parser would choke on get a 400 (no traceback in the
        log, nothing for Slack to retry); everything else goes to bolt as it came."""
        if environ.get("REQUEST_METHOD") != "POST" or environ.get("PATH_INFO") != EVENTS_PATH:
            return slack(environ, start_response)
        try:
            length = int(environ.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        body = environ["wsgi.input"].read(length) if length > 0 else b""
        environ["wsgi.input"] = io.BytesIO(body)
        headers = {"x-slack-signature": environ.get("HTTP_X_SLACK_SIGNATURE", ""),
                   "x-slack-request-timestamp": environ.get("HTTP_X_SLACK_REQUEST_TIMESTAMP", "")}

        def is_signed() -> bool:
            try:
                return verifier.is_valid_request(body, headers)
            except (TypeError, ValueError):  # a missing or non-numeric timestamp
                return False

        content_type = environ.get("CONTENT_TYPE") or ""
        doc, problem = parse_body(body, content_type)
        queue = ctx.work_queue
        kind = kind_of(body.decode("utf-8", "replace"), content_type) if queue is not None and not problem else None
        if kind is not None and queue is not None and is_signed():
            # Owed work: recorded in the store before Slack hears "200" (a crash after
            # this loses nothing), then run on the work pool. A store that cannot record
            # it gets Slack's retry instead of an ack.
            try:
                work_id = queue.accept(body.decode("utf-8"), content_type, kind)
            except Exception as exc:  # noqa: BLE001
                log.warning("request not recorded, so not acknowledged (Slack retries it): %s", type(exc).__name__)
                data = b'{"ok": false, "error": "store_unavailable"}'
                start_response("503 Service Unavailable", [("Content-Type", "application/json"),
                                                           ("Content-Length", str(len(data)))])
                return [data]
            if kind == "event":  # Slack wants only a 200: no need for bolt to ack it
                start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", "0")])
                queue.start(work_id)
                return [b""]
            with ack_only():  # commands and interactions: bolt's ack function answers, the work waits
                response = slack(environ, start_response)
            queue.start(work_id)
            return response
        if problem:
            signed = is_signed()
            status = "400 Bad Request" if signed else "401 Unauthorized"
            log.warning("malformed Slack request refused (%s): %s", status[:3], problem)
            data = (b'{"ok": false, "error": "malformed_body"}' if signed
                    else b'{"ok": false, "error": "invalid_request"}')
            start_response(status, [("Content-Type", "application/json"), ("Content-Length", str(len(data)))])
            return [data]
        return slack(environ, start_response)

    def application(environ, start_response):
        if is_page(environ.get("PATH_INFO") or ""):
            return pages(environ, start_response)
        if ctx.work_queue is not None and environ.get("PATH_INFO") == EVENTS_PATH:
            with ctx.work_queue.acking():
                return checked(environ, start_response)
        path = environ.get("PATH_INFO")
        if path in (HEALTH_PATH, READY_PATH) and environ.get("REQUEST_METHOD") in ("GET", "HEAD"):
            status, body = health(ctx, ready_check=path == READY_PATH)
            data = json.dumps(body).encode()
            start_response(status, [("Content-Type", "application/json"), ("Content-Length", str(len(data)))])
            return [data]
        return checked(environ, start_response)

    return application


def health(ctx: BotContext, *, ready_check: bool) -> tuple[str, dict]:
    """/health (liveness): 200 while the store answers (503 when it does not, as before).
    /ready (readiness): 200 only when the store answers, the answer index is loaded and the
    bot is not stopping; an orchestrator sends no traffic before that."""
    pools = [p for p in (ctx.work_pool, ctx.verify_pool) if p is not None]
    stopping = ctx.work_queue is not None and ctx.work_queue.stopping
    body: dict = {"ok": True, "ready": ctx.ready and not stopping, "store": "ok",
                  "in_flight": sum(getattr(p, "in_flight", 0) for p in pools),
                  "owed_held": ctx.work_queue.held if ctx.work_queue is not None else 0, "stopping": stopping}
    try:
        with ctx.store.engine.connect() as conn:
            conn.execute(text("SELECT 1"))
    except Exception as exc:  # noqa: BLE001
        body.update(ok=False, ready=False, store=type(exc).__name__)
        return "503 Service Unavailable", body
    if ready_check and not body["ready"]:
        return "503 Service Unavailable", body
    return "200 OK", body


class HttpServer:
    """The kept WSGI server (waitress: a pool of request threads, HTTP/1.1 keep-alive, a
    limit on request bodies and on idle connections) with the start/stop calls the CLI and
    the tests use: serve_forever(), shutdown() from another thread, server_close()."""

    def __init__(self, application, host: str, port: int, threads: int = HTTP_THREADS):
        from waitress.server import create_server

        cfg = get_settings()
        self._map: dict = {}
        self._server = create_server(application, map=self._map, host=host, port=port, threads=threads,
                                     max_request_body_size=cfg.http_max_body_bytes,
                                     channel_timeout=cfg.http_idle_seconds,
                                     # a burst of Slack events arrives at once: queue it, do not drop it
                                     backlog=1024, connection_limit=1000, clear_untrusted_proxy_headers=True,
                                     ident="troubleshoot")
        self.server_address = (self._server.effective_host, int(self._server.effective_port))
        self._stop = threading.Event()
        self._stopped = threading.Event()

    def serve_forever(self, poll_interval: float = 0.5) -> None:
        from waitress import wasyncore

        try:
            while not self._stop.is_set() and self._map:
                wasyncore.loop(timeout=poll_interval, map=self._map, use_poll=True, count=1)
        finally:
            self._stopped.set()

    def shutdown(self) -> None:
        self._stop.set()
        self._server.pull_trigger()
        self._stopped.wait(10)

    def server_close(self) -> None:
        from waitress import wasyncore

        wasyncore.close_all(self._map)
        self._server.task_dispatcher.shutdown(timeout=5)


def make_http_server(app: App, ctx: BotContext, host: str, port: int, threads: int = HTTP_THREADS) -> HttpServer:
    return HttpServer(wsgi_app(app, ctx), host, port, threads)


def start_socket_mode(app: App, app_token: str, ctx: BotContext | None = None):
    """bolt's Socket Mode handler; with `ctx`, a request that owes work is recorded in the
    store before its envelope is acknowledged (not acknowledged when the store cannot take
    it: Slack sends it again), and its work runs as owed work."""
    from slack_bolt.adapter.socket_mode import SocketModeHandler
    from slack_bolt.adapter.socket_mode.internals import run_bolt_app, send_response

    class DurableSocketModeHandler(SocketModeHandler):
        def handle(self, client, req) -> None:  # type: ignore[override]
            queue = ctx.work_queue if ctx is not None else None
            body = json.dumps(req.payload) if isinstance(req.payload, dict) else None
            kind = kind_of(body, "application/json") if queue is not None and body else None
            if queue is None or kind is None or body is None:
                return super().handle(client, req)
            start = time.time()
            try:
                work_id = queue.accept(body, "application/json", kind)
            except Exception as exc:  # noqa: BLE001
                log.warning("envelope not recorded, so not acknowledged: %s", type(exc).__name__)
                return None
            with ack_only():
                response = run_bolt_app(self.app, req)
            send_response(client, req, response, start)
            queue.start(work_id)
            return None

        def close(self) -> None:
            """A WebSocket close (1000, normal closure) before the socket goes: slack_sdk's own
            close only drops the TCP connection."""
            import struct

            from slack_sdk.socket_mode.builtin.frame_header import FrameHeader
            from slack_sdk.socket_mode.builtin.internals import _build_data_frame_for_sending

            session = getattr(self.client, "current_session", None)
            sock = getattr(session, "sock", None)
            if session is not None and sock is not None:
                try:
                    with session.sock_send_lock:
                        sock.send(_build_data_frame_for_sending(struct.pack("!H", 1000), FrameHeader.OPCODE_CLOSE))
                except OSError as exc:
                    log.info("no WebSocket close sent: %s", type(exc).__name__)
            super().close()

    return DurableSocketModeHandler(app, app_token)


def start_warm_up(ctx: BotContext) -> threading.Thread:
    thread = threading.Thread(target=warm_up, args=(ctx,), name="warm-up", daemon=True)
    thread.start()
    return thread
