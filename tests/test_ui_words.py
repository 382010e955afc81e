"""One table of the bot's own words (bot/text/ui.py): the terminal and Slack say the same
thing the same way in every language."""

from __future__ import annotations

import re

from bot.answer.render import render_answer
from bot.text.lang import LANGUAGES
from bot.text.ui import WORDS, t


def test_every_word_is_written_in_every_language_with_the_same_placeholders():
    for key, table in WORDS.items():
        assert set(table) == set(LANGUAGES), key
        fields = {lang: set(re.findall(r"\{(\w+)\}", text)) for lang, text in table.items()}
        assert all(table[lang].strip() for lang in LANGUAGES), key
        assert len({frozenset(f) for f in fields.values()}) == 1, (key, fields)


def _answer(lang: str) -> dict:
    return {"answered": True, "language": lang, "matches": [{
        "id": "pytorch/example", "title": "Example", "confidence": 0.93, "root_cause": "Why it fails.",
        "workarounds": [{"id": "w", "title": "Do this", "explanation": "Because.", "code": "x = 1",
                         "rate_kind": "estimate", "rate_text": "team estimate"}],
        "dead_ends": [{"id": "d", "title": "Not this", "why": "It fails too.", "leads_to": "pytorch/other"}],
        "sources": [{"title": "Docs", "url": "https://pytorch.org/docs/stable/"}]}]}


def test_the_terminal_and_slack_use_the_same_words():
    from bot.slack import i18n

    assert i18n.WORDS is WORDS and i18n.t is t  # Slack reads the one table
    for lang in LANGUAGES:
        terminal = render_answer(_answer(lang))
        for key in ("root_cause", "dead_ends", "sources", "leads_to", "confidence"):
            assert t(key, lang) in terminal, (lang, key)
    assert t("root_cause", "ko") == "근본 원인"
