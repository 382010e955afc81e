"""Recording evidence: verification reports, `ask` answers and coverage gaps.

A verification is recorded on the one verification path: a surface passes a
`Recording` (how it wants the report kept: surface, asker, consent, the answer it
belongs to) to `bot.verify.service.run_verification(..., record=...)`, directly or
through an executor (bot/jobs), and the report is saved as part of the run:
- `troubleshoot verify`, `ask` on code, `kb verify` and the Slack bot: where the run
  ends, in this process;
- `troubleshoot verify --queue`: where the worker's report comes back
  (bot/jobs/remote.py): the worker itself never writes (it may run on a GPU machine
  with no access to the database).
Each report is saved once (the job's id is its key). `Recording` lives here, above
bot/verify, which knows it only as a `ReportRecorder` (bot/verify/report.py).
Votes are recorded by bot/evidence/votes.py, whose types cannot make a verification.
`troubleshoot ask` records its answer (the `answers` table, surface "cli") unless
TROUBLESHOOT_RECORD_ASK=0; both `ask` and Slack record a coverage gap for a
PyTorch question the knowledge base does not cover (not a greeting, not another
library's error), its excerpt redacted; the store sweeps gaps past
TROUBLESHOOT_RETENTION_DAYS (`Store.sweep_expired`).

Recording must never cost the user their answer or report: every function here
logs and returns None when the store fails.
"""

from __future__ import annotations

import hashlib
import os
import logging
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from sqlalchemy import update
from sqlalchemy.exc import IntegrityError

from bot.contract import Absent
from bot.evidence.db import get_store
from bot.evidence.rates import evidence_changed
from bot.evidence.signature import question_signature
from bot.evidence.learn import note_example
from bot.kb.loader import current_knowledge
from bot.logs import redact
from bot.settings import get_settings
from bot.store import Store
from bot.store.models import CoverageGap, Verification, VerificationOutcome, utcnow
from bot.verify.report import FixRow, VerifyReport

if TYPE_CHECKING:  # answers are built above this layer (bot/answer); here they are only read
    from bot.answer.document import AnswerDocument

log = logging.getLogger(__name__)

KINDS = ("workaround", "dead_end", "user")


def ask_recording_enabled() -> bool:
    return get_settings().record_ask


def _store(store: Store | None) -> Store:
    if store is not None:
        return store
    opened = get_store()
    if opened is None:  # get_store() creates the database: never None here
        raise RuntimeError("no evidence store")
    return opened


def _text(value: Any, limit: int) -> str | None:
    """A short string for a column, or None: report fields come from a sandboxed run of
    untrusted code and may be anything."""
    if value is None or isinstance(value, (dict, list, Absent)):
        return None
    text = str(value).strip()
    return text[:limit] if text else None


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _bytes(value: Any) -> int | None:
    return int(value) if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 1 << 62 else None


def _cuda(env: dict[str, Any]) -> str | None:
    """The CUDA the run had: the sandbox names no CUDA version, but torch's build tag does
    ("2.3.1+cu121" -> "12.1"); "none" when CUDA was not available."""
    explicit = _text(env.get("cuda") or env.get("cuda_version"), 32)
    if explicit:
        return explicit
    torch = str(env.get("torch") or "")
    tag = torch.partition("+")[2]
    if tag.startswith("cu") and tag[2:].isdigit() and len(tag) >= 4:
        return f"{tag[2:-1]}.{tag[-1]}" if env.get("cuda_available") is not False else "none"
    return "none" if env.get("cuda_available") is False or tag == "cpu" else None


def _canonical(entry_id: str | None) -> str | None:
    """Aliases resolve to the entry's id, so rates find the outcomes under the id they ask for."""
    if not entry_id:
        return None
    try:
        entry = current_knowledge().resolve(entry_id)
    except Exception:  # noqa: BLE001 - an unloadable knowledge base keeps the id as reported
        entry = None
    return entry.id if entry is not None else entry_id


def snippet_sha256(snippet: str) -> str:
    return hashlib.sha256(snippet.encode("utf-8", "surrogatepass")).hexdigest()


def cli_asker(store: Store | None = None) -> str:
    """The asker behind `troubleshoot verify` on this machine: a salted hash of the OS user."""
    import getpass

    try:
        user = getpass.getuser()
    except Exception:  # noqa: BLE001 - no name for this uid
        user = str(os.getuid())
    return _store(store).user_hash("cli", user)


