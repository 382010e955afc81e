"""An entry page as Markdown (for a wiki or a Git host), one language.

Markdown lets HTML through, so knowledge text is escaped: outside `code spans` the
characters & < > become entities and the link and emphasis characters get a
backslash; code blocks are fenced with more backticks than the code holds.
"""

from __future__ import annotations

import re

from bot.pages.html import pick, safe_url
from bot.text.lang import LANGUAGES
from bot.text.ui import LANG_NAMES, kb_status_text, labels

_SPANS = re.compile(r"(`[^`\n]+`)")
_SPECIAL = re.compile(r"([\\\[\]*_#|!])")


def md_text(text: str | None) -> str:
    """Knowledge prose, safe in Markdown: code spans kept, everything else escaped."""
    if not text:
        return ""
    out = []
    for part in _SPANS.split(text.replace("\r", "")):
        if part.startswith("`") and part.endswith("`") and len(part) > 1:
            out.append(part)
        else:
            part = part.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            out.append(_SPECIAL.sub(r"\\\1", part))
    return " ".join("".join(out).split("\n"))


def md_code_span(text: str) -> str:
    """A literal in a code span (backticks inside get a longer fence)."""
    text = " ".join(text.split("\n"))
    ticks = "`" * (max((len(m) for m in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def md_code_block(code: str, lang: str = "python") -> str:
    fence = "`" * max(3, max((len(m) for m in re.findall(r"`+", code)), default=0) + 1)
    return f"{fence}{lang}\n{code.rstrip()}\n{fence}"


def _link(title: str, url: str | None) -> str:
    url = safe_url(url)
    if not url:
        return md_text(title)
    for char, code in (("%", "%25"), (" ", "%20"), ("(", "%28"), (")", "%29"), ("<", "%3C"), (">", "%3E")):
        url = url.replace(char, code) if char != "%" else re.sub(r"%(?![0-9A-Fa-f]{2})", code, url)
    return f"[{md_text(title)}]({url})"


def entry_markdown(doc: dict, lang: str, links) -> str:
    L = labels(lang)
    ev = doc["evidence"]
    out = [f"# {md_text(pick(doc['title'], lang))}", ""]
    meta = [md_code_span(doc["id"])]
    if doc["exception"]:
        meta.append(f"{L['exception']}: " + ", ".join(md_code_span(x) for x in doc["exception"]))
    out += [" · ".join(meta), ""]
    alts = [f"[JSON]({links.entry(doc['id'], lang, 'json')})", f"[HTML]({links.entry(doc['id'], lang)})"]
    alts += [f"[{LANG_NAMES[other]}]({links.entry(doc['id'], other, 'md')})" for other in LANGUAGES if other != lang]
    out += [f"{L['also_as']}: " + " · ".join(alts), ""]
    best = doc["best_fix"]
    if best:
        out.append(f"**{L['fix_rate']}:** {best['measured']:.0%} ({md_text(pick(best['rate_text'], lang))})")
    else:
        out.append(f"**{L['fix_rate']}:** {md_text(L['no_measured'])}")
    out += ["", f"{L['kb_status']}: {md_text(kb_status_text(ev['kb_verify'], lang))}", ""]

    # The messages people see first, the regular expressions after them (Markdown has no
    # fold without raw HTML, which this file never writes).
    out += [f"## {L['matches']}", ""]
    for x in doc["examples"]:
        out += [md_code_block(x, "text"), ""]
    out += [f"### {md_text(L['patterns_fold'])}", ""] + [f"- {md_code_span(s)}" for s in doc["signatures"]] + [""]

    out += [f"## {L['evidence']}", "",
            f"- {L['answers']}: {ev['answers']}",
            f"- {L['verifications']}: {ev['verifications']} ({L['reproduced_runs']}: {ev['reproduced']})",
            f"- {L['askers']}: {ev['askers']}",
            f"- {L['votes']}: 👍 {ev['votes']['up']} 👎 {ev['votes']['down']}",
            f"- {L['first_seen']}: {(ev['first_seen'] or '')[:10] or L['never']} · "
            f"{L['last_seen']}: {(ev['last_seen'] or '')[:10] or L['never']}", ""]
    if ev["runs"]:
        out += [f"### {L['runs_table']}", "",
                f"| {L['torch']} | {L['device']} | {L['runs']} | {L['reproduced_runs']} |", "|---|---|---|---|"]
        out += [f"| {md_text(r['torch'])} | {md_text(r['device'])} | {r['runs']} | {r['reproduced']} |"
                for r in ev["runs"]]
        out.append("")
    if doc["affected_versions"]:
        out += [f"## {L['versions']}", "", f"| {L['version_range']} | {L['message']} | {L['note']} |", "|---|---|---|"]
        for v in doc["affected_versions"]:
            message = md_code_span(v["message"]).replace("|", "\\|") if v["message"] else ""
            out.append(f"| {md_code_span(v['versions']).replace('|', chr(92) + '|')} | {message} "
                       f"| {md_text(pick(v['note'], lang))} |")
        out.append("")
    for key, label in (("symptoms", "symptoms"), ("root_cause", "root_cause"), ("diagnosis", "diagnosis")):
        if doc[key]:
            out += [f"## {L[label]}", "", md_text(pick(doc[key], lang)), ""]

    out += [f"## {L['workarounds']}", ""]
    for i, w in enumerate(doc["workarounds"], 1):
        out += [f"### {i}. {md_text(pick(w['title'], lang))}", ""]
        rate = pick(w["rate_text"], lang)
        out += [f"**{w['measured']:.0%}** ({md_text(rate)})" if w["rate_kind"] == "measured" else f"_{md_text(rate)}_",
                "", md_text(pick(w["explanation"], lang)), ""]
        if w["code"]:
            out += [md_code_block(w["code"]), ""]
        if w["caveats"]:
            out += [f"{L['caveats']}: {md_text(pick(w['caveats'], lang))}", ""]
    if doc["dead_ends"]:
        out += [f"## {L['dead_ends']}", ""]
        for d in doc["dead_ends"]:
            out += [f"### ✗ {md_text(pick(d['title'], lang))}" + (f" ({L['refuted_badge']})" if d["refuted"] else ""),
                    "", md_text(pick(d["why"], lang)), ""]
            if d["leads_to"]:
                target = md_code_span(d["leads_to"])
                if d.get("leads_to_title"):  # a link only to an entry that exists
                    target = f"[{target}]({links.entry(d['leads_to'], lang, 'md')})"
                out += [f"{L['leads_to']}: {target}", ""]
            if d["rate_kind"] == "measured":
                out += [f"**{d['measured']:.0%}** ({md_text(pick(d['rate_text'], lang))})", ""]
            elif d["rate_kind"] == "proven":
                out += [f"_{md_text(pick(d['rate_text'], lang))}_", ""]
            if d["code"]:
                out += [md_code_block(d["code"]), ""]
    if doc["sources"]:
        out += [f"## {L['sources']}", ""] + [f"{i}. {_link(s['title'], s['url'])}"
                                              for i, s in enumerate(doc["sources"], 1)] + [""]
    if doc["related"]:
        out += [f"## {L['related']}", ""] + [
            f"- [{md_text(pick(r['title'], lang))}]({links.entry(r['id'], lang, 'md')})" if r["title"]
            else f"- {md_code_span(r['id'])}" for r in doc["related"]] + [""]
    return "\n".join(out).rstrip() + "\n"
