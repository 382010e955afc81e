"""Fix rates from evidence: the knowledge base's prior, our verified runs and 👍/👎.

The model
---------
Whether a workaround fixes a given asker's error is a coin with an unknown bias p
(its fix rate). We keep a Beta distribution over p and report its mean:

    prior        Beta(a0, b0) with a0 = rate * n, b0 = (1 - rate) * n, where `rate`
                 and `n` are the entry's `prior.rate` and `prior.evidence`: the
                 knowledge writer's estimate counts as n earlier observations. An
                 item without a usable prior (n = 0, no rate) starts from Beta(1, 1).
    verified     each verified run of the workaround is one observation: `fixed` is a
                 success, `still_fails` and `new_error` are failures. `not_applicable`
                 (the patch found nothing to change) and `timeout` say nothing about
                 the fix and are not counted. The environment of a run is the one the
                 sandbox's host mounted (never what the run said about itself).
    integrity    one asker (a Slack user, or the OS account behind the CLI's uid) is
                 one run per item: their latest, successes and failures alike.
                 Runs that agree with the knowledge base count as they come; runs
                 against it (a workaround that failed, a dead end that fixed it) count
                 only once MIN_ASKERS distinct askers with MIN_SNIPPETS distinct
                 snippets report them (snippets that differ only in comments or
                 whitespace are one, bot/evidence/snippets.py), and are `held` until
                 then. Runs that cannot be evidence are stored with `counted` false and
                 a `held_reason`: the snippet read its own source, or a patched variant
                 exited (sys.exit, os._exit) where the original raised: a snippet
                 that tells its variants apart (by pid, file size) and leaves before
                 torch runs (bot/verify/verify.py). `stats` shows every held run and why.
    votes        a 👍 on an answer is a success, a 👎 a failure, for the workaround
                 the answer listed first, each with weight VOTE_WEIGHT (0.25): a
                 vote judges the whole answer (the match, the explanation, the
                 order), is often given before or without trying the fix, and
                 cannot be re-run, so four votes move the rate as much as one
                 verified run. A user has one vote per answer (the store keeps
                 their latest).

    posterior    Beta(a0 + s, b0 + f), s = fixed + w * up, f = failed + w * down;
                 the rate shown is its mean (a0 + s) / (a0 + b0 + s + f).

Dead ends are the same coin seen from the other side: their prior is a failure rate,
and a verified run that does not fix the error (`still_fails` or `new_error`) is a
"success" of the dead end's claim; `fixed` contradicts it (and needs the quorum). Votes are not counted for
dead ends (an answer's 👍/👎 is about the fix it recommends).

A workaround whose posterior fix rate falls below REFUTED_BELOW with at least
REFUTED_MIN_FAILURES distinct failed runs is "refuted": answers list it among the
dead ends, with the evidence. A strong prior needs more failures to get there (a
prior of 0.9 from 5 observations needs 11), which is the point of weighting it.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bot.evidence.display import PriorRates, Rate, RateSource, Verified
from bot.kb import model as m
from bot.settings import get_settings
from bot.verify.report import Status
from bot.text.jsonin import loads as json_loads

if TYPE_CHECKING:  # the store loads SQLAlchemy: only once there is one to read
    from sqlalchemy import ColumnElement

    from bot.store import Store

log = logging.getLogger(__name__)

VOTE_WEIGHT = 0.25
REFUTED_BELOW = 0.3
REFUTED_MIN_FAILURES = 3
MIN_ASKERS = 3  # distinct askers it takes before runs against the knowledge base count
MIN_SNIPPETS = 2  # ... and distinct snippets (one snippet passed around is one experiment)
# Why runs are held back from the public rates (`stats` shows each with its count):
QUORUM = "quorum"  # against the knowledge base, from fewer than MIN_ASKERS askers or MIN_SNIPPETS snippets
SUPERSEDED = "superseded"  # an asker's earlier run of the item: their latest stands
READS_OWN_SOURCE = "reads_own_source"  # the snippet read its own source (the sandbox's supervisor says so)
# ENDED_EARLY (bot/verify/report.py): a patched variant exited where the original raised
SUCCESS = frozenset({Status.FIXED})
FAILURE = frozenset({Status.STILL_FAILS, Status.NEW_ERROR})
NOT_COUNTED = frozenset({Status.NOT_APPLICABLE, Status.TIMEOUT})
SNAPSHOT_TTL_S = 30.0  # how long a long-running process (the Slack bot) reuses what it read

_VERSION = re.compile(r"^(\d+)\.(\d+)")

# Before votes had their own call (votes.py, record_vote), a 👎 "the fix did not work" was
# stored as a verification of surface "feedback" with one still_fails outcome, no torch and
# no snippet. Old databases still hold such rows. They are votes (the same 👎 is in `votes`),
# not runs: every count of runs (rates, `stats`, the pages, App Home) leaves them out
# through `is_run()`; nothing deletes them.
FEEDBACK_SURFACE = "feedback"


def is_run() -> ColumnElement[bool]:
    """The SQL condition a verification row must meet to count as a run (see FEEDBACK_SURFACE)."""
    from bot.store.models import Verification  # lazy: SQLAlchemy, as in load_observations

    return Verification.surface != FEEDBACK_SURFACE


def torch_minor(version: str | None) -> str | None:
    """"2.13.0+cu121" -> "2.13"; None for anything that is not a version."""
    match = _VERSION.match(version or "")
    return f"{int(match.group(1))}.{int(match.group(2))}" if match else None


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


@dataclass
class Observations:
    """Our own evidence about one workaround or dead end of one entry."""

    fixed: int = 0  # distinct verified runs where the error went away
    failed: int = 0  # distinct verified runs where it did not (same or another error)
    not_counted: int = 0  # distinct runs that say nothing (not applicable, timeout)
    recorded: int = 0  # outcome rows stored, repeats included
    held: int = 0  # askers' runs against the knowledge base not counted (yet): the quorum is not met
    superseded: int = 0  # earlier runs of an asker who ran the item again (their latest stands)
    askers_fixed: int = 0  # distinct askers whose latest run fixed it
    askers_failed: int = 0  # distinct askers whose latest run did not (counted or held)
    not_evidence: int = 0  # outcome rows of runs that cannot be evidence (see held_back)
    held_back: dict[str, int] = field(default_factory=dict)  # why -> how many rows (QUORUM, SUPERSEDED, ...)
    torch: set[str] = field(default_factory=set)  # torch versions (major.minor) of counted runs
    devices: set[str] = field(default_factory=set)
    up: int = 0
    down: int = 0

    @property
    def runs(self) -> int:
        return self.fixed + self.failed

    def empty(self) -> bool:
        return not (self.runs or self.up or self.down)

    def verified(self) -> Verified:
        return {"runs": self.runs, "fixed": self.fixed, "failed": self.failed,
                "torch": sorted(self.torch, key=_version_key), "up": self.up, "down": self.down,
                "askers_fixed": self.askers_fixed, "askers_failed": self.askers_failed, "held": self.held}


@dataclass(frozen=True)
class Estimate:
    rate: float | None  # posterior mean (fix rate, or fail rate for a dead end); None when unknown
    alpha: float
    beta: float
    refuted: bool = False


def _prior(prior: m.Prior | None) -> tuple[float, float] | None:
    if prior is None or prior.rate is None or not prior.evidence or prior.evidence <= 0:
        return None
    rate = min(max(float(prior.rate), 0.0), 1.0)
    return rate * prior.evidence, (1.0 - rate) * prior.evidence


def estimate(prior: m.Prior | None, obs: Observations, *, dead_end: bool = False) -> Estimate:
    """The posterior of one item (see the module docstring)."""
    base = _prior(prior)
    if dead_end:
        successes, failures = float(obs.failed), float(obs.fixed)
    else:
        successes = obs.fixed + VOTE_WEIGHT * obs.up
        failures = obs.failed + VOTE_WEIGHT * obs.down
    if base is None:
        if successes + failures == 0:
            return Estimate(None, 0.0, 0.0)
        base = (1.0, 1.0)
    alpha, beta = base[0] + successes, base[1] + failures
    rate = alpha / (alpha + beta)
    refuted = (not dead_end and rate < REFUTED_BELOW and obs.failed >= REFUTED_MIN_FAILURES)
    return Estimate(rate, alpha, beta, refuted)


def item_rate(prior: m.Prior | None, obs: Observations | None, *, dead_end: bool = False) -> Rate:
    """What answers show for one item: the prior alone when we have no evidence of our own."""
    n = prior.evidence if prior is not None else 0
    if obs is None or (obs.runs == 0 and (dead_end or not (obs.up or obs.down))):
        return Rate(prior.rate if prior is not None else None, n, "prior")
    est = estimate(prior, obs, dead_end=dead_end)
    evidence = n + obs.runs + (0 if dead_end else obs.up + obs.down)
    return Rate(est.rate, evidence, "verified" if obs.runs else "votes", verified=obs.verified(),
                refuted=est.refuted)


# --- reading the store --------------------------------------------------------------------

Key = tuple[str, str]  # (entry id, workaround or dead end id)


@dataclass(frozen=True)
class Run:
    """One asker's latest counted run of one item."""

    status: str
    shape: str  # the snippet without comments and whitespace (bot/evidence/snippets.py)
    torch: str | None  # major.minor
    device: str


