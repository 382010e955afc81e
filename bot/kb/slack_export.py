"""Threads of a Slack workspace export that answer an error, as articles (`kb add export.zip`).

A standard export holds `channels.json`, `users.json` and one `<channel>/YYYY-MM-DD.json`
per channel and day: a JSON list of messages. A thread is a message and the messages
whose `thread_ts` names it (its replies may lie in later days' files). A thread is kept
when its question carries error text and someone other than the asker replied; bot
messages, joins and other channel events are left out before that. Threads whose
reply got a ✅/👍 or says it solved it are marked `solved` and listed first.

Everything stored passes through the same scrubber as the logs and the store
(`bot.logs.redact`): tokens and the bot's own secrets never reach a knowledge file.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable

from bot.logs import redact
from bot.text.lang import dominant_language, unserved_language
from bot.text.normalize import error_type_of
from bot.text.ui import t

# Subtypes that are still people talking; every other subtype (joins, topic changes,
# bot_message, ...) is an event, not part of a conversation.
_SPOKEN = {None, "thread_broadcast", "file_share", "me_message"}
SOLVED_REACTIONS = {"white_check_mark", "heavy_check_mark", "+1", "thumbsup"}
_SOLVED_WORDS = re.compile(r"\b(solved|fixed it|that fixed|works now)\b|해결|解决|解決", re.IGNORECASE)
_NOT_SOLVED = re.compile(r"\bnot (?:yet )?(?:solved|fixed)\b|\bstill\b|해결이? ?안|해결되지|没解决|未解决|没有解决",
                         re.IGNORECASE)
_ERROR_TEXT = re.compile(r"Traceback \(most recent call last\)|\b[A-Z]\w*(?:Error|Exception)\b"
                         r"|\b(?:CUDA|NCCL|cuDNN|CUBLAS) error\b|\berror:|Segmentation fault|core dumped",
                         re.IGNORECASE)
# Slack's markup: <@U123>, <#C123|name>, <https://x|label>, <!here>.
_MENTION = re.compile(r"<@([A-Z0-9]+)(?:\|[^>]*)?>")
_CHANNEL_REF = re.compile(r"<#[A-Z0-9]+\|([^>]*)>")
_LINK = re.compile(r"<(https?://[^|>]+)\|([^>]+)>")
_BARE = re.compile(r"<(https?://[^>]+)>")
_SPECIAL = re.compile(r"<!(\w+)(?:\|[^>]*)?>")
_DAY_FILE = re.compile(r"^([^/]+)/(\d{4}-\d{2}-\d{2})\.json$")

class ExportProblem(ValueError):
    """The export is malformed; the message names the member and what is wrong."""


@dataclass
class Message:
    user: str
    text: str
    ts: str
    reactions: set[str] = field(default_factory=set)


@dataclass
class ThreadArticle:
    channel: str
    channel_id: str
    ts: str
    date: str
    language: str
    title: str
    body: str  # Markdown: the question, then each reply with who wrote it
    answered_by: list[str]
    solved: bool
    permalink: str | None

    @property
    def origin(self) -> str:
        """The thread's identity across exports (a newer export replaces it)."""
        return f"slack:{self.channel_id}/{self.ts}"


@dataclass
class Skipped:
    where: str  # "#channel, date" or the member
    reason: str


@dataclass
class ExportResult:
    kept: list[ThreadArticle]
    skipped: list[Skipped]
    channels: list[tuple[str, str]]  # (id, name) of the channels read (after --channels)


def is_slack_export(names: set[str]) -> bool:
    return "channels.json" in names and any(_DAY_FILE.match(n) for n in names)


def _load(name: str, data: bytes) -> Any:
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ExportProblem(f"{name}: not valid JSON ({exc})") from None


def _list_of_objects(name: str, value: Any) -> list[dict[str, Any]]:
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise ExportProblem(f"{name}: expected a JSON list of objects, found {type(value).__name__}")
    return value


def _user_names(users: list[dict[str, Any]], mode: str) -> tuple[dict[str, str], set[str]]:
    """user id -> what the articles call them; and the ids of bots."""
    names, bots = {}, set()
    for u in users:
        uid = u.get("id")
        if not isinstance(uid, str):
            continue
        profile = u.get("profile") if isinstance(u.get("profile"), dict) else {}
        shown = profile.get("display_name") or profile.get("real_name") or u.get("real_name") or u.get("name")
        names[uid] = uid if mode == "id" or not isinstance(shown, str) or not shown.strip() else shown.strip()
        if u.get("is_bot") or u.get("is_app_user"):
            bots.add(uid)
    bots.add("USLACKBOT")
    return names, bots


def _plain(text: str, name_of: Callable[[str], str]) -> str:
    """Slack markup to readable text (mentions by name, links with their label), secrets redacted."""
    text = _MENTION.sub(lambda m: "@" + name_of(m.group(1)), text)
    text = _CHANNEL_REF.sub(lambda m: "#" + m.group(1), text)
    text = _LINK.sub(lambda m: f"{m.group(2)} ({m.group(1)})", text)
    text = _BARE.sub(lambda m: m.group(1), text)
    text = _SPECIAL.sub(lambda m: "@" + m.group(1), text)
    return redact(html.unescape(text)).strip()


def _carries_error(text: str) -> bool:
    lines = [line.strip().strip("`").strip() for line in text.splitlines()]
    return any(error_type_of(line) for line in lines) or bool(_ERROR_TEXT.search(text))


