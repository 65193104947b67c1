"""The base class of all converters and the context they share."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import gast

from . import origin
from .naming import Namer
from .parser import SourceInfo


@dataclass
class Context:
    """What converters know about the entity being converted."""

    info: SourceInfo
    namer: Namer
    options: Any = None              # impl.options.ConversionOptions
    namespace: Any = None            # pyct.namespaces.Namespace
    extra: dict = field(default_factory=dict)


class Transformer(gast.NodeTransformer):
    """A NodeTransformer with a conversion context and block-aware helpers."""

    def __init__(self, ctx: Context):
        self.ctx = ctx

    @classmethod
    def transform(cls, node: gast.AST, ctx: Context) -> gast.AST:
        """Runs this converter over `node` and returns the result."""
        return cls(ctx).visit(node)

    def visit_block(self, stmts: list[gast.stmt]) -> list[gast.stmt]:
        """Visits a list of statements; a visit may return None, one node or a list."""
        out: list[gast.stmt] = []
        for stmt in stmts:
            result = self.visit(stmt)
            if result is None:
                continue
            if isinstance(result, list):
                out.extend(result)
            else:
                out.append(result)
        return out

    @staticmethod
    def located(new: Any, src: gast.AST) -> Any:
        """`new` with positions copied from `src` where missing."""
        return origin.copy_location(new, src)


def is_scope(node: gast.AST) -> bool:
    """Whether `node` opens a new variable scope."""
    return isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef,
                             gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp))


def walk_scope(node: gast.AST, include_root: bool = True):
    """Yields the nodes of `node`'s own scope: nested functions, lambdas, classes and
    comprehensions are yielded but not entered."""
    stack = [node]
    first = True
    while stack:
        current = stack.pop()
        if not first or include_root:
            yield current
        if is_scope(current) and not first:
            continue
        first = False
        for f in reversed(current._fields):
            value = getattr(current, f, None)
            if isinstance(value, list):
                stack.extend(v for v in reversed(value) if isinstance(v, gast.AST))
            elif isinstance(value, gast.AST):
                stack.append(value)


