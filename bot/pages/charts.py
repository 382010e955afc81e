"""Charts of the dashboard as inline SVG, drawn on the server (no JavaScript, no library).

Every label is escaped here (markupsafe); the result is Markup for the templates. The
SVGs scale to their container (viewBox, width 100%), so they fit a phone's width.
"""

from __future__ import annotations

from markupsafe import Markup, escape

from bot.pages.cut import at_word

WIDTH = 600
BAR_H = 22
GAP = 8
COLORS = {"fixed": "#2e7d32", "failed": "#c62828", "answers": "#1565c0", "votes": "#8e24aa", "bar": "#1565c0",
          "held": "#9e9e9e"}


LABEL_H = 18  # each row: its label on a line of its own, the bar below (fits a phone's width)
ROW = LABEL_H + BAR_H + GAP


def _open(height: int, title: str) -> str:
    return (f'<svg class="chart" role="img" viewBox="0 0 {WIDTH} {height}" width="100%" '
            f'preserveAspectRatio="xMinYMin meet" xmlns="http://www.w3.org/2000/svg">'
            f"<title>{escape(title)}</title>")


def _label(y: float, label: str) -> str:
    return (f'<text x="0" y="{y + 13}" font-size="14"><title>{escape(label)}</title>'
            f"{escape(at_word(label, 70))}</text>")


def hbar_chart(rows: list[tuple[str, float, str]], *, title: str, max_value: float | None = None,
               color: str = COLORS["bar"]) -> Markup:
    """Horizontal bars: (label, value, text shown after the bar) per row."""
    if not rows:
        return Markup("")
    top = max_value if max_value else max(v for _, v, _ in rows) or 1
    span = WIDTH - 120
    parts = [_open(len(rows) * ROW + GAP, title)]
    for i, (label, value, after) in enumerate(rows):
        y = GAP + i * ROW
        w = max(1.0, span * (value / top)) if value else 0
        parts.append(_label(y, label))
        parts.append(f'<rect x="0" y="{y + LABEL_H}" width="{w:.1f}" height="{BAR_H}" fill="{color}" rx="2"/>')
        parts.append(f'<text x="{w + 6:.1f}" y="{y + LABEL_H + BAR_H * 0.7:.1f}" font-size="14">'
                     f"{escape(after)}</text>")
    parts.append("</svg>")
    return Markup("".join(parts))


def stacked_rate_chart(rows: list[tuple[str, int, int, str]], *, title: str, labels: dict) -> Markup:
    """One bar per fix: the share of its verified runs that fixed (green) and failed (red),
    with the counts written after it: (label, fixed, failed, text after) per row. A fix
    known from votes only gets a dashed outline."""
    if not rows:
        return Markup("")
    span = WIDTH - 120
    height = len(rows) * ROW + GAP + 22
    parts = [_open(height, title)]
    for i, (label, fixed, failed, after) in enumerate(rows):
        y = GAP + i * ROW
        yb = y + LABEL_H
        total = fixed + failed
        parts.append(_label(y, label))
        if total:
            wf = span * fixed / total
            parts.append(f'<rect x="0" y="{yb}" width="{wf:.1f}" height="{BAR_H}" fill="{COLORS["fixed"]}"/>')
            parts.append(f'<rect x="{wf:.1f}" y="{yb}" width="{span - wf:.1f}" height="{BAR_H}" '
                         f'fill="{COLORS["failed"]}"/>')
        else:
            parts.append(f'<rect x="0" y="{yb}" width="{span}" height="{BAR_H}" fill="none" '
                         f'stroke="{COLORS["held"]}" stroke-dasharray="4 3"/>')
        parts.append(f'<text x="{span + 6}" y="{yb + BAR_H * 0.7:.1f}" font-size="14">{escape(after)}</text>')
    y = height - 8
    parts.append(f'<rect x="0" y="{y - 10}" width="10" height="10" fill="{COLORS["fixed"]}"/>'
                 f'<text x="14" y="{y}" font-size="13">{escape(labels["fixed"])}</text>'
                 f'<rect x="110" y="{y - 10}" width="10" height="10" fill="{COLORS["failed"]}"/>'
                 f'<text x="124" y="{y}" font-size="13">{escape(labels["failed"])}</text>')
    parts.append("</svg>")
    return Markup("".join(parts))


def weekly_chart(weekly: list[dict], *, title: str, labels: dict) -> Markup:
    """Grouped columns per week: fixed and failed runs, answers, votes."""
    if not weekly:
        return Markup("")
    series = ("fixed", "failed", "answers", "votes")
    names = {"fixed": labels["fixed"], "failed": labels["failed"], "answers": labels["answers"],
             "votes": labels["votes"]}
    top = max([w[s] for w in weekly for s in series] + [1])
    height, base, left = 240, 190, 36
    step = (WIDTH - left - 10) / len(weekly)
    bar = max(2.0, step / (len(series) + 1.5))
    parts = [f'<svg class="chart" role="img" viewBox="0 0 {WIDTH} {height}" width="100%" '
             f'preserveAspectRatio="xMinYMin meet" xmlns="http://www.w3.org/2000/svg">'
             f"<title>{escape(title)}</title>",
             f'<line x1="{left}" y1="{base}" x2="{WIDTH - 10}" y2="{base}" stroke="#999"/>',
             f'<text x="{left - 4}" y="{base - 150 + 4}" text-anchor="end" font-size="11">{top}</text>',
             f'<text x="{left - 4}" y="{base + 4}" text-anchor="end" font-size="11">0</text>']
    for i, week in enumerate(weekly):
        x0 = left + i * step + bar * 0.5
        for j, s in enumerate(series):
            h = 150 * week[s] / top
            if h:
                parts.append(f'<rect x="{x0 + j * bar:.1f}" y="{base - h:.1f}" width="{bar:.1f}" height="{h:.1f}" '
                             f'fill="{COLORS[s]}"><title>{escape(week["week"])}: {escape(names[s])} '
                             f"{week[s]}</title></rect>")
        if i % 2 == 0:
            parts.append(f'<text x="{x0:.1f}" y="{base + 16}" font-size="11">{escape(week["week"][5:])}</text>')
    for j, s in enumerate(series):
        x = left + j * 140
        parts.append(f'<rect x="{x}" y="{height - 20}" width="10" height="10" fill="{COLORS[s]}"/>'
                     f'<text x="{x + 14}" y="{height - 11}" font-size="12">{escape(names[s])}</text>')
    parts.append("</svg>")
    return Markup("".join(parts))
