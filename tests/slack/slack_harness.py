"""Drive the bot as Slack does: signed HTTP requests to a bot served on a real socket.

Slack signs each request: `v0=` + hex HMAC-SHA256 of `v0:<timestamp>:<raw body>` with
the app's signing secret, in `X-Slack-Signature`, with `X-Slack-Request-Timestamp`.
Events arrive as JSON; slash commands and interactivity payloads as form bodies.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SIGNING_SECRET = "8f742231b10e8888abcd99yyyzzz85a5"

_event_counter = itertools.count(1)


def sign(body: bytes, secret: str = SIGNING_SECRET, timestamp: int | None = None) -> dict[str, str]:
    timestamp = int(time.time()) if timestamp is None else timestamp
    base = b"v0:" + str(timestamp).encode() + b":" + body
    digest = hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()
    return {"X-Slack-Request-Timestamp": str(timestamp), "X-Slack-Signature": f"v0={digest}"}


@dataclass
class Reply:
    status: int
    body: bytes
    seconds: float

    def json(self):
        return json.loads(self.body.decode("utf-8"))


def http_post(url: str, body: bytes, headers: dict[str, str], timeout: float = 30.0) -> Reply:
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    start = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=timeout) as resp:
            return Reply(resp.status, resp.read(), time.perf_counter() - start)
    except urllib.error.HTTPError as exc:
        return Reply(exc.code, exc.read(), time.perf_counter() - start)


def http_get(url: str, timeout: float = 10.0) -> Reply:
    start = time.perf_counter()
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:
            return Reply(resp.status, resp.read(), time.perf_counter() - start)
    except urllib.error.HTTPError as exc:
        return Reply(exc.code, exc.read(), time.perf_counter() - start)


def new_event_id() -> str:
    return f"Ev{next(_event_counter):04d}{uuid.uuid4().hex[:8].upper()}"


def event_body(event: dict, *, team_id: str = "T0001", event_id: str | None = None,
               bot_user_id: str = "UBOT01") -> dict:
    return {"token": "legacy-verification-token", "team_id": team_id, "api_app_id": "A0001", "event": event,
            "type": "event_callback", "event_id": event_id or new_event_id(), "event_time": int(time.time()),
            "authorizations": [{"enterprise_id": None, "team_id": team_id, "user_id": bot_user_id, "is_bot": True}],
            "is_ext_shared_channel": False}


class SlackSender:
    """Sends signed requests to the bot at `base_url` (http://host:port)."""

    def __init__(self, base_url: str, secret: str = SIGNING_SECRET):
        self.base_url, self.secret = base_url, secret
        self.events_url = base_url + "/slack/events"

    def raw(self, body: bytes, content_type: str, *, timestamp: int | None = None, secret: str | None = None,
            extra_headers: dict | None = None) -> Reply:
        headers = {"Content-Type": content_type, **sign(body, secret or self.secret, timestamp)}
        headers.update(extra_headers or {})
        return http_post(self.events_url, body, headers)

    def event(self, event: dict, *, event_id: str | None = None, retry_num: int | None = None, **kw) -> Reply:
        body = json.dumps(event_body(event, event_id=event_id), ensure_ascii=False).encode("utf-8")
        extra = {"X-Slack-Retry-Num": str(retry_num), "X-Slack-Retry-Reason": "http_timeout"} if retry_num else None
        return self.raw(body, "application/json", extra_headers=extra, **kw)

    def command(self, text: str, *, user: str = "U0ASKER", channel: str = "C0GENERAL", response_url: str,
                command: str = "/troubleshoot", **kw) -> Reply:
        form = {"token": "legacy", "team_id": "T0001", "team_domain": "fake", "channel_id": channel,
                "channel_name": "general", "user_id": user, "user_name": "asker", "command": command,
                "text": text, "api_app_id": "A0001", "response_url": response_url,
                "trigger_id": f"{uuid.uuid4().int % 10**10}.trigger"}
        return self.raw(urllib.parse.urlencode(form).encode("utf-8"), "application/x-www-form-urlencoded", **kw)

    def interaction(self, payload: dict, **kw) -> Reply:
        body = urllib.parse.urlencode({"payload": json.dumps(payload, ensure_ascii=False)}).encode("utf-8")
        return self.raw(body, "application/x-www-form-urlencoded", **kw)


def button_payload(*, action_id: str, value: str, user: str = "U0ASKER", channel: str = "C0GENERAL",
                   message: dict | None = None, message_ts: str | None = None, ephemeral: bool = False,
                   response_url: str | None = None) -> dict:
    container = {"type": "message", "message_ts": message_ts or (message or {}).get("ts"), "channel_id": channel,
                 "is_ephemeral": ephemeral}
    payload = {"type": "block_actions", "user": {"id": user, "username": "asker", "team_id": "T0001"},
               "api_app_id": "A0001", "token": "legacy", "container": container,
               "trigger_id": f"{uuid.uuid4().int % 10**10}.trigger", "team": {"id": "T0001", "domain": "fake"},
               "channel": {"id": channel, "name": "general"}, "response_url": response_url,
               "actions": [{"action_id": action_id, "block_id": f"answer-{value}", "value": value, "type": "button",
                            "action_ts": f"{time.time():.6f}"}]}
    if message is not None and not ephemeral:
        payload["message"] = message
    return payload


def shortcut_payload(message: dict, *, channel: str = "C0GENERAL", user: str = "U0ASKER",
                     response_url: str | None = None) -> dict:
    return {"type": "message_action", "callback_id": "troubleshoot_this", "token": "legacy",
            "trigger_id": f"{uuid.uuid4().int % 10**10}.trigger", "team": {"id": "T0001", "domain": "fake"},
            "user": {"id": user, "name": "asker"}, "channel": {"id": channel, "name": "general"},
            "message_ts": message["ts"], "message": message, "response_url": response_url}


def view_submission_payload(*, answer_id: int, code: str, user: str = "U0ASKER") -> dict:
    return {"type": "view_submission", "team": {"id": "T0001"}, "user": {"id": user, "team_id": "T0001"},
            "api_app_id": "A0001", "token": "legacy", "trigger_id": "1.trigger",
            "view": {"id": "V1", "type": "modal", "callback_id": "verify_snippet_modal",
                     "private_metadata": str(answer_id),
                     "state": {"values": {"snippet": {"code": {"type": "plain_text_input", "value": code}}}}}}


def bot_env(fake, tmp_path: Path, *, database_url: str | None = None, index_dir: str | None = None,
            extra: dict | None = None) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "DATABASE_URL"))}
    env.update({
        "SLACK_BOT_TOKEN": fake.bot_token, "SLACK_SIGNING_SECRET": SIGNING_SECRET, "SLACK_API_URL": fake.api_url,
        "DATABASE_URL": database_url or f"sqlite:///{tmp_path / 'bot.db'}",
        "TROUBLESHOOT_VAR_DIR": str(tmp_path / "var"), "PYTHONPATH": str(REPO), "PYTHONUNBUFFERED": "1",
    })
    if index_dir:  # the answer_index fixture's index, and the knowledge it was built from
        env["TROUBLESHOOT_INDEX_DIR"] = index_dir
        env["TROUBLESHOOT_KNOWLEDGE_DIR"] = os.environ["TROUBLESHOOT_KNOWLEDGE_DIR"]
    env.update(extra or {})
    return env


