"""Conditional expressions: `a if test else b` becomes
`ag__.if_exp(test, lambda: a, lambda: b)`, staged when `test` is staged."""

from __future__ import annotations

import gast

from ..pyct import anno, templates
from ..pyct.static_analysis.python_values import is_python_bool
from ..pyct.transformer import Context, Transformer


class _IfExp(Transformer):
    def visit_IfExp(self, node: gast.IfExp):
        self.generic_visit(node)
        if is_python_bool(node.test, self.ctx.is_builtin):
            return node
        new = templates.replace_as_expression("ag__.if_exp(test, lambda: body, lambda: orelse)",
                                              test=node.test, body=node.body, orelse=node.orelse)
        for lam in new.args[1:]:
            anno.setanno(lam, "immediate", True)
        return self.located(new, node)


def transform(node, ctx: Context):
    return _IfExp(ctx).visit(node)
