"""The bot's words in Slack: the shared table (bot/text/ui.py, the same words the
terminal uses) and Slack's own status emoji."""

from __future__ import annotations

from bot.text.ui import STATUS_WORDS, WORDS, status_word, t

__all__ = ["STATUS_EMOJI", "STATUS_WORDS", "WORDS", "status_word", "t"]

STATUS_EMOJI = {"fixed": ":white_check_mark:", "still_fails": ":x:", "new_error": ":warning:",
                "not_applicable": ":heavy_minus_sign:", "timeout": ":hourglass:"}
