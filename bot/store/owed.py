"""Owed work: the Slack requests the bot acknowledged and has not finished (issue 29).

The row is written before Slack gets its ack, so the work survives a crash, a deploy or a
failed attempt. A process works on a row only while it holds its lease; it renews the
lease while it works and clears it when it finishes or hands the row back. A lease that
runs out (its process died) lets any process take the row again.

`current_owner` names the owed work the running thread does (as `work:<id>`): a dedupe key
claimed by a first attempt of that work is its own on a later attempt (Store.claim), so a
replay goes on where the first attempt stopped instead of taking itself for a duplicate.
"""

from __future__ import annotations

from contextvars import ContextVar
from datetime import datetime, timedelta

from sqlalchemy import delete, func, insert, or_, select, update
from sqlalchemy.orm import Session, sessionmaker

from bot.store.models import OwedWork, utcnow

current_owner: ContextVar[str | None] = ContextVar("owed_work_owner", default=None)

OWED, DONE, FAILED = "owed", "done", "failed"
FINISHED_KEEP = timedelta(days=3)


def work_owner(work_id: int) -> str:
    return f"work:{work_id}"


class OwedWorkStore:
    """The owed-work operations of Store (mixed into it; `_session` is Store's)."""

    _session: sessionmaker[Session]

    def record_work(self, *, kind: str, content_type: str, body: str, holder: str | None,
                    lease_seconds: float) -> int:
        """Record a request before it is acknowledged; held by `holder` (None: by nobody,
        for whichever process takes it first)."""
        return self.record_works([(kind, content_type, body)], holder=holder, lease_seconds=lease_seconds)[0]

    def record_works(self, requests: list[tuple[str, str, str]], *, holder: str | None,
                     lease_seconds: float) -> list[int]:
        """record_work for several (kind, content type, body) in one transaction: a burst of
        acks takes the store's write lock a few times, not once each."""
        now = utcnow()
        until = now + timedelta(seconds=lease_seconds) if holder else None
        values = [{"kind": kind, "content_type": content_type[:64], "body": body, "state": OWED, "attempts": 0,
                   "lease_owner": holder, "lease_until": until, "created_at": now}
                  for kind, content_type, body in requests]
        # A Core INSERT ... RETURNING (no ORM objects): the acks wait on this, keep it lean.
        with self.engine.begin() as conn:  # type: ignore[attr-defined]
            ids = conn.execute(insert(OwedWork).returning(OwedWork.id, sort_by_parameter_order=True), values)
            return [row[0] for row in ids]

    def take_work(self, work_id: int, holder: str, lease_seconds: float) -> OwedWork | None:
        """Hold the row for one attempt (counted); None when it is finished, held by
        another process, or waiting out a retry's back-off."""
        now = utcnow()
        with self._session() as session:
            taken = session.execute(
                update(OwedWork)
                .where(OwedWork.id == work_id, OwedWork.state == OWED,
                       or_(OwedWork.lease_owner == holder, OwedWork.lease_until.is_(None), OwedWork.lease_until < now),
                       or_(OwedWork.not_before.is_(None), OwedWork.not_before <= now))
                .values(lease_owner=holder, lease_until=now + timedelta(seconds=lease_seconds),
                        attempts=OwedWork.attempts + 1))
            session.commit()
            if not taken.rowcount:
                return None
            return session.get(OwedWork, work_id)

    def due_work(self, limit: int) -> list[int]:
        """Owed rows nobody holds (or whose holder's lease ran out), oldest first."""
        now = utcnow()
        with self._session() as session:
            return list(session.scalars(
                select(OwedWork.id)
                .where(OwedWork.state == OWED, or_(OwedWork.lease_until.is_(None), OwedWork.lease_until < now),
                       or_(OwedWork.not_before.is_(None), OwedWork.not_before <= now))
                .order_by(OwedWork.id).limit(limit)))

    def renew_work(self, work_ids: list[int], holder: str, lease_seconds: float) -> int:
        if not work_ids:
            return 0
        with self._session() as session:
            done = session.execute(update(OwedWork)
                                   .where(OwedWork.id.in_(work_ids), OwedWork.lease_owner == holder,
                                          OwedWork.state == OWED)
                                   .values(lease_until=utcnow() + timedelta(seconds=lease_seconds)))
            session.commit()
            return done.rowcount or 0

    def finish_work(self, work_id: int, holder: str, state: str = DONE, error: str | None = None) -> bool:
        """Done (or failed for good); False when this holder no longer held it."""
        with self._session() as session:
            done = session.execute(update(OwedWork)
                                   .where(OwedWork.id == work_id, OwedWork.lease_owner == holder,
                                          OwedWork.state == OWED)
                                   .values(state=state, finished_at=utcnow(), lease_owner=None, lease_until=None,
                                           last_error=(error or None) and error[:200]))
            session.commit()
            return bool(done.rowcount)

    def release_work(self, work_ids: list[int], holder: str, *, retry_at: datetime | None = None,
                     error: str | None = None, attempts: int | None = None) -> int:
        """Hand rows back: any process may take them (from `retry_at` on). `attempts`: the
        attempts made so far, when the holder counted them itself."""
        if not work_ids:
            return 0
        values: dict = {"lease_owner": None, "lease_until": None, "not_before": retry_at}
        if error:
            values["last_error"] = error[:200]
        if attempts is not None:
            values["attempts"] = attempts
        with self._session() as session:
            done = session.execute(update(OwedWork)
                                   .where(OwedWork.id.in_(work_ids), OwedWork.lease_owner == holder,
                                          OwedWork.state == OWED)
                                   .values(**values))
            session.commit()
            return done.rowcount or 0

    def work_counts(self) -> dict[str, int]:
        with self._session() as session:
            return {state: n for state, n in session.execute(select(OwedWork.state, func.count())
                                                              .group_by(OwedWork.state)).all()}

    def prune_finished_work(self, older_than: timedelta = FINISHED_KEEP) -> int:
        with self._session() as session:
            gone = session.execute(delete(OwedWork).where(OwedWork.state != OWED,
                                                          OwedWork.finished_at < utcnow() - older_than))
            session.commit()
            return gone.rowcount or 0
