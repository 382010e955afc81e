"""The packaged multilingual USE called directly: numpy only, no torch, no transformers.

`UsemEncoder.encode` takes the arguments `SentenceTransformer.encode` takes and does
what sentence-transformers does with `bot.embed.usem.UsemModule`: texts cut at
`max_chars`, batches in order of falling length, one BLAS thread for small batches,
L2-normalised float32 rows in the caller's order.
"""

from __future__ import annotations

import numpy as np

DIMENSION = 512
MAX_CHARS = 2000  # the same guard as UsemModule.max_chars
SMALL_BATCH = 16  # below this many texts one BLAS thread is fastest


class UsemEncoder:
    def __init__(self, threads: int = 1, max_chars: int = MAX_CHARS):
        self.threads = threads
        self.max_chars = max_chars
        self._use = None

    @property
    def use(self):
        if self._use is None:
            # lazy: the packaged model's weights
            from bot.embed.usemcache import load_use

            self._use = load_use(self.threads)
        return self._use

    def get_embedding_dimension(self) -> int:
        return DIMENSION

    def _encode_batch(self, texts: list[str]) -> np.ndarray:
        backend = self.use._model
        if hasattr(backend, "threads"):
            backend.threads = self.threads if len(texts) >= SMALL_BATCH else 1
        return np.asarray(self.use.encode(texts), dtype=np.float32).reshape(len(texts), DIMENSION)

    def encode(self, texts, batch_size: int = 64, show_progress_bar: bool = False, convert_to_numpy: bool = True,
               normalize_embeddings: bool = True, **_ignored) -> np.ndarray:
        single = isinstance(texts, str)
        items = [texts] if single else [str(t) for t in texts]
        items = [t[: self.max_chars] if self.max_chars else t for t in items]
        out = np.zeros((len(items), DIMENSION), dtype=np.float32)
        # Longest first, as sentence-transformers batches: similar lengths pad least.
        order = sorted(range(len(items)), key=lambda i: -len(items[i]))
        bar = None
        if show_progress_bar and len(items) > batch_size:
            from tqdm import tqdm

            bar = tqdm(total=len(items), unit="text", desc="embed")
        try:
            for start in range(0, len(order), max(batch_size, 1)):
                rows = order[start:start + max(batch_size, 1)]
                out[rows] = self._encode_batch([items[i] for i in rows])
                if bar is not None:
                    bar.update(len(rows))
        finally:
            if bar is not None:
                bar.close()
        if normalize_embeddings:
            norms = np.linalg.norm(out, axis=1, keepdims=True)
            out = out / np.maximum(norms, 1e-12)
        out = np.ascontiguousarray(out, dtype=np.float32)
        return out[0] if single else out
