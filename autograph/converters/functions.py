"""The converted function itself: its decorators are dropped (they were applied to the
original, which is what is being converted), and zero-argument `super()` becomes explicit,
since the body may end up inside generated helper functions."""

from __future__ import annotations

from typing import Union

import gast

from ..pyct import templates
from ..pyct.transformer import Context, Transformer


class _ExplicitSuper(Transformer):
    def __init__(self, ctx: Context, self_name: str):
        super().__init__(ctx)
        self.self_name = self_name
        self.changed = False

    def visit_FunctionDef(self, node):
        return node   # nested functions: their own super() semantics

    visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef

    def visit_Call(self, node: gast.Call):
        self.generic_visit(node)
        if (isinstance(node.func, gast.Name) and node.func.id == "super" and not node.args
                and not node.keywords):
            node.args = [templates.name("__class__"), templates.name(self.self_name)]
            self.changed = True
        return node


def transform(node: Union[gast.FunctionDef, gast.Lambda], ctx: Context):
    if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef)):
        node.decorator_list = []
        args = node.args.posonlyargs + node.args.args
        if args:
            t = _ExplicitSuper(ctx, args[0].id)
            node.body = t.visit_block(node.body)
            if t.changed:
                ctx.extra["uses_class_cell"] = True
    return node
