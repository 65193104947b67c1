"""Gradient rules of math ops that sum a gradient over broadcast axes or build zeros with the
gradient helpers (runtime.ops.gradient_ops, which sits above runtime.ops.math_ops); math_ops keeps
the rules that need only its own ops. Imported by runtime.ops after every op module.
"""

from __future__ import annotations

from . import array_ops as _array
from . import gradient_ops
from .math_ops import (
    ADD,
    DIV,
    MAXIMUM,
    MINIMUM,
    MOD,
    MUL,
    POW,
    SIGN,
    SUB,
    divide,
    floordiv,
    greater,
    greater_equal,
    less_equal,
    log,
    multiply,
    negative,
    pow,  # noqa: A004 - the op, not the builtin
    subtract,
)


@ADD.def_grad
def _add_grad(op, g):
    return [_sum_grad(g, op, 0) if op.needs[0] else None,
            _sum_grad(g, op, 1) if op.needs[1] else None]


@SUB.def_grad
def _sub_grad(op, g):
    return [_sum_grad(g, op, 0) if op.needs[0] else None,
            _sum_grad(negative(g), op, 1) if op.needs[1] else None]


@MUL.def_grad
def _mul_grad(op, g):
    x, y = op.inputs
    return [_sum_grad(multiply(g, y), op, 0) if op.needs[0] else None,
            _sum_grad(multiply(x, g), op, 1) if op.needs[1] else None]


@DIV.def_grad
def _div_grad(op, g):
    y = op.inputs[1]
    gx = divide(g, y)
    gy = None
    if op.needs[1]:
        gy = _sum_grad(negative(multiply(gx, op.outputs[0])), op, 1)
    return [_sum_grad(gx, op, 0) if op.needs[0] else None, gy]


@MOD.def_grad
def _floormod_grad(op, g):
    gy = None
    if op.needs[1]:
        x, y = op.inputs
        gy = _sum_grad(negative(multiply(g, floordiv(x, y))), op, 1)
    return [_sum_grad(g, op, 0) if op.needs[0] else None, gy]


@POW.def_grad
def _pow_grad(op, g):
    x, y = op.inputs
    gx = gy = None
    if op.needs[0]:
        gx = _sum_grad(multiply(multiply(g, y), pow(x, subtract(y, 1))), op, 0)
    if op.needs[1]:
        positive = greater(x, 0)
        safe_log = log(_array.where(positive, x, 1))
        gy = _sum_grad(_array.where(positive, multiply(multiply(g, op.outputs[0]), safe_log), 0), op, 1)
    return [gx, gy]


@MAXIMUM.def_grad
def _maximum_grad(op, g):
    x, y = op.inputs
    return _select_grads(op, g, greater_equal(x, y))


@MINIMUM.def_grad
def _minimum_grad(op, g):
    x, y = op.inputs
    return _select_grads(op, g, less_equal(x, y))


@SIGN.def_grad
def _sign_grad(op, g):
    return [gradient_ops.zeros_for(op, 0)]


def _sum_grad(g, op, index):
    return gradient_ops.sum_grad(g, op, index)


def _select_grads(op, g, x_wins):
    return [_sum_grad(_array.where(x_wins, g, 0), op, 0) if op.needs[0] else None,
            _sum_grad(_array.where(x_wins, 0, g), op, 1) if op.needs[1] else None]
