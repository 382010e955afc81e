"""Operations on the store used by the Slack bot.

Everything that must hold across bot processes (one answer per message, one vote
per user, one running verification per user) rests on a unique key in the
database, never on memory in one process.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from sqlalchemy import Engine, delete, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from bot.settings import get_settings
from bot.store.db import make_engine, migrate
from bot.store.models import Answer, DedupeKey, Meta, VerificationLock, Vote, utcnow

DEDUPE_KEEP = timedelta(days=3)  # Slack retries within minutes; keep keys well past that
LOCK_STALE_AFTER = timedelta(minutes=30)  # a crashed run must not lock its user out forever


@dataclass(frozen=True)
class VoteResult:
    changed: bool
    up: int
    down: int


class Store:
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
        keys = tuple(dict.fromkeys(k for k in keys if k))
        if not keys:
            return True
        with self._session() as session:
            session.add_all(DedupeKey(key=k[:255]) for k in keys)
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
                   question_ts: str | None = None, answer_json: str | None = None) -> int:
        with self._session() as session:
            row = Answer(entry_id=entry_id, confidence=confidence, language=language, surface=surface,
                         error_hash=error_hash, channel=channel, thread_ts=thread_ts, question_ts=question_ts,
                         answer_json=answer_json)
            session.add(row)
            session.commit()
            return row.id

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
    dedupe keys."""
    engine = make_engine(url)
    migrate(engine)
    store = Store(engine)
    store.prune_dedupe_keys()
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
