"""Block Kit messages built with slack_sdk's models.

Slack rejects a section whose text passes 3,000 characters and a message with more
than 50 blocks; an answer must never be lost to that, so long text is split into
several sections (code fences closed and reopened at the cut) and, past 50 blocks,
the least important parts are dropped with a note saying so. Every message carries
plain fallback `text` for notifications and screen readers.
"""

from __future__ import annotations

import dataclasses

import re
from dataclasses import dataclass

from slack_sdk.models.blocks import (ActionsBlock, Block, ButtonElement, ContextBlock, DividerBlock, InputBlock,
                                     MarkdownTextObject, Option, PlainTextInputElement, PlainTextObject,
                                     RadioButtonsElement, SectionBlock)
from slack_sdk.models.views import View

from bot.answer.document import AnswerDocument, DeadEndItem, Match, Source, WorkaroundItem
from bot.slack.i18n import STATUS_EMOJI, status_word, t
from bot.text.scripts import join_unspaced
from bot.verify.report import ErrorInfo, FixRow, Status, VerifyReport

SECTION_LIMIT = 3000
MAX_BLOCKS = 50
FALLBACK_LIMIT = 3000
FENCE = "```"

# action_id values: listeners route on them.
VERIFY_ACTION = "verify_fix"
VOTE_UP_ACTION = "vote_up"
VOTE_DOWN_ACTION = "vote_down"
SHARE_ACTION = "share_answer"
DETAILS_ACTION = "answer_details"
# one per candidate of a choices answer (value "<answer id>:<choice number>")
PICK_ACTIONS = tuple(f"pick_choice_{n}" for n in (1, 2, 3))
SNIPPET_MODAL = "verify_snippet_modal"
DETAILS_MODAL = "answer_details_modal"
DOWNVOTE_MODAL = "downvote_reason_modal"


@dataclass
class Message:
    text: str
    blocks: list[Block]

    def payload(self) -> dict:
        return {"text": self.text, "blocks": [b.to_dict() for b in self.blocks]}


def escape(text: str) -> str:
    """Slack needs &, < and > escaped in text we send; nothing else."""
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def split_mrkdwn(text: str, limit: int = SECTION_LIMIT) -> list[str]:
    """Cut text into pieces of at most `limit` characters at line ends; a code fence
    open at a cut is closed there and reopened in the next piece."""
    room = limit - 2 * (len(FENCE) + 1)  # leave space for a closing and a reopening fence
    lines: list[str] = []
    for line in text.split("\n"):
        while len(line) > room:
            cut = line.rfind(" ", room // 2, room)  # prefer a word boundary
            cut = cut if cut > 0 else room
            lines.append(line[:cut])
            line = line[cut:].lstrip(" ")
        lines.append(line)

    chunks: list[str] = []
    current: list[str] = []
    size = 0
    in_fence = False
    for line in lines:
        extra = len(line) + 1
        if current and size + extra + (len(FENCE) + 1 if in_fence else 0) > limit:
            chunk = "\n".join(current) + ("\n" + FENCE if in_fence else "")
            chunks.append(chunk)
            current = [FENCE] if in_fence else []
            size = len(FENCE) + 1 if in_fence else 0
        current.append(line)
        size += extra
        if line.count(FENCE) % 2:
            in_fence = not in_fence
    if current and "\n".join(current).strip() not in ("", FENCE):
        chunks.append("\n".join(current))
    return [c for c in chunks if c.strip()]


def sections(text: str) -> list[SectionBlock]:
    return [SectionBlock(text=MarkdownTextObject(text=chunk)) for chunk in split_mrkdwn(text)]


def context(text: str) -> ContextBlock:
    return ContextBlock(elements=[MarkdownTextObject(text=text[:SECTION_LIMIT])])


def fit_blocks(content: list[Block], tail: list[Block], lang: str) -> list[Block]:
    """Content blocks first, then `tail` (buttons, footer) which is always kept."""
    room = MAX_BLOCKS - len(tail)
    if len(content) > room:
        dropped = len(content) - (room - 1)
        content = content[: room - 1] + [context(t("shortened", lang, n=dropped))]
    return content + tail


def fallback(text: str) -> str:
    """The top-level `text` (notifications, screen readers) from raw text: Slack reads it
    as mrkdwn too, so &, < and > are escaped here; nothing anyone typed or wrote can
    become a `<!channel>` or a link in a notification."""
    text = " ".join(str(text).split())
    text = text if len(text) <= FALLBACK_LIMIT else text[: FALLBACK_LIMIT - 1] + "…"
    return escape(text)


# -- answers ------------------------------------------------------------------------------
#
# The first message fits one screen (FIRST_MESSAGE_LIMIT visible characters): the match and
# the confidence in words, the cause in one sentence, the best fix with its code and its
# evidence, the most tempting dead end in one line, and the buttons. Everything else (every
# workaround, dead end, the diagnosis, version notes, sources) is in `details_view`, opened
# by "All fixes & details", in the asker's language.

FIRST_MESSAGE_LIMIT = 1500
CAUSE_CHARS = 280
FIRST_CODE_LINES = 12
FIRST_CODE_CHARS = 500
DEAD_END_CHARS = 180

_CJK_PUNCT_GAP = re.compile(r"(?<=[，。：；！？、）」』】])[ \t\n]+|[ \t\n]+(?=[，。：；！？、（「『【])")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)|(?<=[。！？])")


