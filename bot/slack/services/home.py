"""App Home: each user sees their recent questions and what came of them; workspace
admins also see the most-asked errors, the questions without a confident answer and
the verified fix rates, as Block Kit bars (a picture reads faster than a table).

Rates here are measured only: a fix's share of the verified runs that fixed it, always
with its counts; nothing from the team's estimates appears as a percentage. Votes are
not runs: a 👍/👎 shows as a vote next to the user's question, never in the run counts
(old "feedback" verification rows, 👎s stored as runs by an earlier version, are left
out: bot.evidence.rates.is_run).

The tab is in the viewer's language: the language of their last answer in the store
(what they asked in), English while they have none. Entry and fix titles come from the
knowledge base in that language, whatever language each answer was given in."""

from __future__ import annotations

import logging
import threading
import time
from datetime import timedelta

from slack_sdk.models.blocks import Block, DividerBlock, HeaderBlock, PlainTextObject
from slack_sdk.models.views import View
from sqlalchemy import case, func, select

from bot.answer.document import AnswerDocument
from bot.evidence.rates import FEEDBACK_SURFACE, is_run
from bot.kb import model as m
from bot.kb.loader import current_knowledge
from bot.slack.blocks import context, escape, sections, tidy
from bot.slack.i18n import t
from bot.slack.services.context import BotContext
from bot.store.models import Vote
from bot.store.models import Verification
from bot.store.models import CoverageGap, VerificationOutcome
from bot.store.models import Answer, utcnow
from bot.text.lang import LANGUAGES
from bot.verify.report import Status
from bot.text.jsonin import loads as json_loads

log = logging.getLogger(__name__)

RECENT = 10
TOP = 8
BAR_WIDTH = 16
ADMIN_CACHE_S = 600.0
WINDOW = timedelta(days=30)

_admins: dict[str, tuple[float, bool]] = {}
_admins_lock = threading.Lock()


def is_admin(ctx: BotContext, user: str) -> bool:
    """A workspace admin or owner (users.info), remembered for a few minutes."""
    now = time.monotonic()
    with _admins_lock:
        cached = _admins.get(user)
        if cached and now - cached[0] < ADMIN_CACHE_S:
            return cached[1]
    try:
        info = ctx.client.users_info(user=user)["user"]
        admin = bool(info.get("is_admin") or info.get("is_owner") or info.get("is_primary_owner"))
    except Exception as exc:  # noqa: BLE001 - no users:read scope or Slack trouble: not an admin
        log.info("users.info failed for the home tab: %s", type(exc).__name__)
        admin = False
    with _admins_lock:
        _admins[user] = (now, admin)
    return admin


def bar(value: float, top: float) -> str:
    filled = 0 if top <= 0 else max(1 if value > 0 else 0, round(BAR_WIDTH * value / top))
    return "`" + "█" * filled + "░" * (BAR_WIDTH - filled) + "`"


def last_answer_language(ctx: BotContext, user_hash: str) -> str | None:
    """The language of the user's last answer in the store; None while there is none."""
    last = ctx.store.recent_answers(user_hash, 1)
    return last[0].language if last and last[0].language in LANGUAGES else None


def viewer_language(ctx: BotContext, user_hash: str) -> str:
    """The language App Home speaks: the viewer's last answer's; English while there is none."""
    return last_answer_language(ctx, user_hash) or "en"


def _knowledge() -> m.KnowledgeBase | None:
    try:
        return current_knowledge()
    except Exception as exc:  # noqa: BLE001 - the tab falls back to the titles the answers showed
        log.info("knowledge unavailable for the home tab: %s", type(exc).__name__)
        return None


def entry_title(kb: m.KnowledgeBase | None, entry_id: str | None, lang: str) -> str | None:
    """An entry's title in `lang` from the knowledge base; None where it has no such entry."""
    entry = kb.resolve(entry_id) if kb is not None and entry_id else None
    return tidy(entry.title.get_text(lang)) if entry is not None else None


def fix_title(kb: m.KnowledgeBase | None, entry_id: str, item_id: str, lang: str) -> str:
    entry = kb.resolve(entry_id) if kb is not None else None
    item = next((w for w in entry.workarounds if w.id == item_id), None) if entry is not None else None
    return tidy(item.title.get_text(lang)) if item is not None else item_id


def _answer_title(answer_json: str | None, lang: str, kb: m.KnowledgeBase | None = None) -> str:
    try:
        answer = AnswerDocument.from_json(json_loads(answer_json)) if answer_json else None
    except (ValueError, TypeError, AttributeError):  # not JSON, or not an answer document
        return ""
    best = answer.best if answer is not None else None
    if best is None:
        return t("home_unsure", lang)
    return entry_title(kb, best.id, lang) or tidy(best.title) or best.id


