"""Engine and schema upgrades.

`DATABASE_URL` picks the database (any SQLAlchemy URL, e.g.
`postgresql+psycopg://user@host/db`); by default an SQLite file under
settings.var_dir(). `migrate()` applies the Alembic revisions in
bot/store/migrations; several processes may start at once, so upgrades run under a
lock (a file lock for SQLite, an advisory lock for PostgreSQL).
"""

from __future__ import annotations

import contextlib
import fcntl
from pathlib import Path

from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import SQLAlchemyError

from bot import settings
from bot import backoff

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
_PG_LOCK_ID = 0x7472626C  # an arbitrary constant naming "our" advisory lock


def database_url() -> str:
    url = settings.get_settings().database_url
    if url:
        # Hosting platforms hand out postgres:// URLs; SQLAlchemy wants a driver name.
        for prefix in ("postgres://", "postgresql://"):
            if url.startswith(prefix):
                return "postgresql+psycopg://" + url[len(prefix):]
        return url
    path = settings.var_dir() / "troubleshoot.db"
    return f"sqlite:///{path}"


def _server_engine(url: str) -> Engine:
    """A database server's engine with timeouts: a connect timeout, a statement timeout
    (PostgreSQL) and TCP timeouts, so a server that accepts and never answers is an
    error within seconds; and a back-off (bot/backoff.py), so it is not tried again on
    every call."""

    cfg = settings.get_settings()
    parsed = make_url(url)
    connect_seconds = max(1, int(round(cfg.db_timeout_seconds)))
    args: dict = {}
    if parsed.get_backend_name() == "postgresql":
        statement_ms = int(cfg.db_statement_seconds * 1000)
        args = {"connect_timeout": connect_seconds,
                "options": f"-c statement_timeout={statement_ms}",
                # a server that stops answering mid-statement: the socket gives up too
                "tcp_user_timeout": statement_ms + 5000,
                "keepalives": 1, "keepalives_idle": 10, "keepalives_interval": 5, "keepalives_count": 3}
    elif parsed.get_backend_name() in ("mysql", "mariadb"):
        args = {"connect_timeout": connect_seconds, "read_timeout": int(cfg.db_statement_seconds) + 5}
    args = {k: v for k, v in args.items() if k not in parsed.query}  # the URL's own choice wins
    engine = create_engine(url, pool_pre_ping=True, pool_timeout=cfg.db_timeout_seconds, connect_args=args)
    key = "database:" + parsed.render_as_string(hide_password=True)
    where = parsed.render_as_string(hide_password=True)

    @event.listens_for(engine, "do_connect")
    def _connect(dialect, _conn_rec, cargs, cparams):
        backoff.check(key, f"the database at {where}")
        try:
            conn = dialect.connect(*cargs, **cparams)
        except Exception as exc:
            first = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else ""
            backoff.failed(key, f"{type(exc).__name__}: {first}")
            raise
        backoff.succeeded(key)
        return conn

    return engine


def make_engine(url: str | None = None) -> Engine:
    url = url or database_url()
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return _server_engine(url)
    if parsed.database and parsed.database != ":memory:":
        Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url, connect_args={"timeout": 30, "check_same_thread": False})

    @event.listens_for(engine, "connect")
    def _sqlite_pragmas(dbapi_conn, _record):
        # WAL lets readers and one writer work at once across processes; foreign
        # keys are off by default in SQLite.
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        # In WAL mode NORMAL syncs at checkpoints, not at every commit: a commit survives the
        # process being killed (it is in the WAL file), only not the machine losing power;
        # write transactions (the owed work of every ack) then hold the lock far shorter.
        cur.execute("PRAGMA synchronous=NORMAL")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute("PRAGMA busy_timeout=30000")
        cur.close()

    return engine


@contextlib.contextmanager
def _migration_lock(engine: Engine, conn):
    if engine.dialect.name == "sqlite" and engine.url.database not in (None, "", ":memory:"):
        lock_path = Path(engine.url.database + ".migrate.lock")
        with open(lock_path, "w") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)
    elif engine.dialect.name == "postgresql":
        conn.execute(text("SELECT pg_advisory_lock(:id)"), {"id": _PG_LOCK_ID})
        try:
            yield
        finally:
            conn.execute(text("SELECT pg_advisory_unlock(:id)"), {"id": _PG_LOCK_ID})
    else:
        yield


def _head_revision() -> str | None:
    """The one newest revision of bot/store/migrations, read from the files (no Alembic)."""
    import ast

    revisions: dict[str, str | None] = {}
    for path in (MIGRATIONS / "versions").glob("*.py"):
        values = {}
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                    and node.targets[0].id in ("revision", "down_revision"):
                values[node.targets[0].id] = node.value.value if isinstance(node.value, ast.Constant) else ...
        if "revision" in values:
            revisions[values["revision"]] = values.get("down_revision")
    if any(not isinstance(v, (str, type(None))) for v in revisions.values()):
        return None  # merge revisions (tuples): let Alembic decide
    heads = set(revisions) - set(revisions.values())
    return next(iter(heads)) if len(heads) == 1 else None


def _at_head(engine: Engine) -> bool:
    head = _head_revision()
    if head is None:
        return False
    try:
        with engine.connect() as conn:
            rows = conn.execute(text("SELECT version_num FROM alembic_version")).fetchall()
    except SQLAlchemyError:  # no table yet, or no database yet
        return False
    return [r[0] for r in rows] == [head]


def migrate(engine: Engine) -> None:
    """Bring the schema to the newest revision (a no-op when it is there already).

    A store already at the newest revision is left alone without importing Alembic (a
    cold `troubleshoot ask` saved about 0.4 s)."""
    if _at_head(engine):
        return
    from alembic import command
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    with engine.connect() as conn, _migration_lock(engine, conn):
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")
        conn.commit()
