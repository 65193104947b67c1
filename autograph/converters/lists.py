"""List operations that staged loops need to see: `l.append(x)` becomes
`l = ag__.list_append(l, x)` and `y = l.pop()` becomes `l, y = ag__.list_pop(l)`, making
the list a variable the loop carries (as a staged list when the loop is staged). On a list
that is appended to or popped from, `l[i]` becomes `ag__.get_item(l, i)` and `l[i] = x`
becomes `l = ag__.set_item(l, i, x)`, so that a staged index reads and writes it.

Only lists held in local variables are rewritten; rebinding a global or a closure
variable would change what the name means."""

from __future__ import annotations

import copy

import gast

from ..pyct import anno, templates, transformer
from ..pyct.ast_util import SCOPE_TYPES
from ..pyct.static_analysis.activity import scope_activity
from ..pyct.transformer import Context


def _method_call(node, method: str):
    """(list name, call) when `node` is `<name>.<method>(...)` with positional args only."""
    if (isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute)
            and node.func.attr == method and isinstance(node.func.value, gast.Name)
            and not node.keywords and not any(isinstance(a, gast.Starred) for a in node.args)):
        return node.func.value.id, node
    return None, None


# expressions whose parts may not run, or run later: a pop inside them is not hoisted (the
# scopes among expressions, lambdas and comprehensions, run their code later or apart)
_NOT_HOISTED = tuple(t for t in SCOPE_TYPES if issubclass(t, gast.expr)) + (
    gast.IfExp, gast.BoolOp, gast.Await, gast.Yield, gast.YieldFrom)


def _pop_calls(node, found: list) -> None:
    """Appends (parent, field, index, call) for each `<name>.pop(...)` call in `node` that
    runs whenever `node` does."""
    for name, value in gast.iter_fields(node):
        items = value if isinstance(value, list) else [value]
        for i, child in enumerate(items):
            if not isinstance(child, gast.AST) or isinstance(child, _NOT_HOISTED):
                continue
            if _method_call(child, "pop")[0] and len(child.args) <= 1:
                found.append((node, name, i if isinstance(value, list) else None, child))
            _pop_calls(child, found)


#: list methods that change the list in place
_MUTATORS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse"})


def _mutated_names(node) -> list:
    """Names whose in-place list methods `node` calls, in order of appearance."""
    found = []
    for n in gast.walk(node):
        if (isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute)
                and n.func.attr in _MUTATORS and isinstance(n.func.value, gast.Name)
                and n.func.value.id not in found):
            found.append(n.func.value.id)
    return found


def _grown_names(node) -> set:
    """Names whose `append`/`pop` methods `node` calls."""
    return {n.func.value.id for n in gast.walk(node)
            if isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute)
            and n.func.attr in ("append", "pop") and isinstance(n.func.value, gast.Name)}


def _item_key(node) -> bool:
    """Whether a subscript's key is one index (not a slice or a tuple of them)."""
    return not isinstance(node, (gast.Slice, gast.Tuple))


def _pure(node) -> bool:
    """Whether evaluating `node` twice is like evaluating it once: names, constants and
    arithmetic on them."""
    return all(isinstance(n, (gast.Name, gast.Constant, gast.BinOp, gast.UnaryOp, gast.operator,
                              gast.unaryop, gast.expr_context)) for n in gast.walk(node))


def may_apply(ctx: Context) -> bool:
    """False when the function calls no list method this converter rewrites or marks."""
    return ctx.identifiers is None or not ctx.identifiers.isdisjoint(_MUTATORS)


def _uses(node, name: str) -> int:
    return sum(1 for n in gast.walk(node) if isinstance(n, gast.Name) and n.id == name)


