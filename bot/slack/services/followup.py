"""A question asked in a thread the bot already answered: reply to that question from
the entry the thread was answered with, never with the same answer card again.

How the passage is chosen: the entry's prose is cut into passages (its root cause,
diagnosis, each scenario, each workaround with its caveat), and the question's words
(bot.retrieval.tokenize: English words and identifiers, Korean and Chinese bigrams) are
looked up in every language of each passage, so `그럼 batch size를 줄이면 되나요?` finds
the English words of a passage shown in Korean. Only distinctive words count: a word
found in more than DISTINCTIVE_SHARE of all entries ("loss", "torch", 的) says nothing
about this one, nor does the frame of a question ("also happen", 可以...吗: QUESTION_WORDS,
rare in the knowledge base but never the subject). Each distinctive word weighs its
inverse entry frequency (log of entries / entries with the word); the
passage with the most weight answers, and with none the reply says the entry does not
say and shows what it does say (title and first workaround). Lexical, not the embedder:
a follow-up names the thing it asks about (a loss, conda, batch size), and a
similarity score over one entry's passages would always find a "closest" one.
"""

from __future__ import annotations

import logging
import math
import re
from dataclasses import dataclass

from bot.kb import model as m
from bot.kb.loader import current_knowledge as knowledge
from bot.retrieval.tokenize import tokenize
from bot.slack.blocks import Message, escape, fallback, first_sentence, sections, tidy
from bot.slack.i18n import t
from bot.slack.services.context import BotContext
from bot.slack.services.slack_api import Posted, Where, post
from bot.store.models import Answer

log = logging.getLogger(__name__)

DISTINCTIVE_SHARE = 0.25  # a word in more than a quarter of the entries is not about this one
QUESTION_WORDS = frozenset("also happen happens happened work works working still instead same other about "
                           "really way ok okay help need try mean thing".split()
                           + "그럼 그러면 되나 나요 하면 되요 吗 呢 吧 么 可以 怎么".split())

# "thanks!", "고마워요", "谢谢", "ok", an emoji: a reply that needs no answer.
_CHATTER = re.compile(r"^\W*(?:thanks?(?: you)?|thx|ty|ok(?:ay)?|great|cool|nice|got it|works( now)?|"
                      r"고마워요?|고맙습니다|감사(?:합니다|해요)?|알겠습니다|네|谢谢(?:你)?|多谢|好的|明白了|"
                      r"(?::[\w+-]+:\s*)+)\W*$", re.IGNORECASE)


def is_chatter(text: str) -> bool:
    return not text.strip() or bool(_CHATTER.match(text.strip()))


@dataclass
class Passage:
    kind: str        # the label's key in bot/text/ui.py: root_cause, diagnosis, scenarios, workaround
    title: m.I18n | None
    body: m.I18n
    caveat: m.I18n | None = None

    def tokens(self) -> set[str]:
        texts = [*self.body.values(), *(self.title or {}).values(), *(self.caveat or {}).values()]
        return {tok for text in texts for tok in tokenize(text)}


def passages(entry: m.Entry) -> list[Passage]:
    out = [Passage("workaround", w.title, w.explanation, w.caveats) for w in entry.workarounds]
    out += [Passage("scenarios", s.title, s.explanation) for s in entry.scenarios]
    if entry.diagnosis:
        out.append(Passage("diagnosis", None, entry.diagnosis))
    out.append(Passage("root_cause", None, entry.root_cause))
    return out


_frequency: tuple[m.KnowledgeBase, dict[str, int]] | None = None  # for the knowledge base last loaded


def _entry_frequency(kb: m.KnowledgeBase) -> tuple[dict[str, int], int]:
    """In how many entries each word occurs (any field, any language)."""
    global _frequency
    if _frequency is not None and _frequency[0] is kb:
        return _frequency[1], len(kb.entries)
    counts: dict[str, int] = {}
    for entry in kb.entries.values():
        words: set[str] = set()
        for p in passages(entry):
            words |= p.tokens()
        words |= {tok for text in entry.title.values() for tok in tokenize(text)}
        for word in words:
            counts[word] = counts.get(word, 0) + 1
    _frequency = (kb, counts)
    return counts, len(kb.entries)


def best_passage(kb: m.KnowledgeBase, entry: m.Entry, question: str) -> Passage | None:
    """The passage of `entry` that speaks to `question`, or None when none does."""
    counts, total = _entry_frequency(kb)
    words = {w for w in tokenize(question)
             if w not in QUESTION_WORDS and 0 < counts.get(w, 0) <= max(DISTINCTIVE_SHARE * total, 2)}
    if not words:
        return None
    scored = []
    for i, p in enumerate(passages(entry)):
        found = words & p.tokens()
        score = sum(math.log(total / counts[w]) for w in found)
        if score > 0:
            scored.append((score, -i, p))  # ties: the earlier passage (workarounds come first)
    return max(scored, key=lambda s: (s[0], s[1]))[2] if scored else None


def follow_up_message(kb: m.KnowledgeBase, entry: m.Entry, question: str, lang: str) -> Message:
    """The reply: the passage that answers, or what the entry does say."""
    title = entry.title.get_text(lang)
    found = best_passage(kb, entry, question)
    if found is None:
        first = entry.workarounds[0]
        text = (t("followup_not_said", lang, title=escape(title)) + "\n"
                + f"*{escape(first.title.get_text(lang))}*: {escape(first_sentence(first.explanation.get_text(lang)))}")
    else:
        label = t(found.kind, lang)
        head = f"{label}: {found.title.get_text(lang)}" if found.title else label
        text = (t("followup_from_entry", lang, title=escape(title)) + "\n"
                + f"*{escape(head)}*\n{escape(tidy(found.body.get_text(lang)))}")
        if found.caveat:
            text += f"\n_{escape(t('caveats', lang))}_: {escape(found.caveat.get_text(lang))}"
    plain = re.sub(r"[*_]", "", text)
    return Message(text=fallback(plain), blocks=sections(text))


def answer_follow_up(ctx: BotContext, answered: Answer, question: str, where: Where, lang: str) -> Posted | None:
    """Reply to `question` from the entry of the thread's answer (`answered`); None when
    that answer has no entry to reply from (the caller answers it as a new question).
    No new answer row: the thread's answer is still the one it was."""
    kb = knowledge()
    entry = kb.resolve(answered.entry_id) if answered.entry_id else None  # the row keeps the answer's best match
    if entry is None:
        return None
    posted = post(ctx.client, where, [follow_up_message(kb, entry, question, lang)], lang=lang)
    log.info("follow-up to A%s answered from %s", answered.id, entry.id)
    return posted
