"""A local stand-in for Slack's servers, speaking their protocol over real HTTP.

It answers the Web API methods the bot calls (`/api/<method>`, JSON or form bodies,
`Authorization: Bearer` tokens), serves `url_private` file downloads (a sign-in
HTML page without the bot token, as Slack does), takes files.getUploadURLExternal
uploads, records what reaches `response_url`s, and runs a minimal Socket Mode
WebSocket endpoint. Every request is recorded with its headers and parsed body.

Like Slack, it refuses messages that break Block Kit limits (more than 50 blocks,
a section text over 3,000 characters, repeated action or block ids, ...) with
`ok: false, error: invalid_blocks`; it also records each violation, and requires
fallback `text` with every message. Faults can be injected per method: an HTTP 429
with Retry-After, a 5xx, or an `ok: false` error.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import socket
import struct
import threading
import time
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

LOGIN_PAGE = (b"<!DOCTYPE html><html><head><title>Slack</title></head>"
              b"<body><form action=\"/signin\">Sign in to your workspace</form></body></html>")
WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

MESSAGE_METHODS = {"chat.postMessage", "chat.update", "chat.postEphemeral"}


@dataclass
class Recorded:
    method: str          # the API method, or "download", "upload", "response_url"
    path: str
    headers: dict
    body: dict
    raw: bytes
    at: float = field(default_factory=time.monotonic)
    status: int = 200
    reply: dict | None = None


@dataclass
class Fault:
    status: int = 200
    error: str | None = None
    retry_after: int | None = None


def block_problems(blocks, text, *, where: str) -> list[str]:
    """Slack's limits for message blocks (https://docs.slack.dev/reference/block-kit/blocks)."""
    problems = []
    if not text or not str(text).strip():
        problems.append(f"{where}: no fallback text")
    if text and len(str(text)) > 40_000:
        problems.append(f"{where}: text over 40,000 characters")
    if blocks is None:
        return problems
    if not isinstance(blocks, list):
        return problems + [f"{where}: blocks is not a list"]
    if len(blocks) > 50:
        problems.append(f"{where}: {len(blocks)} blocks (at most 50)")
    block_ids, action_ids = set(), set()
    for i, block in enumerate(blocks):
        kind = block.get("type")
        bid = block.get("block_id")
        if bid:
            if bid in block_ids:
                problems.append(f"{where}: block {i}: repeated block_id {bid}")
            block_ids.add(bid)
        if kind == "section":
            txt = (block.get("text") or {}).get("text", "")
            if not txt and not block.get("fields"):
                problems.append(f"{where}: block {i}: section without text")
            if len(txt) > 3000:
                problems.append(f"{where}: block {i}: section text of {len(txt)} characters (at most 3000)")
        elif kind == "header":
            if len((block.get("text") or {}).get("text", "")) > 150:
                problems.append(f"{where}: block {i}: header over 150 characters")
        elif kind == "context":
            elements = block.get("elements") or []
            if not elements or len(elements) > 10:
                problems.append(f"{where}: block {i}: context with {len(elements)} elements (1 to 10)")
            for el in elements:
                if len(el.get("text", "")) > 3000:
                    problems.append(f"{where}: block {i}: context text over 3000 characters")
        elif kind == "actions":
            elements = block.get("elements") or []
            if not elements or len(elements) > 25:
                problems.append(f"{where}: block {i}: actions with {len(elements)} elements (1 to 25)")
            for el in elements:
                aid = el.get("action_id")
                if aid in action_ids:
                    problems.append(f"{where}: block {i}: repeated action_id {aid}")
                action_ids.add(aid)
                if el.get("type") == "button":
                    if len((el.get("text") or {}).get("text", "")) > 75:
                        problems.append(f"{where}: block {i}: button text over 75 characters")
                    if len(el.get("value") or "") > 2000:
                        problems.append(f"{where}: block {i}: button value over 2000 characters")
        elif kind not in ("divider", "rich_text", "image", "input", "file", "markdown"):
            problems.append(f"{where}: block {i}: unknown block type {kind!r}")
    return problems


