"""Issue 26, items 4 and 6, in Slack: votes are shown as votes and never counted as runs
(App Home's "(sandbox runs)" included, with the old "feedback" rows an earlier version
stored for a 👎), and App Home and `/troubleshoot config` speak the user's language,
with entry titles from the knowledge base in the viewer's language.

The listener bodies are called directly (as in test_slack_listeners.py) with a context
whose client talks to the fake Slack Web API, over a real SQLite store."""

from __future__ import annotations

import hashlib
import json

import pytest

from answer_docs import document, match, workaround
from bot.slack.listeners import commands, home
from slack_harness import SIGNING_SECRET

ENTRY = "pytorch/backward-twice"
OTHER = "pytorch/cuda-oom"
FIX = "backward-once"


@pytest.fixture
def ctx(fake_slack, tmp_path):
    from bot.slack.app import build_context
    from bot.slack.services.context import SlackSettings
    from bot.store import open_store

    settings = SlackSettings(bot_token=fake_slack.bot_token, signing_secret=SIGNING_SECRET, api_url=fake_slack.api_url)
    return build_context(settings, store=open_store(f"sqlite:///{tmp_path / 'bot.db'}"))


@pytest.fixture(scope="module")
def kb():
    from bot.kb.loader import current_knowledge

    return current_knowledge()


def _answer(ctx, user: str, entry_id: str, lang: str, title: str, *, fix: str = FIX) -> int:
    """An answer to `user` as the bot stores it: in `lang`, with the title it showed then."""
    shown = document(match(entry_id, title, workarounds=[workaround(fix, "shown fix")]), language=lang)
    return ctx.store.add_answer(entry_id=entry_id, confidence=0.92, language=lang, surface="mention",
                                error_hash=hashlib.sha256(title.encode()).hexdigest(),
                                answer_json=json.dumps(shown.as_json()), asker=ctx.store.user_hash("T1", user))


def _old_feedback_row(ctx, answer_id: int, user: str) -> None:
    """What a 👎 "the fix did not work" left before votes had their own call (issue 23):
    a verification of surface "feedback" (no torch, no snippet) with one failed outcome."""
    from bot.store.models import Verification, VerificationOutcome

    key = hashlib.sha256(f"feedback:{answer_id}:{user}".encode()).hexdigest()[:64]
    with ctx.store.session() as session:
        row = Verification(report_key=key, surface="feedback", answer_id=answer_id, entry_id=ENTRY, reproduced=True,
                           exit_reason="feedback", snippet_sha256=hashlib.sha256(b"feedback").hexdigest(),
                           asker=ctx.store.user_hash("T1", user))
        session.add(row)
        session.flush()
        session.add(VerificationOutcome(verification_id=row.id, entry_id=ENTRY, item_id=FIX, kind="workaround",
                                        status="still_fails"))
        session.commit()


def _run(ctx, status: str, asker: str) -> None:
    """A real verification report, recorded on its path (bot.evidence.record)."""
    from bot.evidence.record import record_verification
    from bot.verify.report import ErrorInfo, ExitReason, FixRow, Status, VerifyReport

    report = VerifyReport(reproduced=True, exit_reason=ExitReason.ERROR, output="",
                          environment={"torch": "2.13.0", "python": "3.11.9"},
                          error=ErrorInfo(type="RuntimeError", message=None, entry_id=ENTRY),
                          fixes=[FixRow(workaround=FIX, status=Status(status), error=None, seconds=None,
                                        peak_memory_bytes=None, kind="workaround", patch=None, title=None)])
    assert record_verification(report, f"snippet of {asker}", store=ctx.store, asker=asker, surface="slack")


def _home_text(ctx, fake_slack, user: str) -> str:
    home.on_home(ctx, {"team_id": "T1"}, {"type": "app_home_opened", "user": user, "tab": "home"})
    assert fake_slack.violations == []
    return json.dumps(fake_slack.home_views[user], ensure_ascii=False)


