"""Normalise an error message the way an error grouper does.

What varies between two pastes of the same error (paths, addresses, sizes, shapes,
versions, device ids, plain numbers) becomes a placeholder, so that signatures,
BM25 and embeddings see what stays the same. The placeholders are part of the
knowledge-base contract (knowledge/README.md): <path> <hex> <size> <shape> <ver>
<dev> <num>.
"""

from __future__ import annotations

import re

# An OSC sequence ends at BEL or at the next ESC (ST is ESC and a backslash): a run of unterminated
# "\x1b]" costs linear time.
ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")

PLACEHOLDERS = ("<path>", "<hex>", "<size>", "<shape>", "<ver>", "<dev>", "<num>")

_RULES: list[tuple[re.Pattern, str]] = [
    # A quoted path (as in `File "C:\Users\My Name\x.py"`) may hold spaces: keep the basename.
    (re.compile(r"(?<=\")(?:[A-Za-z]:[\\/]|\\\\|~?/|\.{1,2}[\\/])[^\"\n]*[\\/][^\"\n]*(?=\")"), "path"),
    # Windows and POSIX paths with at least one separator: keep the basename.
    (re.compile(r"(?:[A-Za-z]:\\|\\\\)[^\s'\"<>|:*?]+"), "path"),
    (re.compile(r"(?<![\w.<])(?:~|\.{1,2})?/(?:[^\s/'\"(),:;]+/)+[^\s/'\"(),:;]*"), "path"),
    # Network addresses (NCCL and c10d print host:port): an address like a pointer.
    (re.compile(r"\b\d{1,3}(?:\.\d{1,3}){3}(?::\d{2,5})?\b"), "<hex>"),
    (re.compile(r"\b0x[0-9a-fA-F]+\b"), "<hex>"),
    (re.compile(r"\b[0-9a-f]{12,}\b"), "<hex>"),
    # Memory sizes: "20.00 MiB", "1.5GB", "512 bytes".
    (re.compile(r"\b\d+(?:\.\d+)?\s?(?:[KMGTP]i?B|bytes|[KMGT]iB)\b", re.IGNORECASE), "<size>"),
    # Shapes: torch.Size([3, 4]), [32, 3, 224, 224], (64x128 and 256x10), 3x4.
    (re.compile(r"torch\.Size\(\[[\d,\s]*\]\)"), "<shape>"),
    (re.compile(r"\[\s*\d+(?:\s*,\s*\d+)+\s*\]"), "<shape>"),
    (re.compile(r"\(\s*\d+(?:\s*,\s*\d+)+\s*,?\s*\)"), "<shape>"),
    (re.compile(r"\b\d+x\d+(?:x\d+)*\b"), "<shape>"),
    # Versions: 2.6.0, v1.13.1+cu117, 12.1 after "CUDA"/"version".
    (re.compile(r"\bv?\d+\.\d+\.\d+(?:[.+-][0-9A-Za-z]+)*\b"), "<ver>"),
    (re.compile(r"\b(cuda|cudnn|version|torch|pytorch|python|nccl)(\s*)\d+(?:\.\d+)+", re.IGNORECASE), r"\1\2<ver>"),
    # Device ids: cuda:0, GPU 1, rank 3, device 2.
    (re.compile(r"\b(cuda|xpu|mps|npu):\d+\b", re.IGNORECASE), r"\1:<dev>"),
    (re.compile(r"\b(GPU|rank|device|local_rank)(\s+)\d+\b", re.IGNORECASE), r"\1\2<dev>"),
    (re.compile(r"(?<![\w<])-?\d+(?:\.\d+)?(?:e[+-]?\d+)?(?![\w>])"), "<num>"),
]

_PATH_KEEP_BASENAME = re.compile(r"[\\/]")


def _replace_path(match: re.Match) -> str:
    text = match.group(0)
    base = _PATH_KEEP_BASENAME.split(text.rstrip("\\/"))[-1]
    return base or "<path>"