def load_observations(store: Store) -> dict[Key, Observations]:
    """Everything the store knows, folded per item (one pass over outcomes and votes)."""
    # lazy: SQLAlchemy loads only once there is a store to read (answers without one show priors)
    from sqlalchemy import case, func, select

    from bot.store.models import Answer, Verification, VerificationOutcome, Vote

    found: dict[Key, Observations] = {}
    latest: dict[Key, dict[str, Run]] = {}  # item -> asker -> their latest counted run
    kinds: dict[Key, str] = {}
    with store.session() as session:
        rows = session.execute(
            select(VerificationOutcome.entry_id, VerificationOutcome.item_id, VerificationOutcome.status,
                   Verification.snippet_sha256, Verification.snippet_shape, Verification.torch, Verification.gpu,
                   Verification.asker, Verification.counted, VerificationOutcome.counted,
                   Verification.held_reason, VerificationOutcome.held_reason, VerificationOutcome.kind)
            .join(Verification, Verification.id == VerificationOutcome.verification_id)
            .where(VerificationOutcome.kind.in_(("workaround", "dead_end")), is_run())
            .order_by(Verification.id, VerificationOutcome.id))
        for (entry_id, item_id, status, sha, shape, torch, gpu, asker, counted, outcome_counted,
             held, outcome_held, kind) in rows:
            key = (entry_id, item_id)
            obs = found.setdefault(key, Observations())
            obs.recorded += 1
            kinds[key] = kind
            if counted is False or outcome_counted is False:
                obs.not_evidence += 1
                why = held or outcome_held or READS_OWN_SOURCE  # rows from before held_reason read their source
                obs.held_back[why] = obs.held_back.get(why, 0) + 1
                continue
            mine = latest.setdefault(key, {})
            if (asker or "") in mine:  # ordered by id: the asker's latest run stands
                obs.superseded += 1
                obs.held_back[SUPERSEDED] = obs.superseded
            mine[asker or ""] = Run(status, shape or sha, torch_minor(torch), gpu or "cpu")
        votes = session.execute(
            select(Answer.id, Answer.entry_id, Answer.answer_json,
                   func.sum(case((Vote.vote > 0, 1), else_=0)), func.sum(case((Vote.vote < 0, 1), else_=0)))
            .join(Vote, Vote.answer_id == Answer.id)
            .where(Answer.entry_id.is_not(None))
            .group_by(Answer.id, Answer.entry_id, Answer.answer_json))
        for _answer_id, entry_id, answer_json, up, down in votes:
            top = top_workaround(answer_json, entry_id)
            if top is None:
                continue
            obs = found.setdefault((entry_id, top), Observations())
            obs.up += int(up or 0)
            obs.down += int(down or 0)
    for key, runs in latest.items():
        _fold(found[key], runs, dead_end=kinds.get(key) == "dead_end")
    return found


