"""`troubleshoot kb add` stores raw articles with detected language and entry."""

from __future__ import annotations

import json
import shutil

from pathlib import Path

from bot.cli import main
from bot.kb.loader import check_knowledge

# Three short articles of our own about one error: two in Korean, one in English with a
# Chinese paragraph that names an old alias of the entry.
ARTICLES = Path(__file__).resolve().parent / "data" / "articles"


def add_json(kb_dir, *files, capsys, extra=()):
    code = main(["kb", "add", "--dir", str(kb_dir), "--json", *extra, *map(str, files)])
    return code, json.loads(capsys.readouterr().out)


def test_the_three_articles_are_ingested(kb_dir, capsys):
    seeds = sorted(ARTICLES.glob("*.txt"))
    assert len(seeds) == 3
    code, results = add_json(kb_dir, *seeds, capsys=capsys)
    assert code == 0
    by_name = {r["file"].rsplit("/", 1)[-1][:3]: r for r in results}
    assert by_name["000"]["language"] == "ko"
    assert by_name["003"]["language"] == "ko"
    assert by_name["002"]["language"] == "en"  # English entry with one Chinese paragraph
    for r in results:
        assert r["status"] == "stored"
        assert r["entries"][0] == "pytorch/backward-twice"
    # article 002 names the alias; it is resolved to the entry id
    assert "grad-accumulation-required-grad-false" in by_name["002"]["evidence"]["pytorch/backward-twice"]
    # the stored files pass validation and are linked to the entry
    kb, problems = check_knowledge(kb_dir)
    assert not [p for p in problems if p.is_error], problems
    added = [a for a in kb.articles_for("pytorch/backward-twice") if a.detected]
    assert len(added) == 3


def test_adding_the_same_article_twice_stores_it_once(kb_dir, capsys):
    seed = sorted(ARTICLES.glob("000_*.txt"))[0]
    before = len(list((kb_dir / "articles").rglob("*.md")))
    add_json(kb_dir, seed, capsys=capsys)
    code, results = add_json(kb_dir, seed, capsys=capsys)
    assert code == 0 and results[0]["status"] == "already-present"
    assert len(list((kb_dir / "articles").rglob("*.md"))) == before + 1


def test_dry_run_writes_nothing(kb_dir, capsys):
    before = sorted((kb_dir / "articles").rglob("*"))
    code = main(["kb", "add", "--dir", str(kb_dir), "--dry-run", *map(str, sorted(ARTICLES.glob("*.txt")))])
    out = capsys.readouterr().out
    assert code == 0 and "(dry run)" in out and "pytorch/backward-twice" in out
    assert sorted((kb_dir / "articles").rglob("*")) == before


def test_text_about_no_known_error_is_stored_unlinked(kb_dir, tmp_path, capsys):
    raw = tmp_path / "note.txt"
    raw.write_text("Our cluster runbook: restart the scheduler on Mondays.\n", encoding="utf-8")
    code, results = add_json(kb_dir, raw, capsys=capsys)
    assert code == 0 and results[0]["entries"] == [] and results[0]["language"] == "en"


def test_binary_and_unsupported_files_are_refused_with_a_reason(kb_dir, tmp_path, capsys):
    binary = tmp_path / "blob.txt"
    binary.write_bytes(b"\x00\x01\x02abc")
    pdf = tmp_path / "paper.pdf"
    pdf.write_bytes(b"%PDF-1.4")
    code, results = add_json(kb_dir, binary, pdf, capsys=capsys)
    assert code == 1
    assert results[0]["status"] == "rejected" and "binary" in results[0]["reason"]
    assert results[1]["status"] == "rejected" and "unsupported file type" in results[1]["reason"]


def test_curated_article_keeps_its_metadata(kb_dir, tmp_path, capsys):
    curated = tmp_path / "runbook.md"
    curated.write_text("---\ntitle: Our runbook\nlanguage: zh\nsource: https://wiki.example/runbook\n"
                       "entries: [pytorch/grad-accumulation-required-grad-false]\n---\n"
                       "反向传播两次时先检查循环外的张量。\n",
                       encoding="utf-8")
    code, results = add_json(kb_dir, curated, capsys=capsys)
    assert code == 0
    assert results[0]["language"] == "zh" and results[0]["entries"] == ["pytorch/backward-twice"]
    assert results[0]["stored_as"].endswith("articles/zh/runbook.md")


def test_curated_article_naming_an_unknown_entry_is_refused(kb_dir, tmp_path, capsys):
    curated = tmp_path / "bad.md"
    curated.write_text("---\ntitle: x\nlanguage: en\nsource: y\nentries: [pytorch/nope]\n---\ntext\n", encoding="utf-8")
    code, results = add_json(kb_dir, curated, capsys=capsys)
    assert code == 1 and "pytorch/nope" in results[0]["reason"]
    shutil.rmtree(tmp_path / "unused", ignore_errors=True)