def user_section(ctx: BotContext, user_hash: str, lang: str, kb: m.KnowledgeBase | None = None) -> list[Block]:
    rows = ctx.store.recent_answers(user_hash, RECENT)
    blocks: list[Block] = [HeaderBlock(text=PlainTextObject(text=t("home_yours", lang)))]
    if not rows:
        return blocks + sections(t("home_none", lang))
    ids = [r.id for r in rows]
    with ctx.store.session() as session:
        verified = {}
        for v in session.scalars(select(Verification).where(Verification.answer_id.in_(ids))
                                 .order_by(Verification.id)):
            verified[v.answer_id] = v
        votes = dict(session.execute(select(Vote.answer_id, Vote.vote).where(Vote.answer_id.in_(ids),
                                                                            Vote.user_hash == user_hash)).all())
    lines = []
    for r in rows:
        outcome = []
        v = verified.get(r.id)
        if v is not None and v.surface != FEEDBACK_SURFACE:  # a 👎 an old version stored as a run: a vote
            outcome.append(t("home_verified", lang) if v.reproduced else t("home_not_reproduced", lang))
        if r.id in votes:
            outcome.append("👍" if votes[r.id] == 1 else "👎")
        when = r.created_at.strftime("%Y-%m-%d") if r.created_at else ""
        line = f"• {escape(_answer_title(r.answer_json, lang, kb))}  _{when}_"
        if outcome:
            line += " · " + " · ".join(outcome)
        lines.append(line)
    return blocks + sections("\n".join(lines))


def admin_section(ctx: BotContext, lang: str, kb: m.KnowledgeBase | None = None) -> list[Block]:
    since = utcnow() - WINDOW
    with ctx.store.session() as session:
        asked = session.execute(select(Answer.entry_id, func.count()).where(Answer.entry_id.is_not(None),
                                                                            Answer.created_at >= since)
                                .group_by(Answer.entry_id).order_by(func.count().desc()).limit(TOP)).all()
        titles = {}
        for entry_id, _n in asked:
            titles[entry_id] = entry_title(kb, entry_id, lang)
            if titles[entry_id] is None:  # an entry the knowledge base no longer has: the title it was shown with
                latest = session.scalar(select(Answer.answer_json).where(Answer.entry_id == entry_id)
                                        .order_by(Answer.id.desc()).limit(1))
                titles[entry_id] = _answer_title(latest, lang) or entry_id
        gaps = list(session.scalars(select(CoverageGap).order_by(CoverageGap.count.desc(), CoverageGap.last_seen.desc())
                                    .limit(5)))
        runs = session.execute(
            select(VerificationOutcome.entry_id, VerificationOutcome.item_id, func.count(),
                   func.sum(case((VerificationOutcome.status == Status.FIXED.value, 1), else_=0)))
            .join(Verification, Verification.id == VerificationOutcome.verification_id)
            .where(VerificationOutcome.kind == "workaround", VerificationOutcome.counted.is_(True),
                   Verification.counted.is_not(False), is_run())
            .group_by(VerificationOutcome.entry_id, VerificationOutcome.item_id)
            .order_by(func.count().desc()).limit(TOP)).all()
        votes = session.execute(
            select(Answer.entry_id, func.sum(case((Vote.vote > 0, 1), else_=0)),
                   func.sum(case((Vote.vote < 0, 1), else_=0)))
            .join(Vote, Vote.answer_id == Answer.id).where(Answer.entry_id.is_not(None))
            .group_by(Answer.entry_id).order_by(func.count().desc(), Answer.entry_id).limit(TOP)).all()
    blocks: list[Block] = [DividerBlock(), HeaderBlock(text=PlainTextObject(text=t("home_admin", lang)))]
    if asked:
        top = max(n for _, n in asked)
        blocks += sections(f"*{t('most_asked', lang)}*\n" + "\n".join(
            f"{bar(n, top)} {n}  {escape(titles[e])}" for e, n in asked))
    else:
        blocks += sections(f"*{t('most_asked', lang)}*\n{t('nothing_yet', lang)}")
    if gaps:
        blocks += sections(f"*{t('unanswered', lang)}*\n" + "\n".join(
            f"• {g.count}×  `{escape(g.excerpt[:120])}`" for g in gaps))
    else:
        blocks += sections(f"*{t('unanswered', lang)}*\n{t('nothing_yet', lang)}")
    if runs:
        blocks += sections(f"*{t('home_fix_rates', lang)}*\n" + "\n".join(
            f"{bar(int(fixed or 0), n)} {t('home_runs', lang, k=int(fixed or 0), n=n)}  "
            f"{escape(entry_title(kb, entry, lang) or entry)} · {escape(fix_title(kb, entry, item, lang))}"
            for entry, item, n, fixed in runs))
    else:
        blocks += sections(f"*{t('home_fix_rates', lang)}*\n{t('nothing_yet', lang)}")
    # Votes apart from runs: what people said of the answers, never a run count or a rate.
    if votes:
        blocks += sections(f"*{t('home_votes', lang)}*\n" + "\n".join(
            f"👍 {int(up or 0)} 👎 {int(down or 0)}  {escape(entry_title(kb, entry, lang) or entry)}"
            for entry, up, down in votes))
    blocks.append(context(t("home_window", lang)))
    return blocks


def home_view(ctx: BotContext, team: str | None, user: str, lang: str | None = None) -> View:
    """The tab for `user`, in `lang` or else the viewer's language (viewer_language)."""
    user_hash = ctx.store.user_hash(team, user)
    lang = lang or viewer_language(ctx, user_hash)
    kb = _knowledge()
    blocks = user_section(ctx, user_hash, lang, kb)
    if is_admin(ctx, user):
        blocks += admin_section(ctx, lang, kb)
    return View(type="home", blocks=blocks[:100])
