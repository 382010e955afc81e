"""Verify tests what the answer shows (issue 26, item 3), against the fake Slack API:

- the fix the answer shows first, when Verify has no patch for it, is reported as
  "not tested: no automatic patch" (in the result and in the ping), in every language;
- a dead end that ran cleanly on the snippet is "a listed dead end ran without error
  here", never "fixed", and the ping names only real fixes as fixes;
- after the run is recorded, the answer's own message is redrawn with the evidence it
  added (the rates cache is told, not waited out: TROUBLESHOOT_RATES_TTL is an hour here);
- a code-only question's answer leads with what fixed the asker's snippet and has no
  Verify button.

The sandbox is replaced by an executor that hands back a prepared report (and records
it through the real Recording, as bot.jobs' executors do): what each fix did is fixed by
the test, so the wording is what is checked. The real sandbox behind the same buttons is
tested in test_slack_buttons.py and test_slack_code_question.py."""

from __future__ import annotations

import json

import pytest

from slack_harness import button_payload

from bot.verify.report import ErrorInfo, ExitReason, FixRow, Status, VerifyReport

ENTRY = "pytorch/backward-twice"
ERROR = ("RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors "
         "after they have already been freed).")
SNIPPET = "import torch\nx = torch.ones(3, requires_grad=True)\ny = (x * x).sum()\ny.backward()\ny.backward()"
TRACEBACK = ("Traceback (most recent call last):\n  File \"snippet.py\", line 5, in <module>\n    y.backward()\n"
             f"{ERROR}\n")


def _report(rows: list[tuple[str, str, str]]) -> VerifyReport:
    """A reproduced backward-twice run with these (kind, id, status) rows, as verify makes
    them (without titles: Slack then names each row as the answer does, in its language)."""
    patches = {"retain-graph-all-but-last": "retain-graph"}
    return VerifyReport(
        reproduced=True, exit_reason=ExitReason.ERROR, output=TRACEBACK,
        environment={"torch": "2.13.0", "python": "3.11.9"},
        error=ErrorInfo(type="RuntimeError", message=ERROR.removeprefix("RuntimeError: "), entry_id=ENTRY),
        confidence=0.95,
        fixes=[FixRow(workaround=item, status=Status(status), seconds=0.4, peak_memory_bytes=None, kind=kind,
                      patch=patches.get(item, item), title=None,
                      error=None if status == "fixed" else ErrorInfo(type="RuntimeError", message="x", entry_id=None))
               for kind, item, status in rows])


class ReportExecutor:
    """bot.jobs' Executor protocol, with a prepared report instead of the sandbox."""

    name = "prepared"

    def __init__(self, report: VerifyReport):
        self.report = report
        self.codes: list[str] = []

    def verify(self, code, progress=None, *, fixed_code=None, timeout=None, lang="en", record=None):
        self.codes.append(code)
        if progress is not None:
            progress("queued", 0, 0)
        if record is not None:
            assert record.save(self.report, code) is not None
        return self.report

    def submit(self, *args, **kwargs):  # the Slack paths call verify()
        raise NotImplementedError


@pytest.fixture
def evidence_bot(bot_factory, tmp_path, monkeypatch):
    """A bot whose store is also where the answers' rates come from (DATABASE_URL), with a
    rates cache that only a recording can make stale."""
    from bot.answer import set_rate_source
    from bot.evidence import db

    url = f"sqlite:///{tmp_path / 'evidence.db'}"
    monkeypatch.setenv("DATABASE_URL", url)
    monkeypatch.setenv("TROUBLESHOOT_RATES_TTL", "3600")
    monkeypatch.setenv("TROUBLESHOOT_RECORD_ASK", "0")
    db.forget()
    set_rate_source(None)
    yield lambda report: bot_factory(db_url=url, executor=ReportExecutor(report))
    set_rate_source(None)
    db.forget()


def settle(bot):
    assert bot.ctx.work_pool.wait_idle(120)
    assert bot.ctx.verify_pool.wait_idle(120)
    assert bot.ctx.work_pool.wait_idle(120)


def ask(bot, fake, ts: str, text: str) -> tuple[dict, int]:
    fake.add_message("C0GENERAL", {"user": "U0ASKER", "ts": ts, "text": text})
    bot.sender.event({"type": "app_mention", "user": "U0ASKER", "channel": "C0GENERAL", "ts": ts, "text": text})
    settle(bot)
    answer = next(m for m in fake.bot_messages("C0GENERAL") if m.get("thread_ts") == ts)
    actions = next(b for b in answer["blocks"] if b["type"] == "actions")
    return answer, int(actions["elements"][0]["value"])


