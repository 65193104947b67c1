"""Directives: `ag.experimental.set_loop_options(...)` as the first statement of a loop body
becomes keyword arguments of the loop's operator call; `shape_invariants=[(x, shape)]`
becomes `shape_invariants={'x': shape}`, naming the loop variable."""

from __future__ import annotations

import gast

from ..pyct import anno, qual_names, transformer
from ..pyct.transformer import Context

_OPTIONS = ("parallel_iterations", "swap_memory", "maximum_iterations", "shape_invariants")


class DirectiveError(ValueError):
    """A directive is used in a way autograph does not understand."""


def is_loop_options_call(node: gast.AST) -> bool:
    """Whether a statement is a call of `set_loop_options`."""
    if not (isinstance(node, gast.Expr) and isinstance(node.value, gast.Call)):
        return False
    func = node.value.func
    name = func.attr if isinstance(func, gast.Attribute) else getattr(func, "id", None)
    return name == "set_loop_options"


class Handler(transformer.Handler):
    """Turns a loop's leading `set_loop_options(...)` call into loop options."""

    def _loop(self, node):
        if node.body and is_loop_options_call(node.body[0]):
            call = node.body[0].value
            if call.args:
                raise DirectiveError("set_loop_options takes keyword arguments only "
                                     f"(line {getattr(call, 'lineno', '?')})")
            keywords = []
            for kw in call.keywords:
                if kw.arg not in _OPTIONS:
                    raise DirectiveError(f"set_loop_options got an unknown option {kw.arg!r}")
                if kw.arg in ("parallel_iterations", "swap_memory"):
                    continue    # nothing to do in this runtime
                value = kw.value
                if kw.arg == "shape_invariants":
                    value = _invariants_dict(value)
                keywords.append(gast.keyword(arg=kw.arg, value=value))
            anno.setanno(node, anno.Key.LOOP_OPTIONS, keywords)
            node.body = node.body[1:] or [gast.Pass()]
        return node

    leave_For = leave_While = _loop


def _invariants_dict(value: gast.expr) -> gast.expr:
    if not isinstance(value, (gast.List, gast.Tuple)):
        raise DirectiveError("shape_invariants must be a list of (variable, shape) pairs")
    keys, values = [], []
    for pair in value.elts:
        if not (isinstance(pair, (gast.Tuple, gast.List)) and len(pair.elts) == 2):
            raise DirectiveError("shape_invariants must be a list of (variable, shape) pairs")
        qn = qual_names.from_node(pair.elts[0])
        if qn is None:
            raise DirectiveError("each shape invariant must name a loop variable, as in "
                                 "shape_invariants=[(x, rt.TensorShape([None]))]")
        keys.append(gast.Constant(value=str(qn), kind=None))
        values.append(pair.elts[1])
    return gast.Dict(keys=keys, values=values)


def transform(node, ctx: Context):
    return transformer.run_handlers(node, ctx, Handler)
