"""`troubleshoot serve [--http --port N --host H]`: run the Slack bot.

Socket Mode when SLACK_APP_TOKEN is set (no public URL needed), otherwise (or with
--http) an HTTP server taking Slack's requests at /slack/events, with a health
check at /health. SLACK_API_URL points the Web API client at another base URL.
"""

from __future__ import annotations

import logging
import signal
import sys
import threading

from slack_sdk.errors import SlackApiError

from bot.settings import get_settings
from bot.slack.app import EVENTS_PATH, build_app, build_context, make_http_server, start_socket_mode, start_warm_up
from bot.slack.services.context import SlackSettings

log = logging.getLogger("bot.slack.serve")


def _fail(message: str, code: int = 2) -> int:
    print(f"troubleshoot serve: {message}", file=sys.stderr, flush=True)
    return code


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


def serve(args) -> int:
    settings = SlackSettings.from_env()
    if not settings.bot_token:
        return _fail("SLACK_BOT_TOKEN is not set (the bot token, xoxb-...; see bot/slack/README.md)")
    socket_mode = not args.http
    if socket_mode and not settings.app_token:
        return _fail("set SLACK_APP_TOKEN (xapp-..., Socket Mode) or run with --http --port N")
    if not socket_mode and not settings.signing_secret:
        return _fail("SLACK_SIGNING_SECRET is not set; HTTP mode needs it to check Slack's signatures")
    try:
        ctx = build_context(settings)
    except SlackApiError as exc:
        return _fail(f"Slack refused the bot token (auth.test: {exc.response.get('error')})")
    except (OSError, TimeoutError) as exc:
        return _fail(f"cannot reach the Slack API at {settings.api_url or 'slack.com'} ({type(exc).__name__}; "
                     f"TROUBLESHOOT_SLACK_TIMEOUT_SECONDS={get_settings().slack_timeout_seconds:g})", 3)
    except Exception as exc:  # noqa: BLE001 - the store or the broker behind the context
        from bot.backoff import ServiceUnavailable

        if isinstance(exc, ServiceUnavailable) or type(exc).__module__.startswith(("sqlalchemy", "psycopg", "redis")):
            return _fail(f"cannot start: a service is unreachable ({type(exc).__name__}: "
                         f"{str(exc).strip().splitlines()[0][:200] if str(exc).strip() else ''})", 3)
        raise
    _log_knowledge_problems()
    app = build_app(ctx)
    start_warm_up(ctx)

    if socket_mode:
        handler = start_socket_mode(app, settings.app_token)
        print("troubleshoot: connected in Socket Mode", flush=True)
        handler.start()
        return 0

    try:
        server = make_http_server(app, ctx, args.host, args.port)
    except OSError as exc:  # the port is taken, the address is not this machine's, the name does not resolve
        reason = exc.strerror or str(exc)
        return _fail(f"cannot listen on {args.host}:{args.port} ({reason}); choose another --port or --host", 2)
    host, port = server.server_address[:2]
    # Tests start the bot on port 0 and read the real port from this line.
    print(f"troubleshoot: listening on http://{host}:{port}{EVENTS_PATH}", flush=True)

    def stop(_signum, _frame):
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    try:
        server.serve_forever()
    finally:
        server.server_close()
    return 0
