"""The answer to a code question (bot/verify/code_question.py): the error the asker's
snippet really raised, answered like any pasted error, with what each fix did to that
snippet; or why it was not run, or that it ran cleanly. The same AnswerDocument as a
pasted error's, with the code fields set (document.py)."""

from __future__ import annotations

from typing import Any, Protocol

from bot.answer.document import AnswerDocument
from bot.contract import ABSENT, present
from bot.text.ui import t
from bot.verify.code_question import CodeQuestion, device_text, run_summary, traceback_text
from bot.verify.report import ExitReason, Status, VerifyReport


class AnswerFn(Protocol):
    """bot.answer.answer, or a wrapper of it (Slack escapes the text and takes a slot)."""

    def __call__(self, text: str, *, lang: str | None, top: int) -> AnswerDocument: ...


def _unlooked(lang: str, run: dict[str, Any] | None, note: str, undefined: list[str] | None = None) -> AnswerDocument:
    """A code answer with no error looked up: no matches, and no declined/notice/other_library."""
    return AnswerDocument(answered=False, language=lang, matches=[], declined=ABSENT, notice=ABSENT,
                          other_library=ABSENT, input="code", run=run,
                          undefined=ABSENT if undefined is None else undefined, note=note)


def not_run_answer(question: CodeQuestion, lang: str | None, *, why: str = "no_run") -> AnswerDocument:
    """The answer to a code question that is not run: --no-run, or code that cannot run
    on its own (names it never defines)."""
    lang = lang or question.language
    if why == "not_runnable":
        names = ", ".join(f"`{n}`" for n in question.undefined[:6]) + (" …" if len(question.undefined) > 6 else "")
        note = t("code_not_runnable", lang, names=names, them="them" if len(question.undefined) > 1 else "it")
    else:
        note = t("code_not_run", lang, lines=question.lines)
    return _unlooked(lang, None, note, list(question.undefined))


def _fix_rows(report: VerifyReport) -> list[dict[str, Any]]:
    keep = ("workaround", "kind", "patch", "title", "status", "note", "reason", "diff", "new_entry_id",
            "seconds", "memory_change")
    rows = [row.as_json() for row in report.fixes]
    return [{k: row.get(k) for k in keep if row.get(k) is not None} for row in rows]


def answer_from_report(report: VerifyReport, question: CodeQuestion, answer_fn: AnswerFn, *,
                       lang: str | None = None, top: int = 3) -> AnswerDocument:
    """The answer to a code question from its verification report: the error the run
    really raised, classified like any pasted error (`answer_fn(text, lang=, top=)`,
    i.e. bot.answer.answer), with what each fix did to the asker's own snippet. A
    snippet that ran cleanly gets "it ran without an error on torch X (CPU/GPU)"."""
    lang = lang or question.language
    run = run_summary(report)
    env = report.environment or {}
    torch, device = env.get("torch") or "?", device_text(env)
    if not report.reproduced:
        reason = report.exit_reason
        if reason == ExitReason.OK:
            note = t("code_ran_clean", lang, torch=torch, device=device) + " " + t("code_ran_clean_hint", lang)
        elif reason == ExitReason.TIMEOUT:
            note = t("code_timeout", lang, torch=torch, device=device)
        else:
            why = report.summary or f"exit reason {reason}"
            note = t("code_limit", lang, torch=torch, device=device, why=why.removeprefix("no error was captured: "))
        return _unlooked(lang, run, note)
    data = answer_fn(traceback_text(report), lang=lang, top=top)
    error = run["error"] or {}
    data.input = "code"
    data.run = run
    data.note = t("code_raised", lang, torch=torch, device=device,
                  error=f"{error.get('type')}: {_short(error.get('message'), 200)}")
    fixes = _fix_rows(report)
    data.verification = {"entry_id": error.get("entry_id"), "confidence": present(report.confidence),
                         "fixes": fixes, "summary": present(report.summary)}
    data.verified_fixes = [f for f in fixes if f.get("status") == Status.FIXED and f.get("kind") == "workaround"]
    if data.matches and error.get("entry_id") == data.matches[0].id:
        # The run of the asker's own code is evidence of its own: the entry the host
        # classified the raised error as is the answer, whatever tier the text alone got.
        data.answered, data.tier, data.evidence, data.choices, data.declined = True, "answer", "run", [], None
        status = {f["workaround"]: f["status"] for f in fixes}
        best = data.matches[0]
        for item in best.workarounds:
            if item.id in status:
                item.on_your_code = status[item.id]
        # What just worked on the asker's own code leads; the rest keep the ranking's order.
        best.workarounds.sort(key=lambda item: item.on_your_code != Status.FIXED)
        for dead in best.dead_ends:
            if dead.id in status:
                dead.on_your_code = status[dead.id]
    return data


def _short(text: str | None, limit: int) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
