"""App Home: the tab is drawn when a user opens it (app_home_opened)."""

from __future__ import annotations

import logging

from slack_bolt import App

from bot.slack.listeners._common import ack_now
from bot.slack.services.context import BotContext
from bot.slack.services.errors import log_failure
from bot.slack.services.home import home_view

log = logging.getLogger(__name__)


def on_home(ctx: BotContext, body: dict, event: dict) -> None:
    if event.get("tab") not in (None, "home") or not event.get("user"):
        return
    user = event["user"]
    try:
        ctx.client.views_publish(user_id=user, view=home_view(ctx, body.get("team_id"), user))
    except Exception as exc:  # noqa: BLE001 - nobody to apologise to: the tab stays as it was
        log_failure("app home", exc)


def register(app: App, ctx: BotContext) -> None:
    app.event("app_home_opened")(ack=ack_now, lazy=[lambda body, event: on_home(ctx, body, event)])
