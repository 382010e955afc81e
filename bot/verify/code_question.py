"""Questions that are Python code without error text ("why does this fail?" and a
snippet, or the snippet alone).

    detect_code(text) -> CodeQuestion | None

A question is code when (1) it holds no error text: no traceback header, no
`File "...", line N` frame, no `SomeError: message` line (commented out or not), no
bare "Segmentation fault" / "Killed" line; (2) its code (the ``` fenced blocks, or the
longest run of lines that parses, with at most a few lines of the asker's words before
and after it) parses with `ast.parse`; and (3) that code has Python's shape: an import,
a call, a definition or a block statement, not a lone word or expression that happens
to parse ("thanks", "안녕하세요", "not bad").

Such a question is answered by running the code (it is the asker's own code; the
sandbox exists for this) through the one verification path, then answering from the
error it really raised: see bot/answer/code.py.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from bot.contract import present
from bot.text.lang import detect_language
from bot.verify.report import ErrorInfo, VerifyReport

MAX_PROSE_LINES = 8  # the asker's words around unfenced code, at either end
MAX_CODE_CHARS = 50_000

_FENCE = re.compile(r"```(.*?)```", re.DOTALL)
_LANG_TAG = re.compile(r"\A(?:python3?|py|pycon|ipython|text|txt)[ \t]*\n", re.IGNORECASE)
_PROMPT = re.compile(r"^(?:>>> ?|\.\.\. ?|In \[\d+\]: ?)")
# Error text: what makes a paste an error question rather than a code question.
_TRACEBACK = re.compile(r"Traceback \(most recent call last\)|^\s*File \"[^\"]*\", line \d+|"
                        r"^\s*Cell In\[\d+\], line \d+|<ipython-input-[^>]*> in ", re.MULTILINE)
_ERROR_LINE = re.compile(r"^[ \t]*(?:#+[ \t]*)?(?:[A-Za-z_][\w.]*\.)?(?:[A-Z]\w*)?"
                         r"(?:Error|Exception|Exit|Interrupt|Warning)"
                         r"\b(?:[ \t]*:[ \t]*\S|[ \t]*$)", re.MULTILINE)
_CRASH_LINE = re.compile(r"^[ \t]*(?:#+[ \t]*)?(?:Segmentation fault|Bus error|Killed|Aborted|"
                         r"Floating point exception|Illegal instruction)\b.*$", re.MULTILINE | re.IGNORECASE)

# Statements and expressions that only code has.
_CODE_NODES = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.For,
               ast.While, ast.With, ast.If, ast.Try, ast.Call, ast.Assign, ast.AugAssign, ast.Raise, ast.Assert,
               ast.Return, ast.Delete)
_CALL_OR_DEF = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Call,
                ast.For, ast.While, ast.With)


@dataclass(frozen=True)
class CodeQuestion:
    code: str  # what runs
    prose: str  # the asker's own words around it ("" for bare code)
    fenced: bool  # the code came from ``` fences
    # Names the code uses but never defines or imports: a part of a larger program
    # ("for epoch in range(num_epochs): train(model)"), which cannot run on its own.
    undefined: tuple[str, ...] = ()

    @property
    def runnable(self) -> bool:
        return not self.undefined

    @property
    def language(self) -> str:
        """The asker's language (from their words; English for bare code)."""
        return detect_language(self.prose) if self.prose.strip() else "en"

    @property
    def lines(self) -> int:
        return len(self.code.strip("\n").split("\n"))


def has_error_text(text: str) -> bool:
    """A traceback, a frame line, an `XxxError: message` line (even as a comment) or a
    crash line: the question already carries its error."""
    return bool(_TRACEBACK.search(text) or _ERROR_LINE.search(text) or _CRASH_LINE.search(text))


def _strip_prompts(code: str) -> str:
    """Interactive sessions (`>>> `, `... `, `In [3]: `) pasted as code: keep the input lines."""
    lines = code.split("\n")
    if not any(_PROMPT.match(line) for line in lines):
        return code
    return "\n".join(_PROMPT.sub("", line) for line in lines if _PROMPT.match(line) or not line.strip())


def _parse(code: str) -> ast.Module | None:
    if not code.strip() or len(code) > MAX_CODE_CHARS:
        return None
    try:
        return ast.parse(code)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None


def is_code(code: str) -> bool:
    """Parses, and has the shape of a program (see the module docstring)."""
    tree = _parse(code)
    if tree is None or not tree.body:
        return False
    nodes = list(ast.walk(tree))
    if not any(isinstance(n, _CALL_OR_DEF) for n in nodes):
        return False  # "x = y", "not bad", "yes or no": words that parse, not a program
    return any(isinstance(n, _CODE_NODES) for n in tree.body) or len(tree.body) > 1


_MODULE_NAMES = {"__name__", "__file__", "__doc__", "__builtins__", "__spec__", "__loader__", "__package__",
                 "__annotations__", "__debug__", "__path__"}


