"""`troubleshoot kb export DIR`: the same pages as static files whose links all resolve;
answers link to the pages when TROUBLESHOOT_PUBLIC_URL is set."""

from __future__ import annotations

import json
import os
import posixpath
import re
import subprocess
import sys
from urllib.parse import unquote, urlsplit

import answer_docs
import pytest

from .conftest import EVIL_TITLE, HOSTILE, REPO, SLICE
from .test_pages_http import Page

BT = "pytorch/backward-twice"


def troubleshoot(*args: str, env: dict) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    full.update(PYTHONPATH=str(REPO), **env)
    return subprocess.run([sys.executable, "-m", "bot.cli", *args], cwd=REPO, env=full, capture_output=True,
                          text=True, timeout=300)


def test_export_writes_every_page_with_links_that_resolve(evidence, pages_kb, tmp_path):
    out = tmp_path / "site"
    proc = troubleshoot("kb", "export", str(out), "--dir", str(pages_kb),
                        env={"DATABASE_URL": evidence.url, "TROUBLESHOOT_KNOWLEDGE_DIR": str(pages_kb)})
    assert proc.returncode == 0, proc.stderr
    n = len(SLICE) + 1
    assert f"for {n} entries" in proc.stdout
    for lang_suffix in ("", ".ko", ".zh"):
        assert (out / f"index{lang_suffix}.html").is_file() and (out / f"stats{lang_suffix}.html").is_file()
        assert (out / f"{BT}{lang_suffix}.html").is_file() and (out / f"{BT}{lang_suffix}.md").is_file()
    assert (out / f"{BT}.json").is_file() and (out / "stats.json").is_file()
    # The evidence of the store is in the static pages too.
    assert json.loads((out / f"{BT}.json").read_text())["workarounds"][0]["measured"] == 1.0
    assert "검증 실행 3회 중 3회 해결" in (out / f"{BT}.ko.html").read_text()
    # Every relative link of every page points at a file that was written.
    broken = []
    for page in out.rglob("*.html"):
        for href in Page(page.read_text()).links():
            parts = urlsplit(href)
            if parts.scheme or not parts.path:
                continue
            target = page.parent / unquote(parts.path)
            if not target.is_file():
                broken.append(f"{page.relative_to(out)} -> {href}")
    for page in out.rglob("*.md"):
        for href in re.findall(r"\]\(([^)\s]+)\)", page.read_text()):
            if not urlsplit(href).scheme and not (page.parent / unquote(href)).is_file():
                broken.append(f"{page.relative_to(out)} -> {href}")
    assert broken == []
    # Static pages have no search form (it needs the server) and escape like the served ones.
    assert "<form" not in (out / "index.html").read_text()
    hostile = (out / f"{HOSTILE}.html").read_text()
    assert "<script>" not in hostile and EVIL_TITLE in Page(hostile).visible


@pytest.mark.slow  # two CLI processes exporting the pages (~2 s)
def test_export_one_format_and_bad_target(pages_kb, tmp_path):
    out = tmp_path / "json-only"
    env = {"TROUBLESHOOT_KNOWLEDGE_DIR": str(pages_kb), "TROUBLESHOOT_VAR_DIR": str(tmp_path / "var")}
    proc = troubleshoot("kb", "export", str(out), "--format", "json", env=env)
    assert proc.returncode == 0, proc.stderr
    assert {p.suffix for p in out.rglob("*") if p.is_file()} == {".json"}
    # No store yet: every rate is an estimate, none is measured.
    doc = json.loads((out / f"{BT}.json").read_text())
    assert all(w["rate_kind"] == "estimate" and w["measured"] is None for w in doc["workarounds"])
    assert doc["workarounds"][0]["rate_text"]["en"] == "team estimate, not yet verified"
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    proc = troubleshoot("kb", "export", str(blocker), env=env)
    assert proc.returncode == 2 and "is not a folder" in proc.stderr and "Traceback" not in proc.stderr


