"""What the Slack answer adds to the `ask` document (services/enrich.py): declared
fields of the typed document, set from the knowledge base, kept through the store's JSON
column and absent from `ask --json`."""

from __future__ import annotations

import json

from bot.answer import answer
from bot.answer.document import AnswerDocument, VersionNote
from bot.slack.blocks import details_blocks, escape
from bot.slack.services.enrich import enrich

BACKWARD_TWICE = "RuntimeError: Trying to backward through the graph a second time"


def test_enrich_fills_the_declared_extras_and_they_survive_the_store(answer_index):
    plain = answer(BACKWARD_TWICE)
    best = plain.matches[0]
    assert best.id == "pytorch/backward-twice"
    # `ask --json` has none of the extras.
    assert not {"diagnosis", "version_notes"} & set(best.as_json())
    assert all("leads_to_title" not in d.as_json() for d in best.dead_ends)

    enriched = enrich(answer(BACKWARD_TWICE))
    best = enriched.matches[0]
    assert best.diagnosis and best.version_notes
    assert all(isinstance(n, VersionNote) and n.versions for n in best.version_notes)
    titled = {d.leads_to: d.leads_to_title for d in best.dead_ends if d.leads_to}
    assert titled["pytorch/cuda-oom"] and titled["pytorch/cuda-oom"] != "pytorch/cuda-oom"
    # Only the best match gets the diagnosis and version notes.
    assert all(not m.diagnosis and not m.version_notes for m in enriched.matches[1:])

    # The store keeps the JSON; reading it back gives the same typed document.
    stored = json.dumps(enriched.as_json(), ensure_ascii=False)
    back = AnswerDocument.from_json(json.loads(stored))
    assert back == enriched and isinstance(back.matches[0].version_notes[0], VersionNote)
    # The details show them.
    details = json.dumps([b.to_dict() for b in details_blocks(back)], ensure_ascii=False)
    assert escape(best.version_notes[0].versions) in details and titled["pytorch/cuda-oom"] in details
