"""Recording a vote: a 👍 or 👎 on an answer, from Slack.

A vote is not a run. It is stored in the `votes` table, one per asker and answer (the
store keeps the latest), and rates.py counts it, with weight VOTE_WEIGHT, for or against
the workaround the answer listed first. "The fix did not work" (a 👎's reason) is the
same vote: it says nothing a verified run would (no snippet, no torch, no outcome per
fix), so it never becomes one. `AnswerVote` holds nothing a verification report could
be made of, and `record_vote` writes only the vote.

    result = record_vote(AnswerVote(answer_id, asker_hash, Direction.DOWN), store=store)
    result.changed, result.up, result.down
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from bot.evidence.rates import evidence_changed
from bot.store import Store
from bot.store.store import VoteResult


class Direction(IntEnum):
    """The store's value of a vote."""

    UP = 1
    DOWN = -1


@dataclass(frozen=True)
class AnswerVote:
    answer_id: int
    asker: str  # a salted hash of who voted (Store.user_hash)
    direction: Direction


def record_vote(vote: AnswerVote, *, store: Store) -> VoteResult:
    """Store the vote (the same vote again changes nothing; the other one replaces it) and
    tell this process's rates to read the store again when it changed."""
    result = store.vote(vote.answer_id, vote.asker, int(vote.direction))
    if result.changed:
        evidence_changed()
    return result
