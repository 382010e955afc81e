"""The snippet as a libcst tree, with the questions patches ask of it and a way to edit it.

`Snippet` answers: which statement is on the failing line, which calls it makes,
which statements computed a variable before that point (a backward slice), what
name `torch` is imported under. `Edits` collects targeted changes (replace a node,
insert statements before/after a statement, wrap statements in a `with`, unwrap a
`with`) and renders the new code, keeping everything else byte for byte.
"""

from __future__ import annotations

from typing import Callable, Iterator

import libcst as cst
from libcst.metadata import MetadataWrapper, ParentNodeProvider, PositionProvider

from bot.verify.patches.base import NotApplicable, SnippetSyntaxError


Block = (cst.Module, cst.IndentedBlock)
ASSIGNS = (cst.Assign, cst.AnnAssign, cst.AugAssign)


class Snippet:
    def __init__(self, code: str):
        try:
            module = cst.parse_module(code)
        except cst.ParserSyntaxError as exc:
            raise SnippetSyntaxError(f"line {exc.raw_line}: {exc.message}") from None
        self.code = code
        wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
        self.module = wrapper.module
        self._pos = wrapper.resolve(PositionProvider)
        self._parents = wrapper.resolve(ParentNodeProvider)
        self._variables, self._bound_otherwise = _bindings(self.module)

    # --- positions and text ---------------------------------------------------------

    def lines(self, node: cst.CSTNode) -> tuple[int, int]:
        pos = self._pos[node]
        return pos.start.line, pos.end.line

    def line(self, node: cst.CSTNode) -> int:
        return self._pos[node].start.line

    def text(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node).strip()

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return self._parents.get(node)

    def ancestors(self, node: cst.CSTNode) -> Iterator[cst.CSTNode]:
        node = self._parents.get(node)
        while node is not None:
            yield node
            node = self._parents.get(node)

    # --- statements -----------------------------------------------------------------

    def statements(self) -> list[cst.BaseStatement]:
        """Every body-level statement (a line of simple statements or a compound one)."""
        found: list[cst.BaseStatement] = []

        class V(cst.CSTVisitor):
            def on_visit(self, node):
                if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
                    found.append(node)
                return True

        self.module.visit(V())
        return found

    def statement_at(self, line: int | None) -> cst.BaseStatement:
        """The body-level statement whose own line(s) hold `line`.

        For a compound statement the body does not count: a failing `for x in
        t.numpy():` is the `for` statement, a failing line inside its body is that line.
        """
        if line is None:
            raise NotApplicable("the traceback names no line of the snippet")
        for stmt in self.statements():
            start, end = self.lines(stmt)
            body = getattr(stmt, "body", None)
            if isinstance(stmt, cst.BaseCompoundStatement) and isinstance(body, cst.IndentedBlock) and body.body:
                end = max(start, self.line(body.body[0]) - 1)
            if start <= line <= end:
                return stmt
        raise NotApplicable(f"line {line} of the snippet holds no statement")

    def header_nodes(self, stmt: cst.BaseStatement) -> list[cst.CSTNode]:
        """The parts of a statement that run on its own line (not a compound statement's body)."""
        if isinstance(stmt, cst.SimpleStatementLine):
            return list(stmt.body)
        parts: list[cst.CSTNode] = []
        for name in ("test", "iter", "target", "items"):
            value = getattr(stmt, name, None)
            if isinstance(value, (list, tuple)):
                parts.extend(value)
            elif value is not None:
                parts.append(value)
        if isinstance(getattr(stmt, "body", None), cst.SimpleStatementSuite):  # `if x: y()` on one line
            parts.extend(stmt.body.body)
        return parts

    def find(self, roots: list[cst.CSTNode], kind, where: Callable[[cst.CSTNode], bool] = lambda n: True,
             nested: bool = False) -> list:
        """Nodes of type `kind` under `roots`, in source order. Unless `nested`, it does
        not descend into bodies, functions, classes or lambdas (they do not run on that line)."""
        found = []

        class V(cst.CSTVisitor):
            def on_visit(self, node):
                if isinstance(node, kind) and where(node):
                    found.append(node)
                return nested or not isinstance(node, (cst.IndentedBlock, cst.FunctionDef, cst.ClassDef, cst.Lambda))

        for root in roots:
            root.visit(V())
        return sorted(found, key=lambda n: (self._pos[n].start.line, self._pos[n].start.column))

    def calls_at(self, line: int | None) -> tuple[cst.BaseStatement, list[cst.Call]]:
        stmt = self.statement_at(line)
        return stmt, self.find(self.header_nodes(stmt), cst.Call)

    def block_of(self, stmt: cst.BaseStatement) -> cst.Module | cst.IndentedBlock:
        return self._parents[stmt]

    def enclosing_function(self, node: cst.CSTNode) -> cst.FunctionDef | None:
        for anc in self.ancestors(node):
            if isinstance(anc, cst.FunctionDef):
                return anc
        return None

    def body_statement(self, node: cst.CSTNode) -> cst.BaseStatement:
        """The body-level statement that holds `node`."""
        while not isinstance(self._parents.get(node), Block):
            node = self._parents[node]
        return node

    # --- names and data flow --------------------------------------------------------

    def is_variable(self, name: str) -> bool:
        """Bound by an assignment (not only by import, def or class)."""
        return name in self._variables

    def is_definition(self, name: str) -> bool:
        """Bound by import, def or class (a module, function or class, not a value)."""
        return name in self._bound_otherwise

    def used_names(self, node: cst.CSTNode) -> list[str]:
        """Names read by an expression or statement, in order, without duplicates."""
        names: list[str] = []
        parents = self._parents

        class V(cst.CSTVisitor):
            def visit_Name(self, n: cst.Name):
                parent = parents.get(n)
                if isinstance(parent, cst.Attribute) and parent.attr is n:
                    return
                if isinstance(parent, cst.Arg) and parent.keyword is n:
                    return
                if isinstance(parent, (cst.Param, cst.FunctionDef, cst.ClassDef, cst.ImportAlias)):
                    return
                names.append(n.value)

        if isinstance(node, cst.Assign):
            node.value.visit(V())
            for t in node.targets:  # a[i] = v reads a and i
                if not isinstance(t.target, (cst.Name, cst.Tuple, cst.List)):
                    t.target.visit(V())
        elif isinstance(node, cst.AnnAssign):
            if node.value is not None:
                node.value.visit(V())
        elif isinstance(node, cst.AugAssign):
            node.value.visit(V())
            node.target.visit(V())
        else:
            node.visit(V())
        return list(dict.fromkeys(names))

    def preceding(self, stmt: cst.CSTNode) -> Iterator[tuple[cst.CSTNode, cst.BaseStatement]]:
        """(small statement or compound statement, its body-level statement), latest first,
        for everything that ran before `stmt` in straight-line order."""
        node = self.body_statement(stmt)
        while True:
            block = self._parents[node]
            siblings = list(block.body)
            index = next(i for i, s in enumerate(siblings) if s is node)
            for sibling in reversed(siblings[:index]):
                yield from self._reversed_contents(sibling)
            if isinstance(block, cst.Module):
                return
            owner = self._parents[block]
            while not isinstance(self._parents.get(owner), Block):
                owner = self._parents[owner]
            node = owner

    def _reversed_contents(self, stmt: cst.BaseStatement):
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in reversed(stmt.body):
                yield small, stmt
        elif isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            return
        elif isinstance(stmt, cst.BaseCompoundStatement):
            parts = [getattr(stmt, name, None) for name in ("body", "orelse", "finalbody")]
            parts[1:1] = [h.body for h in getattr(stmt, "handlers", ()) or ()]
            for part in reversed([p for p in parts if p is not None]):
                if isinstance(part, (cst.Else, cst.Finally)):  # they hold a suite
                    part = part.body
                if isinstance(part, cst.If):  # an elif chain
                    yield from self._reversed_contents(part)
                    continue
                for s in reversed(list(part.body)):
                    if isinstance(s, cst.BaseSmallStatement):  # a one-line suite: `with x: y = 1`
                        yield s, stmt
                    else:
                        yield from self._reversed_contents(s)
            yield stmt, stmt

    def definition(self, name: str, before: cst.CSTNode) -> tuple[cst.CSTNode, cst.BaseStatement] | None:
        """The last statement that assigned `name` before `before`."""
        for small, line_stmt in self.preceding(before):
            if name in assigned_names(small):
                return small, line_stmt
        return None

    def backward_slice(self, names: list[str], before: cst.CSTNode,
                       follow: Callable[[cst.CSTNode], bool] = lambda s: True,
                       ) -> list[tuple[cst.CSTNode, cst.BaseStatement]]:
        """The assignments that computed `names` (transitively), in source order.

        `follow(small)` decides whether a definition belongs to the slice (and whether
        to keep walking back through what it reads)."""
        found: dict[int, tuple] = {}
        work = [(n, before) for n in names]
        seen = set()
        while work:
            name, at = work.pop()
            if (name, id(at)) in seen:
                continue
            seen.add((name, id(at)))
            d = self.definition(name, at)
            if d is None or not isinstance(d[0], ASSIGNS) or not follow(d[0]):
                continue
            found[id(d[0])] = d
            for used in self.used_names(d[0]):
                if self.is_variable(used):
                    work.append((used, d[0]))
        return sorted(found.values(), key=lambda d: (self.line(d[0]), self._pos[d[0]].start.column))

    def torch_name(self) -> str | None:
        """The name `import torch [as x]` binds, if the snippet has one at module level."""
        for stmt in self.module.body:
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if isinstance(small, cst.Import):
                        for alias in small.names:
                            if self.text(alias.name) == "torch":
                                return alias.asname.name.value if alias.asname else "torch"
        return None

    def first_code_statement(self) -> cst.BaseStatement:
        """Where new imports can go: after a docstring and `from __future__` imports."""
        for stmt in self.module.body:
            if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1:
                small = stmt.body[0]
                if isinstance(small, cst.Expr) and isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString)):
                    continue
                if (isinstance(small, cst.ImportFrom) and small.module is not None
                        and self.text(small.module) == "__future__"):
                    continue
            return stmt
        raise NotApplicable("the snippet has no code")