def _is_solved(reply: Message, raw_text: str) -> bool:
    if reply.reactions & SOLVED_REACTIONS:
        return True
    return bool(_SOLVED_WORDS.search(raw_text)) and not _NOT_SOLVED.search(raw_text)


def _date(ts: str) -> str:
    return datetime.fromtimestamp(float(ts), tz=timezone.utc).date().isoformat()


def _title(question: str) -> str:
    lines = [line.strip().strip("`").strip() for line in question.splitlines() if line.strip().strip("`").strip()]
    for line in lines:
        if error_type_of(line) or _ERROR_TEXT.search(line):
            return line[:200]
    return lines[0][:200] if lines else "Slack thread"


def read_export(read: Callable[[str], bytes], names: set[str], *, channels: set[str] | None = None,
                name_mode: str = "display", workspace_url: str | None = None) -> ExportResult:
    """The thread articles of an export whose members are `names` (read with `read`).

    Raises ExportProblem, naming the member, when a file of the export is malformed: the
    export is then taken whole or not at all."""
    channel_rows = _list_of_objects("channels.json", _load("channels.json", read("channels.json")))
    by_name: dict[str, str] = {}
    for i, row in enumerate(channel_rows):
        if not isinstance(row.get("name"), str) or not isinstance(row.get("id"), str):
            raise ExportProblem(f"channels.json: channel {i + 1} has no \"id\" and \"name\"")
        by_name[row["name"]] = row["id"]
    users = _list_of_objects("users.json", _load("users.json", read("users.json"))) if "users.json" in names else []
    name_of, bots = _user_names(users, name_mode)

    def shown(uid: str) -> str:
        return name_of.get(uid, uid)

    if channels is not None:
        unknown = sorted(channels - set(by_name))
        if unknown:
            raise ExportProblem(f"--channels names channel(s) not in this export: {', '.join(unknown)} "
                                f"(it has {', '.join(sorted(by_name)) or 'none'})")
    kept: list[ThreadArticle] = []
    skipped: list[Skipped] = []
    read_channels = []
    for channel, channel_id in sorted(by_name.items()):
        if channels is not None and channel not in channels:
            continue
        read_channels.append((channel_id, channel))
        days = sorted(n for n in names if (m := _DAY_FILE.match(n)) and m.group(1) == channel)
        parents: dict[str, Message] = {}
        raw: dict[str, str] = {}  # ts -> the message's own text, for the solved words
        replies: dict[str, list[Message]] = {}
        for day in days:
            for j, msg in enumerate(_list_of_objects(day, _load(day, read(day)))):
                ts = msg.get("ts")
                if not isinstance(ts, str) or not re.match(r"^\d+(\.\d+)?$", ts):
                    raise ExportProblem(f"{day}: message {j + 1} has no valid \"ts\"")
                if msg.get("type", "message") != "message" or msg.get("subtype") not in _SPOKEN:
                    continue  # joins, topic changes, bot posts
                user = msg.get("user")
                if msg.get("bot_id") or not isinstance(user, str) or user in bots:
                    continue
                text = msg.get("text")
                if not isinstance(text, str) or not text.strip():
                    continue
                reactions = {r.get("name") for r in msg.get("reactions") or [] if isinstance(r, dict)}
                item = Message(user=user, text=_plain(text, shown), ts=ts,
                               reactions={r for r in reactions if isinstance(r, str)})
                raw[ts] = text
                thread_ts = msg.get("thread_ts")
                if isinstance(thread_ts, str) and thread_ts != ts:
                    replies.setdefault(thread_ts, []).append(item)
                else:
                    parents[ts] = item
        for ts, question in sorted(parents.items(), key=lambda kv: float(kv[0])):
            where = f"#{channel}, {_date(ts)}"
            answers = sorted(replies.get(ts, []), key=lambda r: float(r.ts))
            others = [r for r in answers if r.user != question.user]
            if not _carries_error(question.text):
                skipped.append(Skipped(where, "no error text in the question (chatter)"))
                continue
            if not others:
                skipped.append(Skipped(where, "no reply from anyone but the asker"))
                continue
            everything = "\n".join([question.text, *(r.text for r in answers)])
            other_language = unserved_language(question.text)
            if other_language is not None:
                skipped.append(Skipped(where, f"written in {other_language} (served: English, Korean, Chinese)"))
                continue
            lang = dominant_language(everything)
            solved = any(_is_solved(r, raw[r.ts]) for r in answers)
            answered_by = list(dict.fromkeys(shown(r.user) for r in others))
            parts = [f"**{t('thread_question', lang)}** ({t('thread_asked_by', lang)} {shown(question.user)}, "
                     f"#{channel}, {_date(ts)})",
                     "", question.text]
            for r in answers:
                parts += ["", f"**{t('thread_reply', lang)}** ({shown(r.user)})", "", r.text]
            permalink = (f"{workspace_url.rstrip('/')}/archives/{channel_id}/p{ts.replace('.', '')}"
                         if workspace_url else None)
            kept.append(ThreadArticle(channel=channel, channel_id=channel_id, ts=ts, date=_date(ts), language=lang,
                                      title=_title(question.text), body="\n".join(parts).strip() + "\n",
                                      answered_by=answered_by, solved=solved, permalink=permalink))
        orphans = set(replies) - set(parents)
        if orphans:
            skipped.append(Skipped(f"#{channel}", f"{len(orphans)} thread(s) whose question is not in the export "
                                                  "or was posted by a bot"))
    kept.sort(key=lambda t: (not t.solved, t.channel, float(t.ts)))  # solved threads first
    return ExportResult(kept=kept, skipped=skipped, channels=read_channels)