class Handler(transformer.Handler):
    """Rewrites `append`/`pop` statements on local lists (before their parts are converted)."""

    def __init__(self, ctx: Context):
        super().__init__(ctx)
        self.locals: list[set[str]] = []
        self.grown: list[set[str]] = []     # per scope: local lists appended to or popped from
        self.depth: list[int] = []      # per scope: the `if`/loop statements around

    def enter_scope(self, node) -> None:
        act = scope_activity(node)
        self.locals.append(act.locals | act.globals)
        self.grown.append(_grown_names(node) & act.locals)
        self.depth.append(0)

    def leave_scope(self, node) -> None:
        self.locals.pop()
        self.grown.pop()
        self.depth.pop()

    def _enter_block(self, node):
        if self.depth:
            self.depth[-1] += 1
        return node

    def _leave_block(self, node):
        if self.depth:
            self.depth[-1] -= 1
        return node

    enter_If = enter_While = enter_For = _enter_block
    leave_If = leave_While = leave_For = _leave_block

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
        return self._hoist_pop(node)

    def _grown_item(self, node) -> bool:
        """Whether `node` is `l[i]` on a local list that is appended to or popped from."""
        return (isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name)
                and bool(self.grown) and node.value.id in self.grown[-1] and _item_key(node.slice))

    def enter_Subscript(self, node: gast.Subscript):
        if isinstance(node.ctx, gast.Load) and self._grown_item(node):
            new = templates.replace_as_expression("ag__.get_item(l, i)", l=node.value.id, i=node.slice)
            return self.located(new, node)
        return node

    def enter_Assign(self, node: gast.Assign):
        if len(node.targets) == 1 and self._grown_item(node.targets[0]):
            target = node.targets[0]
            return self.located(templates.replace("l = ag__.set_item(l, i, x)", l=target.value.id,
                                                  i=target.slice, x=node.value), node)
        name, call = _method_call(node.value, "pop")
        if name and self._is_local(name) and len(call.args) <= 1 and len(node.targets) == 1:
            new = templates.replace("l, target = ag__.list_pop(l)", l=name, target=node.targets[0])
            new[0].value.args.extend(call.args)
            return self.located(new, node)
        return self._hoist_pop(node)

    def enter_AugAssign(self, node: gast.AugAssign):
        target = node.target
        if self._grown_item(target) and _pure(target.slice):
            key = target.slice
            new = templates.replace("l = ag__.set_item(l, i, ag__.get_item(l, j) + x)",
                                    l=target.value.id, i=key, j=copy.deepcopy(key), x=node.value)
            new[0].value.args[2].op = node.op
            return self.located(new, node)
        return self._hoist_pop(node)

    def enter_Return(self, node: gast.Return):
        return self._hoist_pop(node)

    def _hoist_pop(self, node):
        """`s += l.pop()` becomes `l, item = ag__.list_pop(l)` then `s += item`, so that the
        list is a variable loops carry. Only when the statement pops once and mentions the
        list nowhere else (so popping first cannot change what it reads)."""
        found: list = []
        _pop_calls(node, found)
        if len(found) != 1:
            return self._mark_mutated(node)
        parent, field, index, call = found[0]
        name = call.func.value.id
        if not self._is_local(name) or _uses(node, name) != 1:
            return self._mark_mutated(node)
        item = self.ctx.namer.unique(f"{name}_item")
        pop = templates.replace("l, item = ag__.list_pop(l)", l=name, item=item)
        pop[0].value.args.extend(call.args)
        replacement = gast.Name(id=item, ctx=gast.Load(), annotation=None, type_comment=None)
        if index is None:
            setattr(parent, field, replacement)
        else:
            getattr(parent, field)[index] = replacement
        return [*self.located(pop, node), node]

    def _mark_mutated(self, node):
        """Inside an `if` or a loop, `l = l` before a statement that changes a local list in
        place in a way not rewritten above (`l.extend(...)`, a conditional `l.pop()`), so
        that the staged statement carries `l` and sees the change (a clear error when it
        cannot stage it) instead of it happening once while tracing."""
        if not self.depth or not self.depth[-1] or anno.getanno(node, anno.Key.LIST_MARKED, False):
            return node
        names = [n for n in _mutated_names(node) if self._is_local(n)]
        if not names:
            return node
        anno.setanno(node, anno.Key.LIST_MARKED, True)
        marks = [templates.replace("l = l", l=n)[0] for n in names]
        return [*self.located(marks, node), node]


def transform(node, ctx: Context):
    return transformer.run_handlers(node, ctx, Handler)
