"""Which of three tiers an answer is, from what backs the best entry.

- `answer`: the message's own evidence backs one entry: a knowledge-base signature
  recognises the last exception, or the message is nearly word for word one of the
  entry's examples (learned ones included, `troubleshoot kb learn`); a code question adds
  a third kind, a run of the asker's code (bot/answer/code.py). And no other entry is
  as well backed.
- `choices`: only similarity backs the entries (the dense and BM25 legs), or two
  entries are backed alike: up to three candidates, "is it one of these?".
- `decline`: no PyTorch error to look up (no error text and no error described,
  another library's error) or nothing close enough to offer.

Why the split: on real posts every wrong answer the similarity legs gave had a
confidence between 0.6 and 0.97, so no threshold on it separates right from wrong;
a signature or an exact example is evidence of another kind.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from difflib import SequenceMatcher

from bot.retrieval.legs import ELSEWHERE, PRIMARY, LegResult
from bot.retrieval.scope import is_greeting

ANSWER, CHOICES, DECLINE = "answer", "choices", "decline"
TIERS = (ANSWER, CHOICES, DECLINE)

MAX_CHOICES = 3
# The least confidence a candidate needs to be offered at all; the best one sets the
# bar for the rest (a runner-up far below the best is noise). Chosen on eval/dev.
CHOICE_FLOOR = 0.2
RUNNER_UP_SHARE = 0.35
# Words without error text need more: on real posts (eval/dev/real.jsonl) bare titles
# and "it gives an error" posts reached 0.2 to 0.6 on wording alone. At 0.6, 38 of the
# 74 such dev posts still get candidates (all 74 at 0.2) while 47 of the 49 own-words
# questions that were offered right keep theirs (eval/dev/questions.jsonl).
CHOICE_FLOOR_WORDS = 0.6
# Cosine of the query to one of the entry's example messages that counts as the same
# message (the wording differs only in names and numbers). Chosen on eval/dev.
EXAMPLE_EXACT = 0.93
# ... and whose characters are this close (difflib's ratio): the same message, its names
# and numbers aside (numpy's "out of bounds for axis" against torch's "for dimension" is 0.94).
EXAMPLE_SAME_WORDS = 0.95
# Cosine of the question to a passage of an article about no entry (a team's own thread
# or page) that makes it worth offering when nothing else fits. On eval/dev/real.jsonl
# against the shipped articles as stand-ins: posts about something else (no error,
# another library, PyTorch errors they are not about) reach 0.6 in 1 of 327, posts about
# their errors in 6 of 39.
TEAM_ARTICLE_FLOOR = 0.6
# Signature scores differ by the matched length (a longer pattern is more specific,
# bot/retrieval/legs.py): within 5 characters two entries claim the message alike.
SIGNATURE_TIE = 0.005

# A message that says an error happened, in the asker's words, without its text
# ("I get errors when I use torch.jit.script", "학습하면 에러가 나요").
_DESCRIBES_ERROR = re.compile(
    r"\berrors?\b|\bexceptions?\b|\bfail(?:s|ed|ing|ure)?\b|\bcrash(?:es|ed|ing)?\b|\bbroken\b|"
    r"doesn'?t work|does not work|not working|won'?t (?:run|work|start)|"
    r"에러|오류|실패|안 ?돼|안 ?됩니다|안 ?되|죽어|멈춰|터져|报错|錯誤|错误|出错|异常|失败|崩溃|不行|无法|不能",
    re.IGNORECASE)
_SCREENSHOT = re.compile(r"screen ?shot|!\[[^\]]*\]\(|\.(?:png|jpe?g|gif)\b|스크린샷|캡처|캡쳐|截图|截屏|如图",
                         re.IGNORECASE)


def describes_error(text: str) -> bool:
    return bool(_DESCRIBES_ERROR.search(text))


def mentions_screenshot(text: str) -> bool:
    return bool(_SCREENSHOT.search(text))


@dataclass
class Tiering:
    tier: str
    evidence: str | None = None  # what backs the answer tier: "signature" or "example"
    reason: str | None = None  # why not the answer tier: "similarity-only", "ambiguous", "not-covered", ...
    choices: list = field(default_factory=list)  # engine Hits offered as choices


@dataclass(frozen=True)
class Said:
    """What the tiers look at besides the ranking: the legs, the index's chunks, whether
    the paste is a chained traceback, and the message as the example chunks are written
    (normalised: its error, and its whole text)."""

    legs: dict[str, LegResult]
    chunks: list
    chained: bool = False
    texts: tuple[str, ...] = ()


def own_evidence(entry_id: str, said: Said) -> str | None:
    """What in the message itself backs this entry: 'signature' (one of its patterns
    matches the last exception; in a chained traceback whose last exception no entry
    knows, an earlier one: the cause), 'example' (the message is nearly word for word one
    of its examples or of the questions askers tied to it in review), or None (only
    similarity)."""
    sig = said.legs.get("signature")
    if sig is not None and sig.score_of(entry_id) >= PRIMARY:
        return "signature"
    if said.chained and sig is not None and sig.score_of(entry_id) >= ELSEWHERE and \
            not any(score >= PRIMARY for _, score in sig.ranking):
        return "signature"
    dense = said.legs.get("dense")
    if dense is not None and said.chunks is not None and said.texts:
        for ci, score in dense.chunk_scores.items():
            if score < EXAMPLE_EXACT:
                continue
            chunk = said.chunks[ci]
            if chunk.kind in ("message", "question") and entry_id in chunk.entries and _same_words(chunk.text, said):
                return "example"
    return None


def _same_words(example: str, said: Said) -> bool:
    """Nearly the same string, not only the same meaning: embeddings put "tuple index out
    of range" next to "index out of range in self" (cosine above 0.93 on eval/dev/real)."""
    return any(text and SequenceMatcher(None, example.lower(), text.lower()).ratio() >= EXAMPLE_SAME_WORDS
               for text in said.texts)


