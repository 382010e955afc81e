"""bot.answer.answer: the ask JSON contract, languages, ranking by rate, passages, no-answer."""

import pytest

from bot.answer import InputError, Rate, answer, set_rate_source

MATCH_KEYS = {"id", "title", "score", "confidence", "root_cause", "workarounds", "dead_ends", "sources",
              "page_url"}  # the entry's page under TROUBLESHOOT_PUBLIC_URL (None when unset)
WORKAROUND_KEYS = {"id", "title", "explanation", "code", "success_rate", "evidence", "rate_source", "caveats", "patch",
                   "evidence_summary", "verified", "refuted",  # our own evidence (bot.evidence)
                   "rate_kind", "rate_text", "estimate", "scenario"}  # measured or estimate; scenario-specific fixes
DEAD_END_KEYS = {"id", "title", "why", "code", "leads_to", "rate_kind", "rate_text",
                 "fail_rate", "evidence", "rate_source", "evidence_summary", "verified", "refuted"}

OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 15.77 GiB"


def test_answer_has_exactly_the_contract_keys(use_fixture_env):
    data = answer(OOM, top=2).as_json()  # the `ask --json` document
    assert set(data) == {"answered", "language", "matches", "tier", "choices", "declined", "notice", "other_library",
                         "evidence"}
    assert data["tier"] == "answer" and data["evidence"] == "signature" and data["choices"] == []
    assert data["declined"] is None and data["notice"] is None and data["other_library"] is None
    assert data["answered"] is True and data["language"] == "en"
    assert len(data["matches"]) == 2
    best = data["matches"][0]
    assert set(best) == MATCH_KEYS and best["id"] == "pytorch/cuda-oom"
    assert 0.0 <= best["confidence"] <= 1.0
    for w in best["workarounds"]:
        assert set(w) == WORKAROUND_KEYS
    for d in best["dead_ends"]:
        assert set(d) == DEAD_END_KEYS
    for s in best["sources"]:
        assert {"title", "url"} <= set(s) <= {"title", "url", "excerpt"}


def test_estimates_are_ranked_but_never_shown_as_a_percentage(use_fixture_env):
    workarounds = answer(OOM).matches[0].workarounds
    general = [w for w in workarounds if w.scenario is None]
    estimates = [w.estimate for w in general]
    assert estimates == sorted(estimates, reverse=True) and estimates[0] == 0.9
    # Fixes for scenarios the asker did not mention come after the general ones.
    assert [w.scenario for w in workarounds] == sorted((w.scenario for w in workarounds),
                                                       key=lambda s: s is not None)
    for w in workarounds:
        assert w.rate_source == "prior" and w.rate_kind == "estimate" and w.success_rate is None
        assert w.rate_text == "team estimate, not yet verified"


@pytest.mark.parametrize("lang, words", [("en", "team estimate, not yet verified"),
                                         ("ko", "팀 추정치, 아직 검증되지 않음"), ("zh", "团队估计，尚未验证")])
def test_the_terminal_says_estimate_in_every_language_and_prints_no_percentage(use_fixture_env, lang, words):
    from bot.answer.render import render_answer

    text = render_answer(answer(OOM, lang=lang))
    assert words in text
    assert "%" not in text.split("\n\n", 3)[2 if lang else 0] or "%" not in text


def test_a_scenario_specific_fix_ranks_first_only_when_the_asker_shows_the_scenario():
    from pathlib import Path

    from bot.answer.build import workarounds
    from bot.evidence.display import PriorRates
    from bot.kb.loader import load_knowledge

    kb = load_knowledge(Path(__file__).resolve().parents[2] / "knowledge")
    entry = kb.entries["pytorch/backward-twice"]
    scenario_ids = {w.id for w in entry.workarounds if w.applies_when}
    assert scenario_ids, "test setup: backward-twice has scenario-specific fixes"
    error = "RuntimeError: Trying to backward through the graph a second time"
    plain = workarounds(entry, "en", PriorRates(), error)
    assert plain[0].id not in scenario_ids
    assert {w.id for w in plain[-len(scenario_ids):]} == scenario_ids  # not mentioned: last
    gan = workarounds(entry, "en", PriorRates(), error + "\nd_loss.backward()  # the discriminator step of my GAN")
    assert gan[0].id == "detach-fake-for-discriminator" and gan[0].scenario == "matched"