def tidy(text: str | None) -> str:
    """Knowledge text as read from YAML: line folding leaves a space where a Chinese or
    Japanese sentence was wrapped; between two such characters a space is never meant."""
    return _CJK_PUNCT_GAP.sub("", join_unspaced(str(text or ""))).strip()


def first_sentence(text: str | None, limit: int = CAUSE_CHARS) -> str:
    """The first sentence (at least 40 characters of it, so "e.g." does not end it), cut
    at a word when it is still too long."""
    text = " ".join(tidy(text).split())
    for m in _SENTENCE_END.finditer(text):
        if m.start() >= 40:
            text = text[:m.start()].rstrip()
            break
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", limit // 2, limit - 1)
    return text[:cut if cut > 0 else limit - 1].rstrip(",;: ") + "…"


def confidence_word(match: Match, lang: str) -> str:
    """The confidence in words ("high"), never a bare score."""
    value = match.confidence
    level = "high" if value >= 0.75 else "medium" if value >= 0.5 else "low"
    return t(f"match_{level}", lang)


def confidence_text(match: Match, lang: str) -> str:
    word = confidence_word(match, lang)
    return f"{t('confidence', lang)}: {word}" if word else ""


def _rate_text(w: WorkaroundItem, lang: str) -> str:
    """A percentage only where our runs or votes measured it, with its counts; otherwise
    "team estimate, not yet verified" (bot.evidence.display)."""
    text = escape(str(w.rate_text or ""))
    if w.rate_kind == "measured" and w.success_rate is not None:
        return f"{t('works', lang)} {w.success_rate * 100:.0f}% · {text}"
    return text


def _code(code: str | None, *, max_lines: int | None = None, max_chars: int | None = None) -> str:
    code = (code or "").strip("\n")
    if not code.strip():
        return ""
    cut = False
    if max_lines is not None:
        lines = code.split("\n")
        if len(lines) > max_lines:
            code, cut = "\n".join(lines[:max_lines]), True
    if max_chars is not None and len(code) > max_chars:
        code = code[:code.rfind("\n", 0, max_chars)] if "\n" in code[:max_chars] else code[:max_chars]
        cut = True
    body = escape(code.replace(FENCE, "` ` `")) + ("\n# …" if cut else "")
    return f"\n{FENCE}\n{body}\n{FENCE}"


def _workaround_text(i: int, w: WorkaroundItem, lang: str) -> str:
    head = f"*{i}. {escape(tidy(w.title) or w.id or '')}*"
    rate = _rate_text(w, lang)
    if rate:
        head += f"  _({rate})_"
    body = escape(tidy(w.explanation))
    extra = f"\n_{escape(tidy(w.caveats))}_" if w.caveats else ""
    return f"{head}\n{body}{_code(w.code)}{extra}".strip()


def _leads_to(d: DeadEndItem, lang: str) -> str:
    """What a dead end raises instead, by the entry's title (an id only when the title is
    unknown)."""
    if d.leads_to_title:
        return escape(tidy(d.leads_to_title))
    return f"`{escape(d.leads_to)}`" if d.leads_to else ""


def _dead_end_text(d: DeadEndItem, lang: str) -> str:
    text = f":no_entry: *{escape(tidy(d.title) or d.id or '')}*\n{escape(tidy(d.why))}"
    if d.leads_to:
        text += f"\n{t('leads_to', lang)}: {_leads_to(d, lang)}"
    if d.rate_kind in ("measured", "proven") and d.rate_text:  # proven: the knowledge base's own repro
        text += f"\n:test_tube: _{escape(d.rate_text)}_"
    return text + _code(d.code)


def public_sources(sources: list[Source]) -> list[Source]:
    """Sources a reader can open: http(s) addresses. The team's own notes and files
    (internal names, no address) are not listed, except a thread of the team's own Slack
    (its provenance "#channel, date" says where to find it)."""
    return [s for s in sources if (isinstance(s.url, str) and s.url.startswith(("http://", "https://")))
            or (isinstance(s.provenance, str) and s.provenance.startswith("#"))]


