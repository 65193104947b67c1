"""`assert test, message` becomes `ag__.assert_stmt(test, lambda: message)`, which stages
the assertion when `test` is staged. The message stays lazy, as in Python."""

from __future__ import annotations

import sys

import gast

from ..pyct import anno, templates, transformer
from ..pyct.transformer import Context


class Handler(transformer.Handler):
    """Rewrites `assert` statements (before their parts are converted)."""

    def enter_Assert(self, node: gast.Assert):
        if sys.flags.optimize:
            return None     # python -O drops assertions; so does converted code
        if node.msg is None:
            new = templates.replace("ag__.assert_stmt(test)", test=node.test)
        else:
            new = templates.replace("ag__.assert_stmt(test, lambda: msg)", test=node.test, msg=node.msg)
            anno.setanno(new[0].value.args[1], anno.Key.IMMEDIATE, True)
        return self.located(new, node)


def transform(node, ctx: Context):
    return transformer.run_handlers(node, ctx, Handler)
