"""Block Kit messages built with slack_sdk's models.

Slack rejects a section whose text passes 3,000 characters and a message with more
than 50 blocks; an answer must never be lost to that, so long text is split into
several sections (code fences closed and reopened at the cut) and, past 50 blocks,
the least important parts are dropped with a note saying so. Every message carries
plain fallback `text` for notifications and screen readers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from slack_sdk.models.blocks import (ActionsBlock, Block, ButtonElement, ContextBlock, DividerBlock,
                                     MarkdownTextObject, PlainTextInputElement, PlainTextObject, SectionBlock,
                                     InputBlock)
from slack_sdk.models.views import View

from bot.slack.i18n import STATUS_EMOJI, status_word, t

SECTION_LIMIT = 3000
MAX_BLOCKS = 50
FALLBACK_LIMIT = 3000
FENCE = "```"

# action_id values: listeners route on them.
VERIFY_ACTION = "verify_fix"
VOTE_UP_ACTION = "vote_up"
VOTE_DOWN_ACTION = "vote_down"
SHARE_ACTION = "share_answer"
SNIPPET_MODAL = "verify_snippet_modal"


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
    text = " ".join(text.split())
    return text if len(text) <= FALLBACK_LIMIT else text[: FALLBACK_LIMIT - 1] + "…"


# -- answers ------------------------------------------------------------------------------

def confidence_text(match: dict, lang: str) -> str:
    value = match.get("confidence")
    if isinstance(value, (int, float)):
        level = "high" if value >= 0.75 else "medium" if value >= 0.5 else "low"
        return f"{t('confidence', lang)}: {t(level, lang)} ({value:.2f})"
    if isinstance(value, str) and value:
        word = t(value, lang) if value in ("high", "medium", "low") else value
        return f"{t('confidence', lang)}: {word}"
    return ""


def _rate_text(w: dict, lang: str) -> str:
    """A percentage only where our runs or votes measured it, with its counts; otherwise
    "team estimate, not yet verified" (bot.evidence.display)."""
    text = escape(str(w.get("rate_text") or ""))
    rate = w.get("success_rate")
    if w.get("rate_kind") == "measured" and isinstance(rate, (int, float)):
        return f"{t('works', lang)} {rate * 100:.0f}% · {text}"
    return text


def _code(code: str | None) -> str:
    code = (code or "").strip("\n")
    return f"\n{FENCE}\n{escape(code.replace(FENCE, '` ` `'))}\n{FENCE}" if code.strip() else ""


def _workaround_text(i: int, w: dict, lang: str) -> str:
    head = f"*{i}. {escape(w.get('title') or w.get('id') or '')}*"
    rate = _rate_text(w, lang)
    if rate:
        head += f"  _({rate})_"
    body = escape(w.get("explanation") or "")
    caveats = w.get("caveats")
    if isinstance(caveats, list):
        caveats = " ".join(str(c) for c in caveats)
    extra = f"\n_{escape(caveats)}_" if caveats else ""
    return f"{head}\n{body}{_code(w.get('code'))}{extra}".strip()


def _dead_end_text(d: dict, lang: str) -> str:
    text = f":no_entry: *{escape(d.get('title') or d.get('id') or '')}*\n{escape(d.get('why') or '')}"
    if d.get("leads_to"):
        text += f"\n{t('leads_to', lang)}: `{escape(d['leads_to'])}`"
    if d.get("rate_kind") == "measured" and d.get("rate_text"):
        text += f"\n:test_tube: _{escape(d['rate_text'])}_"
    return text + _code(d.get("code"))


def _source_line(i: int, s: dict) -> str:
    title = escape(s.get("title") or s.get("url") or "")
    url = s.get("url")
    # In a link, | and > would end the label or the link early.
    return f"[{i}] <{url}|{title.replace('|', '/')}>" if url and "://" in url else f"[{i}] {title}"


def _notes(notes: list[str] | None, lang: str) -> list[Block]:
    if not notes:
        return []
    return [context(f":paperclip: {t('file_skipped', lang)}: " + escape("; ".join(notes)))]


def answer_buttons(answer_id: int, lang: str, votes: tuple[int, int], *, private: bool, verify: bool) -> ActionsBlock:
    value = str(answer_id)
    elements = []
    if verify:
        elements.append(ButtonElement(text=t("verify", lang), action_id=VERIFY_ACTION, value=value, style="primary"))
    elements.append(ButtonElement(text=PlainTextObject(text=f"👍 {votes[0]}", emoji=True), action_id=VOTE_UP_ACTION,
                                  value=value))
    elements.append(ButtonElement(text=PlainTextObject(text=f"👎 {votes[1]}", emoji=True), action_id=VOTE_DOWN_ACTION,
                                  value=value))
    if private:
        elements.append(ButtonElement(text=t("share", lang), action_id=SHARE_ACTION, value=value))
    return ActionsBlock(block_id=f"answer-{answer_id}", elements=elements)


def answer_message(answer: dict, *, answer_id: int, votes: tuple[int, int] = (0, 0), private: bool = False,
                   shared_by: str | None = None, notes: list[str] | None = None) -> Message:
    """The answer to one question (the `ask --json` contract) as a Slack message;
    `notes` (e.g. files that were skipped) go above the buttons."""
    lang = answer.get("language") or "en"
    matches = answer.get("matches") or []
    content: list[Block] = []
    if shared_by:
        content.append(context(t("shared_by", lang, user=shared_by)))
    if not answer.get("answered") or not matches:
        text_parts = [t("not_sure", lang)]
        if matches:
            guesses = "\n".join(f"• {escape(m.get('title') or m['id'])} (`{escape(m['id'])}`, "
                                f"{confidence_text(m, lang)})" for m in matches[:3])
            text_parts.append(f"*{t('closest', lang)}*\n{guesses}")
        text_parts.append(t("not_sure_hint", lang))
        content += sections("\n\n".join(text_parts))
        content += _notes(notes, lang)
        tail = [answer_buttons(answer_id, lang, votes, private=private, verify=False),
                context(f"{t('ref', lang)} A{answer_id}")]
        return Message(text=fallback(t("not_sure", lang)), blocks=fit_blocks(content, tail, lang))

    best = matches[0]
    title = escape(best.get("title") or best["id"])
    head = f":mag: *{title}*  `{escape(best['id'])}`"
    conf = confidence_text(best, lang)
    content += sections(head + (f"\n{conf}" if conf else ""))
    if best.get("root_cause"):
        content += sections(f"*{t('root_cause', lang)}*\n{escape(best['root_cause'])}")
    workarounds = best.get("workarounds") or []
    if workarounds:
        content.append(DividerBlock())
        content += sections(f"*{t('workarounds', lang)}*")
        for i, w in enumerate(workarounds, 1):
            content += sections(_workaround_text(i, w, lang))
    dead_ends = best.get("dead_ends") or []
    if dead_ends:
        content.append(DividerBlock())
        content += sections(f"*{t('dead_ends', lang)}*")
        for d in dead_ends:
            content += sections(_dead_end_text(d, lang))
    srcs = best.get("sources") or []
    if srcs:
        content += sections(f"*{t('sources', lang)}*\n" + "\n".join(_source_line(i, s) for i, s in enumerate(srcs, 1)))
    others = matches[1:]
    if others:
        content.append(context(f"{t('also', lang)}: " + "; ".join(
            f"{escape(m.get('title') or m['id'])} (`{escape(m['id'])}`)" for m in others[:5])))
    content += _notes(notes, lang)
    tail = [answer_buttons(answer_id, lang, votes, private=private, verify=True),
            context(f"{t('ref', lang)} A{answer_id}")]
    summary = f"{best.get('title') or best['id']} ({best['id']}). {conf}. {best.get('root_cause') or ''}"
    return Message(text=fallback(summary), blocks=fit_blocks(content, tail, lang))


def compact_answer_message(answer: dict, *, answer_id: int, votes: tuple[int, int] = (0, 0),
                           private: bool = False) -> Message:
    """A smaller form of the answer for when Slack refuses the full one (msg_too_long,
    invalid_blocks): the match, root cause and the first workaround."""
    trimmed = dict(answer)
    trimmed["matches"] = []
    for m in (answer.get("matches") or [])[:1]:
        m = dict(m)
        m["workarounds"] = (m.get("workarounds") or [])[:1]
        m["dead_ends"], m["sources"] = [], (m.get("sources") or [])[:3]
        if m.get("root_cause"):
            m["root_cause"] = m["root_cause"][:1500]
        trimmed["matches"].append(m)
    return answer_message(trimmed, answer_id=answer_id, votes=votes, private=private)


def text_message(text: str) -> Message:
    return Message(text=fallback(text), blocks=sections(escape(text)) or [])


def apology_message(ref: str, lang: str = "en", detail: str | None = None) -> Message:
    """A short apology with a reference id; `detail` is a reason meant for users (a
    JobError's text, such as "the job queue is unreachable"), never an exception dump."""
    text = t("apology", lang, ref=ref)
    if detail:
        text += f"\n> {escape(detail[:300])}"
    return Message(text=fallback(text.replace("`", "")), blocks=sections(text))


# -- verification -------------------------------------------------------------------------

_FIX_STAGE = re.compile(r"fix (\d+) of (\d+)(?::\s*(.*))?", re.IGNORECASE)


def verification_progress(lang: str, stage: str, done: int, total: int) -> Message:
    """The status line while a verification runs. `stage` is what bot.verify reports:
    "queued", "running original", "fix 2 of 4: <title>", "done"."""
    fix = _FIX_STAGE.match(stage or "")
    if fix:
        step = t("verify_fix", lang, done=fix.group(1), total=fix.group(2))
        if fix.group(3):
            step += f": {escape(fix.group(3)[:200])}"
    elif (stage or "").startswith("queued"):
        step = t("verify_queued", lang)
    elif (stage or "").startswith("done"):
        step = t("verify_finishing", lang)
    else:
        step = t("verify_original", lang)
    text = f":hourglass_flowing_sand: {t('verify_running', lang)}: {step}"
    if total:
        text += f" ({done}/{total})"
    return Message(text=fallback(text), blocks=sections(text))


OUTPUT_EXCERPT_LINES = 15
OUTPUT_EXCERPT_CHARS = 1200


def output_excerpt(output: str) -> tuple[str, bool]:
    """The last lines of the output, and whether that leaves anything out."""
    lines = (output or "").rstrip("\n").split("\n")
    excerpt = "\n".join(lines[-OUTPUT_EXCERPT_LINES:])
    if len(excerpt) > OUTPUT_EXCERPT_CHARS:
        excerpt = excerpt[-OUTPUT_EXCERPT_CHARS:]
    return excerpt, excerpt != (output or "").rstrip("\n")


def verification_result(result: dict, lang: str, *, titles: dict[str, str] | None = None,
                        file_attached: bool = False) -> Message:
    titles = titles or {}
    reproduced = result.get("reproduced")
    err = result.get("error") or {}
    head = f":test_tube: *{t('verify_done', lang)}*\n"
    if reproduced:
        head += f"{t('reproduced', lang)}: `{escape(err.get('type') or '')}` {escape((err.get('message') or '')[:300])}"
    else:
        head += f"{t('not_reproduced', lang)} (exit: `{escape(result.get('exit_reason') or '?')}`)"
    lines = []
    for fix in result.get("fixes") or []:
        status = fix.get("status") or "?"
        name = fix.get("title") or titles.get(fix.get("workaround")) or fix.get("workaround") or "?"
        cost = []
        if isinstance(fix.get("seconds"), (int, float)):
            cost.append(f"{fix['seconds']:.1f}s")
        if isinstance(fix.get("peak_memory_bytes"), int) and fix["peak_memory_bytes"] > 0:
            cost.append(f"{fix['peak_memory_bytes'] / 2**20:.0f} MiB")
        line = f"{STATUS_EMOJI.get(status, '•')} *{escape(name)}*: {status_word(status, lang)}"
        if fix.get("kind") == "dead_end":
            line += f" _({t('dead_end_tag', lang)})_"
        if cost:
            line += f" ({', '.join(cost)})"
        if status in ("new_error", "still_fails") and fix.get("error"):
            fix_err = fix["error"]
            desc = fix_err.get("type", "") if isinstance(fix_err, dict) else str(fix_err)
            line += f" `{escape(desc[:150])}`"
        lines.append(line)
    blocks = sections(head)
    if lines:
        blocks += sections("\n".join(lines))
    excerpt, cut = output_excerpt(result.get("output") or "")
    if excerpt.strip():
        note = f" ({t('full_output', lang)})" if cut and file_attached else ""
        blocks += sections(f"*{t('output', lang)}*{note}\n{FENCE}\n{escape(excerpt)}\n{FENCE}")
    summary = head.replace("*", "") + " " + "; ".join(
        f"{f.get('title') or titles.get(f.get('workaround')) or f.get('workaround')}: {f.get('status')}"
        for f in result.get("fixes") or [])
    return Message(text=fallback(summary), blocks=blocks[:MAX_BLOCKS])


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
