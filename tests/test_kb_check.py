"""`troubleshoot kb check` reports each kind of broken knowledge file with its file,
line and field, and exits 1."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.cli import main
from bot.kb.loader import check_knowledge

REPO_KNOWLEDGE = Path(__file__).resolve().parent.parent / "knowledge"

ENTRY = Path("entries/pytorch/backward-twice.yml")


def run_check(kb_dir: Path, capsys) -> tuple[int, str]:
    code = main(["kb", "check", "--dir", str(kb_dir)])
    return code, capsys.readouterr().err


def edit(kb_dir: Path, old: str, new: str, count: int = 1) -> Path:
    path = kb_dir / ENTRY
    text = path.read_text(encoding="utf-8")
    assert old in text, f"test setup: {old!r} not in the entry"
    path.write_text(text.replace(old, new, count), encoding="utf-8")
    return path


def line_number(path: Path, needle: str) -> int:
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if needle in line:
            return number
    raise AssertionError(needle)


def test_the_projects_knowledge_base_passes(capsys):
    code = main(["kb", "check"])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert "entries" in out.out


def test_broken_yaml_names_file_and_line(kb_dir, capsys):
    path = edit(kb_dir, "exception: [RuntimeError]", "exception: [RuntimeError\nsignatures: {")
    code, err = run_check(kb_dir, capsys)
    assert code == 1
    assert re.search(rf"{re.escape(str(path))}:\d+: broken YAML", err), err


def test_unknown_field_is_reported_with_a_suggestion(kb_dir, capsys):
    path = edit(kb_dir, "workarounds:\n  - id: backward-once",
                "workaround:\n  - id: x\nworkarounds:\n  - id: backward-once")
    code, err = run_check(kb_dir, capsys)
    assert code == 1
    assert f"{path}:{line_number(path, 'workaround:')}: workaround: unknown field 'workaround'" in err
    assert "did you mean 'workarounds'" in err


def test_missing_language_names_the_field(kb_dir, capsys):
    path = kb_dir / ENTRY
    text = path.read_text(encoding="utf-8")
    text = text.replace('  zh: "对同一个计算图第二次执行反向传播"\n', "")
    path.write_text(text, encoding="utf-8")
    code, err = run_check(kb_dir, capsys)
    assert code == 1
    assert f"{path}:{line_number(path, 'title:')}: title: missing language 'zh'" in err


def test_invalid_regular_expression(kb_dir, capsys):
    path = edit(kb_dir, "  - 'buffers have already been freed'", "  - 'buffers have (already been freed'")
    code, err = run_check(kb_dir, capsys)
    assert code == 1
    line = line_number(path, "buffers have (already")
    assert f"{path}:{line}: signatures[2]: invalid regular expression" in err


def test_regular_expression_matching_everything_is_refused(kb_dir, capsys):
    edit(kb_dir, "  - 'buffers have already been freed'", "  - '.*'")
    code, err = run_check(kb_dir, capsys)
    assert code == 1
    assert "matches empty text" in err


def test_example_not_matched_by_any_signature(kb_dir, capsys):
    edit(kb_dir, "examples:\n", "examples:\n  - \"RuntimeError: something else entirely\"\n")
    code, err = run_check(kb_dir, capsys)
    assert code == 1
    assert "examples[0]: no signature of this entry matches this example" in err


def test_duplicate_id_names_both_files(kb_dir, capsys):
    original = kb_dir / ENTRY
    copy = original.with_name("backward-twice-copy.yml")
    copy.write_text(original.read_text(encoding="utf-8").replace(
        "aliases:\n  - pytorch/grad-accumulation-required-grad-false\n", ""), encoding="utf-8")
    code, err = run_check(kb_dir, capsys)
    assert code == 1
    assert "duplicate id 'pytorch/backward-twice'" in err
    assert str(original) in err and str(copy) in err


def test_alias_clash_with_another_entry(kb_dir, capsys):
    original = kb_dir / ENTRY
    other = original.with_name("other.yml")
    other.write_text(original.read_text(encoding="utf-8").replace(
        "id: pytorch/backward-twice", "id: pytorch/other-entry", 1), encoding="utf-8")
    code, err = run_check(kb_dir, capsys)
    assert code == 1
    assert "alias clashes with an alias 'pytorch/grad-accumulation-required-grad-false'" in err


def test_dangling_related_id(kb_dir, capsys):
    path = edit(kb_dir, "related:\n", "related:\n  - pytorch/does-not-exist\n")
    code, err = run_check(kb_dir, capsys)
    assert code == 1
    where = f"{path}:{line_number(path, 'pytorch/does-not-exist')}"
    assert f"{where}: related[0]: related id 'pytorch/does-not-exist'" in err


def test_rate_out_of_range(kb_dir, capsys):
    edit(kb_dir, "      rate: 0.8\n", "      rate: 80\n")
    code, err = run_check(kb_dir, capsys)
    assert code == 1
    assert "expected a rate between 0 and 1, found 80" in err


def test_too_few_workarounds(kb_dir):
    path = kb_dir / ENTRY
    text = path.read_text(encoding="utf-8")
    start = text.index("workarounds:\n")
    end = text.index("dead_ends:\n")
    first_end = text.index("  - id: retain-graph-all-but-last")
    path.write_text(text[:first_end] + text[end:], encoding="utf-8")
    _, problems = check_knowledge(kb_dir)
    assert any("workarounds" in p.field and "at least 2" in p.message for p in problems), problems
    assert start < first_end


def test_article_without_front_matter_is_reported(kb_dir, capsys):
    (kb_dir / "articles" / "en").mkdir(parents=True, exist_ok=True)
    bad = kb_dir / "articles" / "en" / "raw.md"
    bad.write_text("Just text, no metadata\n", encoding="utf-8")
    code, err = run_check(kb_dir, capsys)
    assert code == 1
    assert f"{bad}:1: article has no YAML front matter" in err
    assert "troubleshoot kb add" in err


def test_article_with_unknown_language_and_entry(kb_dir, capsys):
    (kb_dir / "articles" / "en").mkdir(parents=True, exist_ok=True)
    bad = kb_dir / "articles" / "en" / "bad.md"
    bad.write_text("---\ntitle: x\nlanguage: fr\nsource: here\nentries: [pytorch/nope]\n---\nbody\n", encoding="utf-8")
    code, err = run_check(kb_dir, capsys)
    assert code == 1
    assert f"{bad}:3: language: unknown language 'fr'" in err


def test_not_utf8_file(kb_dir, capsys):
    (kb_dir / ENTRY).write_bytes("title: caf\xe9\n".encode("latin-1"))
    code, err = run_check(kb_dir, capsys)
    assert code == 1
    assert "not UTF-8" in err


@pytest.mark.parametrize("bad_value", ["[1, 2]", "{a: 1}"])
def test_wrong_types_are_reported(kb_dir, bad_value):
    edit(kb_dir, "exception: [RuntimeError]", f"exception: [RuntimeError]\nscenarios: {bad_value}", 1)
    path = kb_dir / ENTRY
    text = path.read_text(encoding="utf-8")
    # remove the real scenarios block so the key is not duplicated
    start = text.index("\nscenarios:\n  - title:")
    end = text.index("\nworkarounds:")
    path.write_text(text[:start] + text[end:], encoding="utf-8")
    _, problems = check_knowledge(kb_dir)
    assert any(p.field.startswith("scenarios") for p in problems), problems


# --- honest knowledge: priors, sources, repros, CJK text, glossary ---------------------------


def test_prior_source_claiming_a_percentage_is_refused(kb_dir, capsys):
    path = edit(kb_dir,
                'source: "team estimate from the torch.Tensor.backward docs (retain_graph keeps the saved tensors)"',
                'source: "blog: 80% fix rate"')
    code, err = run_check(kb_dir, capsys)
    assert code == 1
    assert f"{path}:{line_number(path, '80% fix rate')}: workarounds[1].prior.source: the prior's source claims a " \
           "measurement" in err


def test_prior_source_claiming_an_unbacked_run_is_refused(kb_dir, capsys):
    path = edit(kb_dir, 'source: "team estimate from PyTorch forum answers on truncated BPTT; no verified runs yet"',
                'source: "reproduced here on torch 2.13 CPU"')
    code, err = run_check(kb_dir, capsys)
    assert code == 1
    assert f"{path}:{line_number(path, 'reproduced here on torch 2.13 CPU')}: workarounds[3].prior.source" in err
    assert "no `kb verify` case backs" in err


def test_prior_source_saying_it_was_not_run_is_fine(kb_dir, capsys):
    edit(kb_dir, 'source: "team estimate from PyTorch forum answers on truncated BPTT; no verified runs yet"',
         'source: "team estimate from forum answers; not run here (no GPU)"')
    code, err = run_check(kb_dir, capsys)
    assert code == 0, err


@pytest.mark.parametrize("url", ["seed:000_ab361ae7730ed8d9", "file:notes.txt", "ftp://example.com/x"])
def test_source_that_is_not_a_public_address_is_refused(kb_dir, capsys, url):
    path = edit(kb_dir, 'url: "https://pytorch.org/docs/stable/notes/autograd.html#saved-tensors"', f'url: "{url}"')
    code, err = run_check(kb_dir, capsys)
    assert code == 1
    assert f"{path}:{line_number(path, url)}: sources[1].url: expected a public http(s) address" in err


def test_source_title_with_an_internal_seed_id_is_refused(kb_dir, capsys):
    path = edit(kb_dir, 'title: "PyTorch docs: torch.autograd"', 'title: "Seed 002: structured entry"')
    code, err = run_check(kb_dir, capsys)
    assert code == 1
    assert f"{path}:{line_number(path, 'Seed 002')}: sources[2].title: internal id in a source users see" in err


def test_source_without_url_is_fine():
    from bot.kb.loader import check_knowledge as load

    kb, problems = load()
    titles_only = [s for e in kb.entries.values() for s in e.sources if s.url is None]
    assert titles_only, "the project cites at least one document by title alone"
    assert all(p.severity == "warning" for p in problems), [str(p) for p in problems if p.is_error]


def test_repro_with_unknown_platform_is_refused(kb_dir, capsys):
    path = edit(kb_dir, "repro:\n  runs_on: cpu\n", "repro:\n  runs_on: gpu\n")
    code, err = run_check(kb_dir, capsys)
    assert code == 1
    assert f"{path}:{line_number(path, 'runs_on: gpu')}: repro.runs_on: unknown platform 'gpu'" in err


def test_repro_is_loaded(kb_dir):
    kb, problems = check_knowledge(kb_dir)
    repro = kb.entries["pytorch/backward-twice"].repro
    assert repro is not None and repro.runs_on == "cpu"
    assert repro.code.startswith("import torch\n") and repro.code.endswith("loss.backward()\nloss.backward()")


def test_folded_chinese_lines_are_joined_without_a_space(kb_dir):
    edit(kb_dir, '  zh: "对同一个计算图第二次执行反向传播"', '  zh: >-\n    对同一个计算图\n    第二次执行反向传播')
    kb, problems = check_knowledge(kb_dir)
    assert kb.entries["pytorch/backward-twice"].title["zh"] == "对同一个计算图第二次执行反向传播"


def test_folded_korean_lines_keep_the_space_between_words(kb_dir):
    edit(kb_dir, '  ko: "같은 계산 그래프로 역전파를 두 번 수행함"',
         '  ko: >-\n    같은 계산 그래프로\n    역전파를 두 번 수행함')
    kb, problems = check_knowledge(kb_dir)
    assert kb.entries["pytorch/backward-twice"].title["ko"] == "같은 계산 그래프로 역전파를 두 번 수행함"


def test_space_typed_between_chinese_characters_is_flagged(kb_dir, capsys):
    path = edit(kb_dir, '  zh: "对同一个计算图第二次执行反向传播"', '  zh: "对同一个计算图 第二次执行反向传播"')
    code, err = run_check(kb_dir, capsys)
    assert code == 1
    assert f"{path}:{line_number(path, '计算图 第二次')}: space between two CJK characters" in err


def test_glossary_variant_is_a_warning_naming_the_preferred_term(kb_dir, capsys):
    path = edit(kb_dir, '  ko: "같은 계산 그래프로 역전파를 두 번 수행함"',
                '  ko: "같은 연산 그래프로 역전파를 두 번 수행함"')
    code, err = run_check(kb_dir, capsys)
    assert code == 0, err
    where = f"{path}:{line_number(path, '같은 연산 그래프로')}"
    assert f"warning: {where}: title.ko: '연산 그래프' for 'computational graph' " \
           "(the glossary prefers '계산 그래프')" in err


def test_malformed_glossary_names_the_file_and_line(kb_dir, capsys):
    (kb_dir / "glossary.yml").write_text("terms:\n  - en: epoch\n    avoid: [x]\n", encoding="utf-8")
    code, err = run_check(kb_dir, capsys)
    assert code == 1
    assert f"{kb_dir / 'glossary.yml'}:2: terms[0].avoid: expected `ko:` / `zh:` lists" in err


@pytest.mark.slow  # parses the whole knowledge base twice (~2 s)
def test_the_fast_yaml_composer_gives_the_same_data_and_lines():
    """libyaml composes the entries (speed); it must keep the values and lines `kb check` names."""
    import yaml

    from bot.kb import yamlsrc

    texts = [p.read_text(encoding="utf-8") for p in sorted((REPO_KNOWLEDGE / "entries").rglob("*.yml"))]
    broken = ["a: 1\nb: [1, 2\nc: 3\n", "a: 1\n  b: 2\n", "a: 1\na: 2\n", "x:\n  - 1\n  - {y: 2\n"]

    def run(text):
        try:
            located = yamlsrc.load_located(text)
            return located.data, located.lines
        except yamlsrc.YamlSourceError as exc:
            return "error", exc.line

    fast = [run(t) for t in texts + broken]
    original = yamlsrc._LOADER
    try:
        yamlsrc._LOADER = yaml.SafeLoader
        slow = [run(t) for t in texts + broken]
    finally:
        yamlsrc._LOADER = original
    assert len(texts) >= 90 and fast == slow
