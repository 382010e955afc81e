"""YAML loading that remembers where each value came from.

`kb check` must name the line of a bad field, so we compose the YAML node tree
ourselves and keep the line of every mapping key and sequence item.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import yaml

# libyaml's composer keeps the same marks (line, column) and is about ten times faster than
# the pure-Python one: loading the 90 entries took 3.6 s of a cold `troubleshoot ask`.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class YamlSourceError(ValueError):
    def __init__(self, message: str, line: int | None):
        super().__init__(message)
        self.line = line


@dataclass
class Located:
    """Parsed YAML data plus the 1-based line of each field path, e.g. ("workarounds", 0, "title")."""

    data: object
    lines: dict[tuple, int] = field(default_factory=dict)

    def line_of(self, path: tuple) -> int | None:
        # Walk up until some ancestor has a known line.
        while path:
            if path in self.lines:
                return self.lines[path]
            path = path[:-1]
        return self.lines.get((), None)


def load_located(text: str) -> Located:
    try:
        node = yaml.compose(text, Loader=_LOADER)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        raise YamlSourceError(f"broken YAML: {exc.problem or exc}", line) from None
    except yaml.YAMLError as exc:
        raise YamlSourceError(f"broken YAML: {exc}", None) from None
    located = Located(None)
    if node is None:
        located.data = None
        return located
    scalars = yaml.SafeLoader("")  # one constructor for every scalar of the document
    try:
        located.data = _convert(node, (), located.lines, scalars)
    finally:
        scalars.dispose()
    return located


def _convert(node: yaml.Node, path: tuple, lines: dict[tuple, int], scalars: yaml.SafeLoader):
    lines.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        out: dict = {}
        for key_node, value_node in node.value:
            key = _convert(key_node, path + ("<key>",), {}, scalars)
            if not isinstance(key, (str, int, float, bool)):
                raise YamlSourceError("mapping keys must be plain scalars", key_node.start_mark.line + 1)
            if key in out:
                raise YamlSourceError(f"duplicate key {key!r}", key_node.start_mark.line + 1)
            lines[path + (key,)] = key_node.start_mark.line + 1
            out[key] = _convert(value_node, path + (key,), lines, scalars)
        return out
    if isinstance(node, yaml.SequenceNode):
        items = []
        for i, item in enumerate(node.value):
            lines[path + (i,)] = item.start_mark.line + 1
            items.append(_convert(item, path + (i,), lines, scalars))
        return items
    # Scalars: let the safe constructor resolve the tag (int, float, bool, null, str).
    return scalars.construct_object(node, deep=True)
