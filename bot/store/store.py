"""Operations on the store used by the Slack bot.

Everything that must hold across bot processes (one answer per message, one vote
per user, one running verification per user) rests on a unique key in the
database, never on memory in one process.
"""

from __future__ import annotations

import json

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from sqlalchemy import Engine, delete, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from bot.logs import redact
from bot.settings import get_settings
from bot.store.db import make_engine, migrate
from bot.store.owed import OwedWorkStore, current_owner
from bot.store.models import (Answer, ChannelSettings, CoverageGap, DedupeKey, Meta, PendingExample, Verification,
                              VerificationLock, Vote, VoteReason, utcnow)

DEDUPE_KEEP = timedelta(days=3)  # Slack retries within minutes; keep keys well past that
LOCK_STALE_AFTER = timedelta(minutes=30)  # a crashed run must not lock its user out forever


@dataclass(frozen=True)
class VoteResult:
    changed: bool
    up: int
    down: int


class Store(OwedWorkStore):
    def __init__(self, engine: Engine):
        self.engine = engine
        self._session = sessionmaker(engine, expire_on_commit=False)
        self._salt: bytes | None = None

    # -- identities -------------------------------------------------------------------
    def user_hash(self, team_id: str | None, user_id: str) -> str:
        """A salted hash standing for a Slack user; the raw id is never stored."""
        message = f"{team_id or ''}:{user_id}".encode()
        return hmac.new(self._id_salt(), message, hashlib.sha256).hexdigest()

    def _id_salt(self) -> bytes:
        if self._salt is None:
            configured = get_settings().id_salt
            if configured:
                self._salt = configured.encode()
            else:
                self._salt = self._meta_value("id_salt", lambda: secrets.token_hex(32)).encode()
        return self._salt

    def _meta_value(self, key: str, make) -> str:
        """Read a meta value, creating it once (the first process to insert wins)."""
        with self._session() as session:
            row = session.get(Meta, key)
            if row is not None:
                return row.value
            session.add(Meta(key=key, value=make()))
            _commit_unless_taken(session)
        with self._session() as session:
            return session.get(Meta, key).value

    # -- dedupe -----------------------------------------------------------------------
    def claim(self, *keys: str) -> bool:
        """Record every key at once; False when any of them was recorded before (by this
        or another process), in which case none is added."""
        keys = tuple(dict.fromkeys(k[:255] for k in keys if k))
        if not keys:
            return True
        owner = current_owner.get()
        with self._session() as session:
            session.add_all(DedupeKey(key=k, owner=owner) for k in keys)
            if _commit_unless_taken(session):
                return True
        if owner is None:
            return False
        # A later attempt of the same owed work: the keys its first attempt claimed are its own.
        with self._session() as session:
            held = {row.key: row.owner for row in session.scalars(select(DedupeKey).where(DedupeKey.key.in_(keys)))}
            if any(holder != owner for holder in held.values()):
                return False
            session.add_all(DedupeKey(key=k, owner=owner) for k in keys if k not in held)
            return _commit_unless_taken(session)

    def is_claimed(self, key: str) -> bool:
        with self._session() as session:
            return session.get(DedupeKey, key[:255]) is not None

    def prune_dedupe_keys(self, older_than: timedelta = DEDUPE_KEEP) -> int:
        with self._session() as session:
            result = session.execute(delete(DedupeKey).where(DedupeKey.created_at < utcnow() - older_than))
            session.commit()
            return result.rowcount or 0

    # -- answers ----------------------------------------------------------------------
    def add_answer(self, *, entry_id: str | None, confidence: float | None, language: str, surface: str,
                   error_hash: str, channel: str | None = None, thread_ts: str | None = None,
                   question_ts: str | None = None, answer_json: str | None = None, asker: str | None = None) -> int:
        with self._session() as session:
            row = Answer(entry_id=entry_id, confidence=confidence, language=language, surface=surface,
                         error_hash=error_hash, channel=channel, thread_ts=thread_ts, question_ts=question_ts,
                         answer_json=answer_json, asker=asker)
            session.add(row)
            session.commit()
            return row.id

    def set_answer_picked(self, answer_id: int, *, entry_id: str, confidence: float | None, answer_json: str) -> None:
        """The asker picked one of a choices answer's candidates: the answer is that entry now."""
        with self._session() as session:
            session.execute(update(Answer).where(Answer.id == answer_id)
                            .values(entry_id=entry_id, confidence=confidence, answer_json=answer_json))
            session.commit()

    def set_answer_posted(self, answer_id: int, channel: str, ts: str) -> None:
        with self._session() as session:
            row = session.get(Answer, answer_id)
            if row is not None:
                row.channel, row.ts = channel, ts
                session.commit()

    def get_answer(self, answer_id: int) -> Answer | None:
        with self._session() as session:
            return session.get(Answer, answer_id)

    def answers_to_message(self, channel: str, question_ts: str) -> list[Answer]:
        with self._session() as session:
            rows = session.scalars(select(Answer).where(Answer.channel == channel, Answer.question_ts == question_ts))
            return list(rows)

    def answered_in_thread(self, channel: str, thread_ts: str) -> Answer | None:
        """The bot's latest posted answer in this thread (None when it has not answered there)."""
        with self._session() as session:
            return session.scalars(select(Answer).where(Answer.channel == channel, Answer.thread_ts == thread_ts,
                                                        Answer.ts.is_not(None))
                                   .order_by(Answer.id.desc()).limit(1)).first()

    def recent_answers(self, asker: str, limit: int = 10) -> list[Answer]:
        with self._session() as session:
            return list(session.scalars(select(Answer).where(Answer.asker == asker)
                                        .order_by(Answer.id.desc()).limit(limit)))

    # -- votes ------------------------------------------------------------------------
    def vote(self, answer_id: int, user_hash: str, vote: int) -> VoteResult:
        """One vote per user per answer: the same vote again changes nothing; the other
        vote replaces the first."""
        if vote not in (1, -1):
            raise ValueError(f"vote must be +1 or -1, got {vote!r}")
        changed = False
        for _attempt in range(2):  # a concurrent first vote by the same user: retry as an update
            with self._session() as session:
                row = session.scalars(select(Vote).where(Vote.answer_id == answer_id,
                                                         Vote.user_hash == user_hash)).first()
                if row is None:
                    session.add(Vote(answer_id=answer_id, user_hash=user_hash, vote=vote))
                elif row.vote != vote:
                    row.vote = vote
                else:
                    break
                if _commit_unless_taken(session):
                    changed = True
                    break
        up, down = self.vote_counts(answer_id)
        return VoteResult(changed, up, down)

    def vote_counts(self, answer_id: int) -> tuple[int, int]:
        with self._session() as session:
            rows = dict(session.execute(select(Vote.vote, func.count()).where(Vote.answer_id == answer_id)
                                        .group_by(Vote.vote)).all())
        return rows.get(1, 0), rows.get(-1, 0)

    def user_vote(self, answer_id: int, user_hash: str) -> int | None:
        with self._session() as session:
            return session.scalar(select(Vote.vote).where(Vote.answer_id == answer_id, Vote.user_hash == user_hash))

    def add_vote_reason(self, *, answer_id: int, user_hash: str, entry_id: str | None, workaround_id: str | None,
                        reason: str, comment: str | None) -> bool:
        """One reason per user per answer; a second one replaces the first. True when it is new."""
        with self._session() as session:
            row = session.scalars(select(VoteReason).where(VoteReason.answer_id == answer_id,
                                                           VoteReason.user_hash == user_hash)).first()
            new = row is None
            if new:
                row = VoteReason(answer_id=answer_id, user_hash=user_hash)
                session.add(row)
            row.entry_id, row.workaround_id = entry_id, workaround_id
            # tokens and secrets never reach the database; the comment's age starts now (the sweep)
            row.reason, row.comment = reason, redact((comment or "").strip())[:500] or None
            row.created_at = utcnow()
            if not _commit_unless_taken(session):
                return False
            return new

    def vote_reason_counts(self) -> dict[str, dict[str, int]]:
        """entry id -> reason -> count."""
        with self._session() as session:
            rows = session.execute(select(VoteReason.entry_id, VoteReason.reason, func.count())
                                   .group_by(VoteReason.entry_id, VoteReason.reason)).all()
        out: dict[str, dict[str, int]] = {}
        for entry_id, reason, count in rows:
            out.setdefault(entry_id or "-", {})[reason] = count
        return out

    # -- per-channel settings -----------------------------------------------------------
    def channel_settings(self, team: str | None, channel: str | None) -> ChannelSettings | None:
        if not channel:
            return None
        with self._session() as session:
            return session.get(ChannelSettings, (team or "-", channel))

    def set_channel_settings(self, team: str | None, channel: str, *, updated_by: str, **values) -> ChannelSettings:
        allowed = {"auto_answer", "language", "verify_allowed"}
        for _attempt in range(2):
            with self._session() as session:
                row = session.get(ChannelSettings, (team or "-", channel))
                if row is None:
                    row = ChannelSettings(team=team or "-", channel=channel)
                    session.add(row)
                for key, value in values.items():
                    if key not in allowed:
                        raise ValueError(f"unknown channel setting {key!r}")
                    setattr(row, key, value)
                row.updated_by, row.updated_at = updated_by, utcnow()
                if _commit_unless_taken(session):
                    return row
        raise RuntimeError("channel settings could not be saved")

    def auto_answer_channels(self) -> set[tuple[str, str]]:
        with self._session() as session:
            return {(r.team, r.channel) for r in session.scalars(select(ChannelSettings)
                                                                  .where(ChannelSettings.auto_answer.is_(True)))}

    # -- retention: what people typed is kept TROUBLESHOOT_RETENTION_DAYS -----------------
    def sweep_expired(self, days: int | None = None, *, now: datetime | None = None) -> dict[str, int]:
        """Delete what people typed that is older than `days` (default the setting; 0 keeps
        everything): coverage gaps last seen before then (their excerpt is the question),
        the comments of votes (the reason stays, counted), snippets kept with consent (the
        run and its sha256 stay), examples pending review (bot/evidence/learn.py) and the
        question a choices answer keeps for a pick (`examples` counts both). Returns how many of each went."""
        days = get_settings().retention_days if days is None else days
        if days <= 0:
            return {"gaps": 0, "comments": 0, "snippets": 0, "examples": 0}
        cutoff = (now or utcnow()) - timedelta(days=days)
        with self._session() as session:
            gaps = session.execute(delete(CoverageGap).where(CoverageGap.last_seen < cutoff))
            comments = session.execute(update(VoteReason).where(VoteReason.created_at < cutoff,
                                                                VoteReason.comment.is_not(None))
                                       .values(comment=None))
            snippets = session.execute(update(Verification).where(Verification.created_at < cutoff,
                                                                  Verification.snippet.is_not(None))
                                       .values(snippet=None))
            examples = session.execute(delete(PendingExample).where(PendingExample.last_seen < cutoff))
            questions = 0
            for row in session.scalars(select(Answer).where(Answer.created_at < cutoff,
                                                            Answer.answer_json.like('%"question":%'))):
                doc = json.loads(row.answer_json)
                if doc.pop("question", None) is not None:
                    row.answer_json = json.dumps(doc, ensure_ascii=False)
                    questions += 1
            session.commit()
        return {"gaps": gaps.rowcount or 0, "comments": comments.rowcount or 0, "snippets": snippets.rowcount or 0,
                "examples": (examples.rowcount or 0) + questions}

    # -- one running verification per user ----------------------------------------------
    def lock_verification(self, user_hash: str, answer_id: int | None = None) -> bool:
        with self._session() as session:
            session.execute(delete(VerificationLock).where(
                VerificationLock.user_hash == user_hash,
                VerificationLock.started_at < datetime.now(timezone.utc) - LOCK_STALE_AFTER))
            session.add(VerificationLock(user_hash=user_hash, answer_id=answer_id))
            return _commit_unless_taken(session)

    def unlock_verification(self, user_hash: str) -> None:
        with self._session() as session:
            session.execute(delete(VerificationLock).where(VerificationLock.user_hash == user_hash))
            session.commit()

    def session(self) -> Session:
        return self._session()


def open_store(url: str | None = None) -> Store:
    """Connect (DATABASE_URL or the default SQLite file), upgrade the schema, prune old
    dedupe keys and sweep what is past TROUBLESHOOT_RETENTION_DAYS."""
    engine = make_engine(url)
    migrate(engine)
    store = Store(engine)
    store.prune_dedupe_keys()
    store.prune_finished_work()
    store.sweep_expired()
    return store


def _commit_unless_taken(session: Session) -> bool:
    """Commit new rows whose primary key makes them a claim; False (nothing kept) when
    another process or thread already holds one of those keys."""
    try:
        session.commit()
        return True
    except IntegrityError:
        session.rollback()
        return False