def assigned_names(node: cst.CSTNode) -> set[str]:
    """Names a statement binds by assignment (targets of =, +=, for, with ... as)."""
    targets: list[cst.CSTNode] = []
    if isinstance(node, cst.Assign):
        targets = [t.target for t in node.targets]
    elif isinstance(node, (cst.AnnAssign, cst.AugAssign)):
        targets = [node.target]
    elif isinstance(node, cst.For):
        targets = [node.target]
    elif isinstance(node, cst.With):
        targets = [item.asname.name for item in node.items if item.asname is not None]
    names: set[str] = set()
    for t in targets:
        names |= _target_names(t)
    return names


def _target_names(target: cst.CSTNode) -> set[str]:
    if isinstance(target, cst.Name):
        return {target.value}
    if isinstance(target, (cst.Tuple, cst.List)):
        out: set[str] = set()
        for el in target.elements:
            out |= _target_names(el.value)
        return out
    if isinstance(target, cst.StarredElement):
        return _target_names(target.value)
    return set()


def _bindings(module: cst.Module) -> tuple[set[str], set[str]]:
    variables: set[str] = set()
    other: set[str] = set()

    class V(cst.CSTVisitor):
        def on_visit(self, node):
            if isinstance(node, (cst.Assign, cst.AnnAssign, cst.AugAssign, cst.For, cst.With)):
                variables.update(assigned_names(node))
            elif isinstance(node, cst.Param):
                variables.add(node.name.value)
            elif isinstance(node, (cst.FunctionDef, cst.ClassDef)):
                other.add(node.name.value)
            elif isinstance(node, cst.ImportAlias):
                name = node.asname.name if node.asname else node.name
                if isinstance(name, cst.Name):
                    other.add(name.value)
                elif isinstance(name, cst.Attribute):  # import a.b binds a
                    root = name
                    while isinstance(root, cst.Attribute):
                        root = root.value
                    other.add(root.value)
            return True

    module.visit(V())
    return variables, other


