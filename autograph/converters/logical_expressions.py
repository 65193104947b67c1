"""Boolean operators and comparisons that staged values need:

* `a and b` -> `ag__.and_(a, lambda: b)`, `a or b` -> `ag__.or_(a, lambda: b)` (lazy, like
  Python), `not a` -> `ag__.not_(a)`;
* `a < b < c` -> `ag__.and_(a < b, lambda: b < c)` (with `b` evaluated once);
* with the EQUALITY_OPERATORS feature, `a == b` -> `ag__.eq(a, b)`, `!=` -> `ag__.ne`.

Operators that can only see Python bools (`x is None or y is None`) stay as they are.
"""

from __future__ import annotations

import gast

from ..core.options import Feature
from ..pyct import anno, templates, transformer
from ..pyct.static_analysis.python_values import is_python_bool
from ..pyct.transformer import Context


def _lazy(value: gast.expr) -> gast.Lambda:
    lam = gast.Lambda(args=gast.arguments(args=[], posonlyargs=[], vararg=None, kwonlyargs=[],
                                          kw_defaults=[], kwarg=None, defaults=[]), body=value)
    anno.setanno(lam, anno.Key.IMMEDIATE, True)
    return lam


class Handler(transformer.Handler):
    """Rewrites boolean operators and comparisons (after their operands are converted)."""

    def _python(self, node) -> bool:
        return is_python_bool(node, self.ctx.is_builtin)

    def leave_BoolOp(self, node: gast.BoolOp):
        if all(self._python(v) for v in node.values[:-1]):
            return node
        op = "and_" if isinstance(node.op, gast.And) else "or_"
        new = gast.Call(func=templates.operator(op),
                        args=[node.values[0]] + [_lazy(v) for v in node.values[1:]], keywords=[])
        return self.located(new, node)

    def leave_UnaryOp(self, node: gast.UnaryOp):
        if not isinstance(node.op, gast.Not) or self._python(node.operand):
            return node
        return self.located(templates.replace_as_expression("ag__.not_(x)", x=node.operand), node)

    def leave_Compare(self, node: gast.Compare):
        if self._python(node):
            return node
        equality = self.ctx.uses(Feature.EQUALITY_OPERATORS)
        if len(node.ops) == 1:
            return self._single(node.left, node.ops[0], node.comparators[0], equality, node)
        parts = []
        left = node.left
        for i, (op, right) in enumerate(zip(node.ops, node.comparators)):
            last = i == len(node.ops) - 1
            if not last and not isinstance(right, (gast.Name, gast.Constant)):
                temp = self.ctx.namer.unique("cmp")
                right = gast.NamedExpr(target=templates.name(temp, gast.Store), value=right)
                parts.append(self._single(left, op, right, equality, node))
                left = templates.name(temp)
            else:
                parts.append(self._single(left, op, right, equality, node))
                left = templates.copy_tree(right) if isinstance(right, (gast.Name, gast.Constant)) else right
        new = gast.Call(func=templates.operator("and_"),
                        args=[parts[0]] + [_lazy(p) for p in parts[1:]], keywords=[])
        return self.located(new, node)

    def _single(self, left, op, right, equality: bool, src):
        if equality and isinstance(op, (gast.Eq, gast.NotEq)):
            fn = "eq" if isinstance(op, gast.Eq) else "ne"
            return self.located(templates.replace_as_expression(f"ag__.{fn}(a, b)", a=left, b=right), src)
        return self.located(gast.Compare(left=left, ops=[op], comparators=[right]), src)


def transform(node, ctx: Context):
    return transformer.run_handlers(node, ctx, Handler)
