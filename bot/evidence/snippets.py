"""What makes two snippets "the same snippet" for evidence: the same program, whatever
its comments and whitespace. Four copies of one snippet that differ in a trailing
comment are one experiment, so they count as one snippet towards the quorum (rates.py).

    snippet_shape(code) -> sha256 hex of the program's syntax tree (ast.dump without
    line numbers), or of its token stream without comments and blank lines when it
    does not parse (a SyntaxError is a snippet too), or of its text without any
    whitespace when it cannot even be tokenised.
"""

from __future__ import annotations

import ast
import hashlib
import io
import tokenize

_STRUCTURE = {tokenize.INDENT: "\t", tokenize.NEWLINE: "\n"}
_SKIPPED = frozenset({tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER})


def _sha(kind: str, text: str) -> str:
    return hashlib.sha256(f"{kind}\0{text}".encode("utf-8", "surrogatepass")).hexdigest()


def snippet_shape(code: str) -> str:
    try:
        return _sha("ast", ast.dump(ast.parse(code), annotate_fields=False, include_attributes=False))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        pass  # not Python, or nested beyond the parser: the tokens are the next best thing
    try:
        tokens = []
        for tok in tokenize.generate_tokens(io.StringIO(code).readline):
            if tok.type in _SKIPPED:
                continue
            # A line's end and an indent are structure; their characters are whitespace.
            tokens.append(_STRUCTURE.get(tok.type, tok.string))
        return _sha("tokens", "\x1f".join(tokens))
    except (tokenize.TokenError, SyntaxError, ValueError, RecursionError, MemoryError):
        return _sha("text", "".join(code.split()))
