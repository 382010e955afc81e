"""Everything a listener needs, built once at start-up (see bot/slack/app.py)."""

from __future__ import annotations

import os
import concurrent.futures
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from slack_sdk import WebClient

from bot.jobs.base import Executor
from bot.settings import get_settings
from bot.store import Store

if TYPE_CHECKING:
    from bot.answer.document import AnswerDocument
    from bot.slack.work_queue import WorkQueue


@dataclass
class SlackSettings:
    bot_token: str
    signing_secret: str = ""
    app_token: str = ""
    api_url: str | None = None
    auto_channels: frozenset[str] = frozenset()
    max_file_bytes: int = 512 * 1024
    answer_bots: bool = False               # answer other bots' messages too (never our own)
    verify_threads: int = 2                 # verifications running at once in this process

    @classmethod
    def from_env(cls) -> "SlackSettings":
        """From bot/settings.py (a malformed value raises SettingsError naming it)."""
        s = get_settings()
        return cls(
            bot_token=s.slack_bot_token,
            signing_secret=s.slack_signing_secret,
            app_token=s.slack_app_token,
            api_url=s.slack_api_url or None,
            auto_channels=s.auto_channels,
            max_file_bytes=s.max_file_bytes,
            answer_bots=s.answer_bots,
            verify_threads=s.verify_threads,
        )


@dataclass
class BotContext:
    settings: SlackSettings
    client: WebClient
    store: Store
    answer_fn: Callable[..., AnswerDocument]  # bot.answer.answer(text, lang=None, top=3)
    executor: Executor                      # bot.jobs' executor (services.verification.default_executor)
    bot_user_id: str | None = None
    bot_id: str | None = None
    team_id: str | None = None
    ready: bool = False                     # the answer index is loaded (see app.warm_up)
    work_pool: concurrent.futures.Executor | None = None       # bolt's listeners and lazy functions
    verify_pool: concurrent.futures.Executor | None = None     # verification runs, apart so they never hold up answers
    work_queue: WorkQueue | None = None     # the owed work of acknowledged requests (bot/slack/work_queue.py)
    # Retrieval is CPU-bound: more searches at once than cores only slows every one of them
    # (and the acks) down, while the work threads may wait on Slack as long as they like.
    answer_slots: threading.BoundedSemaphore = field(
        default_factory=lambda: threading.BoundedSemaphore(max(1, os.cpu_count() or 1)))
