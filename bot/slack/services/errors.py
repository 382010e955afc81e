"""Failures become a short apology with a reference id; the id links it to the log."""

from __future__ import annotations

import logging
import secrets

log = logging.getLogger("bot.slack.failure")


def new_ref() -> str:
    return "E" + secrets.token_hex(4)


def log_failure(what: str, exc: BaseException) -> str:
    ref = new_ref()
    log.error("ref=%s %s failed: %s: %s", ref, what, type(exc).__name__, exc, exc_info=exc)
    return ref