@dataclass
class Recording:
    """How a surface wants its verification kept as evidence; `save` (called by the
    verification path, bot/verify/service.py) records the report. `surface`: cli, queue,
    slack, kb verify; `asker`: a salted hash of who asked (see rates.py: one asker is one
    voice); `consent`: keep the snippet's text (its sha256 is always kept); `answer_id`:
    the answer the run verifies. `ids` and `failed` say what happened, for a surface that
    tells its user (a report that could not be stored is logged, never raised)."""

    surface: str
    asker: str | None = None
    consent: bool = False
    answer_id: int | None = None
    store: Store | None = None
    ids: list[int] = field(default_factory=list, init=False)
    failed: int = field(default=0, init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False, compare=False)

    def save(self, report: VerifyReport, snippet: str) -> int | None:
        if report.worker_lost is True or isinstance(report.infrastructure_error, str):
            # the job never ran to the end, or ran on a GPU that failed its canary: no
            # evidence about the snippet, and no failure
            return None
        verification_id = record_verification(report, snippet, consent=self.consent, surface=self.surface,
                                              answer_id=self.answer_id, store=self.store, asker=self.asker)
        with self._lock:
            if verification_id is None:
                self.failed += 1
            else:
                self.ids.append(verification_id)
        return verification_id

    def link_answer(self, answer_id: int) -> None:
        """The answer made from the report (a code question's: it exists only once the
        run is over) is the one the recorded runs verified."""
        self.answer_id = answer_id
        if not self.ids:
            return
        try:
            with _store(self.store).session() as session:
                session.execute(update(Verification).where(Verification.id.in_(self.ids))
                                .values(answer_id=answer_id))
                session.commit()
        except Exception as exc:  # noqa: BLE001 - see the module docstring
            log.warning("verification not linked to answer %s (%s: %s)", answer_id, type(exc).__name__, exc)


def record_verification(report: VerifyReport, snippet: str, *, consent: bool = False, surface: str = "cli",
                        answer_id: int | None = None, store: Store | None = None,
                        asker: str | None = None) -> int | None:
    """Store one verification report and a row per fix it tried (what Recording.save
    does; surfaces pass a Recording to the verification path instead). The snippet's
    text is kept only with `consent`; its sha256 always. A run whose snippet read its own
    source (`reads_own_source`, decided by the sandbox's supervisor) is stored but not
    counted. Returns the verification's id; None when there was nothing to record (a
    lost worker) or the store failed (logged)."""
    try:
        if not isinstance(report, VerifyReport) or not isinstance(snippet, str):
            raise ValueError("a verification report is a VerifyReport and its snippet a str")
        if report.worker_lost is True or isinstance(report.infrastructure_error, str):
            return None  # the job never ran to the end, or its GPU failed: no evidence about the snippet
        store = _store(store)
        env = report.environment if isinstance(report.environment, dict) else {}
        error = report.error
        entry_id = _canonical(_text(error.entry_id if error else None, 128))
        job = report.job if isinstance(report.job, dict) else {}
        row = Verification(
            report_key=_text(job.get("id"), 64), surface=_text(surface, 16) or "cli",
            answer_id=answer_id if isinstance(answer_id, int) else None, entry_id=entry_id,
            reproduced=report.reproduced is True, exit_reason=_text(report.exit_reason, 16),
            error_type=_text(error.type if error else None, 128), torch=_text(env.get("torch"), 64), cuda=_cuda(env),
            gpu=_text(env.get("device_name") or env.get("gpu"), 128), python=_text(env.get("python"), 32),
            seconds=_number(report.seconds), peak_memory_bytes=_bytes(report.peak_memory_bytes),
            peak_gpu_memory_bytes=_bytes(report.peak_gpu_memory_bytes),
            snippet_sha256=snippet_sha256(snippet), consent=bool(consent), snippet=snippet if consent else None,
            asker=_text(asker, 64), counted=report.reads_own_source is not True)
        with store.session() as session:
            try:
                session.add(row)
                session.flush()
                for fix in report.fixes:
                    outcome = _outcome(row.id, entry_id, fix)
                    if outcome is not None:
                        session.add(outcome)
                session.commit()
            except IntegrityError:  # the same job's report again (report_key): stored once already
                session.rollback()
                log.info("verification report %s was recorded before", row.report_key)
                return None
            verification_id: int = row.id
        evidence_changed()
        return verification_id
    except Exception as exc:  # noqa: BLE001 - see the module docstring
        log.warning("verification not recorded (%s: %s)", type(exc).__name__, exc)
        return None