class BotProcess:
    """`troubleshoot serve --http --port 0` in a subprocess; the port is read from its
    first line of output; stderr (the logs) goes to a file the tests can read."""

    def __init__(self, env: dict, log_path: Path, args: list[str] | None = None):
        self.log_path = log_path
        self._log = open(log_path, "wb")
        default = ["--http", "--port", "0", "--host", "127.0.0.1"]
        cmd = [sys.executable, "-m", "bot.cli", "serve"] + (default if args is None else args)
        self.proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=self._log)
        self.base_url = None

    def wait_listening(self, timeout: float = 120.0) -> str:
        lines: list[str] = []
        result: dict = {}

        def read():
            for raw in self.proc.stdout:
                line = raw.decode("utf-8", "replace").strip()
                lines.append(line)
                if "listening on http://" in line:
                    url = line.split("listening on ", 1)[1]
                    result["url"] = url.rsplit("/slack/events", 1)[0]
                    return

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        reader.join(timeout)
        if "url" not in result:
            self.stop()
            raise AssertionError(f"bot did not start: {lines} {self.logs()[-3000:]}")
        self.base_url = result["url"]
        return self.base_url

    def wait_ready(self, timeout: float = 180.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            reply = http_get(self.base_url + "/health")
            if reply.status == 200 and reply.json().get("ready"):
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.2)
        raise AssertionError(f"bot not ready: {self.logs()[-3000:]}")

    def logs(self) -> str:
        if not self._log.closed:
            self._log.flush()
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()
        return self.proc.returncode
