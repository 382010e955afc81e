"""Workaround patches: code transformations of a repro snippet, registered by name."""

from bot.verify.patches.base import Failure, Patch, PatchResult

__all__ = ["Failure", "Patch", "PatchResult"]