def verify(bot, fake, answer: dict, answer_id: int) -> tuple[dict, dict]:
    """Click Verify fix; (the result message, the ping that mentions the asker)."""
    bot.sender.interaction(button_payload(action_id="verify_fix", value=str(answer_id), message=answer))
    settle(bot)
    result, ping = [m for m in fake.bot_messages("C0GENERAL") if m is not answer and m["ts"] != answer["ts"]]
    return result, ping


def best_fix_line(message: dict) -> str:
    """The first message's best fix with its evidence line."""
    return next(b["text"]["text"] for b in message["blocks"]
                if b["type"] == "section" and b["text"]["text"].startswith(":white_check_mark: *"))


def seed(store, item: str, status: str, askers: int) -> None:
    """Earlier runs of other askers, in which the workaround `item` ended as `status`."""
    from bot.evidence.record import record_verification

    for n in range(askers):
        run = _report([])
        run.fixes = [FixRow(workaround=item, status=Status(status), error=None, seconds=None, peak_memory_bytes=None,
                            kind="workaround", patch=None, title=None)]
        assert record_verification(run, f"{item} {n}", store=store, asker=f"{item}-{n}", surface="cli") is not None


@pytest.mark.parametrize("lang,question,untested,dead_end_ran", [
    ("en", "this fails", "not tested: no automatic patch", "a listed dead end ran without error here"),
    ("ko", "이게 실패해요", "테스트하지 않음: 자동 패치가 없습니다",
     "목록에 있는 막다른 길이 여기서는 오류 없이 실행됨"),
    ("zh", "这个报错了", "未测试：没有自动补丁", "列出的死胡同在这里运行时没有报错"),
])
def test_the_report_says_the_first_fix_was_not_tested_and_a_dead_end_is_no_fix(
        evidence_bot, fake_slack, lang, question, untested, dead_end_ran):
    # The snippet: retain_graph fixed it, recompute-forward did not, and a listed dead end
    # (detach before backward) ran without an error.
    bot = evidence_bot(_report([("workaround", "retain-graph-all-but-last", "fixed"),
                                ("workaround", "recompute-forward", "still_fails"),
                                ("dead_end", "detach-before-backward", "fixed"),
                                ("dead_end", "no-grad-forward", "new_error")]))
    seed(bot.ctx.store, "backward-once", "fixed", 3)  # measured, it leads; Verify has no patch for it
    answer, answer_id = ask(bot, fake_slack, "1700026000.000100",
                            f"<@UBOT01> {question}\n```{SNIPPET}```\n```{ERROR}```")
    stored = json.loads(bot.ctx.store.get_answer(answer_id).answer_json)
    assert stored["language"] == lang
    lead = stored["matches"][0]["workarounds"][0]
    assert lead["id"] == "backward-once" and lead["patch"] is None and lead["rate_kind"] == "measured"
    lead_title = lead["title"]

    result, ping = verify(bot, fake_slack, answer, answer_id)
    sections = [b["text"]["text"] for b in result["blocks"] if b["type"] == "section"]
    # The fix the answer shows first is said untested, right under the outcome, before the rows.
    assert sections[1] == f":heavy_minus_sign: *{lead_title}*: {untested}"
    dead = next(s for s in sections if "detach()" in s)
    assert dead_end_ran in dead and ":white_check_mark:" not in dead
    assert f"{lead_title}: {untested}" in result["text"]
    # The ping: only the real fix is a fix; the untested lead and the clean dead end are said as such.
    assert ping["text"].startswith("<@U0ASKER>") and untested in ping["text"] and dead_end_ran in ping["text"]
    retain = stored["matches"][0]["workarounds"]
    retain_title = next(w["title"] for w in retain if w["id"] == "retain-graph-all-but-last")
    fixed_by = ping["text"].split(";")[0]
    assert retain_title in fixed_by and "detach()" not in fixed_by
    assert fake_slack.violations == []