def _source_line(i: int, s: Source, lang: str) -> str:
    title = escape(s.title or s.url or "")
    # In a link, | and > would end the label or the link early.
    line = f"[{i}] <{s.url}|{title.replace('|', '/')}>" if s.url and "://" in s.url else f"[{i}] {title}"
    # A team article: where it came from ("#ml-help, 2026-03-02"), and whether the thread was marked solved.
    if isinstance(s.provenance, str):
        line += f" — {escape(s.provenance)}"
    if s.solved is True:
        line += f" ({t('thread_solved', lang)})"
    return line


def _notes(notes: list[str] | None, lang: str) -> list[Block]:
    if not notes:
        return []
    return [context(f":paperclip: {t('file_skipped', lang)}: " + escape("; ".join(notes)))]


def answer_buttons(answer_id: int, lang: str, votes: tuple[int, int], *, private: bool, verify: bool,
                   details: bool = True) -> ActionsBlock:
    value = str(answer_id)
    elements = []
    if verify:
        elements.append(ButtonElement(text=t("verify", lang), action_id=VERIFY_ACTION, value=value, style="primary"))
    if details:
        elements.append(ButtonElement(text=t("details", lang), action_id=DETAILS_ACTION, value=value))
    elements.append(ButtonElement(text=PlainTextObject(text=f"👍 {votes[0]}", emoji=True), action_id=VOTE_UP_ACTION,
                                  value=value))
    elements.append(ButtonElement(text=PlainTextObject(text=f"👎 {votes[1]}", emoji=True), action_id=VOTE_DOWN_ACTION,
                                  value=value))
    if private:
        elements.append(ButtonElement(text=t("share", lang), action_id=SHARE_ACTION, value=value))
    return ActionsBlock(block_id=f"answer-{answer_id}", elements=elements)


def _footer(answer_id: int, lang: str, best: Match | None = None) -> ContextBlock:
    text = f"{t('ref', lang)} A{answer_id}"
    if best:
        text += f" · `{escape(best.id)}`"  # what `troubleshoot ask` and the knowledge pages call it
        more_fixes = max(0, len(best.workarounds) - 1)
        more_dead = max(0, len(best.dead_ends) - 1)
        if more_fixes or more_dead:
            text += " · " + t("more_in_details", lang, fixes=more_fixes, dead_ends=more_dead)
    return context(text)


def _best_fix_text(w: WorkaroundItem, lang: str, *, code: bool = True) -> str:
    title = escape(tidy(w.title) or w.id or "")
    text = f":white_check_mark: *{t('best_fix', lang)}: {title}*"
    rate = _rate_text(w, lang)
    if rate:
        text += f"\n_{rate}_"
    if code:
        text += _code(w.code, max_lines=FIRST_CODE_LINES, max_chars=FIRST_CODE_CHARS)
    return text


def _dead_end_line(d: DeadEndItem, lang: str, entry_id: str | None = None) -> str:
    """One line warning of a dead end of the entry `entry_id` (a dead end that leads back
    to the same error gets its why instead of a link to itself)."""
    title = escape(first_sentence(d.title, DEAD_END_CHARS) or d.id or "")
    line = f":no_entry: {t('dont', lang)}: *{title}*"
    if d.leads_to and d.leads_to != entry_id:
        line += f" ({t('leads_to', lang)}: {_leads_to(d, lang)})"
    elif d.why:
        line += f": {escape(first_sentence(d.why, DEAD_END_CHARS))}"
    return line


def tempting_dead_end(dead_ends: list[DeadEndItem]) -> DeadEndItem | None:
    """The dead end to warn about first: one our runs saw fail most, else the author's first."""
    if not dead_ends:
        return None
    measured = [(d, d.fail_rate) for d in dead_ends if d.rate_kind == "measured" and d.fail_rate is not None]
    if measured:
        return max(measured, key=lambda pair: (pair[1], pair[0].evidence or 0))[0]
    return dead_ends[0]


def _unsure(answer: AnswerDocument, lang: str, answer_id: int, votes: tuple[int, int], private: bool,
            content: list[Block], notes: list[str] | None) -> Message:
    matches = answer.matches
    text_parts = [t("not_sure", lang)]
    if matches:
        guesses = "\n".join(f"• {escape(tidy(m.title) or m.id)} ({confidence_text(m, lang)})"
                            for m in matches[:3])
        text_parts.append(f"*{t('closest', lang)}*\n{guesses}")
    text_parts.append(t("not_sure_hint", lang))
    content += sections("\n\n".join(text_parts))
    content += _notes(notes, lang)
    tail = [answer_buttons(answer_id, lang, votes, private=private, verify=False, details=False),
            context(f"{t('ref', lang)} A{answer_id}")]
    return Message(text=fallback(t("not_sure", lang)), blocks=fit_blocks(content, tail, lang))


