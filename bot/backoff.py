"""Back-off for services that stopped answering (the database, the broker).

A call to a service that failed a moment ago fails at once with the first failure's
reason instead of waiting for another timeout: `ask` pays one connect timeout, not one
per use of the store, and the Slack bot keeps answering (without evidence) while the
database is away. The service is tried again after TROUBLESHOOT_SERVICE_BACKOFF_SECONDS.
"""

from __future__ import annotations

import threading
import time

from bot.errors import Unavailable
from bot.settings import get_settings


class ServiceUnavailable(Unavailable, ConnectionError):
    """A service failed recently and is not tried again yet; the message says why."""


_lock = threading.Lock()
_failures: dict[str, tuple[float, str]] = {}  # service key -> (monotonic time of the failure, reason)


def _window() -> float:
    return get_settings().service_backoff_seconds


def check(key: str, what: str) -> None:
    """Raise ServiceUnavailable while `key` is backing off."""
    with _lock:
        failed = _failures.get(key)
    if failed is None:
        return
    since = time.monotonic() - failed[0]
    window = _window()
    if since < window:
        raise ServiceUnavailable(f"{what} failed {since:.0f} s ago ({failed[1]}); not tried again for "
                                 f"{window - since:.0f} s (TROUBLESHOOT_SERVICE_BACKOFF_SECONDS)")


def failed(key: str, reason: str) -> None:
    with _lock:
        _failures[key] = (time.monotonic(), reason)


def succeeded(key: str) -> None:
    with _lock:
        _failures.pop(key, None)


def reset() -> None:
    """Forget every failure (tests)."""
    with _lock:
        _failures.clear()
