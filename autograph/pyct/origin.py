"""Source positions: generated nodes inherit the original line they come from.

Every node the converters create is given the position of the user's statement or
expression it replaces. Compiled with the user's file name, generated code then reports
the user's own file and line in tracebacks. `SourceMap` maps the lines of the unparsed,
converted source back to those original lines.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterable, Union

import gast

_POSITION = ("lineno", "col_offset", "end_lineno", "end_col_offset")


def copy_location(new: Union[gast.AST, Iterable[gast.AST]], src: gast.AST):
    """Gives every node under `new` that has no position the position of `src`."""
    lineno = getattr(src, "lineno", None)
    if lineno is None:
        return new
    values = (lineno, getattr(src, "col_offset", 0), getattr(src, "end_lineno", lineno),
              getattr(src, "end_col_offset", 0))
    roots = [new] if isinstance(new, gast.AST) else list(new)
    stack = roots
    while stack:
        node = stack.pop()
        if "lineno" in node._attributes and getattr(node, "lineno", None) is None:
            node.lineno, node.col_offset, node.end_lineno, node.end_col_offset = values
        for field in node._fields:
            value = getattr(node, field, None)
            if isinstance(value, list):
                stack.extend(v for v in value if isinstance(v, gast.AST))
            elif isinstance(value, gast.AST):
                stack.append(value)
    return new


@dataclass(frozen=True)
class Location:
    """A position in the user's source."""

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
        original = [n for n in ast.walk(gast.gast_to_ast(converted)) if isinstance(n, ast.stmt)]
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
