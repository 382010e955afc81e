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
                 the fix and are not counted. Runs are counted once per distinct
                 (asker, snippet, torch version, device), where the environment is
                 the one the sandbox's host mounted (never what the run said about
                 itself): running the same snippet again on the same setup repeats
                 a deterministic experiment and adds no information, and must not
                 let one person inflate a rate by clicking twice; the latest outcome
                 of such a repeat stands. A run whose snippet read its own source
                 (`counted` false: it could pass or fail as it liked) is not counted.
    integrity    failures demote a workaround only when they come from at least
                 MIN_FAILING_ASKERS distinct askers and MIN_FAILING_SNIPPETS distinct
                 snippets, and each asker's failures count as one: a hostile snippet,
                 or one person with many, moves a rate by no outcome at all (they are
                 `held`, and shown as such), and several people by one each.
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
"success" of the dead end's claim; `fixed` contradicts it. Votes are not counted for
dead ends (an answer's 👍/👎 is about the fix it recommends).

A workaround whose posterior fix rate falls below REFUTED_BELOW with at least
REFUTED_MIN_FAILURES distinct failed runs is "refuted": answers list it among the
dead ends, with the evidence. A strong prior needs more failures to get there (a
prior of 0.9 from 5 observations needs 11), which is the point of weighting it.
"""

from __future__ import annotations

import json
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

if TYPE_CHECKING:  # the store loads SQLAlchemy: only once there is one to read
    from sqlalchemy import ColumnElement

    from bot.store import Store

log = logging.getLogger(__name__)

VOTE_WEIGHT = 0.25
REFUTED_BELOW = 0.3
REFUTED_MIN_FAILURES = 3
MIN_FAILING_ASKERS = 3  # distinct askers whose failures it takes before failures count
MIN_FAILING_SNIPPETS = 2  # ... and distinct snippets (one snippet passed around is one experiment)
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
    held: int = 0  # failures not counted (yet): too few distinct askers or snippets, or a repeat of one asker
    askers_fixed: int = 0  # distinct askers behind `fixed`
    askers_failed: int = 0  # distinct askers behind failures (counted or held)
    not_evidence: int = 0  # outcome rows of runs that read their own source
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
Setup = tuple[str, str, str, str]  # (asker, snippet sha256, torch, device) of a run


def load_observations(store: Store) -> dict[Key, Observations]:
    """Everything the store knows, folded per item (one pass over outcomes and votes)."""
    # lazy: SQLAlchemy loads only once there is a store to read (answers without one show priors)
    from sqlalchemy import case, func, select

    from bot.store.models import Answer, Verification, VerificationOutcome, Vote

    found: dict[Key, Observations] = {}
    latest: dict[Key, dict[Setup, str]] = {}
    versions: dict[Key, dict[Setup, str | None]] = {}
    kinds: dict[Key, str] = {}
    with store.session() as session:
        rows = session.execute(
            select(VerificationOutcome.entry_id, VerificationOutcome.item_id, VerificationOutcome.status,
                   Verification.snippet_sha256, Verification.torch, Verification.gpu, Verification.asker,
                   Verification.counted, VerificationOutcome.counted, VerificationOutcome.kind)
            .join(Verification, Verification.id == VerificationOutcome.verification_id)
            .where(VerificationOutcome.kind.in_(("workaround", "dead_end")), is_run())
            .order_by(Verification.id, VerificationOutcome.id))
        for entry_id, item_id, status, snippet, torch, gpu, asker, counted, outcome_counted, kind in rows:
            key = (entry_id, item_id)
            obs = found.setdefault(key, Observations())
            obs.recorded += 1
            kinds[key] = kind
            if counted is False or outcome_counted is False:
                obs.not_evidence += 1
                continue
            setup = (asker or "", snippet, torch or "", gpu or "cpu")
            latest.setdefault(key, {})[setup] = status  # ordered by id: the latest run of a setup wins
            versions.setdefault(key, {})[setup] = torch_minor(torch)
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
    for key, setups in latest.items():
        obs = found[key]
        failing: dict[str, list[Setup]] = {}  # asker -> their failing setups
        fixing: set[str] = set()
        for setup, status in setups.items():
            if status in SUCCESS:
                obs.fixed += 1
                fixing.add(setup[0])
            elif status in FAILURE:
                failing.setdefault(setup[0], []).append(setup)
                continue
            else:
                obs.not_counted += 1
                continue
            _seen(obs, versions[key][setup], setup)
        obs.askers_fixed = len(fixing)
        obs.askers_failed = len(failing)
        total = sum(len(s) for s in failing.values())
        if kinds.get(key) == "dead_end":
            # A dead end's failures confirm the knowledge base: one per asker, no quorum.
            chosen = [s[-1] for s in failing.values()]
        elif len(failing) >= MIN_FAILING_ASKERS and len({s[1] for ss in failing.values() for s in ss}) \
                >= MIN_FAILING_SNIPPETS:
            chosen = [s[-1] for s in failing.values()]  # one failure per asker (their latest setup)
        else:
            chosen = []
        obs.failed += len(chosen)
        obs.held += total - len(chosen)
        for setup in chosen:
            _seen(obs, versions[key][setup], setup)
    return found


def _seen(obs: Observations, minor: str | None, setup: Setup) -> None:
    if minor:
        obs.torch.add(minor)
    obs.devices.add(setup[3])


def top_workaround(answer_json: str | None, entry_id: str) -> str | None:
    """The workaround an answer listed first for its best match, if it was a confident answer."""
    try:
        answer = json.loads(answer_json or "")
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
