"""The team's own knowledge through `kb add`: a synthetic Slack export (threads in three
languages, built by tests/slack_export_builder.py) into a private copy of the knowledge
base; what was kept and skipped and why, how long the add and the index refresh took
(only the new thread files are embedded), and how many answers cite a team thread.
With --page, also what a saved page kept (a seed post rebuilt by the tests' page maker).

    PYTHONPATH=.:tests python bench/kb_import.py [THREADS]          # default 240
    PYTHONPATH=.:tests python bench/kb_import.py 240 --json
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from slack_export_builder import QUESTIONS, build_export

from bot.cli import main

REPO = Path(__file__).resolve().parent.parent


def run_add(kb: Path, *args: str) -> list[dict]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(["kb", "add", "--dir", str(kb), "--json", *args])
    return json.loads(out.getvalue())


def main_bench(threads: int) -> dict:
    from bot.answer import answer, set_rate_source
    from bot.retrieval import engine as engine_module
    from bot.retrieval.engine import get_embedder
    from bot.retrieval.index import build_index
    from bot.settings import embedder_name

    tmp = Path(tempfile.mkdtemp(prefix="kb-import-"))
    kb, index = tmp / "knowledge", tmp / "index"
    shutil.copytree(REPO / "knowledge", kb)
    export = tmp / "export.zip"
    built = build_export(export, threads=threads)
    embedder = get_embedder(embedder_name())
    started = time.perf_counter()
    base = build_index(kb, index, embedder, progress=False, log=lambda m: None)
    base_seconds = time.perf_counter() - started

    started = time.perf_counter()
    results = run_add(kb, str(export), "--workspace-url", "https://acme.slack.com")
    add_seconds = time.perf_counter() - started
    statuses = Counter(r["status"] for r in results)
    reasons = Counter(r["reason"] for r in results if r["status"] == "skipped")
    langs = Counter(r["language"] for r in results if r["status"] == "stored")

    started = time.perf_counter()
    refresh = build_index(kb, index, embedder, progress=False, log=lambda m: None)
    refresh_seconds = time.perf_counter() - started

    os.environ.update({"TROUBLESHOOT_KNOWLEDGE_DIR": str(kb), "TROUBLESHOOT_INDEX_DIR": str(index),
                       "TROUBLESHOOT_RECORD_ASK": "0"})
    engine_module.reset()
    set_rate_source(None)
    asked = cited = 0
    for lang, question in QUESTIONS.items():
        doc = answer(question, lang=lang)
        asked += 1
        best = doc.best
        if best is not None and any(isinstance(s.provenance, str) and s.provenance.startswith("#")
                                    for s in best.sources):
            cited += 1
    engine_module.reset()
    shutil.rmtree(tmp, ignore_errors=True)
    return {
        "threads_in_export": threads, "built": built,
        "kept": statuses.get("stored", 0), "skipped": dict(reasons), "kept_by_language": dict(langs),
        "add_seconds": round(add_seconds, 2),
        "index_full_seconds": round(base_seconds, 2), "index_full_files": base.files,
        "index_refresh_seconds": round(refresh_seconds, 2), "refresh_embedded_files": len(refresh.embedded_files),
        "refresh_embedded_chunks": refresh.embedded_chunks,
        "answers_citing_a_team_thread": f"{cited}/{asked}",
    }


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    report = main_bench(int(args[0]) if args else 240)
    if "--json" in sys.argv:
        print(json.dumps(report, ensure_ascii=False, indent=2))
    else:
        for key, value in report.items():
            print(f"{key:32} {value}")