def test_app_home_shows_a_vote_as_a_vote_and_counts_only_runs(ctx, fake_slack, kb):
    from bot.evidence.votes import AnswerVote, Direction, record_vote

    user = "U0VOTEHOME"
    fake_slack.admins.add(user)
    answer_id = _answer(ctx, user, ENTRY, "en", "Backward twice")
    record_vote(AnswerVote(answer_id, ctx.store.user_hash("T1", user), Direction.DOWN), store=ctx.store)
    _old_feedback_row(ctx, answer_id, user)  # the same 👎, stored as a "run" by an old version
    _run(ctx, "fixed", "asker-a")  # one real run that fixed it

    text = _home_text(ctx, fake_slack, user)
    mine = text.split("Workspace overview")[0]
    assert "👎" in mine and "verified in the sandbox" not in mine  # the user's own line: a vote, no run
    fix_title = next(w for w in kb.resolve(ENTRY).workarounds if w.id == FIX).title.get_text("en")
    # The overview counts the one real run only (it said "fixed 1 of 2 runs" with the old row in it),
    # by the fix's title, not its id.
    assert "fixed 1 of 1 runs" in text and "of 2 runs" not in text
    assert fix_title in text
    # The 👎 is shown, as a vote, apart from the runs.
    votes = text.split("Votes on answers (👍/👎, not runs)")[1]
    assert votes.startswith(f"*\\n👍 0 👎 1  {kb.resolve(ENTRY).title.get_text('en')}")


def test_app_home_is_in_the_viewers_language_with_titles_from_the_knowledge_base(ctx, fake_slack, kb):
    user = "U0KOHOME"
    fake_slack.admins.add(user)
    # Answers given in Chinese and English (the titles they showed), the last one in Korean.
    _answer(ctx, user, ENTRY, "zh", kb.resolve(ENTRY).title.get_text("zh"))
    _answer(ctx, "U0SOMEONE", OTHER, "en", kb.resolve(OTHER).title.get_text("en"))
    _answer(ctx, user, OTHER, "ko", kb.resolve(OTHER).title.get_text("ko"))
    _run(ctx, "fixed", "asker-b")

    text = _home_text(ctx, fake_slack, user)
    assert "최근 질문" in text and "워크스페이스 현황 (관리자)" in text and "가장 많이 물어본 오류" in text
    assert "{n}회 중 {k}회 해결".format(n=1, k=1) in text
    for entry_id in (ENTRY, OTHER):  # every list: the Korean title, whatever language the answer was in
        assert kb.resolve(entry_id).title.get_text("ko") in text
        assert kb.resolve(entry_id).title.get_text("zh") not in text
        assert kb.resolve(entry_id).title.get_text("en") not in text
    assert "Your recent questions" not in text and "Most-asked" not in text

    # Someone without an answer yet reads English.
    assert "Your recent questions" in _home_text(ctx, fake_slack, "U0NEWHOME")


def _config(ctx, fake_slack, user: str, text: str = "config", channel: str = "C0CONF") -> str:
    commands.configure(ctx, {"text": text, "team_id": "T1", "channel_id": channel, "user_id": user,
                             "response_url": fake_slack.response_url()})
    return fake_slack.calls("response_url")[-1].body["text"]


def test_troubleshoot_config_answers_in_the_users_language(ctx, fake_slack):
    # The language of the user's last answer.
    _answer(ctx, "U0KOCONF", ENTRY, "ko", "title")
    reply = _config(ctx, fake_slack, "U0KOCONF")
    assert "설정: 자동 답변" in reply and "바꿀 수 있습니다" in reply and "Settings for" not in reply
    # A change they may not make is refused in Korean too.
    assert _config(ctx, fake_slack, "U0KOCONF", "config auto=on").startswith("워크스페이스 관리자와 채널 생성자만")

    # No answer yet: the channel's configured language.
    ctx.store.set_channel_settings("T1", "C0ZH", updated_by="someone", language="zh")
    reply = _config(ctx, fake_slack, "U0NEWCONF", channel="C0ZH")
    assert "的设置：自动回答" in reply and "Settings for" not in reply

    # Words typed in Korean win over both (here: a word it does not know, said in Korean).
    reply = _config(ctx, fake_slack, "U0NEWCONF", "config 설정보기", channel="C0ZH")
    assert reply.startswith("이해하지 못했습니다: 설정보기") and "无法理解" not in reply

    # Nothing to go by: English, as before.
    assert _config(ctx, fake_slack, "U0NEWCONF").startswith("Settings for ")