def normalise_message(text: str) -> str:
    """Placeholders for what varies; whitespace folded; case kept (patterns ignore case)."""
    text = ANSI_RE.sub("", text)
    for regex, replacement in _RULES:
        if replacement == "path":
            text = regex.sub(_replace_path, text)
        else:
            text = regex.sub(replacement, text)
    return re.sub(r"\s+", " ", text).strip()


# --- boilerplate -------------------------------------------------------------

# Sentences PyTorch appends to many different errors. They say nothing about which
# error it is, and shared by several entries' examples they drown the part that does
# (a CUDA out-of-memory and an illegal memory access end with the same three lines).
# Signatures still see the raw message; BM25 and embeddings see it without these.
_BOILERPLATE = [
    re.compile(r"CUDA kernel errors might be asynchronously reported at some other API call,\s*so the "
               r"stacktrace below might be incorrect\.?", re.IGNORECASE),
    re.compile(r"For debugging,? consider passing CUDA_LAUNCH_BLOCKING=\S*\.?", re.IGNORECASE),
    re.compile(r"Compile with `?TORCH_USE_CUDA_DSA`? to enable device-side assertions\.?", re.IGNORECASE),
    # C++ stack dumps: "Exception raised from f at file.cpp:12 (most recent call first):" and "frame #3: ..."
    re.compile(r"Exception raised from \S+ at \S+ \(most recent call first\):?.*", re.IGNORECASE | re.DOTALL),
    re.compile(r"^\s*frame #\d+:.*$", re.MULTILINE),
]


def strip_boilerplate(text: str) -> str:
    for regex in _BOILERPLATE:
        text = regex.sub(" ", text)
    return re.sub(r"[ \t]{2,}", " ", text).strip()


def normalise_for_search(text: str) -> str:
    """What BM25 and the embedder see of an error: normalised, without boilerplate."""
    return normalise_message(strip_boilerplate(text))


# --- frames -------------------------------------------------------------------

# Where an installed package starts inside a path: the part after it is stable
# across machines (`torch/nn/modules/module.py` on Linux, Windows and Colab alike).
_PACKAGE_ROOT = re.compile(r"(?:site-packages|dist-packages|lib[\\/]python\d[\d.]*)[\\/]", re.IGNORECASE)
_NOTEBOOK_FILE = re.compile(r"^<ipython-input-\d+-[0-9a-f]+>$|^(?:/tmp/)?ipykernel_\d+[\\/]\d+\.py$|^Cell In\[\d+\]$")


def normalise_frame_path(path: str) -> str:
    """A stable name for a frame's file: the package-relative path for installed code
    (`torch/autograd/__init__.py`), `<notebook>` for a notebook cell, else the basename."""
    path = path.strip().strip('"')
    if _NOTEBOOK_FILE.match(path) or path.startswith("<ipython-input"):
        return "<notebook>"
    parts = _PACKAGE_ROOT.split(path)
    if len(parts) > 1:
        return parts[-1].replace("\\", "/")
    # A source checkout of torch (`.../pytorch/torch/nn/functional.py`).
    m = re.search(r"[\\/](torch[\\/].+)$", path)
    if m:
        return m.group(1).replace("\\", "/")
    return _PATH_KEEP_BASENAME.split(path.rstrip("\\/"))[-1] or "<path>"


def is_torch_path(path: str) -> bool:
    return normalise_frame_path(path).startswith(("torch/", "torchvision/", "torchaudio/", "torch_"))


# The exception type a message starts with: "RuntimeError: ..." -> RuntimeError.
_ERROR_TYPE = re.compile(r"^\s*((?:[A-Za-z_][\w]*\.)*[A-Za-z_]\w*(?:Error|Exception|Warning|Interrupt|Exit|Failure))"
                         r"\s*:")


def error_type_of(text: str) -> str | None:
    m = _ERROR_TYPE.match(text or "")
    return m.group(1) if m else None
