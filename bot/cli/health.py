"""Health check of a worker container: `python -m bot.cli.health` exits 0 when a
worker on this host announced itself in Redis within the last half minute (it
refreshes that every 10 s while its Celery consumer runs), 1 otherwise."""

from __future__ import annotations

import socket
import sys

from bot.jobs.settings import ConfigError, JobSettings, redact_url


def main() -> int:
    try:
        settings = JobSettings.from_env()
    except ConfigError as exc:
        print(f"unhealthy: {exc}", file=sys.stderr)
        return 1
    if not settings.redis_url:
        print("unhealthy: REDIS_URL is not set", file=sys.stderr)
        return 1
    from bot.jobs.state import JobState, client_for  # lazy: Redis loads only once the settings are valid

    host = socket.gethostname()
    try:
        workers = JobState(client_for(settings.redis_url), settings.result_expires).workers()
    except Exception as exc:  # noqa: BLE001 - any failure is "unhealthy", with the reason
        print(f"unhealthy: cannot read {redact_url(settings.redis_url)} ({type(exc).__name__}: {exc})",
              file=sys.stderr)
        return 1
    mine = [w for w in workers if w.get("hostname") == host]
    if not mine:
        print(f"unhealthy: no worker on {host} is announced in {redact_url(settings.redis_url)}", file=sys.stderr)
        return 1
    print(f"healthy: {', '.join(w['name'] for w in mine)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
