"""The knowledge base as pages: every entry in HTML, JSON and Markdown, en/ko/zh, with
its fix rates and the evidence behind them, a list by area and a dashboard.

    data.py      the page documents (entry + evidence snapshot of the store)
    html.py      HTML by Jinja2 templates (templates/), markdown.py Markdown, charts.py SVG
    cut.py       shortening text at a word, with "…"
    site.py      the WSGI app under /kb that `troubleshoot serve --http` mounts
    export.py    the same pages as static files (`troubleshoot kb export DIR`)
    links.py     how pages link to each other (served or static) and TROUBLESHOOT_PUBLIC_URL

Rates are shown as bot.evidence.display shows them: a percentage only where verified runs
or votes measured it, with its counts; otherwise "team estimate, not yet verified".
"""