def _choices(answer: AnswerDocument, lang: str, answer_id: int, content: list[Block],
             notes: list[str] | None) -> Message:
    """Up to three candidates, one line each, a button each: "is it one of these?"; and
    the team's own articles that match (cited, no button: they are not entries)."""
    parts = []
    if answer.choices:
        # a signature behind choices: the error's text fits several entries alike
        intro = t("choices_ambiguous", lang) if answer.evidence == "signature" else t("choices_intro", lang)
        lines = [f"{i}. *{escape(tidy(c.title) or c.id)}*" + (f" — {escape(first_sentence(c.line))}" if c.line
                                                               else "")
                 for i, c in enumerate(answer.choices, 1)]
        parts.append(escape(intro) + "\n" + "\n".join(lines) + "\n_" + t("choices_pick_slack", lang) + "_")
    team = answer.team_articles if isinstance(answer.team_articles, list) else []
    if team:
        parts.append(escape(t("team_intro", lang)) + "\n" + "\n".join(
            _source_line(i, s, lang) + (f"\n> {escape(first_sentence(s.excerpt))}"
                                        if isinstance(s.excerpt, str) else "")
            for i, s in enumerate(team, 1)))
    content += sections("\n\n".join(parts))
    content += _notes(notes, lang)
    tail: list[Block] = []
    if answer.choices:
        tail.append(ActionsBlock(block_id=f"choices-{answer_id}", elements=[
            ButtonElement(text=PlainTextObject(text=f"{i}. {tidy(c.title) or c.id}"[:75], emoji=False),
                          action_id=PICK_ACTIONS[i - 1], value=f"{answer_id}:{i}")
            for i, c in enumerate(answer.choices[:len(PICK_ACTIONS)], 1)]))
    tail.append(context(f"{t('ref', lang)} A{answer_id}"))
    named = [tidy(c.title) or c.id for c in answer.choices] + [s.title for s in team]
    summary = (t("choices_intro", lang) if answer.choices else t("team_intro", lang)) + " " + "; ".join(named)
    return Message(text=fallback(summary), blocks=fit_blocks(content, tail, lang))


def picked_answer(answer: AnswerDocument, number: int) -> AnswerDocument | None:
    """The stored choices answer once the asker picked candidate `number`: that entry is
    the answer (evidence "picked"); None when there is no such candidate."""
    if answer.tier != "choices" or not 1 <= number <= len(answer.choices):
        return None
    chosen = answer.choices[number - 1].id
    picked = next((m for m in answer.matches if m.id == chosen), None)
    if picked is None:
        return None
    others = [m for m in answer.matches if m.id != chosen]
    return dataclasses.replace(answer, answered=True, tier="answer", choices=[], declined=None, notice=None,
                               evidence="picked", matches=[picked] + others)


def answer_message(answer: AnswerDocument, *, answer_id: int, votes: tuple[int, int] = (0, 0),
                   private: bool = False, shared_by: str | None = None, notes: list[str] | None = None,
                   verify: bool = True, code: bool = True, dead_end: bool = True) -> Message:
    """The first answer to one question (the `ask --json` document) as a Slack message
    that fits one screen; `notes` (e.g. files that were skipped) go above the buttons."""
    lang = answer.language or "en"
    matches = answer.matches
    content: list[Block] = []
    if shared_by:
        content.append(context(t("shared_by", lang, user=shared_by)))
    if answer.declined in ("other-library", "no-error") and answer.notice:
        # another library's error, or no error at all: say so, no guesses, nothing to verify
        content += sections(escape(answer.notice))
        content += _notes(notes, lang)
        tail = [context(f"{t('ref', lang)} A{answer_id}")]
        return Message(text=fallback(answer.notice), blocks=fit_blocks(content, tail, lang))
    if answer.tier == "choices" and (answer.choices or answer.team_articles):
        return _choices(answer, lang, answer_id, content, notes)
    if not answer.answered or not matches:
        return _unsure(answer, lang, answer_id, votes, private, content, notes)

    best = matches[0]
    title = escape(tidy(best.title) or best.id)
    conf = confidence_word(best, lang)
    head = f":mag: *{title}*"
    if best.page_url:  # TROUBLESHOOT_PUBLIC_URL is set: the entry's page (bot/pages)
        head += f"  <{best.page_url}|{t('page', lang)}>"
    head += f"\n_{t('match_is', lang, level=conf)}_" if conf else ""
    cause = first_sentence(best.root_cause)
    if cause:
        head += f"\n{escape(cause)}"
    content += sections(head)
    workarounds = best.workarounds
    if workarounds:
        content += sections(_best_fix_text(workarounds[0], lang, code=code))
    tempting = tempting_dead_end(best.dead_ends) if dead_end else None
    if tempting:
        content.append(context(_dead_end_line(tempting, lang, entry_id=best.id)))
    content += _notes(notes, lang)
    tail = [answer_buttons(answer_id, lang, votes, private=private, verify=verify and bool(workarounds)),
            _footer(answer_id, lang, best)]
    summary = f"{tidy(best.title) or best.id}: {cause}"
    if workarounds:
        summary += f" {t('best_fix', lang)}: {tidy(workarounds[0].title)}"
    return Message(text=fallback(summary), blocks=fit_blocks(content, tail, lang))


