"""Evidence: verified runs, answers, votes and coverage gaps in the store, and the fix
rates they add up to (rates.py explains the model).

    from bot.evidence import Recording, record_answer, record_gap, record_vote
    run_verification(code, record=Recording("cli", asker, consent=False))  # bot.verify.service
    record_vote(AnswerVote(answer_id, asker, Direction.DOWN), store=store)  # votes.py

Answers read the rates through `get_rate_source()` (rates.py) and show them with the
words of display.py; `troubleshoot stats` shows them (stats.py). The tables are in
bot/store/models.py with the store's others; importing this package loads nothing
else until used.
"""

from typing import Any

__all__ = ["Recording", "record_answer", "record_gap", "record_verification", "record_vote"]


def __getattr__(name: str) -> Any:
    if name == "record_vote":
        from bot.evidence import votes  # lazy, as below

        return votes.record_vote
    if name in __all__:
        from bot.evidence import record  # lazy: SQLAlchemy loads only when something is recorded

        return getattr(record, name)
    raise AttributeError(name)