def _fold(obs: Observations, runs: dict[str, Run], *, dead_end: bool) -> None:
    """Count one run per asker. Runs that agree with the knowledge base (a workaround
    that fixed it, a dead end that did not) count as they come; runs against it count
    only once MIN_ASKERS askers with MIN_SNIPPETS distinct snippets report them, and
    are held until then."""
    confirms, contradicts = (FAILURE, SUCCESS) if dead_end else (SUCCESS, FAILURE)
    agree = [r for r in runs.values() if r.status in confirms]
    against = [r for r in runs.values() if r.status in contradicts]
    obs.not_counted = sum(1 for r in runs.values() if r.status in NOT_COUNTED)
    if len(against) < MIN_ASKERS or len({r.shape for r in against}) < MIN_SNIPPETS:
        if against:
            obs.held += len(against)
            obs.held_back[QUORUM] = len(against)
        counted = agree
    else:
        counted = agree + against
    for run in counted:
        if run.status in SUCCESS:
            obs.fixed += 1
        else:
            obs.failed += 1
        if run.torch:
            obs.torch.add(run.torch)
        obs.devices.add(run.device)
    obs.askers_fixed = sum(1 for r in runs.values() if r.status in SUCCESS)
    obs.askers_failed = sum(1 for r in runs.values() if r.status in FAILURE)


