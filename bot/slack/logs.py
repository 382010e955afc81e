"""Logging for the bot process, with secrets scrubbed from every line.

slack_sdk already hides the Authorization header, but a token can still reach a
log through an exception message, a URL or a payload; the formatter removes
anything shaped like a Slack token and the exact values of the secret settings.
"""

from __future__ import annotations

import logging
import re
import sys

from bot.settings import SettingsError, get_settings

TOKEN_RE = re.compile(r"\bx(?:ox[abposre]|app)-[A-Za-z0-9-]+")
REDACTED = "[redacted]"


def _secrets() -> list[str]:
    try:
        s = get_settings()
    except SettingsError:
        return []  # the CLI reports the bad setting; logging must still work
    return [v for v in (s.slack_bot_token, s.slack_signing_secret, s.slack_app_token, s.id_salt) if len(v) >= 6]


def redact(text: str) -> str:
    text = TOKEN_RE.sub(REDACTED, text)
    for value in _secrets():
        text = text.replace(value, REDACTED)
    return text


class RedactingFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


def configure(level: str | None = None) -> None:
    if level is None:
        try:
            level = get_settings().log_level
        except SettingsError:
            level = "INFO"
    level = level.upper()
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(RedactingFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