def compact_answer_message(answer: AnswerDocument, *, answer_id: int, votes: tuple[int, int] = (0, 0),
                           private: bool = False, verify: bool = True) -> Message:
    """A smaller form for when Slack refuses the first one (msg_too_long, invalid_blocks):
    the fix's code and the dead end go; the fix's title, its evidence and the buttons stay."""
    return answer_message(answer, answer_id=answer_id, votes=votes, private=private, verify=verify, code=False,
                          dead_end=False)


def minimal_answer_message(answer: AnswerDocument, *, answer_id: int, votes: tuple[int, int] = (0, 0),
                           private: bool = False, verify: bool = True) -> Message:
    """The last form: one short section (title, the best fix's title and a few lines of
    its code) and the buttons. Still the fix, still the buttons."""
    lang = answer.language or "en"
    matches = answer.matches
    if answer.tier == "choices" and (answer.choices or answer.team_articles):
        return _choices(answer, lang, answer_id, [], None)
    if not answer.answered or not matches:
        return Message(text=fallback(t("not_sure", lang)), blocks=sections(t("not_sure", lang)))
    best = matches[0]
    workarounds = best.workarounds
    text = f"*{escape(tidy(best.title) or best.id)[:200]}*"
    if workarounds:
        w = workarounds[0]
        text += f"\n{t('best_fix', lang)}: {escape(tidy(w.title))[:200]}"
        text += _code(w.code, max_lines=6, max_chars=300)
    blocks: list[Block] = [SectionBlock(text=MarkdownTextObject(text=text[:SECTION_LIMIT])),
                           answer_buttons(answer_id, lang, votes, private=private, verify=verify and bool(workarounds))]
    summary = f"{tidy(best.title)}. " + (f"{t('best_fix', lang)}: {tidy(workarounds[0].title)}"
                                         if workarounds else "")
    return Message(text=fallback(summary), blocks=blocks)


def answer_versions(answer: AnswerDocument, *, answer_id: int, votes: tuple[int, int] = (0, 0),
                    private: bool = False, notes: list[str] | None = None, verify: bool = True) -> list[Message]:
    """The forms post() tries in order when Slack refuses one for its content."""
    return [answer_message(answer, answer_id=answer_id, votes=votes, private=private, notes=notes, verify=verify),
            compact_answer_message(answer, answer_id=answer_id, votes=votes, private=private, verify=verify),
            minimal_answer_message(answer, answer_id=answer_id, votes=votes, private=private, verify=verify)]


def details_blocks(answer: AnswerDocument) -> list[Block]:
    """Everything about the best match: the whole root cause, the diagnosis, every
    workaround with its evidence, every dead end, version notes, sources, other matches."""
    lang = answer.language or "en"
    matches = answer.matches
    if not matches:
        return list(sections(t("not_sure", lang)))
    best = matches[0]
    content: list[Block] = []
    conf = confidence_text(best, lang)
    content += sections(f":mag: *{escape(tidy(best.title) or best.id)}*" + (f"\n{conf}" if conf else ""))
    if best.root_cause:
        content += sections(f"*{t('root_cause', lang)}*\n{escape(tidy(best.root_cause))}")
    if best.diagnosis:
        content += sections(f"*{t('diagnosis', lang)}*\n{escape(tidy(best.diagnosis))}")
    if best.workarounds:
        content.append(DividerBlock())
        content += sections(f"*{t('workarounds', lang)}*")
        for i, w in enumerate(best.workarounds, 1):
            content += sections(_workaround_text(i, w, lang))
    if best.dead_ends:
        content.append(DividerBlock())
        content += sections(f"*{t('dead_ends', lang)}*")
        for d in best.dead_ends:
            content += sections(_dead_end_text(d, lang))
    if best.version_notes:
        content += sections(f"*{t('versions', lang)}*\n" + "\n".join(
            f"• `{escape(n.versions or '')}`: {escape(tidy(n.note or n.message or ''))}"
            for n in best.version_notes))
    srcs = public_sources(best.sources)
    if srcs:
        content += sections(f"*{t('sources', lang)}*\n"
                            + "\n".join(_source_line(i, s, lang) for i, s in enumerate(srcs, 1)))
    others = matches[1:]
    if others:
        content.append(context(f"{t('also', lang)}: " + "; ".join(
            f"{escape(tidy(m.title) or m.id)} ({confidence_word(m, lang)})" for m in others[:5])))
    return content


MODAL_MAX_BLOCKS = 100


