"""`assert test, message` becomes `ag__.assert_stmt(test, lambda: message)`, which stages
the assertion when `test` is staged. The message stays lazy, as in Python."""

from __future__ import annotations

import sys

import gast

from ..pyct import anno, templates
from ..pyct.transformer import Context, Transformer


class _Asserts(Transformer):
    def visit_Assert(self, node: gast.Assert):
        self.generic_visit(node)
        if sys.flags.optimize:
            return None     # python -O drops assertions; so does converted code
        if node.msg is None:
            new = templates.replace("ag__.assert_stmt(test)", test=node.test)
        else:
            new = templates.replace("ag__.assert_stmt(test, lambda: msg)", test=node.test, msg=node.msg)
            anno.setanno(new[0].value.args[1], "immediate", True)
        return self.located(new, node)


def transform(node, ctx: Context):
    return _Asserts(ctx).visit(node)
