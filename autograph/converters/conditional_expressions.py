"""Conditional expressions: `a if test else b` becomes
`ag__.if_exp(test, lambda: a, lambda: b)`, staged when `test` is staged."""

from __future__ import annotations

import gast

from ..pyct import anno, templates, transformer
from ..pyct.static_analysis.python_values import is_python_bool
from ..pyct.transformer import Context


class Handler(transformer.Handler):
    """Rewrites conditional expressions (after their parts are converted)."""

    def leave_IfExp(self, node: gast.IfExp):
        if is_python_bool(node.test, self.ctx.is_builtin):
            return node
        new = templates.replace_as_expression("ag__.if_exp(test, lambda: body, lambda: orelse)",
                                              test=node.test, body=node.body, orelse=node.orelse)
        for lam in new.args[1:]:
            anno.setanno(lam, anno.Key.IMMEDIATE, True)
        return self.located(new, node)


def transform(node, ctx: Context):
    return transformer.run_handlers(node, ctx, Handler)