def test_answers_link_to_the_page_when_a_public_url_is_set(monkeypatch):
    from bot.answer.render import render_answer
    from bot.kb.links import public_page_url
    from bot.settings import SettingsError, get_settings
    from bot.slack.blocks import answer_message

    monkeypatch.delenv("TROUBLESHOOT_PUBLIC_URL", raising=False)
    assert public_page_url(BT) is None
    monkeypatch.setenv("TROUBLESHOOT_PUBLIC_URL", "https://kb.example.org/troubleshoot/")
    assert public_page_url(BT) == f"https://kb.example.org/troubleshoot/kb/{BT}"
    assert public_page_url(BT, "ko") == f"https://kb.example.org/troubleshoot/kb/{BT}?lang=ko"
    monkeypatch.setenv("TROUBLESHOOT_PUBLIC_URL", "javascript:alert(1)")
    try:
        get_settings()
        raise AssertionError("a non-http public URL was accepted")
    except SettingsError as exc:
        assert "TROUBLESHOOT_PUBLIC_URL" in str(exc)
    monkeypatch.setenv("TROUBLESHOOT_PUBLIC_URL", "https://kb.example.org")
    url = public_page_url(BT, "zh")
    answer = answer_docs.document(answer_docs.match(BT, "对同一个计算图第二次执行反向传播", confidence=0.9,
                                                    root_cause="…", page_url=url), language="zh")
    assert url in render_answer(answer)
    blocks = json.dumps([b.to_dict() for b in answer_message(answer, answer_id=7).blocks], ensure_ascii=False)
    assert f"<{url}|知识页面>" in blocks


def test_answer_json_carries_the_page_url(pages_kb, monkeypatch):
    """bot.answer's match item (the `ask --json` contract) names the page when the URL is set."""
    from bot.answer.build import match
    from bot.evidence.display import PriorRates
    from bot.kb.loader import check_knowledge
    from bot.retrieval.engine import Hit

    kb, _ = check_knowledge(pages_kb)
    hit = Hit(entry=kb.entries[BT], score=1.0, confidence=0.9, legs={})
    monkeypatch.delenv("TROUBLESHOOT_PUBLIC_URL", raising=False)
    assert match(hit, kb, "en", PriorRates()).page_url is None
    monkeypatch.setenv("TROUBLESHOOT_PUBLIC_URL", "http://bot.internal:3000")
    assert match(hit, kb, "ko", PriorRates()).page_url == f"http://bot.internal:3000/kb/{BT}?lang=ko"
    assert posixpath.basename(match(hit, kb, "en", PriorRates()).page_url or "") == "backward-twice"


def test_export_replaces_files_atomically_and_never_follows_a_planted_symlink(evidence, pages_kb, tmp_path):
    """Issue 27: a symlink planted in the export folder made `kb export` overwrite a file
    outside it (exit 0). A planted file link is replaced by the page; a planted folder
    link is refused, named; nothing outside the folder changes."""
    out, outside = tmp_path / "site", tmp_path / "outside"
    out.mkdir()
    outside.mkdir()
    victim = outside / "victim.txt"
    victim.write_text("keep me\n")
    (out / "index.html").symlink_to(victim)
    env = {"DATABASE_URL": evidence.url, "TROUBLESHOOT_KNOWLEDGE_DIR": str(pages_kb)}
    proc = troubleshoot("kb", "export", str(out), "--dir", str(pages_kb), env=env)
    assert proc.returncode == 0, proc.stderr
    assert victim.read_text() == "keep me\n"
    assert not (out / "index.html").is_symlink() and "<html" in (out / "index.html").read_text()
    assert not [p.name for p in out.rglob(".*.tmp")]  # no temporary file left behind
    # A folder of the pages planted as a link to elsewhere: refused, nothing written there.
    (out / "pytorch").rename(tmp_path / "old-pytorch")
    (out / "pytorch").symlink_to(outside, target_is_directory=True)
    proc = troubleshoot("kb", "export", str(out), "--dir", str(pages_kb), env=env)
    assert proc.returncode != 0 and "pytorch is a symlink or not a folder" in proc.stderr, proc.stderr
    assert sorted(p.name for p in outside.iterdir()) == ["victim.txt"]