def test_rate_source_is_pluggable(use_fixture_env):
    class Measured:
        def workaround_rate(self, entry_id, workaround):
            fixed = 41 if workaround.id == "smaller-batch" else 4
            return Rate(0.99 if workaround.id == "smaller-batch" else 0.1, 42, "measured",
                        verified={"runs": 42, "fixed": fixed, "failed": 42 - fixed, "torch": ["2.13"]})

        def dead_end_rate(self, entry_id, dead_end):
            return None

    set_rate_source(Measured())
    try:
        first = answer(OOM).matches[0].workarounds[0]
        assert (first.id, first.success_rate, first.evidence, first.rate_source, first.rate_kind) == \
            ("smaller-batch", round(41 / 42, 3), 42, "measured", "measured")
        assert first.rate_text == "fixed 41 of 42 verified runs on torch 2.13"
    finally:
        set_rate_source(None)


def test_language_comes_from_the_askers_words(use_fixture_env):
    ko = answer("학습 중에 이 오류가 납니다. 어떻게 해야 하나요?\n" + OOM)
    assert ko.language == "ko"
    assert ko.matches[0].title == "CUDA 메모리 부족"
    zh = answer(OOM + "\n训练的时候报这个错，怎么办？")
    assert zh.language == "zh" and zh.matches[0].title == "CUDA 显存不足"
    # A bare English traceback is answered in English.
    assert answer(OOM).language == "en"


def test_lang_overrides_detection(use_fixture_env):
    data = answer("학습 중에 이 오류가 납니다\n" + OOM, lang="zh")
    assert data.language == "zh" and data.matches[0].root_cause.startswith("GPU 上存活的张量")


def test_missing_language_falls_back_to_english(use_fixture_env, engine):
    entry = engine.kb.entries["pytorch/cuda-oom"]
    saved = dict(entry.root_cause)
    entry.root_cause.pop("zh")
    try:
        from bot.answer.build import match
        from bot.evidence.display import PriorRates

        hit = engine.search(OOM).best
        item = match(hit, engine.kb, "zh", PriorRates())
        assert item.root_cause == saved["en"] and item.title == "CUDA 显存不足"
    finally:
        entry.root_cause.update(saved)


def test_article_passages_are_sources_with_an_excerpt(use_fixture_env):
    data = answer("배치 크기를 64로 올렸더니 GPU 메모리가 부족하다고 나와요")
    best = data.matches[0]
    assert best.id == "pytorch/cuda-oom" and data.language == "ko"
    excerpts = [s for s in best.sources if s.excerpt]
    assert excerpts and excerpts[0].url == "file:oom-batch.md"
    assert "배치 크기" in excerpts[0].excerpt


def test_unknown_error_is_not_answered_but_lists_the_nearest(use_fixture_env):
    data = answer("ModuleNotFoundError: No module named 'cv2'").as_json()
    assert data["answered"] is False and data["matches"]
    assert all(set(m) == MATCH_KEYS for m in data["matches"])


@pytest.mark.parametrize("bad, message", [("", "empty"), ("\x00\x01\x02binary", "binary")])
def test_bad_input_raises_a_clear_error(use_fixture_env, bad, message):
    with pytest.raises(InputError, match=message):
        answer(bad)


def test_one_megabyte_of_text_is_answered(use_fixture_env):
    big = ("INFO step 12 loss 0.123 lr 0.001\n" * 40_000)[:1_000_000] + OOM
    assert len(big) > 1_000_000
    data = answer(big)
    assert data.answered and data.matches[0].id == "pytorch/cuda-oom"


def test_top_and_lang_are_checked(use_fixture_env):
    with pytest.raises(ValueError, match="top"):
        answer(OOM, top=0)
    with pytest.raises(ValueError, match="language"):
        answer(OOM, lang="fr")
