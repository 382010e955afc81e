"""The bot's database: Slack dedupe keys, posted answers, votes, verification locks.

    from bot.store import open_store
    store = open_store()          # DATABASE_URL or the SQLite file; schema upgraded
"""

from bot.store.store import Store, open_store

__all__ = ["Store", "open_store"]