def offered(hits: list, floor: float = CHOICE_FLOOR) -> list:
    """The candidates worth a click: up to three, none far below the best."""
    if not hits or hits[0].confidence < floor:
        return []
    bar = max(CHOICE_FLOOR * 0.5, hits[0].confidence * RUNNER_UP_SHARE)
    return [h for h in hits[:MAX_CHOICES] if h is hits[0] or h.confidence >= bar]


def decide(hits: list, said: Said, *, declined: str | None, scope_kind: str, text: str,
           team: bool = False) -> Tiering:
    """`team`: an article about no entry matches the question closely (Engine.team_articles):
    what would be declined for want of a candidate becomes choices showing it."""
    tiering = _decide(hits, said, declined=declined, scope_kind=scope_kind, text=text)
    if team and tiering.tier == DECLINE and tiering.reason in ("not-covered", "no-error") and \
            not is_greeting(text) and (scope_kind != "no-error" or describes_error(text)):
        return Tiering(CHOICES, reason="team-article")
    return tiering


def _decide(hits: list, said: Said, *, declined: str | None, scope_kind: str, text: str) -> Tiering:
    """The tier of a search result. `declined` is the scope's verdict before tiers
    (bot/retrieval/scope.py decline_reason: other-library, no-error, not-covered or None
    for a confident best entry); `scope_kind` is pytorch, no-error or other-library."""
    if declined == "other-library":
        return Tiering(DECLINE, reason="other-library")
    if scope_kind == "no-error" and not (hits and own_evidence(hits[0].entry_id, said)):
        # No error text: never an entry as the answer. A question the search is sure
        # about, or an error described in words, may get candidates; a greeting, a
        # how-to or a bare screenshot gets what to paste instead.
        if is_greeting(text) or not (declined is None or describes_error(text)):
            return Tiering(DECLINE, reason="no-error")
        choices = offered(hits, CHOICE_FLOOR_WORDS)
        return Tiering(CHOICES, reason="no-error-text", choices=choices) if choices else \
            Tiering(DECLINE, reason="no-error")
    if not hits:
        return Tiering(DECLINE, reason="not-covered")
    best = hits[0]
    evidence = own_evidence(best.entry_id, said)
    if evidence is not None and (declined is None or (declined == "no-error" and evidence == "example")):
        # Two entries that the message's own evidence backs alike: let the asker pick.
        rivals = [h for h in hits[1:MAX_CHOICES] if own_evidence(h.entry_id, said) == "signature"
                  and evidence == "signature" and _close(best, h, said.legs)]
        if not rivals:
            return Tiering(ANSWER, evidence=evidence)
        return Tiering(CHOICES, evidence=evidence, reason="ambiguous", choices=[best] + rivals)
    choices = offered(hits)
    if not choices:
        return Tiering(DECLINE, reason="not-covered")
    reason = "similarity-only" if declined is None else (declined or "not-covered")
    return Tiering(CHOICES, evidence=evidence, reason=reason, choices=choices)


def _close(best, other, legs: dict[str, LegResult]) -> bool:
    """Another entry whose signature matched the same message about as well."""
    sig = legs["signature"]
    return sig.score_of(other.entry_id) >= sig.score_of(best.entry_id) - SIGNATURE_TIE