def details_view(answer: AnswerDocument, answer_id: int) -> View:
    lang = answer.language or "en"
    blocks = details_blocks(answer)
    if len(blocks) > MODAL_MAX_BLOCKS:
        dropped = len(blocks) - (MODAL_MAX_BLOCKS - 1)
        blocks = blocks[:MODAL_MAX_BLOCKS - 1] + [context(t("shortened", lang, n=dropped))]
    return View(type="modal", callback_id=DETAILS_MODAL, private_metadata=str(answer_id),
                title=PlainTextObject(text=t("details_title", lang)[:24]),
                close=PlainTextObject(text=t("close", lang)), blocks=blocks)


def details_message(answer: AnswerDocument, answer_id: int) -> Message:
    """The details as a message (when no modal can be opened)."""
    lang = answer.language or "en"
    best = answer.matches[0] if answer.matches else None
    summary = f"{tidy(best.title)}: {tidy(best.root_cause)}" if best else ": "
    return Message(text=fallback(summary),
                   blocks=fit_blocks(details_blocks(answer), [context(f"{t('ref', lang)} A{answer_id}")], lang))


_MRKDWN_LINK = re.compile(r"<([^|>]+)\|([^>]+)>")
_EMOJI = re.compile(r":[a-z0-9_+\-]+:")


def visible_chars(message: Message | dict) -> int:
    """How many characters a reader sees: section, context and button texts, with the
    mrkdwn markup (*, _, ```, link targets, entity escapes) taken out and an emoji as one."""
    payload = message.payload() if isinstance(message, Message) else message
    texts = []
    for b in payload.get("blocks") or []:
        if b.get("type") == "section":
            texts.append((b.get("text") or {}).get("text", ""))
        elif b.get("type") == "context":
            texts += [e.get("text", "") for e in b.get("elements") or []]
        elif b.get("type") == "actions":
            texts += [(e.get("text") or {}).get("text", "") for e in b.get("elements") or []]
    total = 0
    for text in texts:
        text = _MRKDWN_LINK.sub(r"\2", text)
        text = _EMOJI.sub("E", text).replace(FENCE, "")
        text = text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
        text = re.sub(r"(?<!\w)[*_`]|[*_`](?!\w)", "", text)
        total += len(text)
    return total


def text_message(text: str) -> Message:
    return Message(text=fallback(text), blocks=sections(escape(text)) or [])


def apology_message(ref: str, lang: str = "en", detail: str | None = None) -> Message:
    """A short apology with a reference id; `detail` is a reason meant for users (a
    JobError's text, such as "the job queue is unreachable"), never an exception dump."""
    text = t("apology", lang, ref=ref)
    plain = text.replace("`", "") + (f" {detail[:300]}" if detail else "")
    if detail:
        text += f"\n> {escape(detail[:300])}"
    return Message(text=fallback(plain), blocks=sections(text))


def working_message(lang: str) -> Message:
    """Shown while a slow answer is looked up; replaced by the answer."""
    text = f":hourglass_flowing_sand: {t('working', lang)}"
    return Message(text=fallback(t("working", lang)), blocks=[context(text)])


# -- verification -------------------------------------------------------------------------

_FIX_STAGE = re.compile(r"fix (\d+) of (\d+)(?::\s*(.*))?", re.IGNORECASE)


def fix_titles(answer: AnswerDocument | None) -> dict[str, str]:
    """Workaround and dead-end ids (and workarounds' patch names) -> titles, for progress and results."""
    titles: dict[str, str] = {}
    for match in answer.matches if answer is not None else []:
        keyed = [(tidy(w.title) or w.id, (w.id, w.patch)) for w in match.workarounds]
        keyed += [(tidy(d.title) or d.id, (d.id, None)) for d in match.dead_ends]
        for title, keys in keyed:
            for key in keys:
                if key and key not in titles:
                    titles[key] = title
    return titles


def verification_progress(lang: str, stage: str, done: int, total: int, *,
                          titles: dict[str, str] | None = None) -> Message:
    """The status line while a verification runs. `stage` is what bot.verify reports:
    "queued", "running original", "fix 2 of 4: <id>", "done"; `done` counts finished
    runs (the original first). One counter is shown: fixes checked of all fixes, and the
    fix now running by its title."""
    titles = titles or {}
    fix = _FIX_STAGE.match(stage or "")
    if fix:
        n_fixes = int(fix.group(2))
        checked = max(0, min(n_fixes, done - 1)) if total else 0
        step = t("verify_checked", lang, done=checked, total=n_fixes)
        label = (fix.group(3) or "").strip()
        if label:
            step += f" · {t('verify_now', lang)}: {titles.get(label) or label}"
    elif (stage or "").startswith("queued"):
        step = t("verify_queued", lang)
    elif (stage or "").startswith("done"):
        step = t("verify_finishing", lang)
    else:
        step = t("verify_original", lang)
    plain = f"{t('verify_running', lang)}: {step}"
    return Message(text=fallback(plain), blocks=sections(f":hourglass_flowing_sand: {escape(plain[:2000])}"))


