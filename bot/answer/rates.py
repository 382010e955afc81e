"""Where the success rates shown next to workarounds come from.

Today: each workaround's prior (`prior.rate`, `prior.evidence` in the entry). Later an
evidence store (verified runs, 👍/👎) supplies measured rates. It plugs in with
`set_rate_source(source)`, or by providing `bot.evidence.rates.rate_source()`, which
is looked up once when nobody has set a source.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import Protocol

from bot.kb import model as m


@dataclass(frozen=True)
class Rate:
    rate: float | None  # fix rate for a workaround (fail rate for a dead end); None when unknown
    evidence: int  # how many observations it stands for
    source: str  # short label: "prior", "measured", ...


class RateSource(Protocol):
    def workaround_rate(self, entry_id: str, workaround: m.Workaround) -> Rate: ...

    def dead_end_rate(self, entry_id: str, dead_end: m.DeadEnd) -> Rate | None: ...


class PriorRates:
    """The rates written in the knowledge base, before any evidence of our own."""

    def workaround_rate(self, entry_id: str, workaround: m.Workaround) -> Rate:
        prior = workaround.prior
        return Rate(prior.rate, prior.evidence, "prior")

    def dead_end_rate(self, entry_id: str, dead_end: m.DeadEnd) -> Rate | None:
        if dead_end.prior is None:
            return None
        return Rate(dead_end.prior.rate, dead_end.prior.evidence, "prior")


_lock = threading.Lock()
_source: RateSource | None = None


def set_rate_source(source: RateSource | None) -> None:
    """Use `source` for every answer from now on; None goes back to the default lookup."""
    global _source
    with _lock:
        _source = source


def get_rate_source() -> RateSource:
    global _source
    with _lock:
        if _source is None:
            _source = _discover()
        return _source


def _discover() -> RateSource:
    try:
        from bot.evidence.rates import rate_source  # type: ignore[import-not-found]
    except ImportError:
        return PriorRates()
    try:
        return rate_source()
    except Exception as exc:  # a broken store must not take answers down: fall back to the priors
        logging.getLogger(__name__).warning("evidence rate source unavailable (%s); showing prior rates", exc)
        return PriorRates()
