"""List operations that staged loops need to see: `l.append(x)` becomes
`l = ag__.list_append(l, x)` and `y = l.pop()` becomes `l, y = ag__.list_pop(l)`, making
the list a variable the loop carries (as a staged list when the loop is staged).

Only lists held in local variables are rewritten; rebinding a global or a closure
variable would change what the name means."""

from __future__ import annotations

import gast

from ..pyct import templates, transformer
from ..pyct.static_analysis.activity import scope_activity
from ..pyct.transformer import Context


def _method_call(node, method: str):
    """(list name, call) when `node` is `<name>.<method>(...)` with positional args only."""
    if (isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute)
            and node.func.attr == method and isinstance(node.func.value, gast.Name)
            and not node.keywords and not any(isinstance(a, gast.Starred) for a in node.args)):
        return node.func.value.id, node
    return None, None


class Handler(transformer.Handler):
    """Rewrites `append`/`pop` statements on local lists (before their parts are converted)."""

    def __init__(self, ctx: Context):
        super().__init__(ctx)
        self.locals: list[set[str]] = []

    def enter_scope(self, node) -> None:
        act = scope_activity(node)
        self.locals.append(act.locals | act.globals)

    def leave_scope(self, node) -> None:
        self.locals.pop()

    def _is_local(self, name: str) -> bool:
        return bool(self.locals) and name in self.locals[-1]

    def enter_Expr(self, node: gast.Expr):
        name, call = _method_call(node.value, "append")
        if name and self._is_local(name) and len(call.args) == 1:
            return self.located(templates.replace("l = ag__.list_append(l, x)", l=name,
                                                  x=call.args[0]), node)
        name, call = _method_call(node.value, "pop")
        if name and self._is_local(name) and len(call.args) <= 1:
            new = templates.replace("l = ag__.list_pop(l)[0]", l=name)
            new[0].value.value.args.extend(call.args)
            return self.located(new, node)
        return node

    def enter_Assign(self, node: gast.Assign):
        name, call = _method_call(node.value, "pop")
        if name and self._is_local(name) and len(call.args) <= 1 and len(node.targets) == 1:
            new = templates.replace("l, target = ag__.list_pop(l)", l=name, target=node.targets[0])
            new[0].value.args.extend(call.args)
            return self.located(new, node)
        return node


def transform(node, ctx: Context):
    return transformer.run_handlers(node, ctx, Handler)
