"""manifest.yml asks Slack for what the code listens to and calls."""

from __future__ import annotations

from pathlib import Path

import yaml

from bot.slack.listeners.commands import COMMAND
from bot.slack.listeners.shortcuts import CALLBACK_ID

MANIFEST = Path(__file__).resolve().parents[2] / "manifest.yml"


def test_manifest_matches_the_listeners():
    manifest = yaml.safe_load(MANIFEST.read_text(encoding="utf-8"))
    features, settings = manifest["features"], manifest["settings"]
    assert [c["command"] for c in features["slash_commands"]] == [COMMAND]
    assert [(s["type"], s["callback_id"]) for s in features["shortcuts"]] == [("message", CALLBACK_ID)]
    assert set(settings["event_subscriptions"]["bot_events"]) >= {"app_mention", "message.channels", "message.im"}
    assert settings["interactivity"]["is_enabled"] is True
    urls = [settings["event_subscriptions"]["request_url"], settings["interactivity"]["request_url"],
            features["slash_commands"][0]["url"]]
    assert all(url.endswith("/slack/events") for url in urls)
    # A scope for every kind of Web API call the bot makes.
    scopes = set(manifest["oauth_config"]["scopes"]["bot"])
    assert scopes >= {"app_mentions:read", "chat:write", "commands", "im:history", "channels:history",
                      "groups:history", "files:read", "files:write", "im:write"}


def test_the_manifest_covers_group_dms_and_the_new_surfaces():
    manifest = yaml.safe_load(MANIFEST.read_text(encoding="utf-8"))
    scopes = set(manifest["oauth_config"]["scopes"]["bot"])
    events = set(manifest["settings"]["event_subscriptions"]["bot_events"])
    assert {"mpim:history", "users:read", "channels:read", "groups:read"} <= scopes
    assert {"message.mpim", "app_home_opened"} <= events
    assert manifest["features"]["app_home"]["home_tab_enabled"] is True
