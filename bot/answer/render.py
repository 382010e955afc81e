"""The `ask` answer as text for a terminal: headings, wrapped prose, indented code."""

from __future__ import annotations

import re
import shutil
import textwrap
import unicodedata

LABELS = {
    "en": {
        "root_cause": "Root cause", "workarounds": "Workarounds (best backed first)",
        "dead_ends": "Dead ends (look right, but fail)", "sources": "Sources", "confidence": "confidence",
        "success": "fixes it", "evidence": "evidence", "leads_to": "leads to", "caveats": "note",
        "others": "Other candidates", "unsure": "Not sure which known error this is",
        "nearest": "Nearest entries", "hint": "Paste the whole traceback (its last lines matter most), "
                                              "or describe what you ran.",
        "matched": "matched", "unknown_rate": "rate unknown", "our_evidence": "our evidence",
    },
    "ko": {
        "root_cause": "원인", "workarounds": "해결 방법 (근거가 강한 순)", "dead_ends": "효과 없는 시도",
        "sources": "출처", "confidence": "확신도", "success": "해결률", "evidence": "근거",
        "leads_to": "이어지는 오류", "caveats": "주의", "others": "다른 후보",
        "unsure": "어떤 알려진 오류인지 확실하지 않습니다", "nearest": "가장 가까운 항목",
        "hint": "전체 트레이스백(특히 마지막 줄)을 붙여 넣거나 무엇을 실행했는지 알려 주세요.",
        "matched": "일치", "unknown_rate": "해결률 미상", "our_evidence": "검증 결과",
    },
    "zh": {
        "root_cause": "根本原因", "workarounds": "解决方法（依据最充分的在前）", "dead_ends": "看似可行但无效的做法",
        "sources": "来源", "confidence": "置信度", "success": "成功率", "evidence": "证据",
        "leads_to": "会导致", "caveats": "注意", "others": "其他候选",
        "unsure": "无法确定这是哪一种已知错误", "nearest": "最接近的条目",
        "hint": "请粘贴完整的 traceback（最后几行最重要），或说明你运行了什么。",
        "matched": "匹配", "unknown_rate": "成功率未知", "our_evidence": "验证结果",
    },
}


def _width() -> int:
    return max(60, min(100, shutil.get_terminal_size((100, 24)).columns))


def _cell_width(text: str) -> int:
    """Terminal columns: Hangul and Han characters take two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


_PIECES = re.compile(r"\s+|[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]|[^\s\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]+")


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


def rate_label(item: dict, L: dict) -> str:
    """A percentage only where our runs or votes measured it, with the counts behind it;
    otherwise what the rate is: the team's estimate, not yet verified."""
    text = item.get("rate_text") or L["unknown_rate"]
    if item.get("rate_kind") == "measured" and item.get("success_rate") is not None:
        return f"{L['success']} {item['success_rate']:.0%} ({text})"
    return text


def render_answer(data: dict, top: int = 3) -> str:
    lang = data.get("language", "en")
    L = LABELS.get(lang, LABELS["en"])
    width = _width()
    matches = data.get("matches", [])
    lines: list[str] = []
    if data.get("declined") in ("other-library", "no-error") and data.get("notice"):
        return "\n".join(_wrap(("✗ " if data["declined"] == "other-library" else "? ") + data["notice"], "", width))
    if not data.get("answered"):
        best = matches[0]["confidence"] if matches else 0.0
        lines.append(f"? {L['unsure']} ({L['confidence']} {best:.2f}).")
        if matches:
            lines.append(f"  {L['nearest']}:")
            for i, match in enumerate(matches[:top], 1):
                lines.append(f"   {i}. {match['id']} — {match['title']} ({match['confidence']:.2f})")
        lines.extend(_wrap(L["hint"], "  ", width))
        return "\n".join(lines)

    best = matches[0]
    lines.append(f"✔ {best['title']}")
    lines.append(f"  {best['id']} · {L['confidence']} {best['confidence']:.2f}")
    if best.get("page_url"):
        lines.append(f"  {best['page_url']}")
    lines.append("")
    lines.append(L["root_cause"])
    lines.extend(_wrap(best["root_cause"], "  ", width))
    lines.append("")
    lines.append(L["workarounds"])
    for i, w in enumerate(best["workarounds"], 1):
        lines.append(f"  {i}. {w['title']}  —  {rate_label(w, L)}")
        lines.extend(_wrap(w["explanation"], "     ", width))
        lines.extend(_code(w["code"], "     "))
        if w.get("caveats"):
            lines.extend(_wrap(f"{L['caveats']}: {w['caveats']}", "     ", width))
    if best["dead_ends"]:
        lines.append("")
        lines.append(L["dead_ends"])
        for d in best["dead_ends"]:
            lines.append(f"  ✗ {d['title']}")
            why = d["why"] + (f" ({L['leads_to']} {d['leads_to']})" if d.get("leads_to") else "")
            lines.extend(_wrap(why, "     ", width))
            if d.get("rate_kind") == "measured" and d.get("rate_text"):
                lines.extend(_wrap(f"{L['our_evidence']}: {d['rate_text']}", "     ", width))
    if best["sources"]:
        lines.append("")
        lines.append(L["sources"])
        for i, s in enumerate(best["sources"], 1):
            lines.append(f"  [{i}] {s['title']} — {s['url']}")
            if s.get("excerpt"):
                lines.extend(_wrap(f"“{s['excerpt']}”", "      ", width))
    others = matches[1:top]
    if others:
        lines.append("")
        lines.append(f"{L['others']}: " + ", ".join(f"{m['id']} ({m['confidence']:.2f})" for m in others))
    return "\n".join(lines)
