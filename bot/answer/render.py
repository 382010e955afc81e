"""The `ask` answer as text for a terminal: headings, wrapped prose, indented code."""

from __future__ import annotations

import re
import shutil
import textwrap
import unicodedata

from bot.answer.document import AnswerDocument, Source, WorkaroundItem
from bot.text.scripts import BREAK_ANYWHERE
from bot.text.ui import labels, t
from bot.verify.report import Status


def _width() -> int:
    return max(60, min(100, shutil.get_terminal_size((100, 24)).columns))


def _cell_width(text: str) -> int:
    """Terminal columns: Hangul and Han characters take two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


_PIECES = re.compile(rf"\s+|[{BREAK_ANYWHERE}]|[^\s{BREAK_ANYWHERE}]+")


def _wrap(text: str, indent: str, width: int) -> list[str]:
    """Wrap by terminal columns; Chinese breaks between characters, other text at spaces."""
    out: list[str] = []
    for paragraph in (text or "").split("\n"):
        if _cell_width(paragraph) == len(paragraph):
            out.extend(textwrap.wrap(paragraph, width=width, initial_indent=indent, subsequent_indent=indent,
                                     break_on_hyphens=False) or [indent.rstrip()])
            continue
        line, used = indent, len(indent)
        for piece in _PIECES.findall(paragraph):
            w = _cell_width(piece)
            if piece.isspace():
                if used > len(indent):
                    line, used = line + " ", used + 1
                continue
            if used + w > width and used > len(indent):
                out.append(line.rstrip())
                line, used = indent, len(indent)
            line, used = line + piece, used + w
        out.append(line.rstrip())
    return out


def _code(code: str | None, indent: str) -> list[str]:
    return [indent + "│ " + line for line in (code or "").rstrip("\n").split("\n")] if code else []


def source_place(s: Source, L: dict[str, str]) -> str:
    """Where a source is: its address, with a team article's origin ("#ml-help, 2026-03-02",
    or the file it was added from) when the address does not say it."""
    place = s.url or ""
    if isinstance(s.provenance, str):
        place = f"{s.provenance} ({s.url})" if s.url and "://" in s.url else s.provenance
    if s.solved is True:
        place += f", {L['thread_solved']}"
    return place


def rate_label(item: WorkaroundItem, L: dict[str, str]) -> str:
    """A percentage only where our runs or votes measured it, with the counts behind it;
    otherwise what the rate is: the team's estimate, not yet verified."""
    text = item.rate_text or L["unknown_rate"]
    if item.rate_kind == "measured" and item.success_rate is not None:
        return f"{L['success']} {item.success_rate:.0%} ({text})"
    return text


def render_answer(data: AnswerDocument, top: int = 3) -> str:
    lang = data.language
    L = labels(lang)
    width = _width()
    matches = data.matches
    lines: list[str] = []
    if data.declined in ("other-library", "no-error") and data.notice:
        return "\n".join(_wrap(("✗ " if data.declined == "other-library" else "? ") + data.notice, "", width))
    if data.tier == "choices" and (data.choices or data.team_articles):
        if data.choices:
            intro = L["choices_ambiguous"] if data.evidence == "signature" else L["choices_intro"]
            lines.extend(_wrap("? " + intro, "", width))
            for i, c in enumerate(data.choices, 1):
                lines.append(f"  {i}. {c.title}  ({c.id} · {L['confidence']} {c.confidence:.2f})")
                if c.line:
                    lines.extend(_wrap(c.line, "     ", width))
            lines.extend(_wrap(L["choices_pick_cli"], "  ", width))
        if data.team_articles:
            lines.extend(_wrap(("" if data.choices else "? ") + L["team_intro"], "", width))
            for s in data.team_articles:
                lines.append(f"  • {source_place(s, L)}: {s.title}")
                if s.excerpt:
                    lines.extend(_wrap(f"“{s.excerpt}”", "     ", width))
        lines.extend(_wrap(L["hint"], "  ", width))
        return "\n".join(lines)
    if not data.answered:
        lines.append(f"? {L['unsure']}.")
        if data.notice:
            lines.extend(_wrap(data.notice, "  ", width))
        lines.extend(_wrap(L["hint"], "  ", width))
        return "\n".join(lines)

    best_match = matches[0]
    lines.append(f"✔ {best_match.title}" + (f"  ({L['picked']})" if data.evidence == "picked" else ""))
    lines.append(f"  {best_match.id} · {L['confidence']} {best_match.confidence:.2f}")
    if data.wrapper:
        lines.extend(_wrap(t("wrapper_note", lang, wrapper=data.wrapper), "  ", width))
    if best_match.page_url:
        lines.append(f"  {best_match.page_url}")
    lines.append("")
    lines.append(L["root_cause"])
    lines.extend(_wrap(best_match.root_cause, "  ", width))
    lines.append("")
    lines.append(L["workarounds"])
    for i, w in enumerate(best_match.workarounds, 1):
        lines.append(f"  {i}. {w.title}  —  {rate_label(w, L)}")
        lines.extend(_wrap(w.explanation, "     ", width))
        lines.extend(_code(w.code, "     "))
        if w.caveats:
            lines.extend(_wrap(f"{L['caveats']}: {w.caveats}", "     ", width))
    if best_match.dead_ends:
        lines.append("")
        lines.append(L["dead_ends"])
        for d in best_match.dead_ends:
            lines.append(f"  ✗ {d.title}")
            why = d.why + (f" ({L['leads_to']} {d.leads_to})" if d.leads_to else "")
            lines.extend(_wrap(why, "     ", width))
            if d.rate_kind == "measured" and d.rate_text:
                lines.extend(_wrap(f"{L['our_evidence']}: {d.rate_text}", "     ", width))
            elif d.rate_kind == "proven" and d.rate_text:  # the knowledge base's own repro, not our runs
                lines.extend(_wrap(d.rate_text, "     ", width))
    if best_match.sources:
        lines.append("")
        lines.append(L["sources"])
        for i, s in enumerate(best_match.sources, 1):
            lines.append(f"  [{i}] {s.title} — {source_place(s, L)}")
            if s.excerpt:
                lines.extend(_wrap(f"“{s.excerpt}”", "      ", width))
    others = matches[1:top]
    if others:
        lines.append("")
        lines.append(f"{L['others']}: " + ", ".join(f"{m.id} ({m.confidence:.2f})" for m in others))
    return "\n".join(lines)


def render_code_answer(data: AnswerDocument, top: int = 3) -> str:
    """`troubleshoot ask` on code, as text: what the run did, the answer to its error (as
    for a pasted error), then what each fix did to the asker's snippet."""
    lang = data.language or "en"
    out = [data.note or ""]
    run = data.run
    if run and run.get("error"):
        out.append("")
        out.append(render_answer(data, top=top))
    fixes = (data.verification or {}).get("fixes") or []
    if fixes:
        from bot.verify.verify import describe_row  # lazy: the sandbox loads only for code questions

        out.append("")
        out.append(t("tried_on_yours", lang) + ":")
        for row in fixes:
            mark = "✔" if row.get("status") == Status.FIXED and row.get("kind") != "dead_end" else \
                "✗" if row.get("status") in (Status.STILL_FAILS, Status.NEW_ERROR) else "·"
            out.append(f"  {mark} " + describe_row({"status": Status.NOT_APPLICABLE, "kind": "workaround", **row}))
            if row.get("status") == Status.FIXED and row.get("diff"):
                out.extend("      " + line for line in row["diff"].rstrip("\n").split("\n"))
    return "\n".join(out)