def top_workaround(answer_json: str | None, entry_id: str) -> str | None:
    """The workaround an answer listed first for its best match, if it was a confident answer."""
    try:
        answer = json_loads(answer_json or "")
        best = answer["matches"][0]
        if not answer.get("answered") or best.get("id") != entry_id:
            return None
        first = best["workarounds"][0]["id"]
    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
        return None
    return first if isinstance(first, str) else None


# --- the rate source answers use ----------------------------------------

_generation = 0  # bumped by every recording in this process: a snapshot older than that is stale
_generation_lock = threading.Lock()


def evidence_changed() -> None:
    global _generation
    with _generation_lock:
        _generation += 1


class EvidenceRates:
    """bot.answer's RateSource backed by the store. It reads everything once and keeps
    the snapshot for SNAPSHOT_TTL_S (or until this process records new evidence); a
    store it cannot read means priors only, with a warning, never a failed answer."""

    def __init__(self, ttl: float | None = None):
        self.ttl = get_settings().rates_ttl if ttl is None else ttl
        self._lock = threading.Lock()
        self._snapshot: dict[Key, Observations] = {}
        self._loaded_at: float | None = None
        self._generation = -1
        self._url: str | None = None

    def snapshot(self) -> dict[Key, Observations]:
        from bot.store.db import database_url  # lazy: SQLAlchemy, as in load_observations

        url = database_url()
        with self._lock:
            fresh = (self._loaded_at is not None and time.monotonic() - self._loaded_at < self.ttl
                     and self._generation == _generation and self._url == url)
            if not fresh:
                self._snapshot = self._load()
                self._loaded_at, self._generation, self._url = time.monotonic(), _generation, url
            return self._snapshot

    @staticmethod
    def _load() -> dict[Key, Observations]:
        from bot.evidence.db import get_store  # lazy: SQLAlchemy, as in load_observations

        try:
            store = get_store(create=False)
            return {} if store is None else load_observations(store)
        except Exception as exc:  # noqa: BLE001 - answers go on with the priors
            log.warning("evidence store unreadable (%s: %s); showing prior rates", type(exc).__name__, exc)
            return {}

    def workaround_rate(self, entry_id: str, workaround: m.Workaround) -> Rate:
        return item_rate(workaround.prior, self.snapshot().get((entry_id, workaround.id)))

    def dead_end_rate(self, entry_id: str, dead_end: m.DeadEnd) -> Rate | None:
        obs = self.snapshot().get((entry_id, dead_end.id))
        if dead_end.prior is None and (obs is None or obs.runs == 0):
            return None
        return item_rate(dead_end.prior, obs, dead_end=True)


def rate_source() -> EvidenceRates:
    """The source answers use when nobody has set one (see get_rate_source)."""
    return EvidenceRates()


_source_lock = threading.Lock()
_source: RateSource | None = None


def set_rate_source(source: RateSource | None) -> None:
    """Use `source` for every answer from now on; None goes back to the default (the store)."""
    global _source
    with _source_lock:
        _source = source


def get_rate_source() -> RateSource:
    global _source
    with _source_lock:
        if _source is None:
            try:
                _source = rate_source()
            except Exception as exc:  # noqa: BLE001 - a broken store must not take answers down: priors
                log.warning("evidence rate source unavailable (%s); showing prior rates", exc)
                _source = PriorRates()
        return _source
