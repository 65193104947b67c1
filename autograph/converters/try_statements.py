"""The body of a `try` with `except` clauses runs under `ag__.catching(<their types>)`, so
that staging a `raise` the clauses would catch is refused (see operators/staged_raise.py):

    try:                               try:
        y = f(x)                           with ag__.catching(ValueError):
    except ValueError:        ->               y = f(x)
        y = 0                          except ValueError:
                                           y = 0
"""

from __future__ import annotations

import gast

from ..pyct import origin, templates, transformer
from ..pyct.transformer import Context


def _caught_types(handler: gast.ExceptHandler) -> list:
    if handler.type is None:
        return [gast.Constant(value=None, kind=None)]
    if isinstance(handler.type, gast.Tuple):
        return [templates.copy_tree(t) for t in handler.type.elts]
    return [templates.copy_tree(handler.type)]


class Handler(transformer.Handler):
    """Wraps the body of each `try` that has `except` clauses (after its parts are converted)."""

    def leave_Try(self, node: gast.Try):
        if not node.handlers:
            return node
        types = [t for h in node.handlers for t in _caught_types(h)]
        call = gast.Call(func=templates.operator("catching"), args=types,
                         keywords=[])
        wrapper = gast.With(items=[gast.withitem(context_expr=call, optional_vars=None)],
                            body=node.body, type_comment=None)
        origin.copy_location(wrapper, node.body[0])
        node.body = [wrapper]
        return node


def transform(node, ctx: Context):
    return transformer.run_handlers(node, ctx, Handler)
