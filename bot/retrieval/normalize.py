"""Normalise an error message the way an error grouper does.

What varies between two pastes of the same error (paths, addresses, sizes, shapes,
versions, device ids, plain numbers) becomes a placeholder, so that signatures,
BM25 and embeddings see what stays the same. The placeholders are part of the
knowledge-base contract (knowledge/README.md): <path> <hex> <size> <shape> <ver>
<dev> <num>.
"""

from __future__ import annotations

import re

ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07")

_RULES: list[tuple[re.Pattern, str]] = [
    # Windows and POSIX paths with at least one separator: keep the basename.
    (re.compile(r"(?:[A-Za-z]:\\|\\\\)[^\s'\"<>|:*?]+"), "path"),
    (re.compile(r"(?<![\w.<])(?:~|\.{1,2})?/(?:[^\s/'\"(),:;]+/)+[^\s/'\"(),:;]*"), "path"),
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
