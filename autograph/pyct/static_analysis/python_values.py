"""Expressions that always evaluate to plain Python bools, whatever the values involved.

`x is None`, `isinstance(x, int)`, `not hasattr(x, "shape")` can never be staged, so
converters leave the statements they control as plain Python.
"""

from __future__ import annotations

from typing import Callable

import gast

_BOOL_BUILTINS = frozenset({"isinstance", "issubclass", "hasattr", "callable"})


def is_python_bool(node: gast.expr, is_builtin: Callable[[str], bool]) -> bool:
    """Whether `node` always evaluates to a Python bool. `is_builtin(name)` tells whether
    a name refers to the builtin of that name (it is not shadowed)."""
    if isinstance(node, gast.Constant):
        return isinstance(node.value, bool) or node.value is None
    if isinstance(node, gast.Compare):
        return all(isinstance(op, (gast.Is, gast.IsNot)) for op in node.ops)
    if isinstance(node, gast.Call):
        return (isinstance(node.func, gast.Name) and node.func.id in _BOOL_BUILTINS
                and is_builtin(node.func.id))
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.Not):
        return is_python_bool(node.operand, is_builtin)
    if isinstance(node, gast.BoolOp):
        return all(is_python_bool(v, is_builtin) for v in node.values)
    return False