def undefined_names(code: str) -> tuple[str, ...]:
    """Names `code` reads but never binds (assignment, import, def, class, parameter, loop
    or `with`/`except` target, comprehension variable) and Python does not provide.
    Scopes are not told apart: a name bound anywhere counts as defined. Empty when the
    code star-imports (nothing can be said) or does not parse."""
    import builtins

    tree = _parse(code)
    if tree is None:
        return ()
    bound: set[str] = set(dir(builtins)) | _MODULE_NAMES
    used: dict[str, None] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name == "*":
                    return ()
                bound.add((alias.asname or alias.name).split(".")[0])
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            bound.update(node.names)
        elif isinstance(node, ast.MatchAs) and node.name or isinstance(node, ast.MatchStar) and node.name:
            bound.add(node.name)
        elif isinstance(node, ast.Name):
            if isinstance(node.ctx, (ast.Store, ast.Del)):
                bound.add(node.id)
            else:
                used.setdefault(node.id)
    return tuple(name for name in used if name not in bound)


def _is_word_line(line: str) -> bool:
    """A line of prose that parses on its own ("Hi", "help", "안녕하세요")."""
    tree = _parse(line.strip())
    return tree is not None and len(tree.body) == 1 and isinstance(tree.body[0], ast.Expr) \
        and isinstance(tree.body[0].value, (ast.Name, ast.Constant, ast.Attribute, ast.UnaryOp, ast.BoolOp))


def _unfenced(lines: list[str]) -> tuple[str, str] | None:
    """(code, prose) from text without fences: the longest run of lines that is code,
    with at most MAX_PROSE_LINES lines of words before and after it."""
    n = len(lines)
    best: tuple[int, int] | None = None
    for start in range(min(n, MAX_PROSE_LINES + 1)):
        if not lines[start].strip() or lines[start][:1].isspace():
            continue  # code starts on a non-blank line at the margin
        for end in range(n, max(start, n - MAX_PROSE_LINES - 1), -1):
            if best is not None and end - start <= best[1] - best[0]:
                break
            if is_code("\n".join(lines[start:end])):
                best = (start, end)
                break
    if best is None:
        return None
    start, end = best
    # A word that parses on its own just above or below the code is the asker's, not code.
    while True:
        while end - start > 1 and not lines[end - 1].strip():
            end -= 1
        while end - start > 1 and not lines[start].strip():
            start += 1
        if end - start > 1 and _is_word_line(lines[start]) and is_code("\n".join(lines[start + 1:end])):
            start += 1
        elif end - start > 1 and _is_word_line(lines[end - 1]) and is_code("\n".join(lines[start:end - 1])):
            end -= 1
        else:
            break
    prose = "\n".join(lines[:start] + lines[end:]).strip()
    return "\n".join(lines[start:end]).strip("\n") + "\n", prose


def detect_code(text: str) -> CodeQuestion | None:
    """The code and the asker's words when `text` is Python code without error text;
    None otherwise (an error paste, a question in words, a greeting). `text` is what the
    asker typed (Slack's entities already decoded: see bot/slack/services/message.py)."""
    if not isinstance(text, str) or not text.strip():
        return None
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if has_error_text(text):
        return None
    fences = [_LANG_TAG.sub("", m.group(1).strip("\n"), count=1) for m in _FENCE.finditer(text)]
    fences = [_strip_prompts(f) for f in fences if f.strip()]
    if fences:
        code_blocks = [f for f in fences if is_code(f)]
        if not code_blocks:
            return None
        code = "\n\n".join(f.strip("\n") for f in code_blocks) + "\n"
        if not is_code(code):  # blocks that only make sense apart: run the longest
            code = max(code_blocks, key=len).strip("\n") + "\n"
        prose = _FENCE.sub("\n", text).strip()
        return CodeQuestion(code=code, prose=prose, fenced=True, undefined=undefined_names(code))
    found = _unfenced(_strip_prompts(text).split("\n"))
    if found is None:
        return None
    code, prose = found
    return CodeQuestion(code=code, prose=prose, fenced=False, undefined=undefined_names(code))


# --- answering a code question from its real run ----------------------------------------------

TRACEBACK_CHARS = 6000  # of the run's output, what the answer looks up (the traceback's end matters)

def device_text(env: dict | None) -> str:
    """"CPU", or "GPU: NVIDIA H100 80GB HBM3" where the run had a GPU."""
    env = env or {}
    if env.get("cuda_available") or env.get("device_name") or env.get("gpu"):
        name = env.get("device_name") or env.get("gpu")
        return f"GPU: {name}" if name else "GPU"
    return "CPU"


def traceback_text(report: VerifyReport) -> str:
    """What the answer looks up: the traceback the run printed (its frames tell whose
    error it is), or the error line the sandbox captured."""
    error = report.error or ErrorInfo(type=None, message=None, entry_id=None)
    line = f"{error.type}: {error.message}" if error.type else (error.message or "")
    output = report.output or ""
    start = output.find("Traceback (most recent call last)")
    if start < 0:
        return line
    tb = output[start:]
    if len(tb) > TRACEBACK_CHARS:
        tb = tb[-TRACEBACK_CHARS:]
    # The sandbox's captured message is the truth; a traceback cut short still ends with it.
    return tb if (error.message or "")[:80] in tb else tb.rstrip("\n") + "\n" + line


def run_summary(report: VerifyReport) -> dict:
    """The answer document's `run` (JSON: the answer is stored and rendered as such)."""
    env = report.environment or {}
    error = report.error
    return {"ran": True, "exit_reason": report.exit_reason, "torch": env.get("torch"),
            "device": device_text(env), "seconds": present(report.seconds),
            "error": None if error is None else {"type": error.type, "message": error.message,
                                                 "entry_id": error.entry_id},
            "snippet_line": present(report.snippet_line)}
