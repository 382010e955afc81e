"""The failures a user can act on, by kind, lowest in the stack so every layer can raise
them. The command line turns each kind into its exit code in one place (`bot.cli.main`,
the table in docs/cli.md); the message is written for the user.

An empty message means the caller already said why (a report on stdout, problems on
stderr): only the exit code is left to give.
"""

from __future__ import annotations


class Failure(Exception):
    """A failure of one of the kinds below; str(exc) says why, in words for the user."""


class InputError(Failure, ValueError):
    """Input the bot cannot use (empty, binary, too large, an unreadable file, not Python,
    knowledge files with errors)."""


class ConfigurationError(Failure):
    """A setting or an option the command cannot work with (a malformed setting, an
    unknown id, an index of another embedder, a port in use)."""


class Unavailable(Failure):
    """A service or resource that cannot be reached or used here (the database, the
    broker, Slack, the sandbox, an index folder that cannot be written, a lost worker)."""


class NothingVerified(Failure):
    """It ran, but nothing was verified (no fix worked, nothing to try, a timeout)."""
