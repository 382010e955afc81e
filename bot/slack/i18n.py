"""The bot's words in Slack: the shared table (bot/text/ui.py, the same words the
terminal uses) and Slack's own status emoji."""

from __future__ import annotations

from bot.text.ui import STATUS_WORDS, WORDS, status_word, t
from bot.verify.report import Status

__all__ = ["STATUS_EMOJI", "STATUS_WORDS", "WORDS", "status_word", "t"]

STATUS_EMOJI = {Status.FIXED: ":white_check_mark:", Status.STILL_FAILS: ":x:", Status.NEW_ERROR: ":warning:",
                Status.NOT_APPLICABLE: ":heavy_minus_sign:", Status.TIMEOUT: ":hourglass:"}