class FakeSlack:
    def __init__(self, *, bot_token: str = "xoxb-1111-2222-fakebottoken", app_token: str = "xapp-1-A111-fakeapptoken",
                 team_id: str = "T0001", bot_user_id: str = "UBOT01", bot_id: str = "BBOT01",
                 host: str = "127.0.0.1"):
        # host: "0.0.0.0" where a bot in a container must reach it (docker/compose_smoke.py)
        self.bot_token, self.app_token = bot_token, app_token
        self.team_id, self.bot_user_id, self.bot_id = team_id, bot_user_id, bot_id
        self.requests: list[Recorded] = []
        self.violations: list[str] = []
        self.messages: dict[str, list[dict]] = {}
        self.files: dict[str, dict] = {}
        self._file_bodies: dict[str, bytes] = {}
        self._uploads: dict[str, bytes] = {}
        self._faults: dict[str, list[Fault]] = {}
        self._holds: dict[str, threading.Event] = {}
        self._lock = threading.RLock()
        self._changed = threading.Condition(self._lock)
        self._ts = itertools.count(1)
        self._ws: list["_WebSocket"] = []
        self.socket_acks: list[dict] = []
        self.admins: set[str] = set()                 # users.info says is_admin for these
        self.channel_creators: dict[str, str] = {}    # conversations.info's creator
        self.home_views: dict[str, dict] = {}         # views.publish, by user
        self.opened_views: list[dict] = []            # views.open
        self._server = ThreadingHTTPServer((host, 0), self._handler_class())
        self._server.daemon_threads = True
        # A short poll: stop() (shutdown) waits for the serving loop to look, once per test.
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="fake-slack", daemon=True)

    # -- life -------------------------------------------------------------------------
    def start(self) -> "FakeSlack":
        self._thread.start()
        return self

    def stop(self) -> None:
        for ws in list(self._ws):
            ws.close()
        self._server.shutdown()
        self._server.server_close()

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_url(self) -> str:
        return self.url + "/api/"

    # -- set-up from tests ------------------------------------------------------------
    def next_ts(self) -> str:
        return f"{1700000000 + next(self._ts)}.{next(self._ts):06d}"

    def add_message(self, channel: str, message: dict) -> dict:
        message = dict(message)
        message.setdefault("ts", self.next_ts())
        message.setdefault("type", "message")
        with self._lock:
            self.messages.setdefault(channel, []).append(message)
        return message

    def add_file(self, name: str, content: bytes, *, filetype: str = "text", mimetype: str = "text/plain",
                 mode: str = "hosted", login_page: bool = False, size: int | None = None,
                 redirect_to: str | None = None) -> dict:
        fid = "F" + uuid.uuid4().hex[:10].upper()
        url = f"{self.url}/files-pri/{self.team_id}-{fid}/{name}"
        info = {"id": fid, "name": name, "title": name, "filetype": filetype, "mimetype": mimetype, "mode": mode,
                "size": len(content) if size is None else size, "url_private": url,
                "url_private_download": url + "?download=1"}
        with self._lock:
            self.files[fid] = dict(info, _login_page=login_page, _redirect_to=redirect_to)
            self._file_bodies[fid] = content
        return info

    def fail(self, method: str, *, status: int = 200, error: str | None = None, retry_after: int | None = None,
             times: int = 1) -> None:
        with self._lock:
            self._faults.setdefault(method, []).extend(Fault(status, error, retry_after) for _ in range(times))

    def hold(self, method: str) -> threading.Event:
        """Calls of `method` wait (the caller sees a slow Slack) until the event is set."""
        event = threading.Event()
        with self._lock:
            self._holds[method] = event
        return event

    def response_url(self, name: str | None = None) -> str:
        return f"{self.url}/response/{name or uuid.uuid4().hex[:12]}"

    # -- reading what happened -----------------------------------------------------------
    def calls(self, method: str) -> list[Recorded]:
        with self._lock:
            return [r for r in self.requests if r.method == method]

    def bodies(self, method: str, ok_only: bool = True) -> list[dict]:
        return [r.body for r in self.calls(method) if not ok_only or (r.reply or {}).get("ok", r.status == 200)]

    def thread(self, channel: str, thread_ts: str) -> list[dict]:
        with self._lock:
            return [m for m in self.messages.get(channel, []) if m.get("thread_ts") == thread_ts or
                    m.get("ts") == thread_ts]

    def bot_messages(self, channel: str | None = None) -> list[dict]:
        with self._lock:
            chans = [channel] if channel else list(self.messages)
            return [m for c in chans for m in self.messages.get(c, []) if m.get("bot_id") == self.bot_id]

    def wait_for(self, predicate, timeout: float = 30.0, what: str = "condition"):
        """Wait until predicate() is truthy (checked whenever a request arrives)."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                value = predicate()
                if value:
                    return value
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"timed out after {timeout}s waiting for {what}; "
                                         f"requests: {[r.method for r in self.requests]}")
                self._changed.wait(min(left, 0.5))

    def quiet_for(self, seconds: float) -> None:
        """Let the bot finish any work in flight: return once no request arrived for `seconds`."""
        while True:
            with self._lock:
                last = self.requests[-1].at if self.requests else 0.0
            wait = last + seconds - time.monotonic()
            if wait <= 0:
                return
            time.sleep(wait)

    def uploaded(self, file_id: str) -> bytes | None:
        with self._lock:
            return self._uploads.get(file_id)

    # -- Socket Mode ---------------------------------------------------------------------
    def socket_connected(self) -> bool:
        return any(ws.open for ws in self._ws)

    def send_socket_envelope(self, payload: dict, *, kind: str = "events_api", retry_attempt: int = 0) -> str:
        envelope_id = str(uuid.uuid4())
        envelope = {"envelope_id": envelope_id, "type": kind, "payload": payload,
                    "accepts_response_payload": kind != "events_api", "retry_attempt": retry_attempt,
                    "retry_reason": "timeout" if retry_attempt else ""}
        ws = next(ws for ws in self._ws if ws.open)
        ws.send_text(json.dumps(envelope))
        return envelope_id

    # -- the API -----------------------------------------------------------------------
    def _record(self, rec: Recorded) -> None:
        with self._changed:
            self.requests.append(rec)
            self._changed.notify_all()

    def _take_fault(self, method: str) -> Fault | None:
        with self._lock:
            faults = self._faults.get(method)
            return faults.pop(0) if faults else None

    def _message_problems(self, method: str, body: dict) -> list[str]:
        blocks = body.get("blocks")
        if isinstance(blocks, str):
            try:
                blocks = json.loads(blocks)
            except ValueError:
                return [f"{method}: blocks are not JSON"]
        problems = block_problems(blocks, body.get("text"), where=method)
        with self._lock:
            self.violations.extend(problems)
        return problems

    def api(self, method: str, body: dict, token: str | None) -> dict:
        if method == "apps.connections.open":
            if token != self.app_token:
                return {"ok": False, "error": "invalid_auth"}
            return {"ok": True, "url": f"ws://127.0.0.1:{self._server.server_address[1]}/socket-mode?ticket=1"}
        if token != self.bot_token:
            return {"ok": False, "error": "invalid_auth" if token else "not_authed"}
        if method in MESSAGE_METHODS:
            problems = self._message_problems(method, body)
            if problems:
                too_long = any("40,000" in p for p in problems)
                return {"ok": False, "error": "msg_too_long" if too_long else
                        "no_text" if body.get("blocks") is None else "invalid_blocks", "errors": problems}
        handler = getattr(self, "_api_" + method.replace(".", "_"), None)
        if handler is None:
            return {"ok": False, "error": "unknown_method"}
        with self._lock:
            return handler(body)

    @staticmethod
    def _blocks(body: dict):
        blocks = body.get("blocks")
        return json.loads(blocks) if isinstance(blocks, str) else blocks

    def _api_auth_test(self, body):
        return {"ok": True, "url": "https://fake.slack.test/", "team": "Fake team", "user": "troubleshoot",
                "team_id": self.team_id, "user_id": self.bot_user_id, "bot_id": self.bot_id,
                "is_enterprise_install": False}

    def _api_chat_postMessage(self, body):
        channel = body.get("channel")
        if not channel or channel.startswith("CGONE"):
            return {"ok": False, "error": "channel_not_found"}
        ts = self.next_ts()
        message = {"type": "message", "ts": ts, "user": self.bot_user_id, "bot_id": self.bot_id,
                   "text": body.get("text"), "blocks": self._blocks(body)}
        if body.get("thread_ts"):
            message["thread_ts"] = body["thread_ts"]
        self.messages.setdefault(channel, []).append(message)
        return {"ok": True, "channel": channel, "ts": ts, "message": message}

    def _find(self, channel, ts):
        return next((m for m in self.messages.get(channel, []) if m.get("ts") == ts), None)

    def _api_chat_update(self, body):
        message = self._find(body.get("channel"), body.get("ts"))
        if message is None:
            return {"ok": False, "error": "message_not_found"}
        if message.get("bot_id") != self.bot_id:
            return {"ok": False, "error": "cant_update_message"}
        message["text"], message["blocks"] = body.get("text"), self._blocks(body)
        message["edited"] = {"ts": self.next_ts()}
        return {"ok": True, "channel": body["channel"], "ts": body["ts"], "text": body.get("text")}

    def _api_chat_postEphemeral(self, body):
        if not body.get("channel") or not body.get("user"):
            return {"ok": False, "error": "channel_not_found" if not body.get("channel") else "user_not_found"}
        return {"ok": True, "message_ts": self.next_ts()}

    def _api_chat_delete(self, body):
        message = self._find(body.get("channel"), body.get("ts"))
        if message is None:
            return {"ok": False, "error": "message_not_found"}
        self.messages[body["channel"]].remove(message)
        return {"ok": True, "channel": body["channel"], "ts": body["ts"]}

    def _api_conversations_replies(self, body):
        channel, ts = body.get("channel"), body.get("ts")
        if channel not in self.messages:
            return {"ok": False, "error": "channel_not_found"}
        found = sorted(self.thread(channel, ts), key=lambda m: float(m["ts"]))
        limit = int(body.get("limit") or 1000)
        return {"ok": True, "messages": found[:limit], "has_more": len(found) > limit}

    def _api_conversations_history(self, body):
        channel = body.get("channel")
        if channel not in self.messages:
            return {"ok": False, "error": "channel_not_found"}
        roots = [m for m in self.messages[channel] if m.get("thread_ts") in (None, m.get("ts"))]
        return {"ok": True, "messages": sorted(roots, key=lambda m: -float(m["ts"]))}

    def _api_conversations_open(self, body):
        users = body.get("users") or ""
        if not users:
            return {"ok": False, "error": "users_list_not_supplied"}
        channel = "D" + users.split(",")[0].lstrip("U")
        self.messages.setdefault(channel, [])
        return {"ok": True, "channel": {"id": channel}}

    def _api_files_info(self, body):
        info = self.files.get(body.get("file"))
        if info is None:
            return {"ok": False, "error": "file_not_found"}
        return {"ok": True, "file": {k: v for k, v in info.items() if not k.startswith("_")}}

    def _api_views_open(self, body):
        view = body.get("view")
        view = json.loads(view) if isinstance(view, str) else view
        if not body.get("trigger_id") or not isinstance(view, dict):
            return {"ok": False, "error": "invalid_arguments"}
        problems = block_problems(view.get("blocks"), "modal", where="views.open")
        for i, block in enumerate(view.get("blocks") or []):
            if block.get("type") == "input" and not block.get("element"):
                problems.append(f"views.open: block {i}: input without element")
        if len(view.get("blocks") or []) > 100:
            problems.append("views.open: more than 100 blocks")
        if len(((view.get("title") or {}).get("text") or "")) > 24:
            problems.append("views.open: title over 24 characters")
        if problems:
            self.violations.extend(problems)
            return {"ok": False, "error": "invalid_blocks", "errors": problems}
        self.opened_views.append(view)
        return {"ok": True, "view": dict(view, id="V" + uuid.uuid4().hex[:8].upper())}

    def _api_views_publish(self, body):
        view = body.get("view")
        view = json.loads(view) if isinstance(view, str) else view
        if not body.get("user_id") or not isinstance(view, dict) or view.get("type") != "home":
            return {"ok": False, "error": "invalid_arguments"}
        problems = block_problems(view.get("blocks"), "home", where="views.publish")
        if len(view.get("blocks") or []) > 100:
            problems.append("views.publish: more than 100 blocks")
        if problems:
            self.violations.extend(problems)
            return {"ok": False, "error": "invalid_blocks", "errors": problems}
        self.home_views[body["user_id"]] = view
        return {"ok": True, "view": dict(view, id="V" + uuid.uuid4().hex[:8].upper())}

    def _api_users_info(self, body):
        user = body.get("user")
        if not user:
            return {"ok": False, "error": "user_not_found"}
        admin = user in self.admins
        return {"ok": True, "user": {"id": user, "team_id": self.team_id, "is_admin": admin, "is_owner": False,
                                     "is_primary_owner": False, "is_bot": False}}

    def _api_conversations_info(self, body):
        channel = body.get("channel")
        if not channel:
            return {"ok": False, "error": "channel_not_found"}
        return {"ok": True, "channel": {"id": channel, "creator": self.channel_creators.get(channel, "U0SOMEONE")}}

    def _api_files_getUploadURLExternal(self, body):
        if not body.get("filename") or not body.get("length"):
            return {"ok": False, "error": "invalid_arguments"}
        fid = "F" + uuid.uuid4().hex[:10].upper()
        self.files[fid] = {"id": fid, "name": body["filename"], "title": body["filename"], "size": int(body["length"]),
                           "filetype": "text", "mimetype": "text/plain", "_uploaded": False}
        return {"ok": True, "upload_url": f"{self.url}/upload/v1/{fid}", "file_id": fid}

    def _api_files_completeUploadExternal(self, body):
        files = body.get("files")
        files = json.loads(files) if isinstance(files, str) else files
        out = []
        for f in files or []:
            if f.get("id") not in self._uploads:
                return {"ok": False, "error": "file_not_found"}
            info = self.files[f["id"]]
            info.update(title=f.get("title") or info["name"], _channel=body.get("channel_id"),
                        _thread_ts=body.get("thread_ts"), _uploaded=True)
            out.append({k: v for k, v in info.items() if not k.startswith("_")})
        return {"ok": True, "files": out}

    # -- HTTP plumbing -------------------------------------------------------------------
    def _handler_class(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _send(self, status: int, body: bytes, content_type: str = "application/json; charset=utf-8",
                      headers: dict | None = None):
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(body)

            def _read(self) -> bytes:
                length = int(self.headers.get("Content-Length") or 0)
                return self.rfile.read(length) if length else b""

            def _parse(self, raw: bytes, query: str) -> dict:
                body = {k: v[0] for k, v in parse_qs(query).items()}
                ctype = self.headers.get("Content-Type", "")
                if raw and "json" in ctype:
                    body.update(json.loads(raw.decode("utf-8")))
                elif raw and "x-www-form-urlencoded" in ctype:
                    body.update({k: v[0] for k, v in parse_qs(raw.decode("utf-8"), keep_blank_values=True).items()})
                return body

            def do_GET(self):
                parts = urlsplit(self.path)
                if parts.path.startswith("/socket-mode") and "websocket" in self.headers.get("Upgrade", "").lower():
                    return _WebSocket(fake, self).serve()
                if parts.path.startswith("/files-pri/"):
                    return self._download(parts)
                self._api(parts, b"")

            def do_POST(self):
                parts = urlsplit(self.path)
                raw = self._read()
                if parts.path.startswith("/upload/v1/"):
                    fid = parts.path.rsplit("/", 1)[1]
                    with fake._lock:
                        fake._uploads[fid] = raw
                    fake._record(Recorded("upload", parts.path, dict(self.headers), {"file_id": fid}, raw))
                    return self._send(200, f"OK - {len(raw)}".encode(), "text/plain")
                if parts.path.startswith("/response/"):
                    body = json.loads(raw.decode("utf-8")) if raw else {}
                    problems = ([] if body.get("delete_original") else
                                block_problems(body.get("blocks"), body.get("text"), where="response_url"))
                    with fake._lock:
                        fake.violations.extend(problems)
                    status = 400 if problems else 200
                    fake._record(Recorded("response_url", parts.path, dict(self.headers), body, raw, status=status))
                    return self._send(status, b"invalid_blocks" if problems else b"ok", "text/plain")
                self._api(parts, raw)

            def _download(self, parts):
                fid = parts.path.split("/")[2].split("-", 1)[1]
                info = fake.files.get(fid)
                auth = self.headers.get("Authorization", "")
                fake._record(Recorded("download", parts.path, dict(self.headers), {"file": fid}, b""))
                if info is None:
                    return self._send(404, b"Not found", "text/plain")
                if info.get("_redirect_to"):
                    return self._send(302, b"", "text/plain", headers={"Location": info["_redirect_to"]})
                if auth != f"Bearer {fake.bot_token}" or info.get("_login_page"):
                    # What Slack does: 200 with its sign-in page, not a 401.
                    return self._send(200, LOGIN_PAGE, "text/html; charset=utf-8")
                return self._send(200, fake._file_bodies[fid], info.get("mimetype") or "application/octet-stream")

            def _api(self, parts, raw: bytes):
                if not parts.path.startswith("/api/"):
                    return self._send(404, b"Not found", "text/plain")
                method = parts.path[len("/api/"):]
                try:
                    body = self._parse(raw, parts.query)
                except ValueError:
                    return self._send(400, b'{"ok":false,"error":"invalid_json"}')
                held = fake._holds.get(method)
                if held is not None:
                    held.wait(60)
                auth = self.headers.get("Authorization", "")
                token = auth[len("Bearer "):] if auth.startswith("Bearer ") else body.get("token")
                rec = Recorded(method, parts.path, dict(self.headers), body, raw)
                fault = fake._take_fault(method)
                if fault and fault.status == 429:
                    rec.status, rec.reply = 429, {"ok": False, "error": "ratelimited"}
                    fake._record(rec)
                    return self._send(429, json.dumps(rec.reply).encode(),
                                      headers={"Retry-After": str(fault.retry_after or 1)})
                if fault and fault.status >= 500:
                    rec.status = fault.status
                    fake._record(rec)
                    return self._send(fault.status, b"<html>upstream trouble</html>", "text/html")
                reply = {"ok": False, "error": fault.error} if fault and fault.error else fake.api(method, body, token)
                rec.reply = reply
                fake._record(rec)
                self._send(200, json.dumps(reply).encode())

        return Handler


class _WebSocket:
    """Just enough of RFC 6455 for Socket Mode: text frames, ping/pong, close."""

    def __init__(self, fake: FakeSlack, handler: BaseHTTPRequestHandler):
        self.fake, self.handler = fake, handler
        self.sock: socket.socket = handler.connection
        self.open = False
        self._send_lock = threading.Lock()

    def serve(self) -> None:
        key = self.handler.headers.get("Sec-WebSocket-Key", "")
        accept = base64.b64encode(hashlib.sha1((key + WS_GUID).encode()).digest()).decode()
        self.sock.sendall(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                           f"Sec-WebSocket-Accept: {accept}\r\n\r\n").encode())
        self.open = True
        self.fake._ws.append(self)
        self.send_text(json.dumps({"type": "hello", "num_connections": 1,
                                   "debug_info": {"host": "fake-slack", "approximate_connection_time": 3600},
                                   "connection_info": {"app_id": "A0001"}}))
        with self.fake._changed:
            self.fake._changed.notify_all()
        try:
            while self.open:
                opcode, payload = self._read_frame()
                if opcode == 0x8:  # the client closes the connection cleanly
                    self.fake._record(Recorded("socket_close", "/socket-mode", {}, {}, payload))
                    self._send_frame(0x8, payload[:2])
                    break
                if opcode == 0x9:
                    self._send_frame(0xA, payload)
                elif opcode == 0x1:
                    message = json.loads(payload.decode("utf-8"))
                    self.fake._record(Recorded("socket_ack", "/socket-mode", {}, message, payload))
                    with self.fake._lock:
                        self.fake.socket_acks.append(message)
        except (OSError, ConnectionError, struct.error):
            pass
        finally:
            self.open = False
        self.handler.close_connection = True

    def _recv_exact(self, n: int) -> bytes:
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise ConnectionError("client went away")
            data += chunk
        return data

    def _read_frame(self) -> tuple[int, bytes]:
        b1, b2 = self._recv_exact(2)
        opcode, masked, length = b1 & 0x0F, b2 & 0x80, b2 & 0x7F
        if length == 126:
            length = struct.unpack("!H", self._recv_exact(2))[0]
        elif length == 127:
            length = struct.unpack("!Q", self._recv_exact(8))[0]
        mask = self._recv_exact(4) if masked else b"\0\0\0\0"
        data = self._recv_exact(length)
        return opcode, bytes(b ^ mask[i % 4] for i, b in enumerate(data))

    def _send_frame(self, opcode: int, payload: bytes) -> None:
        header = bytes([0x80 | opcode])
        n = len(payload)
        if n < 126:
            header += bytes([n])
        elif n < 65536:
            header += bytes([126]) + struct.pack("!H", n)
        else:
            header += bytes([127]) + struct.pack("!Q", n)
        with self._send_lock:
            self.sock.sendall(header + payload)

    def send_text(self, text: str) -> None:
        self._send_frame(0x1, text.encode("utf-8"))

    def close(self) -> None:
        if self.open:
            self.open = False
            try:
                self._send_frame(0x8, struct.pack("!H", 1000))
                self.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