def test_after_a_run_the_answer_shows_the_evidence_it_added(evidence_bot, fake_slack):
    bot = evidence_bot(_report([("workaround", "retain-graph-all-but-last", "fixed"),
                                ("workaround", "recompute-forward", "fixed"),
                                ("dead_end", "no-grad-forward", "new_error")]))
    answer, answer_id = ask(bot, fake_slack, "1700026100.000100",
                            f"<@UBOT01> this fails:\n```{SNIPPET}```\n```{ERROR}```")
    # With no evidence, the answer leads with a fix Verify can test (a patch), not the
    # prior-only backward-once; its line says it is an estimate.
    before = best_fix_line(answer)
    assert "Recompute the forward pass" in before and "team estimate, not yet verified" in before
    bot.sender.interaction(button_payload(action_id="vote_up", value=str(answer_id), user="U0ALICE",
                                          message=answer))
    settle(bot)

    verify(bot, fake_slack, answer, answer_id)
    # The same message (same ts), redrawn once the run was recorded: the run's evidence,
    # the vote kept, the buttons kept.
    redrawn = [u for u in fake_slack.bodies("chat.update") if u["ts"] == answer["ts"]]
    assert redrawn
    after = best_fix_line(answer)
    assert "Recompute the forward pass" in after
    assert "worked 100%" in after and "fixed 1 of 1 verified run on torch 2.13" in after
    assert "team estimate" not in after
    actions = next(b for b in answer["blocks"] if b["type"] == "actions")
    assert [e["action_id"] for e in actions["elements"]][:2] == ["verify_fix", "answer_details"]
    assert "👍 1" in [e["text"]["text"] for e in actions["elements"]]
    assert fake_slack.violations == []


@pytest.mark.parametrize("lang,question", [("en", "why does this fail?"), ("ko", "이 코드 왜 안 되나요?")])
def test_code_only_answer_leads_with_what_worked_on_the_code_without_a_verify_button(
        evidence_bot, fake_slack, lang, question):
    # On the asker's code retain_graph fixed it and recompute-forward (first by the ranking) did not.
    bot = evidence_bot(_report([("workaround", "recompute-forward", "still_fails"),
                                ("workaround", "retain-graph-all-but-last", "fixed"),
                                ("dead_end", "no-grad-forward", "new_error")]))
    # Other askers' runs: recompute-forward fixed it for six; retain_graph failed for two.
    seed(bot.ctx.store, "recompute-forward", "fixed", 6)
    seed(bot.ctx.store, "retain-graph-all-but-last", "still_fails", 2)
    ts = "1700026200.000100"
    fake_slack.add_message("C0GENERAL", {"user": "U0ASKER", "ts": ts, "text": question})
    text = f"<@UBOT01> {question}\n```python\n{SNIPPET}\n```"
    bot.sender.event({"type": "app_mention", "user": "U0ASKER", "channel": "C0GENERAL", "ts": ts, "text": text})
    settle(bot)
    assert [c.strip() for c in bot.ctx.executor.codes] == [SNIPPET]  # it ran as a code question
    answer, verification = [m for m in fake_slack.bot_messages("C0GENERAL") if m.get("thread_ts") == ts]
    actions = next(b for b in answer["blocks"] if b["type"] == "actions")
    ids = [e["action_id"] for e in actions["elements"]]
    assert "verify_fix" not in ids and "answer_details" in ids  # the verification already ran
    answer_id = int(actions["elements"][0]["value"])
    doc = json.loads(bot.ctx.store.get_answer(answer_id).answer_json)
    assert doc["language"] == lang
    shown = doc["matches"][0]["workarounds"]
    assert [w["id"] for w in shown][:2] == ["retain-graph-all-but-last", "recompute-forward"]
    # The ranking alone, over the same evidence, puts recompute-forward first.
    from bot.answer import get_rate_source
    from bot.answer.ranking import rank_fixes
    from bot.kb.loader import current_knowledge

    ranked = [f.workaround.id for f in rank_fixes(current_knowledge().entries[ENTRY], get_rate_source()).workarounds]
    assert ranked.index("recompute-forward") < ranked.index("retain-graph-all-but-last")
    assert shown[0]["on_your_code"] == "fixed" and shown[1]["on_your_code"] == "still_fails"
    assert shown[0]["title"] in best_fix_line(answer)
    # The verification in the thread lists the fixes in the answer's order.
    rows = [b["text"]["text"] for b in verification["blocks"] if b["type"] == "section"][1:]
    assert shown[0]["title"] in rows[0] and shown[1]["title"] in rows[1]
    assert fake_slack.violations == []


@pytest.mark.parametrize("lang", ["en", "ko", "zh"])
def test_a_failed_gpu_is_shown_as_the_workers_fault(lang):
    """A report whose GPU failed its canary never says the snippet did not raise the error."""
    from bot.jobs.reports import gpu_unhealthy_report
    from bot.slack.blocks import verification_done_notice, verification_result
    from bot.text.ui import t

    report = gpu_unhealthy_report("0", "CUDA is not available in the sandbox", {"hostname": "w1", "gpu": "0"})
    def text(message) -> str:
        return json.dumps([b.to_dict() for b in message.blocks], ensure_ascii=False) + message.text

    shown = text(verification_result(report, lang))
    said = t("verify_infrastructure", lang)
    assert said in shown and said in text(verification_done_notice(lang, "U0ASKER", report))
    assert t("not_reproduced", lang) not in shown
