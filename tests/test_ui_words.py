"""One table of the bot's own words (bot/text/ui.py): the terminal, Slack, the knowledge
pages, code questions and the evidence behind a rate say the same thing the same way in
every language."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import answer_docs
import pytest

from bot.answer.document import AnswerDocument
from bot.answer.render import render_answer
from bot.text.lang import LANGUAGES
from bot.text.ui import WORDS, kb_status_text, labels, t

REPO = Path(__file__).resolve().parent.parent
UI = REPO / "bot" / "text" / "ui.py"
FIXTURE_KB = REPO / "tests" / "retrieval" / "fixtures" / "knowledge"
# English grammar without a counterpart in Korean or Chinese: a plural ending, it/them.
ENGLISH_ONLY = {"s", "them"}
# Tables keyed by language that are not the bot's words, and why.
NOT_WORDS = {
    ("bot/answer/notices.py", "LOOK_FOR"): "advice about other libraries, one paragraph each (content, not labels)",
    ("bot/answer/notices.py", "GENERIC_LOOK_FOR"): "the same advice for a library without its own",
    ("bot/kb/loader.py", "_LANG_NAMES"): "English names of the languages in `kb check`'s English messages",
}


def test_every_word_is_written_in_every_language_with_the_same_placeholders():
    for key, table in WORDS.items():
        assert set(table) == set(LANGUAGES), key
        fields = {lang: set(re.findall(r"\{(\w+)\}", text)) - ENGLISH_ONLY for lang, text in table.items()}
        assert all(table[lang].strip() for lang in LANGUAGES), key
        assert len({frozenset(f) for f in fields.values()}) == 1, (key, fields)


def test_the_table_names_each_word_once():
    tree = ast.parse(UI.read_text(encoding="utf-8"))
    literal = next(node.value for node in tree.body if isinstance(node, ast.AnnAssign)
                   and getattr(node.target, "id", "") == "WORDS")
    keys = [k.value for k in literal.keys]
    assert sorted(k for k in set(keys) if keys.count(k) > 1) == []


def _plain(text: str) -> str:
    return text.strip().rstrip(".:。：").casefold()


def test_one_translation_per_word():
    """Two keys that say the same in English say the same in Korean and Chinese."""
    by_english: dict[str, set[tuple[str, str]]] = {}
    for table in WORDS.values():
        by_english.setdefault(_plain(table["en"]), set()).add((_plain(table["ko"]), _plain(table["zh"])))
    assert {en: tr for en, tr in by_english.items() if len(tr) > 1} == {}


def test_no_other_table_of_words_in_bot():
    """A dict keyed by the answer languages whose values are text (or tables of text) lives
    in bot/text/ui.py."""
    found = []
    for path in sorted((REPO / "bot").rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        if rel == "bot/text/ui.py":
            continue
        source = path.read_text(encoding="utf-8")
        if "zh" not in source:  # no table of the three languages here
            continue
        for node in ast.walk(ast.parse(source)):
            if not isinstance(node, (ast.Assign, ast.AnnAssign)) or node.value is None:
                continue
            target = node.targets[0] if isinstance(node, ast.Assign) else node.target
            name = getattr(target, "id", None)
            for d in (n for n in ast.walk(node.value) if isinstance(n, ast.Dict)):
                keys = {k.value for k in d.keys if isinstance(k, ast.Constant)}
                texts = all(isinstance(v, ast.JoinedStr) or isinstance(v, ast.Dict)  # {lang: {key: text}} too
                            or isinstance(v, ast.Constant) and isinstance(v.value, str) for v in d.values)
                if set(LANGUAGES) <= keys and texts and (rel, name) not in NOT_WORDS:
                    found.append(f"{rel}:{d.lineno} ({name})")
    assert found == []


def _answer(lang: str) -> AnswerDocument:
    return answer_docs.document(answer_docs.match(
        "pytorch/example", "Example", confidence=0.93, root_cause="Why it fails.", diagnosis="Print it.",
        workarounds=[answer_docs.workaround("w", "Do this", explanation="Because.", code="x = 1",
                                            rate_kind="estimate", rate_text="team estimate", caveats="Only on CPU.")],
        dead_ends=[answer_docs.dead_end("d", "Not this", why="It fails too.", leads_to="pytorch/other")],
        sources=[answer_docs.source("Docs", "https://pytorch.org/docs/stable/")]), language=lang)


SHARED = ("root_cause", "workarounds", "dead_ends", "sources", "leads_to")


def test_the_terminal_and_slack_use_the_same_words():
    from bot.slack import i18n
    from bot.slack.blocks import details_blocks

    assert i18n.WORDS is WORDS and i18n.t is t  # Slack reads the one table
    for lang in LANGUAGES:
        terminal = render_answer(_answer(lang))
        slack = str(details_blocks(_answer(lang)))
        for key in SHARED + ("confidence", "caveats"):
            assert t(key, lang) in terminal, (lang, key)
        for key in SHARED + ("diagnosis",):
            assert t(key, lang) in slack, (lang, key)
    assert t("root_cause", "ko") == "근본 원인"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_pages_use_the_same_words(lang, monkeypatch):
    from bot.kb.loader import cached_knowledge
    from bot.pages.site import KnowledgePages

    monkeypatch.setenv("TROUBLESHOOT_PUBLIC_URL", "")
    pages = KnowledgePages(store=None, knowledge_dir=FIXTURE_KB)
    kb, _ = cached_knowledge(FIXTURE_KB)
    entry = next(e for e in kb.entries.values() if e.dead_ends and e.workarounds and e.sources)
    keys = ("root_cause", "workarounds", "dead_ends", "sources", "evidence") \
        + (("leads_to",) if any(d.leads_to for d in entry.dead_ends) else ()) \
        + (("diagnosis",) if entry.diagnosis else ())
    for suffix in ("", ".md"):
        status, _ctype, body, _extra = pages.route(f"/kb/{entry.id}{suffix}", lang, {})
        assert status == "200 OK"
        page = body.decode()
        for key in keys:
            assert t(key, lang) in page, (lang, suffix, key)
        assert t("kb_status", lang) + ": " in page
    stats = pages.route("/kb/stats", lang, {})[2].decode()
    for key in ("most_asked", "unanswered", "nothing_yet"):  # also the words of Slack's App Home
        assert t(key, lang) in stats, (lang, key)


def test_code_questions_notices_and_rates_use_the_table():
    from bot.answer.notices import no_error_notice, other_library_notice
    from bot.answer.render import render_code_answer
    from bot.evidence.display import evidence_text, rate_text, refuted_text

    for lang in LANGUAGES:
        assert no_error_notice(lang) == t("notice_no_error", lang)
        assert t("other_by_exception", lang, x="KeyError") in other_library_notice(
            "pandas", "pandas", "KeyError", "exception", lang)
        assert rate_text(None, lang) == t("evidence_estimate", lang)
        assert refuted_text(lang) == t("evidence_refuted", lang)
        assert evidence_text({"runs": 1, "fixed": 1}, lang) == t("evidence_fixed", lang, k=1, n=1, s="")
        text = render_code_answer(answer_docs.document(answered=False, language=lang, note="ran", verification={
            "fixes": [{"workaround": "w", "patch": "p", "status": "fixed", "kind": "workaround"}]}))
        assert t("tried_on_yours", lang) in text
    assert evidence_text({"runs": 2, "fixed": 1}, "en") == "fixed 1 of 2 verified runs"
    assert kb_status_text({"status": "needs_cuda"}, "en") == "its repro needs a GPU"
    assert kb_status_text({"status": "reproduced", "torch": "2.13.0"}, "ko") == "kb verify로 재현됨 (torch 2.13.0)"
    assert labels("ko")["entries"].format(n=3) == "항목 3개"  # templates keep their placeholders
