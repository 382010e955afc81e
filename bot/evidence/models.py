"""Tables of the evidence store, beside the Slack tables of bot/store/models.py (same
metadata, so one Alembic history covers both: revision 0002_evidence).

What is kept, and what is not:
- one `verifications` row per verification report received (CLI, queue or Slack): the
  matched entry, where it ran (torch, CUDA, GPU), time and memory of the original run,
  the sha256 of the snippet, and the snippet itself only when the asker agreed;
- one `verification_outcomes` row per fix tried in it (workaround, dead end or the
  asker's own version): its status, time and memory. Error messages are not kept
  (they can hold the asker's paths and data); the entry they were classified to is;
- one `coverage_gaps` row per normalised error signature that got no confident
  answer: a short excerpt with placeholders instead of paths, numbers and user
  identifiers, how often it was asked and when last.
Answers and votes live in the Slack tables (`answers`, `votes`); users there are
salted hashes only.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Boolean, DateTime, Float, ForeignKey, Index, Integer, String, Text
from sqlalchemy import true as sa_true
from sqlalchemy.orm import Mapped, mapped_column

from bot.store.models import Base, utcnow


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
