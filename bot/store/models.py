"""Tables of the store.

No tokens and no raw Slack user ids are kept: users appear only as a salted hash
(see `Store.user_hash`). Issue 7 adds verification and evidence tables beside these;
new tables go here and get their own Alembic revision under migrations/versions.
"""

from __future__ import annotations

from datetime import datetime, timezone

from sqlalchemy import (Boolean, DateTime, Float, ForeignKey, Index, Integer, SmallInteger, String, Text,
                        UniqueConstraint)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


class Base(DeclarativeBase):
    pass


class Meta(Base):
    """Small key/value settings the store keeps for itself (the id salt)."""

    __tablename__ = "meta"
    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(String(256))


class DedupeKey(Base):
    """A Slack delivery or message already handled; the primary key makes a claim atomic
    across processes (see Store.claim)."""

    __tablename__ = "slack_dedupe_keys"
    key: Mapped[str] = mapped_column(String(255), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, index=True)


class Answer(Base):
    """One answer the bot posted (or is posting: ts is set once Slack returns it)."""

    __tablename__ = "answers"
    __table_args__ = (Index("ix_answers_channel_question", "channel", "question_ts"),
                      Index("ix_answers_channel_thread", "channel", "thread_ts"))
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    channel: Mapped[str | None] = mapped_column(String(32))
    ts: Mapped[str | None] = mapped_column(String(32))
    thread_ts: Mapped[str | None] = mapped_column(String(32))
    question_ts: Mapped[str | None] = mapped_column(String(32))  # the message answered, if any
    entry_id: Mapped[str | None] = mapped_column(String(128), index=True)
    confidence: Mapped[float | None] = mapped_column(Float)
    language: Mapped[str] = mapped_column(String(8))
    surface: Mapped[str] = mapped_column(String(16))
    error_hash: Mapped[str] = mapped_column(String(64), index=True)
    # The answer as shown (the `ask --json` document: knowledge text, no user text),
    # so that votes and "Share" can redraw it from any bot process.
    answer_json: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    asker: Mapped[str | None] = mapped_column(String(64), index=True)  # salted hash (Store.user_hash)


class Vote(Base):
    __tablename__ = "votes"
    __table_args__ = (UniqueConstraint("answer_id", "user_hash", name="uq_votes_answer_user"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    answer_id: Mapped[int] = mapped_column(ForeignKey("answers.id", ondelete="CASCADE"), index=True)
    user_hash: Mapped[str] = mapped_column(String(64))
    vote: Mapped[int] = mapped_column(SmallInteger)  # +1 or -1
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, onupdate=utcnow)


class VoteReason(Base):
    """Why a 👎: one of DOWNVOTE_REASONS (bot/slack/blocks.py) and the asker's optional
    words (at most 500 characters, written to the team), one per user per answer."""

    __tablename__ = "vote_reasons"
    __table_args__ = (UniqueConstraint("answer_id", "user_hash", name="uq_vote_reasons_answer_user"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    answer_id: Mapped[int] = mapped_column(ForeignKey("answers.id", ondelete="CASCADE"))
    user_hash: Mapped[str] = mapped_column(String(64))
    entry_id: Mapped[str | None] = mapped_column(String(128), index=True)
    workaround_id: Mapped[str | None] = mapped_column(String(128))  # the fix shown first
    reason: Mapped[str] = mapped_column(String(16))
    comment: Mapped[str | None] = mapped_column(String(500))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ChannelSettings(Base):
    """Per-channel settings set with `/troubleshoot config`; None means "the default"."""

    __tablename__ = "channel_settings"
    team: Mapped[str] = mapped_column(String(32), primary_key=True)
    channel: Mapped[str] = mapped_column(String(32), primary_key=True)
    auto_answer: Mapped[bool | None] = mapped_column(Boolean)
    language: Mapped[str | None] = mapped_column(String(8))
    verify_allowed: Mapped[bool | None] = mapped_column(Boolean)
    updated_by: Mapped[str | None] = mapped_column(String(64))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, onupdate=utcnow)


class VerificationLock(Base):
    """At most one running verification per user: the row exists while it runs."""

    __tablename__ = "verification_locks"
    user_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    answer_id: Mapped[int | None] = mapped_column(Integer)
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


# The evidence tables (issue 7) share this metadata: whoever loads the store's models
# sees the whole schema that the migrations build.
import bot.evidence.models  # noqa: E402,F401
