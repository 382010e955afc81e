"""A synthetic Slack workspace export, in the standard layout (channels.json, users.json,
<channel>/YYYY-MM-DD.json), for `kb add export.zip` tests and the issue note's numbers.

Each thread is one of a few kinds, so what `kb add` must keep and skip is known:
- "answered":  an error question in en/ko/zh with a reply by someone else (kept)
- "solved":    the same, and the reply got a ✅ or says it solved it (kept, ranked first)
- "chatter":   a question without error text, with replies (skipped)
- "alone":     an error question only the asker replied to (skipped)
plus, in every channel, a join event and a bot post that must never become an article,
and a Slack token pasted into some replies that must be redacted.

Run as a script to write one: `python tests/slack_export_builder.py OUT.zip [THREADS]`.
"""

from __future__ import annotations

import json
import sys
import zipfile
from pathlib import Path

CHANNELS = [("C0ML", "ml-help"), ("C0INF", "infra"), ("C0RAND", "random")]
USERS = [
    {"id": "U1", "name": "minji", "profile": {"display_name": "민지", "real_name": "Kim Minji"}},
    {"id": "U2", "name": "wei", "profile": {"display_name": "wei.z", "real_name": "Zhang Wei"}},
    {"id": "U3", "name": "sam", "profile": {"display_name": "", "real_name": "Sam Lee"}},
    {"id": "UBOT", "name": "ci-bot", "is_bot": True, "profile": {"display_name": "CI"}},
]
# A token shaped like a Slack bot token, made up for the tests (never a real one).
FAKE_TOKEN = "xoxb-" + "1234567890-0987654321-" + "FAKEFAKEFAKEfake"

QUESTIONS = {
    "en": "Our loader dies on the cluster:\n```RuntimeError: DataLoader worker (pid 4242) is killed by signal: "
          "Bus error. It is possible that dataloader's workers are out of shared memory.```\nany idea?",
    "ko": "학습 두 번째 스텝에서 이 에러가 납니다:\n```RuntimeError: Trying to backward through the graph a second "
          "time (or directly access saved tensors after they have already been freed).```\n어떻게 고치나요?",
    "zh": "容器里跑训练报错：\n```RuntimeError: CUDA error: out of memory```\n请问怎么办？",
}
ANSWERS = {
    "en": "Our containers get 64 MB of /dev/shm by default; run them with --shm-size=8g or set num_workers=0.",
    "ko": "루프 밖에서 만든 텐서를 매 스텝 다시 쓰고 있어서 그래요. 스텝마다 forward를 다시 계산하세요.",
    "zh": "我们的节点上别的任务占着显存，先用 nvidia-smi 看一下，再把 batch size 减半。",
}
SOLVED = {"en": "solved, thanks!", "ko": "해결됐어요, 감사합니다!", "zh": "解决了，谢谢！"}
CHATTER = {"en": "anyone up for lunch at noon?", "ko": "오늘 점심 뭐 먹을까요?", "zh": "今天下午有人一起喝咖啡吗？"}
LANGS = ("en", "ko", "zh")
KINDS = ("answered", "solved", "chatter", "alone", "answered", "solved")


def _msg(user: str, text: str, ts: float, **extra) -> dict:
    return {"type": "message", "user": user, "text": text, "ts": f"{ts:.6f}", **extra}


def build_export(path: Path, threads: int = 12, *, channels=CHANNELS) -> dict[str, int]:
    """Write the export to `path`; returns how many threads of each kind it holds."""
    days: dict[tuple[str, str], list[dict]] = {}
    counts: dict[str, int] = {}
    base = 1_772_409_600.0  # 2026-03-02 00:00 UTC
    for i in range(threads):
        cid, channel = channels[i % len(channels)]
        lang, kind = LANGS[i % 3], KINDS[(i // 3) % len(KINDS)]
        counts[kind] = counts.get(kind, 0) + 1
        ts = base + i * 3600.0
        day = "2026-03-%02d" % (2 + int(i * 3600 // 86400))
        asker, helper = ("U1", "U2") if i % 2 else ("U2", "U3")
        question = CHATTER[lang] if kind == "chatter" else f"{QUESTIONS[lang]} (#{i})"
        msgs = days.setdefault((channel, day), [])
        msgs.append(_msg(asker, question, ts, thread_ts=f"{ts:.6f}", reply_count=2))
        replier = asker if kind == "alone" else helper
        reply = f"{ANSWERS[lang]} token for the test cluster: {FAKE_TOKEN}" if i % 4 == 0 else ANSWERS[lang]
        extra = {"reactions": [{"name": "white_check_mark", "users": [asker], "count": 1}]} \
            if kind == "solved" and i % 2 else {}
        msgs.append(_msg(replier, reply, ts + 60, thread_ts=f"{ts:.6f}", parent_user_id=asker, **extra))
        if kind == "solved" and not i % 2:
            msgs.append(_msg(asker, SOLVED[lang], ts + 120, thread_ts=f"{ts:.6f}", parent_user_id=asker))
    for _cid, channel in channels:
        day = "2026-03-02"
        days.setdefault((channel, day), []).insert(
            0, _msg("U3", "<@U3> has joined the channel", base - 10, subtype="channel_join"))
        days[(channel, day)].append({"type": "message", "subtype": "bot_message", "bot_id": "B1", "username": "CI",
                                     "text": "RuntimeError: nightly build failed", "ts": f"{base + 5:.6f}"})
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("channels.json", json.dumps([{"id": cid, "name": name} for cid, name in channels]))
        z.writestr("users.json", json.dumps(USERS, ensure_ascii=False))
        for (channel, day), msgs in sorted(days.items()):
            msgs.sort(key=lambda m: float(m["ts"]))
            z.writestr(f"{channel}/{day}.json", json.dumps(msgs, ensure_ascii=False, indent=1))
    return counts


if __name__ == "__main__":
    out = Path(sys.argv[1])
    print(build_export(out, int(sys.argv[2]) if len(sys.argv) > 2 else 240))
