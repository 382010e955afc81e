"""The patches by name. Knowledge entries name them in `patch:` fields (see
knowledge/README.md); `bot.kb.loader` checks those names against `names()`.

Every module of this package except the helpers below registers its patches when
imported, one module per family of errors: adding a family is adding a file.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Callable

from bot.verify.patches.base import Failure, Patch, PatchResult

# Helper modules of the package that register nothing.
_HELPERS = {"base", "registry", "source", "calls"}


def _modules() -> list[str]:
    import bot.verify.patches as package

    return sorted(f"{package.__name__}.{info.name}" for info in pkgutil.iter_modules(package.__path__)
                  if info.name not in _HELPERS and not info.name.startswith("_"))

_PATCHES: dict[str, Patch] = {}
_loaded = False


class UnknownPatch(KeyError):
    def __str__(self) -> str:
        return f"no patch named {self.args[0]!r}; registered: {', '.join(names())}"


def register(name: str, description: str) -> Callable:
    """Decorator: register `func(code, failure) -> PatchResult` under `name`."""

    def decorate(func: Callable[[str, Failure], PatchResult]):
        if name in _PATCHES:
            raise ValueError(f"patch {name!r} registered twice")
        _PATCHES[name] = Patch(name=name, description=description, func=func)
        return func

    return decorate


def _load() -> None:
    global _loaded
    if not _loaded:
        for module in _modules():
            importlib.import_module(module)
        _loaded = True


def names() -> list[str]:
    _load()
    return sorted(_PATCHES)


def declared_names() -> list[str]:
    """The names `names()` gives, read from the package's source without importing it.

    Importing the patch modules imports libcst (about 0.5 s); the knowledge loader only
    needs the names to check `patch:` fields, so `troubleshoot ask` reads them from the
    `@register("name", ...)` decorators instead (a test checks both agree)."""
    import ast
    from pathlib import Path

    import bot.verify.patches as package

    found: set[str] = set()
    for module in _modules():
        path = Path(package.__path__[0]) / (module.rsplit(".", 1)[1] + ".py")
        if not path.is_file():  # a sub-package or compiled module: ask the modules themselves
            return names()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "register":
                first = node.args[0] if node.args else None
                if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
                    return names()  # a computed name: only importing tells
                found.add(first.value)
    return sorted(found)


def get(name: str) -> Patch:
    _load()
    try:
        return _PATCHES[name]
    except KeyError:
        raise UnknownPatch(name) from None


def all_patches() -> list[Patch]:
    _load()
    return [_PATCHES[n] for n in sorted(_PATCHES)]
