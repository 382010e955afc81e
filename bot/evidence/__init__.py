"""Evidence: verified runs, answers, votes and coverage gaps in the store, and the fix
rates they add up to (rates.py explains the model).

    from bot.evidence import record_verification, record_answer, record_gap
    record_verification(report, snippet, consent=False, surface="cli")

Answers read the rates through `get_rate_source()` (rates.py) and show them with the
words of display.py; `troubleshoot stats` shows them (stats.py). The tables are in
bot/store/models.py with the store's others; importing this package loads nothing
else until used.
"""

__all__ = ["record_answer", "record_gap", "record_verification"]


def __getattr__(name: str):
    if name in __all__:
        from bot.evidence import record  # lazy: SQLAlchemy loads only when something is recorded

        return getattr(record, name)
    raise AttributeError(name)