# --- edits -----------------------------------------------------------------------------


def statement(code: str) -> cst.BaseStatement:
    return cst.parse_statement(code if code.endswith("\n") else code + "\n")


def expression(code: str) -> cst.BaseExpression:
    return cst.parse_expression(code)


class Edits:
    """Targeted changes to one Snippet, applied together by `render()`."""

    def __init__(self, snippet: Snippet):
        self.snippet = snippet
        self.replace: dict[int, Callable[[cst.CSTNode], cst.CSTNode]] = {}
        self.before: dict[int, list[cst.BaseStatement]] = {}
        self.after: dict[int, list[cst.BaseStatement]] = {}
        self.wrap: dict[int, tuple[int, str]] = {}
        self.unwrap: set[int] = set()
        self._imported_torch = False

    def replace_node(self, node: cst.CSTNode, make: Callable[[cst.CSTNode], cst.CSTNode] | cst.CSTNode):
        self.replace[id(node)] = make if callable(make) else (lambda _updated, new=make: new)

    def insert_before(self, stmt: cst.BaseStatement, *code: str | cst.BaseStatement):
        self.before.setdefault(id(stmt), []).extend(statement(c) if isinstance(c, str) else c for c in code)

    def insert_after(self, stmt: cst.BaseStatement, *code: str | cst.BaseStatement):
        self.after.setdefault(id(stmt), []).extend(statement(c) if isinstance(c, str) else c for c in code)

    def wrap_in_with(self, first: cst.BaseStatement, last: cst.BaseStatement, header: str):
        """Put the consecutive statements first..last of one block under `with <header>:`."""
        if self.snippet.block_of(first) is not self.snippet.block_of(last):
            raise NotApplicable("the statements to wrap are not in one block")
        self.wrap[id(first)] = (id(last), header)

    def unwrap_with(self, stmt: cst.With):
        self.unwrap.add(id(stmt))

    def torch(self) -> str:
        """The name torch is imported under, adding `import torch` when there is none."""
        name = self.snippet.torch_name()
        if name is None:
            name = "torch"
            if not self._imported_torch:
                self.insert_before(self.snippet.first_code_statement(), "import torch")
                self._imported_torch = True
        return name

    @property
    def empty(self) -> bool:
        return not (self.replace or self.before or self.after or self.wrap or self.unwrap)

    def render(self) -> str:
        return self.snippet.module.visit(_Apply(self)).code


