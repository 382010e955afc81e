"""Logging for every `troubleshoot` command, with secrets scrubbed from every line.

Library code logs and never prints; the CLI calls `configure` once. slack_sdk already
hides the Authorization header, but a token can still reach a log through an
exception message, a URL or a payload; the formatter removes anything shaped like a
Slack token (or another service's key) and the exact values of the secret settings.
`redact` also scrubs what the store keeps of people's text (bot/store, bot/evidence).
"""

from __future__ import annotations

import logging
import re
import sys

from bot.settings import SettingsError, get_settings

# Slack tokens; and, since stored text (gap excerpts, vote comments) is scrubbed too, the
# common shapes of other services' keys: GitHub, Hugging Face, OpenAI-style sk-, AWS key ids.
TOKEN_RE = re.compile(r"\bx(?:ox[abposre]|app)-[A-Za-z0-9-]+"
                      r"|\bgh[pousr]_[A-Za-z0-9]{30,}|\bgithub_pat_[A-Za-z0-9_]{30,}|\bhf_[A-Za-z0-9]{30,}"
                      r"|\bsk-[A-Za-z0-9_-]{20,}|\bAKIA[0-9A-Z]{16}\b")
REDACTED = "[redacted]"
HANDLER_NAME = "troubleshoot"


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


class _Stderr(logging.StreamHandler):
    """Writes to whatever sys.stderr is when a record comes (a test may swap it)."""

    def __init__(self):
        super().__init__(sys.stderr)

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, value) -> None:
        pass


def configure(level: str | None = None, *, service: bool = True) -> None:
    """One stderr handler on the root logger, at TROUBLESHOOT_LOG_LEVEL unless `level`.
    A service (`serve`, `worker`) logs every library's records with time and level; a
    one-shot command says its own notices as "troubleshoot: ..." and other libraries'
    records only from WARNING up."""
    if level is None:
        try:
            level = get_settings().log_level
        except SettingsError:
            level = "INFO"
    level = level.upper()
    handler = _Stderr()
    fmt = "%(asctime)s %(levelname)s %(name)s: %(message)s" if service else "troubleshoot: %(message)s"
    handler.setFormatter(RedactingFormatter(fmt))
    handler.set_name(HANDLER_NAME)
    root = logging.getLogger()
    for old in list(root.handlers):
        if old.get_name() == HANDLER_NAME:  # configured before (tests run the CLI in-process)
            root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level if service else max(logging.WARNING, logging.getLevelName(level)))
    logging.getLogger("bot").setLevel(level)
