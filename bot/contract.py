"""Typed JSON documents: the contracts other tools read (`ask --json`, `verify --json`)
as dataclasses that say which keys there are, in which order, and of what type.

    @dataclass
    class Row(Document):
        id: str
        note: str | None            # always in the JSON, null when there is none
        reason: str | Absent = ABSENT  # in the JSON only when set

    Row(id="a", note=None).as_json() == {"id": "a", "note": None}
    Row.from_json({"id": "a", "note": None, "reason": "x"}).reason == "x"

`as_json()` gives the keys in field order and leaves out the fields still ABSENT; nested
documents (and lists of them) become their JSON, every other value is passed as it is
(no coercion, so the JSON printed is what the code computed). `from_json()` reads such
a dict back and refuses a key the document does not declare or a required one missing.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from typing import Any, Literal, TypeVar

D = TypeVar("D", bound="Document")


class Absent:
    """The type of ABSENT: a key left out of the JSON (None is a key whose value is null)."""

    _instance: Absent | None = None

    def __new__(cls) -> Absent:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __bool__(self) -> Literal[False]:  # so `if doc.field:` narrows ABSENT away for type checkers
        return False

    def __repr__(self) -> str:
        return "ABSENT"

    def __copy__(self) -> Absent:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Absent:
        return self


ABSENT = Absent()


def present(value: Any) -> Any:
    """A field's value, None where it is ABSENT (what `.get(key)` on its JSON would give)."""
    return None if isinstance(value, Absent) else value


def _to_json(value: Any) -> Any:
    if isinstance(value, Document):
        return value.as_json()
    if isinstance(value, list) and any(isinstance(v, Document) for v in value):
        return [_to_json(v) for v in value]
    return value


def _documents_in(hint: Any) -> tuple[type[Document] | None, bool]:
    """(the Document class a field holds, whether it holds a list of them)."""
    args = typing.get_args(hint) if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union \
        else (hint,)
    for arg in args:
        if isinstance(arg, type) and issubclass(arg, Document):
            return arg, False
        if typing.get_origin(arg) is list:
            (inner,) = typing.get_args(arg) or (Any,)
            if isinstance(inner, type) and issubclass(inner, Document):
                return inner, True
    return None, False


def _from_json(hint: Any, value: Any) -> Any:
    cls, many = _documents_in(hint)
    if cls is None:
        return value
    if many and isinstance(value, list):
        return [cls.from_json(v) if isinstance(v, dict) else v for v in value]
    if not many and isinstance(value, dict):
        return cls.from_json(value)
    return value


class Document:
    """Base of the JSON documents (subclasses are dataclasses)."""

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            if value is not ABSENT:
                out[f.name] = _to_json(value)
        return out

    @classmethod
    def keys(cls) -> tuple[str, ...]:
        """Every key the JSON can have, in order."""
        return tuple(f.name for f in dataclasses.fields(cls))  # type: ignore[arg-type]

    @classmethod
    def required_keys(cls) -> tuple[str, ...]:
        """The keys every document has (those without a default of ABSENT)."""
        return tuple(f.name for f in dataclasses.fields(cls)  # type: ignore[arg-type]
                     if f.default is not ABSENT)

    @classmethod
    def from_json(cls: type[D], data: dict[str, Any]) -> D:
        hints = typing.get_type_hints(cls)
        unknown = [key for key in data if key not in hints or key.startswith("_")]
        if unknown:
            raise ValueError(f"{cls.__name__}: keys the contract does not have: {', '.join(unknown)}")
        return cls(**{key: _from_json(hints[key], value) for key, value in data.items()})