class _Apply(cst.CSTTransformer):
    def __init__(self, edits: Edits):
        self.e = edits

    def on_leave(self, original, updated):
        if id(original) in self.e.replace:
            updated = self.e.replace[id(original)](updated)
        if isinstance(original, Block) and isinstance(updated, Block):
            updated = updated.with_changes(body=self._rebuild(list(original.body), list(updated.body)))
        return updated

    def _rebuild(self, orig: list, new: list) -> list:
        e = self.e
        out: list = []
        i = 0
        while i < len(orig):
            o = orig[i]
            out.extend(e.before.get(id(o), []))
            if id(o) in e.wrap:
                last_id, header = e.wrap[id(o)]
                j = i
                while id(orig[j]) != last_id:
                    j += 1
                group = new[i:j + 1]
                first = group[0]
                leading = getattr(first, "leading_lines", ())
                if leading:  # keep comments and blank lines above the new `with`
                    group[0] = first.with_changes(leading_lines=())
                wrapped = cst.With(items=[cst.WithItem(item=expression(header))], body=cst.IndentedBlock(body=group),
                                   leading_lines=leading)
                out.append(wrapped)
                out.extend(e.after.get(id(orig[j]), []))
                i = j + 1
                continue
            n = new[i]
            if id(o) in e.unwrap and isinstance(n, cst.With) and isinstance(n.body, cst.IndentedBlock):
                body = list(n.body.body)
                if body and n.leading_lines:
                    body[0] = body[0].with_changes(leading_lines=tuple(n.leading_lines) + tuple(body[0].leading_lines))
                out.extend(body)
            else:
                out.append(n)
            out.extend(e.after.get(id(o), []))
            i += 1
        return out
