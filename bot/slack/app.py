"""Build the bolt App and its context, and serve it over HTTP or Socket Mode."""

from __future__ import annotations

import io
import json
import logging
import urllib.parse
import socketserver
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Callable
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from slack_bolt import App
from slack_bolt.adapter.wsgi import SlackRequestHandler
from sqlalchemy import text

from bot.pages.site import KnowledgePages, handles as is_page
from bot.slack import listeners
from bot.slack.services.context import BotContext, SlackSettings
from bot.slack.services.errors import log_failure
from bot.slack.services.slack_api import make_client
from bot.slack.services.verification import default_executor
from bot.store import Store, open_store
from bot.text.jsonin import loads as json_loads

if TYPE_CHECKING:
    from bot.answer.document import AnswerDocument

log = logging.getLogger(__name__)

EVENTS_PATH = "/slack/events"
HEALTH_PATH = "/health"
WORKER_THREADS = 16


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


class ThreadingWSGIServer(socketserver.ThreadingMixIn, WSGIServer):
    daemon_threads = True
    allow_reuse_address = True
    # The stdlib's listen backlog is 5: a burst of Slack events overflows it and the
    # kernel drops connections (Slack sees timeouts and retries). Take a real burst.
    request_queue_size = 512


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the stdlib's signature
        log.debug("http %s", format % args)


def parse_body(body: bytes, content_type: str) -> tuple[dict | None, str | None]:
    """(the JSON document of an event body, or None for forms) and why Slack's parser would
    choke on the body (None when it would not): a JSON body that is not a JSON object, or
    an interactivity `payload=` that is not JSON."""
    try:
        text = body.decode("utf-8")
        if "json" in content_type:
            doc = json_loads(text)
            return (doc, None) if isinstance(doc, dict) else (None, "the JSON body is not an object")
        if "payload=" in text or text.startswith("payload"):
            form = urllib.parse.parse_qs(text, keep_blank_values=True)
            payload = (form.get("payload") or [""])[0]
            if not isinstance(json_loads(payload), dict):
                return None, "payload is not a JSON object"
    except (UnicodeDecodeError, ValueError) as exc:
        return None, f"{type(exc).__name__}"
    return None, None


def _discard_response(status, headers, exc_info=None):
    if not str(status).startswith("200"):
        log.warning("an acknowledged event was refused by bolt afterwards: %s", status)
    return lambda data: None


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

        doc, problem = parse_body(body, environ.get("CONTENT_TYPE") or "")
        if doc is not None and doc.get("type") == "event_callback" and ctx.work_pool is not None and is_signed():
            # A signed event: Slack wants only a 200. Answer it now and let bolt (which
            # checks the signature again) run the listeners on the work pool, so a burst of
            # events is acknowledged at the speed of a signature check.
            ctx.work_pool.submit(slack, dict(environ, **{"wsgi.input": io.BytesIO(body)}), _discard_response)
            start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", "0")])
            return [b""]
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
        if environ.get("PATH_INFO") == HEALTH_PATH and environ.get("REQUEST_METHOD") in ("GET", "HEAD"):
            try:
                with ctx.store.engine.connect() as conn:
                    conn.execute(text("SELECT 1"))
                pools = [p for p in (ctx.work_pool, ctx.verify_pool) if p is not None]
                status, body = "200 OK", {"ok": True, "ready": ctx.ready, "store": "ok",
                                          "in_flight": sum(p.in_flight for p in pools)}
            except Exception as exc:  # noqa: BLE001
                status, body = "503 Service Unavailable", {"ok": False, "store": type(exc).__name__}
            data = json.dumps(body).encode()
            start_response(status, [("Content-Type", "application/json"), ("Content-Length", str(len(data)))])
            return [data]
        return checked(environ, start_response)

    return application


def make_http_server(app: App, ctx: BotContext, host: str, port: int) -> ThreadingWSGIServer:
    return make_server(host, port, wsgi_app(app, ctx), server_class=ThreadingWSGIServer,
                       handler_class=_QuietHandler)


def start_socket_mode(app: App, app_token: str):
    from slack_bolt.adapter.socket_mode import SocketModeHandler

    return SocketModeHandler(app, app_token)


def start_warm_up(ctx: BotContext) -> threading.Thread:
    thread = threading.Thread(target=warm_up, args=(ctx,), name="warm-up", daemon=True)
    thread.start()
    return thread
