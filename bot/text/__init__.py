"""Text helpers below every package that reads errors or knowledge: the normalisation
of error messages and frame paths (normalize.py) used by the knowledge loader, the
search and the classifier alike; language detection by script and the answer
languages (lang.py); which characters are Hangul, Han, kana (scripts.py); the bot's own
words in each language (ui.py); the one bounded reader of what a user hands in: size
limit, decoding, binary and empty input refused (inputs.py).

`InputError` is defined with the other kinds of failure in bot/errors.py.
"""

from bot.errors import InputError

__all__ = ["InputError"]
