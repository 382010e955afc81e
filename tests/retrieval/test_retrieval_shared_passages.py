"""Passages of an article about several entries speak only for the entries they are about."""

from __future__ import annotations

import numpy as np

from bot.retrieval.chunks import Chunk
from bot.retrieval.index import attribute_shared_passages


def chunk(i: int, entries: list[str], kind: str, lang: str = "zh") -> Chunk:
    return Chunk(id=f"f#{i}", file="f", entries=list(entries), lang=lang, kind=kind, text=f"t{i}",
                 search_text=f"t{i}")


def unit(*xs: float) -> np.ndarray:
    v = np.array(xs, dtype=np.float32)
    return v / np.linalg.norm(v)


def test_a_passage_goes_to_the_entry_whose_own_chunks_it_resembles():
    chunks = [chunk(0, ["a/leaf"], "root_cause"), chunk(1, ["a/nograd"], "root_cause"),
              chunk(2, ["a/leaf", "a/nograd"], "article"), chunk(3, ["a/leaf", "a/nograd"], "article"),
              chunk(4, ["a/leaf", "a/nograd"], "article")]
    vectors = np.stack([unit(1, 0, 0), unit(0, 1, 0),
                        unit(0.9, 0.1, 0.3),     # about the first entry
                        unit(0.1, 0.9, 0.3),     # about the second
                        unit(0.7, 0.7, 0.1)])    # about both equally
    attribute_shared_passages(chunks, vectors)
    assert chunks[2].entries == ["a/leaf"]
    assert chunks[3].entries == ["a/nograd"]
    assert chunks[4].entries == ["a/leaf", "a/nograd"]
    assert chunks[0].entries == ["a/leaf"]  # entry chunks are never touched


def test_single_entry_articles_and_entries_without_own_chunks_are_left_alone():
    chunks = [chunk(0, ["a/x"], "root_cause", lang="en"), chunk(1, ["a/x"], "article"),
              chunk(2, ["a/x", "a/unknown"], "article")]
    vectors = np.stack([unit(1, 0), unit(0, 1), unit(0, 1)])
    attribute_shared_passages(chunks, vectors)
    assert chunks[1].entries == ["a/x"]
    # a/unknown has no chunks of its own to compare with: the passage keeps a/x, the
    # entry it can be measured against (other-language chunks stand in for same-language)
    assert chunks[2].entries == ["a/x"]
