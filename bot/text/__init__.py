"""Text helpers below every package that reads errors or knowledge: the normalisation
of error messages and frame paths (normalize.py) used by the knowledge loader, the
search and the classifier alike; language detection by script and the answer
languages (lang.py); which characters are Hangul, Han, kana (scripts.py); the bot's own
words in each language (ui.py).
"""


class InputError(ValueError):
    """Input the bot cannot use (empty, binary, an unreadable file); the message says why,
    in words for the user."""