OUTPUT_EXCERPT_LINES = 15
OUTPUT_EXCERPT_CHARS = 1200
DIFF_CHARS = 700


def output_excerpt(output: str) -> tuple[str, bool]:
    """The last whole lines of the output (never a line cut in the middle), and whether
    that leaves anything out."""
    lines = (output or "").rstrip("\n").split("\n")
    kept: list[str] = []
    size = 0
    for line in reversed(lines[-OUTPUT_EXCERPT_LINES:]):
        if kept and size + len(line) + 1 > OUTPUT_EXCERPT_CHARS:
            break
        if not kept and len(line) > OUTPUT_EXCERPT_CHARS:  # one huge line: its end, marked as cut
            line = "…" + line[-(OUTPUT_EXCERPT_CHARS - 1):]
        kept.append(line)
        size += len(line) + 1
    excerpt = "\n".join(reversed(kept))
    return excerpt, excerpt != (output or "").rstrip("\n")


def _diff_text(diff: str | None) -> str:
    """A fix's change to the snippet (unified diff, headers left out), whole lines, capped."""
    lines = [ln for ln in (diff or "").splitlines() if not ln.startswith(("---", "+++"))]
    kept, size = [], 0
    for line in lines:
        if size + len(line) + 1 > DIFF_CHARS:
            kept.append("…")
            break
        kept.append(line)
        size += len(line) + 1
    body = "\n".join(kept).strip("\n")
    return f"\n{FENCE}\n{escape(body.replace(FENCE, '` ` `'))}\n{FENCE}" if body.strip() else ""


def untested_lead(answer: AnswerDocument | None) -> WorkaroundItem | None:
    """The fix the answer shows first when Verify cannot test it (it has no patch)."""
    best = answer.matches[0] if answer is not None and answer.matches else None
    first = best.workarounds[0] if best is not None and best.workarounds else None
    return first if first is not None and not first.patch else None


def _answer_order(report: VerifyReport, answer: AnswerDocument | None) -> list[FixRow]:
    """The report's rows in the order the answer shows its fixes (then its dead ends);
    rows the answer does not show keep their place after them."""
    best = answer.matches[0] if answer is not None and answer.matches else None
    if best is None:
        return list(report.fixes)
    shown = [w.id for w in best.workarounds] + [d.id for d in best.dead_ends]
    place = {item: i for i, item in enumerate(shown)}
    return sorted(report.fixes, key=lambda row: place.get(row.workaround or "", len(shown)))


def _fix_name(fix: FixRow, titles: dict[str, str]) -> str:
    return tidy(fix.title or titles.get(fix.workaround or "") or fix.workaround or "?")


def verification_result(report: VerifyReport, lang: str, *, titles: dict[str, str] | None = None,
                        file_attached: bool = False, user: str | None = None,
                        answer: AnswerDocument | None = None) -> Message:
    """The report as Slack shows it, in the order of `answer` (the answer verified): the
    fix it shows first says "not tested: no automatic patch" when Verify has no patch for
    it, and a dead end that ran cleanly is never called fixed."""
    titles = titles or {}
    err = report.error or ErrorInfo(type=None, message=None, entry_id=None)
    head = f":test_tube: *{t('verify_done', lang)}*\n"
    plain = t("verify_done", lang) + ". "
    if isinstance(report.infrastructure_error, str):  # the GPU failed its canary: nothing about the snippet
        head += f":warning: {t('verify_infrastructure', lang)}"
        plain += t("verify_infrastructure", lang)
    elif report.reproduced:
        detail = f"`{escape(err.type or '')}` {escape((err.message or '')[:300])}"
        head += f"{t('reproduced', lang)}: {detail}"
        plain += f"{t('reproduced', lang)}: {err.type or ''}"
    else:
        head += f"{t('not_reproduced', lang)} (exit: `{escape(report.exit_reason or '?')}`)"
        plain += t("not_reproduced", lang)
    blocks = sections(head)
    summary = []
    lead = untested_lead(answer) if report.reproduced else None
    if lead is not None:
        name = tidy(lead.title) or lead.id
        blocks += sections(f"{STATUS_EMOJI[Status.NOT_APPLICABLE]} *{escape(name)}*: {t('verify_no_patch', lang)}")
        summary.append(f"{name}: {t('verify_no_patch', lang)}")
    for fix in _answer_order(report, answer):
        status = fix.status
        name = _fix_name(fix, titles)
        cost = []
        if isinstance(fix.seconds, (int, float)):
            cost.append(f"{fix.seconds:.1f}s")
        if isinstance(fix.peak_memory_bytes, int) and fix.peak_memory_bytes > 0:
            cost.append(f"{fix.peak_memory_bytes / 2**20:.0f} MiB")
        if fix.kind == "dead_end" and status == Status.FIXED:
            said = t("verify_dead_end_ran", lang)
            line = f":warning: *{escape(name)}*: {said}"
        else:
            said = status_word(status, lang)
            line = f"{STATUS_EMOJI.get(status, '•')} *{escape(name)}*: {said}"
            if fix.kind == "dead_end":
                line += f" _({t('dead_end_tag', lang)})_"
        if cost:
            line += f" ({', '.join(cost)})"
        if status in (Status.NEW_ERROR, Status.STILL_FAILS) and fix.error is not None:
            line += f" `{escape((fix.error.type or '')[:150])}`"
        if status == Status.FIXED or fix.kind != "dead_end":
            line += _diff_text(fix.diff or None)
        blocks += sections(line)
        summary.append(f"{name}: {said}")
    excerpt, cut = output_excerpt(report.output or "")
    if excerpt.strip():
        note = f" ({t('full_output', lang)})" if cut and file_attached else ""
        blocks += sections(f"*{t('output', lang)}*{note}\n{FENCE}\n{escape(excerpt)}\n{FENCE}")
    if user:
        blocks.insert(0, context(t("verify_for", lang, user=user)))
    text = plain + " " + "; ".join(summary)
    if len(blocks) > MAX_BLOCKS:
        blocks = blocks[:MAX_BLOCKS - 1] + [context(t("shortened", lang, n=len(blocks) - MAX_BLOCKS + 1))]
    return Message(text=fallback(text), blocks=blocks)


