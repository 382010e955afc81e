"""The packages of bot/ form a stack: a module imports only from its own package or
from a layer below, and no module imports itself back through others (no cycles).

An import inside a function is allowed only to keep a heavy optional dependency lazy
(torch and the embedding model, Celery and Redis, SQLAlchemy, libcst, slack_bolt), and
says so in a comment containing "lazy" on its line or the comment lines just above. The
CLI (bot/cli) is exempt: it loads each command's packages when that command runs.
"""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BOT = REPO / "bot"

# Lowest first; a package may import from its own layer's other packages only when
# listed here together, and from every layer below.
LAYERS: list[set[str]] = [
    {"errors"},
    {"settings"},
    {"logs", "text", "backoff", "contract"},
    {"kb", "store", "sandbox", "embed", "envs"},
    {"retrieval"},
    {"verify"},
    {"evidence"},
    {"answer", "jobs"},
    {"pages"},
    {"slack"},
    {"cli"},
]
LAYER_OF = {name: i for i, names in enumerate(LAYERS) for name in names}


def _modules() -> dict[str, Path]:
    mods = {}
    for path in sorted(BOT.rglob("*.py")):
        parts = list(path.relative_to(REPO).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        mods[".".join(parts)] = path
    return mods


MODULES = _modules()


def _is_package(module: str) -> bool:
    return MODULES[module].name == "__init__.py"


def _known(name: str) -> str | None:
    """The module of ours that `import name` loads last (a name inside a module is the module)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _top(module: str) -> str:
    """bot.kb.loader -> kb; bot.settings -> settings."""
    return module.split(".")[1] if "." in module else ""


class _Import:
    def __init__(self, module: str, target: str, line: int, in_function: bool):
        self.module, self.target, self.line, self.in_function = module, target, line, in_function

    def __repr__(self) -> str:
        return f"{MODULES[self.module].relative_to(REPO)}:{self.line} imports {self.target}"


def _imports(module: str) -> list[_Import]:
    path = MODULES[module]
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = module.split(".") if _is_package(module) else module.split(".")[:-1]
    ancestors = {".".join(module.split(".")[:i]) for i in range(1, len(module.split(".")))}
    found: list[_Import] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            nested = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue  # annotations only: nothing is imported at run time
            names: list[str] = []
            if isinstance(child, ast.Import):
                names = [alias.name for alias in child.names]
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    parent = package[: len(package) - (child.level - 1)]
                    base = ".".join(parent + ([base] if base else []))
                # `from pkg import sub` loads pkg and pkg.sub; `from mod import name` loads mod
                names = [base] + [f"{base}.{alias.name}" for alias in child.names
                                  if f"{base}.{alias.name}" in MODULES]
            for name in names:
                target = _known(name) if name.startswith("bot") else None
                # A module's own packages are loaded before it: importing them adds no edge.
                if target and target != module and target not in ancestors and target != "bot":
                    found.append(_Import(module, target, child.lineno, nested))
            visit(child, nested)

    visit(tree, False)
    return found


ALL_IMPORTS = [imp for module in MODULES for imp in _imports(module)]


def test_every_package_has_a_layer():
    packages = {_top(m) for m in MODULES if m != "bot"}
    assert packages - set(LAYER_OF) == set(), "give new packages a place in LAYERS (and the README's layout)"


def test_no_module_imports_a_package_above_it():
    upward = [imp for imp in ALL_IMPORTS
              if LAYER_OF.get(_top(imp.target), -1) > LAYER_OF.get(_top(imp.module), -1)
              or (LAYER_OF.get(_top(imp.target)) == LAYER_OF.get(_top(imp.module))
                  and _top(imp.target) != _top(imp.module))]
    assert upward == [], "imports up the stack (or sideways within a layer): " + "; ".join(map(repr, upward))


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_cycles():
    # Every import counts, at module level or inside a function: a cycle dodged by a late
    # import is still a cycle.
    edges: dict[str, set[str]] = {}
    for imp in ALL_IMPORTS:
        edges.setdefault(imp.module, set()).add(imp.target)
    assert _cycles(edges) == []


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def _says_lazy(lines: list[str], line: int) -> bool:
    """A comment with "lazy" on the import's line, or in the comment/import lines just above it."""
    i = line - 1
    if "#" in lines[i] and "lazy" in lines[i].split("#", 1)[1].lower():
        return True
    i -= 1
    while i >= 0:
        text = lines[i].strip()
        if text.startswith("#"):
            if "lazy" in text.lower():
                return True
        elif text and not (text.startswith(("import ", "from ")) or text.endswith((",", "(")) or text == ")"):
            return False
        i -= 1
    return False


def test_imports_inside_functions_say_why():
    unexplained = []
    for imp in ALL_IMPORTS:
        if imp.in_function and _top(imp.module) != "cli":
            lines = MODULES[imp.module].read_text(encoding="utf-8").splitlines()
            if not _says_lazy(lines, imp.line):
                unexplained.append(imp)
    assert unexplained == [], ("imports inside functions without a comment saying which heavy dependency they "
                               "keep lazy: " + "; ".join(map(repr, unexplained)))
