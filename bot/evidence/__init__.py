"""Evidence: verified runs, answers, votes and coverage gaps in the store, and the fix
rates they add up to (rates.py explains the model).

    from bot.evidence import record_verification, record_answer, record_gap
    record_verification(report, snippet, consent=False, surface="cli")

Answers get the rates through bot.answer's rate source hook
(bot.evidence.rates.rate_source); `troubleshoot stats` shows them (commands.py).
The tables are in models.py (bot/store/models.py imports them, so that the store's
metadata is whole); importing this package loads nothing else until used.
"""

__all__ = ["record_answer", "record_gap", "record_verification"]


def __getattr__(name: str):
    if name in __all__:
        from bot.evidence import record

        return getattr(record, name)
    raise AttributeError(name)
