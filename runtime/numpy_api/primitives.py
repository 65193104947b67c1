"""Elementwise primitives that NumPy has and the core op set lacks, with their gradients."""

from __future__ import annotations

import math

import numpy as np

from .. import dtypes as _dtypes
from ..opdef import define
from ..ops import array_math
from ..ops.core import apply
from ..ops.shape_rules import broadcast, same_dtype


def _floating(name, x):
    if not (x.dtype.is_floating or x.dtype.is_complex):
        raise TypeError(f"{name} needs a floating-point tensor, got {x.dtype.name}; cast it "
                        "first with x.astype(np.float64) or rt.cast.")


def _unary(name: str, ufunc: np.ufunc, out_bool: bool = False):
    def infer(x):
        _floating(name, x)
        return x.shape, (_dtypes.bool_ if out_bool else x.dtype)
    op = define(name, infer, ufunc, template=f"np.{ufunc.__name__}({{0}})",
                differentiable=not out_bool)

    def fn(x):
        return apply(op, [x])
    fn.op = op
    fn.__name__ = fn.__qualname__ = ufunc.__name__
    fn.__doc__ = f"np.{ufunc.__name__}, elementwise (op `{name}`)."
    return fn


def _binary(name: str, ufunc: np.ufunc):
    def infer(x, y):
        _floating(name, x)
        return broadcast(x.shape, y.shape, name), same_dtype(name, x, y)
    op = define(name, infer, ufunc, template=f"np.{ufunc.__name__}({{0}}, {{1}})")

    def fn(x, y):
        return apply(op, [x, y])
    fn.op = op
    fn.__name__ = fn.__qualname__ = ufunc.__name__
    fn.__doc__ = f"np.{ufunc.__name__}, elementwise with broadcasting (op `{name}`)."
    return fn


expm1 = _unary("Expm1", np.expm1)
exp2 = _unary("Exp2", np.exp2)
log2 = _unary("Log2", np.log2)
log10 = _unary("Log10", np.log10)
sinh = _unary("Sinh", np.sinh)
cosh = _unary("Cosh", np.cosh)
arcsin = _unary("Asin", np.arcsin)
arccos = _unary("Acos", np.arccos)
arctan = _unary("Atan", np.arctan)
arcsinh = _unary("Asinh", np.arcsinh)
arccosh = _unary("Acosh", np.arccosh)
arctanh = _unary("Atanh", np.arctanh)
trunc = _unary("Trunc", np.trunc)
isnan = _unary("IsNan", np.isnan, out_bool=True)
isinf = _unary("IsInf", np.isinf, out_bool=True)
isfinite = _unary("IsFinite", np.isfinite, out_bool=True)
arctan2 = _binary("Atan2", np.arctan2)
hypot = _binary("Hypot", np.hypot)


# -- gradients: (op, output gradient) -> input gradients, written with runtime ops ------------

def _rule(fn, grad_of_input):
    """Sets the gradient of the unary primitive `fn`: grad_of_input(x, y, output_grad)."""
    fn.op.grad = lambda op, g: [grad_of_input(op.inputs[0], op.outputs[0], g)]


_mul, _div, _sqrt, _square = array_math.multiply, array_math.divide, array_math.sqrt, array_math.square
_rule(expm1, lambda x, y, g: _mul(g, array_math.add(y, 1)))
_rule(exp2, lambda x, y, g: _mul(g, _mul(y, math.log(2.0))))
_rule(log2, lambda x, y, g: _div(g, _mul(x, math.log(2.0))))
_rule(log10, lambda x, y, g: _div(g, _mul(x, math.log(10.0))))
_rule(sinh, lambda x, y, g: _mul(g, cosh(x)))
_rule(cosh, lambda x, y, g: _mul(g, sinh(x)))
_rule(arcsin, lambda x, y, g: _div(g, _sqrt(array_math.subtract(1, _square(x)))))
_rule(arccos, lambda x, y, g: array_math.negative(_div(g, _sqrt(array_math.subtract(1, _square(x))))))
_rule(arctan, lambda x, y, g: _div(g, array_math.add(_square(x), 1)))
_rule(arcsinh, lambda x, y, g: _div(g, _sqrt(array_math.add(_square(x), 1))))
_rule(arccosh, lambda x, y, g: _div(g, _sqrt(array_math.subtract(_square(x), 1))))
_rule(arctanh, lambda x, y, g: _div(g, array_math.subtract(1, _square(x))))
_rule(trunc, lambda x, y, g: None)


def _atan2_grad(op, g):
    y, x = op.inputs
    scale = _div(g, array_math.add(_square(x), _square(y)))
    return [array_math.sum_grad(_mul(scale, x), op, 0) if op.needs[0] else None,
            array_math.sum_grad(array_math.negative(_mul(scale, y)), op, 1) if op.needs[1] else None]


def _hypot_grad(op, g):
    x, y = op.inputs
    scale = _div(g, op.outputs[0])
    return [array_math.sum_grad(_mul(scale, x), op, 0) if op.needs[0] else None,
            array_math.sum_grad(_mul(scale, y), op, 1) if op.needs[1] else None]


arctan2.op.grad = _atan2_grad
hypot.op.grad = _hypot_grad
