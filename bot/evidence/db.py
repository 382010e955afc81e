"""The store the evidence lives in: the bot's own (bot.store), opened once per process
and database URL.

Reading never creates a database: when the default SQLite file does not exist yet
there is simply no evidence (answers show the knowledge base's priors).
"""

from __future__ import annotations

import threading
from pathlib import Path

from sqlalchemy.engine import make_url

from bot.store import Store, open_store
from bot.store.db import database_url

_lock = threading.Lock()
_stores: dict[str, Store] = {}


def get_store(*, create: bool = True) -> Store | None:
    """The store for DATABASE_URL (or the default SQLite file), schema upgraded.
    With create=False, None where the SQLite file is not there yet."""
    url = database_url()
    with _lock:
        store = _stores.get(url)
        if store is not None:
            return store
        if not create and not _exists(url):
            return None
        store = _stores[url] = open_store(url)
        return store


def _exists(url: str) -> bool:
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return True
    database = parsed.database
    return bool(database) and database != ":memory:" and Path(database or "").exists()


def forget() -> None:
    """Drop the cached stores (tests that move DATABASE_URL or TROUBLESHOOT_VAR_DIR)."""
    with _lock:
        for store in _stores.values():
            store.engine.dispose()
        _stores.clear()


def backend_name(store: Store) -> str:
    return store.engine.dialect.name
