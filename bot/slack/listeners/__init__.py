"""Bolt listeners. Each one acknowledges at once and hands the work to a lazy
function (bolt runs it on its thread pool after the HTTP response is sent), so
Slack gets its answer well within 3 seconds however long the work takes."""

from __future__ import annotations

from slack_bolt import App

from bot.slack.listeners import actions, commands, events, shortcuts, views
from bot.slack.services.context import BotContext


def register(app: App, ctx: BotContext) -> None:
    for module in (events, commands, shortcuts, actions, views):
        module.register(app, ctx)