def verification_done_notice(lang: str, user: str, report: VerifyReport, *,
                             titles: dict[str, str] | None = None, answer: AnswerDocument | None = None) -> Message:
    """A new message in the thread (an edit notifies nobody) that mentions the asker: what
    fixed the error, in the answer's order; what the answer leads with but Verify could
    not test; a dead end that ran cleanly, said as such (never as a fix)."""
    titles = titles or {}
    rows = _answer_order(report, answer)
    fixed = [_fix_name(f, titles) for f in rows if f.status == Status.FIXED and f.kind != "dead_end"]
    if isinstance(report.infrastructure_error, str):
        outcome = t("verify_infrastructure", lang)
    elif not report.reproduced:
        outcome = t("not_reproduced", lang)
    elif fixed:
        outcome = t("verify_fixed_by", lang, fixes=", ".join(fixed[:3]))
    else:
        outcome = t("verify_none_fixed", lang)
    if report.reproduced:
        lead = untested_lead(answer)
        more = [f"{tidy(lead.title) or lead.id}: {t('verify_no_patch', lang)}"] if lead is not None else []
        more += [f"{_fix_name(f, titles)}: {t('verify_dead_end_ran', lang)}"
                 for f in rows if f.status == Status.FIXED and f.kind == "dead_end"]
        outcome = "; ".join([outcome, *more])
    mention = f"<@{user}>" if _USER_ID.fullmatch(user or "") else ""
    text = f"{mention} {t('verify_done', lang)}: {escape(outcome)}".strip()
    return Message(text=f"{mention} {fallback(t('verify_done', lang) + ': ' + outcome)}".strip(),
                   blocks=sections(text))


_USER_ID = re.compile(r"[UW][A-Z0-9]{2,30}")


def snippet_modal(answer_id: int, lang: str, *, error: str | None = None) -> View:
    hint = t("not_python", lang, error=error) if error else None
    return View(
        type="modal", callback_id=SNIPPET_MODAL, private_metadata=str(answer_id),
        title=PlainTextObject(text=t("modal_title", lang)[:24]),
        submit=PlainTextObject(text=t("run", lang)), close=PlainTextObject(text=t("cancel", lang)),
        blocks=[InputBlock(block_id="snippet", label=t("snippet_label", lang),
                           hint=PlainTextObject(text=hint or t("paste_snippet", lang)),
                           element=PlainTextInputElement(action_id="code", multiline=True, max_length=3000))],
    )


DOWNVOTE_REASONS = ("wrong_error", "fix_failed", "unclear", "other")


def downvote_modal(answer_id: int, lang: str) -> View:
    """👎: why? One of four reasons and optional words; "the fix did not work" counts
    against the best fix like a failed run from this asker."""
    options = [Option(value=r, text=PlainTextObject(text=t(f"reason_{r}", lang))) for r in DOWNVOTE_REASONS]
    return View(
        type="modal", callback_id=DOWNVOTE_MODAL, private_metadata=str(answer_id),
        title=PlainTextObject(text=t("why_title", lang)[:24]),
        submit=PlainTextObject(text=t("send", lang)), close=PlainTextObject(text=t("skip", lang)),
        blocks=[InputBlock(block_id="reason", label=t("why_label", lang),
                           element=RadioButtonsElement(action_id="choice", options=options)),
                InputBlock(block_id="comment", label=t("comment_label", lang), optional=True,
                           element=PlainTextInputElement(action_id="text", multiline=True, max_length=500))],
    )