def _outcome(verification_id: int, entry_id: str | None, fix: FixRow) -> VerificationOutcome | None:
    if not isinstance(fix, FixRow):
        return None
    item = _text(fix.workaround, 128)
    if fix.kind not in KINDS or not item:
        return None
    if entry_id is None and fix.kind != "user":
        return None  # a fix of no known entry: nothing to attribute it to
    new_entry_id = fix.new_entry_id if isinstance(fix.new_entry_id, str) and fix.new_entry_id else None
    return VerificationOutcome(
        verification_id=verification_id, entry_id=entry_id or "", item_id=item, kind=fix.kind,
        patch=_text(fix.patch, 64), status=fix.status.value,
        new_entry_id=_text(new_entry_id or (fix.error.entry_id if fix.error else None), 128),
        seconds=_number(fix.seconds), peak_memory_bytes=_bytes(fix.peak_memory_bytes),
        peak_gpu_memory_bytes=_bytes(fix.peak_gpu_memory_bytes),
        counted=fix.reads_own_source is not True)


# --- questions -------------------------------------------------------------------------------

def record_gap(text: str, result: AnswerDocument, *, store: Store | None = None) -> bool:
    """Count a PyTorch question the knowledge base had no confident answer for (declined
    "not-covered"; a greeting or chatter, "no-error", and another library's error,
    "other-library", are no gaps), under its normalised signature; the nearest entry is
    its first match, if any. The excerpt is stored with tokens and secrets redacted. True
    when a gap was counted."""
    try:
        if result.answered or result.declined != "not-covered":
            return False
        sig = question_signature(text)
        # Redacted before normalising, which would break a token's shape ("xoxb-<num>-..."),
        # and after; the signature hash stays the one of the text as asked.
        cleaned = redact(text)
        excerpt = sig.excerpt if cleaned == text else question_signature(cleaned).excerpt
        nearest = result.matches[0] if result.matches else None
        confidence = _number(nearest.confidence) if nearest else None
        values = {"signature": sig.hash, "excerpt": redact(excerpt or "(empty)"),
                  "language": _text(result.language, 8), "count": 1,
                  "nearest_entry_id": _text(nearest.id, 128) if nearest else None, "nearest_confidence": confidence,
                  "first_seen": utcnow(), "last_seen": utcnow()}
        store = _store(store)
        with store.session() as session:
            insert = _upsert(session.get_bind().dialect.name)
            statement = insert(CoverageGap).values(**values)
            statement = statement.on_conflict_do_update(
                index_elements=[CoverageGap.signature],
                set_={"count": CoverageGap.count + 1, "last_seen": values["last_seen"],
                      "excerpt": values["excerpt"], "language": values["language"],
                      "nearest_entry_id": values["nearest_entry_id"], "nearest_confidence": confidence})
            session.execute(statement)
            session.commit()
        return True
    except Exception as exc:  # noqa: BLE001
        log.warning("coverage gap not recorded (%s: %s)", type(exc).__name__, exc)
        return False


def _upsert(dialect: str) -> Callable[..., Any]:
    """INSERT ... ON CONFLICT DO UPDATE: one statement, so two processes counting the same
    gap at once both count."""
    if dialect == "postgresql":
        from sqlalchemy.dialects import postgresql

        return postgresql.insert
    if dialect == "sqlite":
        from sqlalchemy.dialects import sqlite

        return sqlite.insert
    raise NotImplementedError(f"coverage gaps need PostgreSQL or SQLite, not {dialect}")


def record_answer(text: str, result: AnswerDocument, *, surface: str = "cli", store: Store | None = None
                  ) -> int | None:
    """An answer given outside Slack (`troubleshoot ask`): the `answers` row (signature
    hash, entry, confidence, language, surface; no user text) and, when it was not
    confident, the coverage gap."""
    try:
        sig = question_signature(text)
        best = result.best
        store = _store(store)
        answer_id: int = store.add_answer(
            entry_id=_text(best.id, 128) if best else None,
            confidence=_number(best.confidence) if best else None,
            language=_text(result.language, 8) or "en", surface=surface, error_hash=sig.hash)
    except Exception as exc:  # noqa: BLE001
        log.warning("answer not recorded (%s: %s)", type(exc).__name__, exc)
        return None
    record_gap(text, result, store=store)
    return answer_id


def record_pick(text: str, entry_id: str, language: str | None, *, source: str = "pick",
                store: Store | None = None) -> str | None:
    """An asker tied this question to this entry (a pick among choices, a 👍): kept as a
    pending example for `troubleshoot kb learn` (bot/evidence/learn.py). Never raises:
    a store that cannot be written costs the example, not the answer."""
    try:
        return note_example(_store(store), text, entry_id, language, source=source)
    except Exception as exc:  # noqa: BLE001
        log.warning("pick not recorded (%s: %s)", type(exc).__name__, exc)
        return None
