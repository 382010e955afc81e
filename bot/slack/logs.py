"""Logging for the bot process, with secrets scrubbed from every line.

slack_sdk already hides the Authorization header, but a token can still reach a
log through an exception message, a URL or a payload; the formatter removes
anything shaped like a Slack token and the exact values of the secret settings.
"""

from __future__ import annotations

import logging
import os
import re
import sys

TOKEN_RE = re.compile(r"\bx(?:ox[abposre]|app)-[A-Za-z0-9-]+")
SECRET_SETTINGS = ("SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_APP_TOKEN", "TROUBLESHOOT_ID_SALT")
REDACTED = "[redacted]"


def redact(text: str) -> str:
    text = TOKEN_RE.sub(REDACTED, text)
    for name in SECRET_SETTINGS:
        value = os.environ.get(name)
        if value and len(value) >= 6:
            text = text.replace(value, REDACTED)
    return text


class RedactingFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


def configure(level: str | None = None) -> None:
    level = (level or os.environ.get("TROUBLESHOOT_LOG_LEVEL") or "INFO").upper()
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(RedactingFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
