"""Qualified names: a variable (`x`) or a composite name (`obj.attr`, `d["key"]`, `a.b[0]`).

A composite name is a chain of attribute accesses and constant subscripts ending in a plain
name, its *root*. Static analysis tracks writes to composite names so that, for example,
`self.count += 1` inside a staged loop makes `self.count` a loop variable.
"""

from __future__ import annotations

import ast
from typing import Optional, Union

import gast

Key = Union[str, int, float, bool, None, bytes]


class QN:
    """A hashable qualified name; `str(qn)` is valid Python for it."""

    __slots__ = ("parent", "attr", "key", "_text", "_hash")

    def __init__(self, base: Union[str, "QN"], attr: Optional[str] = None, key: Key = None,
                 subscript: bool = False):
        if isinstance(base, str):
            self.parent, self.attr, self.key = None, base, None
            self._text = base
        elif attr is not None:
            self.parent, self.attr, self.key = base, attr, None
            self._text = f"{base}.{attr}"
        elif subscript:
            self.parent, self.attr, self.key = base, None, (key,)
            self._text = f"{base}[{key!r}]"
        else:
            raise ValueError("a composite QN needs an attribute or a subscript key")
        self._hash = hash(self._text)

    @property
    def is_composite(self) -> bool:
        """Whether this is more than a plain variable name."""
        return self.parent is not None

    @property
    def root(self) -> "QN":
        """The plain variable at the bottom of the chain."""
        qn = self
        while qn.parent is not None:
            qn = qn.parent
        return qn

    def support(self) -> list["QN"]:
        """This name and all its parents, root first."""
        chain = []
        qn: Optional[QN] = self
        while qn is not None:
            chain.append(qn)
            qn = qn.parent
        return chain[::-1]

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"QN({self._text!r})"

    def __eq__(self, other) -> bool:
        return isinstance(other, QN) and other._text == self._text

    def __hash__(self) -> int:
        return self._hash

    def __lt__(self, other: "QN") -> bool:
        return self._text < other._text


def from_node(node: gast.AST) -> Optional[QN]:
    """The qualified name an expression denotes, or None when it is not a name chain."""
    if isinstance(node, gast.Name):
        return QN(node.id)
    if isinstance(node, gast.Attribute):
        base = from_node(node.value)
        return None if base is None else QN(base, attr=node.attr)
    if isinstance(node, gast.Subscript) and isinstance(node.slice, gast.Constant):
        base = from_node(node.value)
        if base is None:
            return None
        return QN(base, key=node.slice.value, subscript=True)
    return None


def from_str(text: str) -> QN:
    """Parses `x`, `a.b`, `d['k']` back into a QN."""
    return _from_ast(ast.parse(text, mode="eval").body)


def _from_ast(node) -> QN:
    if isinstance(node, ast.Name):
        return QN(node.id)
    if isinstance(node, ast.Attribute):
        return QN(_from_ast(node.value), attr=node.attr)
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        return QN(_from_ast(node.value), key=node.slice.value, subscript=True)
    raise ValueError(f"not a qualified name: {ast.unparse(node)}")
