"""The store the Slack bot relies on: dedupe keys, answers, votes and verification
locks hold across processes and restarts, on SQLite and PostgreSQL."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from datetime import timedelta

import pytest
from sqlalchemy import inspect, text

from bot.store import open_store
from bot.store.models import DedupeKey, utcnow


def test_schema_comes_from_alembic_and_upgrading_twice_is_harmless(store_url):
    store = open_store(store_url)
    open_store(store_url)  # second start: nothing to do
    tables = set(inspect(store.engine).get_table_names())
    assert {"alembic_version", "slack_dedupe_keys", "answers", "votes", "verification_locks", "meta"} <= tables
    with store.engine.connect() as conn:
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar() == _head()


def _head() -> str:
    """The newest revision in bot/store/migrations (later issues add theirs after 0001_slack)."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    from bot.store.db import MIGRATIONS

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    return ScriptDirectory.from_config(cfg).get_current_head()


def test_claim_is_all_or_nothing(store_url):
    store = open_store(store_url)
    assert store.claim("event:Ev1", "msg:C1:1.0")
    assert not store.claim("event:Ev1")
    # the app_mention and message events of one message share the message key
    assert not store.claim("event:Ev2", "msg:C1:1.0")
    assert not store.is_claimed("event:Ev2")  # nothing of a refused claim is kept
    assert store.claim("event:Ev2")


def test_old_dedupe_keys_are_pruned(store_url):
    store = open_store(store_url)
    with store.session() as session:
        session.add(DedupeKey(key="event:old", created_at=utcnow() - timedelta(days=30)))
        session.add(DedupeKey(key="event:new"))
        session.commit()
    assert store.prune_dedupe_keys() == 1
    assert store.is_claimed("event:new") and not store.is_claimed("event:old")


def test_a_vote_counts_once_per_user_and_survives_a_restart(store_url):
    store = open_store(store_url)
    answer = store.add_answer(entry_id="pytorch/backward-twice", confidence=0.9, language="ko",
                              surface="mention", error_hash="ab" * 32, channel="C1", thread_ts="1.0")
    alice, bob = store.user_hash("T1", "U_ALICE"), store.user_hash("T1", "U_BOB")
    assert alice != bob and "U_ALICE" not in alice
    assert store.vote(answer, alice, 1).changed
    assert store.vote(answer, alice, 1) == store.vote(answer, alice, 1)
    assert not store.vote(answer, alice, 1).changed
    result = store.vote(answer, bob, -1)
    assert (result.up, result.down) == (1, 1)
    result = store.vote(answer, bob, 1)  # bob changes his mind: still one vote
    assert result.changed and (result.up, result.down) == (2, 0)
    with pytest.raises(ValueError, match="vote must be"):
        store.vote(answer, bob, 5)

    restarted = open_store(store_url)
    assert restarted.vote_counts(answer) == (2, 0)
    assert restarted.user_hash("T1", "U_ALICE") == alice  # the salt is kept in the store
    row = restarted.get_answer(answer)
    assert (row.entry_id, row.language, row.surface) == ("pytorch/backward-twice", "ko", "mention")


def test_no_raw_user_id_is_stored(store_url):
    store = open_store(store_url)
    answer = store.add_answer(entry_id=None, confidence=None, language="en", surface="dm", error_hash="0" * 64)
    store.vote(answer, store.user_hash("T1", "U_SECRET_ID"), -1)
    store.lock_verification(store.user_hash("T1", "U_SECRET_ID"), answer)
    with store.engine.connect() as conn:
        for table in ("votes", "verification_locks", "answers", "meta"):
            for row in conn.execute(text(f"SELECT * FROM {table}")):
                assert "U_SECRET_ID" not in repr(tuple(row))


def test_one_running_verification_per_user(store_url):
    store = open_store(store_url)
    alice, bob = store.user_hash("T1", "UA"), store.user_hash("T1", "UB")
    assert store.lock_verification(alice, 1)
    assert not store.lock_verification(alice, 2)
    assert store.lock_verification(bob, 1)
    store.unlock_verification(alice)
    assert store.lock_verification(alice, 2)


def test_a_stale_verification_lock_expires(store_url):
    from bot.store.models import VerificationLock

    store = open_store(store_url)
    user = store.user_hash("T1", "UA")
    with store.session() as session:
        session.add(VerificationLock(user_hash=user, answer_id=1, started_at=utcnow() - timedelta(hours=2)))
        session.commit()
    assert store.lock_verification(user, 2)


@pytest.mark.slow
def test_two_processes_agree_on_claims(store_url, tmp_path):
    """Processes racing for the same keys: exactly one wins each key."""
    open_store(store_url)
    script = textwrap.dedent(f"""
        import sys
        from bot.store import open_store
        store = open_store({store_url!r})
        wins = [k for k in range(40) if store.claim(f"event:{{k}}", f"msg:C:{{k}}")]
        print(",".join(map(str, wins)))
    """)
    procs = [subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True) for _ in range(3)]
    outputs = [p.communicate(timeout=120)[0].strip() for p in procs]
    assert all(p.returncode == 0 for p in procs)
    wins = [int(k) for out in outputs if out for k in out.split(",")]
    assert sorted(wins) == list(range(40))


def test_models_and_migrations_agree(store_url):
    """A table or column added to models.py without a migration (or the reverse) fails here."""
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext

    from bot.store.models import Base

    store = open_store(store_url)
    with store.engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    assert diff == []
