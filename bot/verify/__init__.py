"""Verification: run a repro snippet in the sandbox, classify its error, apply each
workaround patch and run again (see verify.py)."""

from bot.verify.classify import classify_error
from bot.verify.verify import verify_snippet

__all__ = ["classify_error", "verify_snippet"]
