"""Tables of the store: the Slack tables (dedupe keys, answers, votes, verification
locks) and the evidence tables (verifications, their outcomes, coverage gaps), in one
metadata so that one Alembic history covers them all. New tables go here and get
their own Alembic revision under migrations/versions.

No tokens and no raw Slack user ids are kept: users appear only as a salted hash
(see `Store.user_hash`).

The evidence tables (revision 0002_evidence), what is kept and what is not:
- one `verifications` row per verification report received (CLI, queue or Slack): the
  matched entry, where it ran (torch, CUDA, GPU), time and memory of the original run,
  the sha256 of the snippet, and the snippet itself only when the asker agreed;
- one `verification_outcomes` row per fix tried in it (workaround, dead end or the
  asker's own version): its status, time and memory. Error messages are not kept
  (they can hold the asker's paths and data); the entry they were classified to is;
- one `coverage_gaps` row per normalised error signature that got no confident
  answer: a short excerpt with placeholders instead of paths, numbers and user
  identifiers, how often it was asked and when last.
"""

from __future__ import annotations

from datetime import datetime, timezone

from sqlalchemy import (BigInteger, Boolean, DateTime, Float, ForeignKey, Index, Integer, SmallInteger, String, Text,
                        UniqueConstraint)
from sqlalchemy import true as sa_true
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
    # The owed work (OwedWork, as "work:<id>") that claimed it: a replay of that same work
    # after a crash or a failed attempt may claim it again; anyone else may not.
    owner: Mapped[str | None] = mapped_column(String(64))


class OwedWork(Base):
    """A Slack request the bot acknowledged and still owes work for (an answer, a vote, a
    modal...): written before the ack, so a crash or a deploy never loses it. `state` is
    owed until a process finished it (done) or gave up on it after the apology (failed).
    A process holds it while `lease_until` is ahead (renewed while it works); a lease that
    runs out (the holder died) lets any process of the bot take it again."""

    __tablename__ = "owed_work"
    __table_args__ = (Index("ix_owed_work_state_lease", "state", "lease_until"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    kind: Mapped[str] = mapped_column(String(16))             # event, command, interaction
    content_type: Mapped[str] = mapped_column(String(64))
    body: Mapped[str] = mapped_column(Text)                   # the request body as Slack sent it
    state: Mapped[str] = mapped_column(String(8), default="owed")  # owed, done, failed
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    lease_owner: Mapped[str | None] = mapped_column(String(64))
    lease_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    not_before: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))  # a retry's back-off
    last_error: Mapped[str | None] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


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
    # The answer as shown (the `ask --json` document: knowledge text, no user text, but
    # for a choices answer its `question`: the error line or the asker's words,
    # normalised and redacted, which a pick keeps for review; the retention sweep drops
    # it), so that votes, picks and "Share" can redraw it from any bot process.
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


# --- evidence (bot.evidence records and reads these) ------------------------------------


class Verification(Base):
    __tablename__ = "verifications"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    # The job id of an executor's report: the same report received twice is stored once.
    report_key: Mapped[str | None] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    surface: Mapped[str] = mapped_column(String(16))  # cli, queue, slack
    answer_id: Mapped[int | None] = mapped_column(ForeignKey("answers.id", ondelete="SET NULL"))
    entry_id: Mapped[str | None] = mapped_column(String(128), index=True)
    reproduced: Mapped[bool] = mapped_column(Boolean)
    exit_reason: Mapped[str | None] = mapped_column(String(16))
    error_type: Mapped[str | None] = mapped_column(String(128))
    torch: Mapped[str | None] = mapped_column(String(64))
    cuda: Mapped[str | None] = mapped_column(String(32))
    gpu: Mapped[str | None] = mapped_column(String(128))
    python: Mapped[str | None] = mapped_column(String(32))
    seconds: Mapped[float | None] = mapped_column(Float)
    peak_memory_bytes: Mapped[int | None] = mapped_column(BigInteger)
    peak_gpu_memory_bytes: Mapped[int | None] = mapped_column(BigInteger)
    snippet_sha256: Mapped[str] = mapped_column(String(64), index=True)
    consent: Mapped[bool] = mapped_column(Boolean, default=False)
    snippet: Mapped[str | None] = mapped_column(Text)  # only when consent is true
    # Who asked: a salted hash (Slack user, or the CLI's OS user); one asker's runs count as one voice.
    asker: Mapped[str | None] = mapped_column(String(64), index=True)
    # False when the run cannot be evidence (the snippet read its own source).
    counted: Mapped[bool] = mapped_column(Boolean, default=True, server_default=sa_true())


class VerificationOutcome(Base):
    __tablename__ = "verification_outcomes"
    __table_args__ = (Index("ix_verification_outcomes_item", "entry_id", "item_id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    verification_id: Mapped[int] = mapped_column(ForeignKey("verifications.id", ondelete="CASCADE"), index=True)
    entry_id: Mapped[str] = mapped_column(String(128))
    item_id: Mapped[str] = mapped_column(String(128))  # workaround or dead end id, or "user-fixed"
    kind: Mapped[str] = mapped_column(String(16))  # workaround, dead_end, user
    patch: Mapped[str | None] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(16))  # fixed, still_fails, new_error, not_applicable, timeout
    new_entry_id: Mapped[str | None] = mapped_column(String(128))  # the entry a new error was classified to
    seconds: Mapped[float | None] = mapped_column(Float)
    peak_memory_bytes: Mapped[int | None] = mapped_column(BigInteger)
    peak_gpu_memory_bytes: Mapped[int | None] = mapped_column(BigInteger)
    counted: Mapped[bool] = mapped_column(Boolean, default=True, server_default=sa_true())  # see Verification.counted


class CoverageGap(Base):
    __tablename__ = "coverage_gaps"
    signature: Mapped[str] = mapped_column(String(64), primary_key=True)  # sha256 of the normalised error
    excerpt: Mapped[str] = mapped_column(String(240))
    language: Mapped[str | None] = mapped_column(String(8))
    count: Mapped[int] = mapped_column(Integer, default=1)
    nearest_entry_id: Mapped[str | None] = mapped_column(String(128))  # the best guess that was not confident
    nearest_confidence: Mapped[float | None] = mapped_column(Float)
    first_seen: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    last_seen: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, index=True)


class PendingExample(Base):
    """A question an asker tied to an entry (picked it among choices, or gave its answer
    a 👍), waiting for review: `troubleshoot kb learn`. Only the normalised error or
    question text is kept, secrets redacted; nothing reaches the knowledge base without
    `kb learn accept`. Rejected ones stay (status "rejected") so the same text is not
    proposed again, until the retention sweep."""

    __tablename__ = "pending_examples"
    key: Mapped[str] = mapped_column(String(64), primary_key=True)  # sha256 of entry id + text
    entry_id: Mapped[str] = mapped_column(String(128), index=True)
    text: Mapped[str] = mapped_column(String(1000))
    language: Mapped[str | None] = mapped_column(String(8))
    source: Mapped[str] = mapped_column(String(16))  # pick | upvote (the latest way it came)
    count: Mapped[int] = mapped_column(Integer, default=1)
    status: Mapped[str] = mapped_column(String(16), default="pending")  # pending | rejected
    first_seen: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    last_seen: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, index=True)
