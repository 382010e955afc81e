"""`troubleshoot serve [--http --port N --host H --workers N]`: run the Slack bot.

Socket Mode when SLACK_APP_TOKEN is set (no public URL needed), otherwise (or with
--http) an HTTP server (waitress, --workers request threads) taking Slack's requests at
/slack/events, with /health (liveness) and /ready (readiness). SLACK_API_URL points the
Web API client at another base URL.

SIGTERM (or Ctrl-C) stops gracefully: no new work starts (requests still coming are
recorded for the next process), the work in hand gets TROUBLESHOOT_STOP_SECONDS, the rest
goes back to the store, the Socket Mode connection is closed, and the process exits 0.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
from types import FrameType

from slack_sdk.errors import SlackApiError

from bot.errors import ConfigurationError, Unavailable
from bot.settings import get_settings
from bot.slack.app import EVENTS_PATH, build_app, build_context, make_http_server, start_socket_mode, start_warm_up
from bot.slack.services.context import SlackSettings
from bot.store import Store

log = logging.getLogger("bot.slack.serve")


def _log_knowledge_problems() -> None:
    """Knowledge problems are said at start, each naming its file and field: those
    files are left out of answers until fixed."""
    from bot.kb.loader import cached_knowledge, errors_only

    try:
        _kb, problems = cached_knowledge()
    except Exception as exc:  # noqa: BLE001 - the warm-up reports a knowledge base that cannot load
        log.error("cannot load the knowledge base: %s: %s", type(exc).__name__, exc)
        return
    errors = errors_only(problems)
    for problem in errors:
        log.warning("knowledge problem, left out of answers: %s", problem)
    if errors:
        log.warning("%d knowledge problem(s); `troubleshoot kb check` lists them", len(errors))


SWEEP_EVERY_SECONDS = 6 * 3600


def start_retention_sweeps(store: Store, every: float = SWEEP_EVERY_SECONDS) -> threading.Event:
    """open_store() swept what is past TROUBLESHOOT_RETENTION_DAYS at start; a bot that runs
    for weeks sweeps again every `every` seconds. Set the returned event to stop."""
    stop = threading.Event()

    def sweep_forever() -> None:
        while not stop.wait(every):
            try:
                gone = store.sweep_expired()
            except Exception as exc:  # noqa: BLE001 - the store is down now; the next sweep catches up
                log.warning("retention sweep failed: %s", type(exc).__name__)
                continue
            if any(gone.values()):
                log.info("retention sweep: %s", ", ".join(f"{n} {what}" for what, n in gone.items()))

    threading.Thread(target=sweep_forever, name="retention-sweep", daemon=True).start()
    return stop


def serve(args: argparse.Namespace) -> int:
    settings = SlackSettings.from_env()
    if not settings.bot_token:
        raise ConfigurationError("SLACK_BOT_TOKEN is not set (the bot token, xoxb-...; see bot/slack/README.md)")
    socket_mode = not args.http
    if socket_mode and not settings.app_token:
        raise ConfigurationError("set SLACK_APP_TOKEN (xapp-..., Socket Mode) or run with --http --port N")
    if not socket_mode and not settings.signing_secret:
        raise ConfigurationError("SLACK_SIGNING_SECRET is not set; HTTP mode needs it to check Slack's signatures")
    try:
        ctx = build_context(settings)
    except SlackApiError as exc:
        raise ConfigurationError(f"Slack refused the bot token (auth.test: {exc.response.get('error')})") from None
    except (OSError, TimeoutError) as exc:
        raise Unavailable(f"cannot reach the Slack API at {settings.api_url or 'slack.com'} ({type(exc).__name__}; "
                          f"TROUBLESHOOT_SLACK_TIMEOUT_SECONDS={get_settings().slack_timeout_seconds:g})") from None
    except Exception as exc:  # noqa: BLE001 - the store or the broker behind the context
        from bot.backoff import ServiceUnavailable

        if isinstance(exc, ServiceUnavailable) or type(exc).__module__.startswith(("sqlalchemy", "psycopg", "redis")):
            raise Unavailable(f"cannot start: a service is unreachable ({type(exc).__name__}: "
                              f"{str(exc).strip().splitlines()[0][:200] if str(exc).strip() else ''})") from None
        raise
    _log_knowledge_problems()
    app = build_app(ctx)
    start_warm_up(ctx)

    stop_requested = threading.Event()
    budget = get_settings().stop_seconds

    if socket_mode:
        _on_stop(stop_requested)
        handler = start_socket_mode(app, settings.app_token, ctx)
        start_retention_sweeps(ctx.store)
        handler.connect()
        print("troubleshoot: connected in Socket Mode", flush=True)
        stop_requested.wait()
        try:
            # First the clean WebSocket close: Slack sends what comes next to another connection
            # (every envelope received so far is acked already); then the work in hand.
            handler.close()
        except Exception as exc:  # noqa: BLE001
            log.warning("Socket Mode close: %s", type(exc).__name__)
        assert ctx.work_queue is not None
        ctx.work_queue.stop(budget)
        _exit_now()

    try:
        server = make_http_server(app, ctx, args.host, args.port, threads=getattr(args, "workers", None) or 8)
    except (OSError, ValueError) as exc:  # the port is taken, the address is not this machine's, the name
        reason = getattr(exc, "strerror", None) or str(exc)  # does not resolve (waitress: ValueError)
        raise ConfigurationError(f"cannot listen on {args.host}:{args.port} ({reason}); "
                                 "choose another --port or --host") from None
    start_retention_sweeps(ctx.store)
    host, port = str(server.server_address[0]), server.server_address[1]
    # Tests start the bot on port 0 and read the real port from this line.
    print(f"troubleshoot: listening on http://{host}:{port}{EVENTS_PATH}", flush=True)

    _on_stop(stop_requested)

    def drain() -> None:
        stop_requested.wait()
        assert ctx.work_queue is not None
        # Requests that still come while the work drains are recorded for the next process.
        ctx.work_queue.stop(budget)
        server.shutdown()

    threading.Thread(target=drain, name="drain", daemon=True).start()
    try:
        server.serve_forever()
    finally:
        server.server_close()
    _exit_now()
    return 0


def _on_stop(stop_requested: threading.Event) -> None:
    """SIGTERM (a deploy, an orchestrator) and Ctrl-C both start the graceful stop."""

    def on_stop(_signum: int, _frame: FrameType | None) -> None:
        stop_requested.set()

    signal.signal(signal.SIGTERM, on_stop)
    signal.signal(signal.SIGINT, on_stop)


def _exit_now() -> None:
    """Exit without waiting for the work threads: what they still held is back in the
    store (the interpreter would join the pools' threads, past the stop budget)."""
    sys.stdout.flush()
    sys.stderr.flush()
    logging.shutdown()
    os._exit(0)
