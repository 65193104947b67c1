"""The converted function itself: its decorators are dropped (they were applied to the
original, which is what is being converted), and zero-argument `super()` becomes explicit,
since the body may end up inside generated helper functions."""

from __future__ import annotations

from typing import Union

import gast

from ..pyct import templates, transformer
from ..pyct.transformer import Context, iter_nodes

#: ctx.extra key: whether the converted code calls `super()` (so needs a `__class__` cell)
USES_CLASS_CELL = "uses_class_cell"


class Handler(transformer.Handler):
    """Makes zero-argument `super()` explicit in the converted function's own body."""

    def __init__(self, ctx: Context):
        super().__init__(ctx)
        self.depth = 0
        self.self_name = None

    def enter_scope(self, node) -> None:
        if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef)):
            self.depth += 1
            if self.depth == 1:
                args = node.args.posonlyargs + node.args.args
                self.self_name = args[0].id if args else None

    def leave_scope(self, node) -> None:
        if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef)):
            self.depth -= 1

    def leave_Call(self, node: gast.Call):
        if (self.depth == 1 and self.self_name and isinstance(node.func, gast.Name)
                and node.func.id == "super" and not node.args and not node.keywords):
            node.args = [templates.name("__class__"), templates.name(self.self_name)]
            self.ctx.extra[USES_CLASS_CELL] = True
        return node


def private_name(name: str, class_name: str) -> str:
    """Python's mangling of `__name` inside `class class_name`."""
    if not name.startswith("__") or name.endswith("__") or "." in name:
        return name
    stripped = class_name.lstrip("_")
    return f"_{stripped}{name}" if stripped else name


def mangle_private_names(node: gast.AST, class_name: str) -> None:
    """Mangles `__private` identifiers as the compiler does inside a class body: converted
    methods are compiled outside their class, so the converter does it for them."""
    for n in iter_nodes(node):
        tp = type(n)
        if tp is gast.Name:
            n.id = private_name(n.id, class_name)
        elif tp is gast.Attribute:
            n.attr = private_name(n.attr, class_name)
        elif tp is gast.FunctionDef or tp is gast.AsyncFunctionDef or tp is gast.ClassDef:
            if n is not node:
                n.name = private_name(n.name, class_name)
        elif tp is gast.keyword and n.arg:
            n.arg = private_name(n.arg, class_name)
        elif tp is gast.Global or tp is gast.Nonlocal:
            n.names = [private_name(x, class_name) for x in n.names]
        elif tp is gast.alias:
            if n.asname:
                n.asname = private_name(n.asname, class_name)


def class_of(qualname: str):
    """The name of the class a function with this `__qualname__` is defined in, if any."""
    parts = qualname.split(".")
    for i in range(len(parts) - 2, -1, -1):
        if parts[i] != "<locals>" and parts[i + 1] != "<locals>":
            return parts[i]
    return None


def drop_decorators(node: Union[gast.FunctionDef, gast.Lambda]):
    """The converted function is the undecorated original: its decorators go."""
    if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef)):
        node.decorator_list = []
    return node


def transform(node: Union[gast.FunctionDef, gast.Lambda], ctx: Context):
    return transformer.run_handlers(drop_decorators(node), ctx, Handler)
