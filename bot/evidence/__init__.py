"""Evidence: verified runs, answers, votes and coverage gaps in the store, and the fix
rates they add up to (rates.py explains the model).

    from bot.evidence import record_verification, record_answer, record_gap
    record_verification(report, snippet, consent=False, surface="cli")

Answers get the rates through bot.answer's rate source hook
(bot.evidence.rates.rate_source); `troubleshoot stats` shows them (commands.py).
"""

from bot.evidence.record import record_answer, record_gap, record_verification

__all__ = ["record_answer", "record_gap", "record_verification"]
