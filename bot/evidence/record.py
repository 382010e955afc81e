"""Recording evidence: verification reports, `ask` answers and coverage gaps.

Who calls what (each report reaches exactly one of them, so nothing is counted twice):
- `troubleshoot verify` (bot/cli/verify.py) records the report it ran here;
- `troubleshoot verify --queue` (bot/cli/verify.py) records the report the
  worker sent back: the worker itself never writes (it may run on a GPU machine
  with no access to the database);
- the Slack bot (bot/slack/services/verification.py) records the report of a
  Verify-fix click.
`troubleshoot ask` records its answer (the `answers` table, surface "cli") unless
TROUBLESHOOT_RECORD_ASK=0; both `ask` and Slack record a coverage gap for a
question without a confident answer.

Recording must never cost the user their answer or report: every function here
logs and returns None when the store fails.
"""

from __future__ import annotations

import hashlib
import os
import logging
from typing import TYPE_CHECKING, Any

from sqlalchemy.exc import IntegrityError

from bot.evidence.db import get_store
from bot.evidence.rates import evidence_changed
from bot.evidence.signature import question_signature
from bot.kb.loader import current_knowledge
from bot.settings import get_settings
from bot.store.models import CoverageGap, Verification, VerificationOutcome, utcnow
from bot.verify.report import STATUSES

if TYPE_CHECKING:  # answers are built above this layer (bot/answer); here they are only read
    from bot.answer.document import AnswerDocument

log = logging.getLogger(__name__)

KINDS = ("workaround", "dead_end", "user")


def ask_recording_enabled() -> bool:
    return get_settings().record_ask


def _store(store):
    if store is not None:
        return store
    return get_store()


def _text(value: Any, limit: int) -> str | None:
    """A short string for a column, or None: report fields come from a sandboxed run of
    untrusted code and may be anything."""
    if value is None or isinstance(value, (dict, list)):
        return None
    text = str(value).strip()
    return text[:limit] if text else None


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _bytes(value: Any) -> int | None:
    return int(value) if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 1 << 62 else None


def _cuda(env: dict) -> str | None:
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


def cli_asker(store=None) -> str:
    """The asker behind `troubleshoot verify` on this machine: a salted hash of the OS user."""
    import getpass

    try:
        user = getpass.getuser()
    except Exception:  # noqa: BLE001 - no name for this uid
        user = str(os.getuid())
    store = _store(store)
    return store.user_hash("cli", user)


def record_verification(report: dict, snippet: str, *, consent: bool = False, surface: str = "cli",
                        answer_id: int | None = None, store=None, asker: str | None = None) -> int | None:
    """Store one verification report (the `troubleshoot verify --json` document) and a row
    per fix it tried. The snippet's text is kept only with `consent`; its sha256 always.
    `asker` is a salted hash of who asked (see rates.py: one asker is one voice). A run
    whose snippet read its own source (`reads_own_source`, decided by the sandbox's
    supervisor) is stored but not counted.
    Returns the verification's id; None when there was nothing to record (a lost worker)
    or the store failed (logged)."""
    try:
        if not isinstance(report, dict) or not isinstance(snippet, str):
            raise ValueError("a verification report is a dict and its snippet a str")
        if report.get("worker_lost"):
            return None  # the job never ran to the end: no evidence about the snippet
        store = _store(store)
        env = report.get("environment") if isinstance(report.get("environment"), dict) else {}
        error = report.get("error") if isinstance(report.get("error"), dict) else {}
        entry_id = _canonical(_text(error.get("entry_id"), 128))
        job = report.get("job") if isinstance(report.get("job"), dict) else {}
        row = Verification(
            report_key=_text(job.get("id"), 64), surface=_text(surface, 16) or "cli",
            answer_id=answer_id if isinstance(answer_id, int) else None, entry_id=entry_id,
            reproduced=bool(report.get("reproduced")), exit_reason=_text(report.get("exit_reason"), 16),
            error_type=_text(error.get("type"), 128), torch=_text(env.get("torch"), 64), cuda=_cuda(env),
            gpu=_text(env.get("device_name") or env.get("gpu"), 128), python=_text(env.get("python"), 32),
            seconds=_number(report.get("seconds")), peak_memory_bytes=_bytes(report.get("peak_memory_bytes")),
            peak_gpu_memory_bytes=_bytes(report.get("peak_gpu_memory_bytes")),
            snippet_sha256=snippet_sha256(snippet), consent=bool(consent), snippet=snippet if consent else None,
            asker=_text(asker, 64), counted=report.get("reads_own_source") is not True)
        fixes = report.get("fixes") if isinstance(report.get("fixes"), list) else []
        with store.session() as session:
            try:
                session.add(row)
                session.flush()
                for fix in fixes:
                    outcome = _outcome(row.id, entry_id, fix)
                    if outcome is not None:
                        session.add(outcome)
                session.commit()
            except IntegrityError:  # the same job's report again (report_key): stored once already
                session.rollback()
                log.info("verification report %s was recorded before", row.report_key)
                return None
            verification_id = row.id
        evidence_changed()
        return verification_id
    except Exception as exc:  # noqa: BLE001 - see the module docstring
        log.warning("verification not recorded (%s: %s)", type(exc).__name__, exc)
        return None


