"""Building syntax trees from code templates with placeholders.

    replace("target = ag__.list_append(target, value)", target=name_node, value=expr)

Each identifier in the template that is a keyword argument is a placeholder. A placeholder
can stand for an expression (a node or a name given as a string), a function name, or, when
it appears alone as a statement, a list of statements spliced in its place. Parsed templates
are cached; every call returns fresh nodes without positions (see `origin.copy_location`).
"""

from __future__ import annotations

import ast
import functools
import textwrap
from typing import Any, Union

import gast

from . import anno
from .ast_conversion import to_gast

Replacement = Union[str, gast.AST, list]


@functools.lru_cache(maxsize=None)
def _parse(template: str) -> list[gast.stmt]:
    return to_gast(ast.parse(textwrap.dedent(template))).body


def replace(template: str, **replacements: Replacement) -> list[gast.stmt]:
    """The statements of `template` with its placeholders replaced."""
    return _Copier(replacements).stmts(_parse(template))


def replace_as_expression(template: str, **replacements: Replacement) -> gast.expr:
    """Like `replace`, for a template that is a single expression."""
    stmts = replace(template, **replacements)
    if len(stmts) != 1 or not isinstance(stmts[0], gast.Expr):
        raise ValueError(f"template is not a single expression: {template!r}")
    return stmts[0].value


def operator(attr: str) -> gast.Attribute:
    """A fresh `ag__.<attr>` expression (the operator namespace's member), built directly."""
    return gast.Attribute(value=gast.Name(id="ag__", ctx=gast.Load(), annotation=None,
                                          type_comment=None), attr=attr, ctx=gast.Load())


def name(identifier: str, ctx: type = gast.Load) -> gast.Name:
    """A fresh Name node."""
    return gast.Name(id=identifier, ctx=ctx(), annotation=None, type_comment=None)


class _Copier:
    def __init__(self, replacements: dict[str, Replacement]):
        self.replacements = replacements
        self.used: set[str] = set()

    def stmts(self, nodes: list[gast.stmt]) -> list[gast.stmt]:
        out: list[gast.stmt] = []
        for node in nodes:
            if (isinstance(node, gast.Expr) and isinstance(node.value, gast.Name)
                    and isinstance(self.replacements.get(node.value.id), list)):
                out.extend(self._take(node.value.id))
            else:
                out.append(self.copy(node))
        return out

    def _take(self, key: str) -> Any:
        value = self.replacements[key]
        if key in self.used:
            value = copy_tree(value)
        self.used.add(key)
        return value

    def copy(self, node: Any) -> Any:
        if isinstance(node, list):
            if node and isinstance(node[0], gast.stmt):
                return self.stmts(node)
            return [self.copy(n) for n in node]
        if not isinstance(node, gast.AST):
            return node
        if isinstance(node, gast.Name) and node.id in self.replacements:
            return self._name(node)
        fields = {f: self.copy(getattr(node, f, None)) for f in node._fields}
        if isinstance(node, (gast.FunctionDef, gast.ClassDef)) and node.name in self.replacements:
            fields["name"] = self.replacements[node.name]
        elif isinstance(node, gast.keyword) and node.arg in self.replacements:
            fields["arg"] = self.replacements[node.arg]
        elif isinstance(node, (gast.Nonlocal, gast.Global)):
            fields["names"] = [self.replacements.get(n, n) for n in node.names]
        return type(node)(**fields)

    def _name(self, node: gast.Name) -> gast.AST:
        value = self._take(node.id)
        if isinstance(value, str):
            return gast.Name(id=value, ctx=type(node.ctx)(), annotation=None, type_comment=None)
        if isinstance(value, gast.AST):
            if hasattr(value, "ctx") and not isinstance(node.ctx, gast.Load):
                set_context(value, type(node.ctx))
            return value
        raise TypeError(f"cannot use {value!r} for placeholder {node.id!r}")


def set_context(node: gast.AST, ctx: type) -> None:
    """Sets the load/store context of a target expression (recursing into tuples)."""
    if isinstance(node, (gast.Tuple, gast.List)):
        for elt in node.elts:
            set_context(elt, ctx)
    elif isinstance(node, gast.Starred):
        set_context(node.value, ctx)
    if hasattr(node, "ctx"):
        node.ctx = ctx()


def copy_tree(node: Any) -> Any:
    """A deep copy of a node (or list of nodes), keeping positions and annotations."""
    if isinstance(node, list):
        return [copy_tree(n) for n in node]
    if not isinstance(node, gast.AST):
        return node
    new = type(node)(**{f: copy_tree(getattr(node, f, None)) for f in node._fields})
    for attr in node._attributes:
        if hasattr(node, attr):
            setattr(new, attr, getattr(node, attr))
    anno.copy_annotations(node, new)
    return new
