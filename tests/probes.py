"""What this host offers the tests, asked once per session (tests/conftest.py turns the
answers into skips with the reason)."""

from __future__ import annotations

import functools
import os

PG_ADMIN_URL = os.environ.get("TROUBLESHOOT_TEST_PG", "postgresql://postgres@127.0.0.1:5432/postgres")


@functools.cache
def sandbox_probe() -> tuple[bool, str]:
    """(whether the sandbox runs on this host, why not)."""
    from bot.sandbox import sandbox_available

    return sandbox_available()


@functools.cache
def postgres_probe() -> str | None:
    """Why no PostgreSQL can be used here, or None when PG_ADMIN_URL answers."""
    try:
        import psycopg
    except ImportError:
        return "psycopg is not installed (pip install -e '.[postgres]')"
    try:
        psycopg.connect(PG_ADMIN_URL, autocommit=True, connect_timeout=3).close()
    except Exception as exc:  # noqa: BLE001 - any connection failure means: no server here
        return f"no PostgreSQL at {PG_ADMIN_URL} ({type(exc).__name__}: {exc}); .ci/services.sh starts one"
    return None
