"""Source positions: generated nodes inherit the original line they come from.

Every node the converters create is given the position of the user's statement or
expression it replaces. Compiled with the user's file name, generated code then reports
the user's own file and line in tracebacks. `SourceMap` maps the lines of the unparsed,
converted source back to those original lines.
"""

from __future__ import annotations

import ast
from typing import Iterable, Union

import gast

from ..records import FrozenRecord
from .ast_conversion import to_ast
from .ast_util import LEAF_TYPES, children_of

_POSITION = ("lineno", "col_offset", "end_lineno", "end_col_offset")


def copy_location(new: Union[gast.AST, Iterable[gast.AST]], src: gast.AST):
    """Gives the nodes under `new` that have no position the position of `src`.

    Nodes that have a position (the user's code inside generated code) are not entered;
    anything still without a position inherits its parent's when compiled."""
    lineno = getattr(src, "lineno", None)
    if lineno is None:
        return new
    values = _header_position(src)
    stack = [new] if isinstance(new, gast.AST) else list(new)
    pop, extend = stack.pop, stack.extend
    positioned = _POSITIONED
    while stack:
        node = pop()
        d = node.__dict__
        tp = type(node)
        has_position = positioned.get(tp)
        if has_position is None:
            has_position = positioned[tp] = "lineno" in tp._attributes
        if has_position:
            if d.get("lineno") is not None:
                continue
            d["lineno"], d["col_offset"], d["end_lineno"], d["end_col_offset"] = values
        if tp not in LEAF_TYPES and (tp is not gast.Name or d.get("annotation") is not None):
            extend(children_of(node))
    return new


_POSITIONED: dict = {}


def _header_position(src: gast.AST) -> tuple:
    """A one-line position for code generated from `src`: its first line (for a compound
    statement, its header: `while i < n`), so that tracebacks show that line."""
    lineno = src.lineno
    col = getattr(src, "col_offset", 0) or 0
    end_lineno = getattr(src, "end_lineno", lineno)
    end_col = getattr(src, "end_col_offset", None)
    if end_lineno == lineno and end_col is not None:
        return lineno, col, lineno, end_col
    header = getattr(src, "test", None) or getattr(src, "iter", None)
    if header is not None and getattr(header, "end_lineno", None) == lineno:
        return lineno, col, lineno, header.end_col_offset
    return lineno, col, lineno, col + 1


class Location(FrozenRecord):
    """A position in the user's source."""

    _fields = ("filename", "lineno")
    filename: str
    lineno: int

    def __str__(self) -> str:
        return f"{self.filename}:{self.lineno}"


class SourceMap:
    """Maps lines of generated source to the original lines they were converted from."""

    def __init__(self, mapping: dict[int, Location]):
        self.mapping = mapping

    def __getitem__(self, generated_line: int) -> Location:
        return self.mapping[generated_line]

    def get(self, generated_line: int, default=None):
        return self.mapping.get(generated_line, default)

    def __len__(self) -> int:
        return len(self.mapping)

    @classmethod
    def build(cls, converted: gast.AST, generated_source: str, filename: str) -> "SourceMap":
        """Pairs the statements of `converted` with those of its unparsed text."""
        original = [n for n in ast.walk(to_ast(converted)) if isinstance(n, ast.stmt)]
        reparsed = [n for n in ast.walk(ast.parse(generated_source)) if isinstance(n, ast.stmt)]
        mapping: dict[int, Location] = {}
        if len(original) == len(reparsed):
            for orig, gen in zip(original, reparsed):
                if getattr(orig, "lineno", None) is not None:
                    for line in range(gen.lineno, _header_end(gen) + 1):
                        mapping.setdefault(line, Location(filename, orig.lineno))
        return cls(mapping)


def _header_end(stmt: ast.stmt) -> int:
    """The last line of a statement that belongs to it and not to a nested body."""
    body = getattr(stmt, "body", None)
    if isinstance(body, list) and body:
        return body[0].lineno - 1
    return stmt.end_lineno or stmt.lineno