def _outcome(verification_id: int, entry_id: str | None, fix: Any) -> VerificationOutcome | None:
    if not isinstance(fix, dict):
        return None
    kind, status = fix.get("kind") or "workaround", fix.get("status")
    item = _text(fix.get("workaround"), 128)
    if kind not in KINDS or status not in STATUSES or not item:
        return None
    if entry_id is None and kind != "user":
        return None  # a fix of no known entry: nothing to attribute it to
    error = fix.get("error") if isinstance(fix.get("error"), dict) else {}
    return VerificationOutcome(
        verification_id=verification_id, entry_id=entry_id or "", item_id=item, kind=kind,
        patch=_text(fix.get("patch"), 64), status=status,
        new_entry_id=_text(fix.get("new_entry_id") or error.get("entry_id"), 128),
        seconds=_number(fix.get("seconds")), peak_memory_bytes=_bytes(fix.get("peak_memory_bytes")),
        peak_gpu_memory_bytes=_bytes(fix.get("peak_gpu_memory_bytes")),
        counted=fix.get("reads_own_source") is not True)


# --- questions -------------------------------------------------------------------------------

def record_gap(text: str, result: AnswerDocument, *, store=None) -> bool:
    """Count a question the knowledge base had no confident answer for (answered false),
    under its normalised signature; the nearest entry is its first match, if any. True
    when a gap was counted."""
    try:
        if result.answered:
            return False
        sig = question_signature(text)
        nearest = result.matches[0] if result.matches else None
        confidence = _number(nearest.confidence) if nearest else None
        values = {"signature": sig.hash, "excerpt": sig.excerpt or "(empty)",
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


def _upsert(dialect: str):
    """INSERT ... ON CONFLICT DO UPDATE: one statement, so two processes counting the same
    gap at once both count."""
    if dialect == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    elif dialect == "sqlite":
        from sqlalchemy.dialects.sqlite import insert
    else:
        raise NotImplementedError(f"coverage gaps need PostgreSQL or SQLite, not {dialect}")
    return insert


def record_answer(text: str, result: AnswerDocument, *, surface: str = "cli", store=None) -> int | None:
    """An answer given outside Slack (`troubleshoot ask`): the `answers` row (signature
    hash, entry, confidence, language, surface; no user text) and, when it was not
    confident, the coverage gap."""
    try:
        sig = question_signature(text)
        best = result.best
        store = _store(store)
        answer_id = store.add_answer(
            entry_id=_text(best.id, 128) if best else None,
            confidence=_number(best.confidence) if best else None,
            language=_text(result.language, 8) or "en", surface=surface, error_hash=sig.hash)
    except Exception as exc:  # noqa: BLE001
        log.warning("answer not recorded (%s: %s)", type(exc).__name__, exc)
        return None
    record_gap(text, result, store=store)
    return answer_id
