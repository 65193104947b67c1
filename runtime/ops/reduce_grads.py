"""Gradient rules of reductions: they spread a gradient back over the reduced axes with the
gradient helpers (runtime.ops.gradient_ops, which sits above runtime.ops.reduce_ops). Imported
by runtime.ops after every op module.
"""

from __future__ import annotations

from . import array_ops as _array
from . import gradient_ops
from . import math_ops as _math
from .core import apply
from .reduce_ops import MAX, MEAN, MIN, PROD, PROD_OTHERS, SUM, reduce_sum


@SUM.def_grad
def _sum_grad(op, g):
    return [gradient_ops.broadcast_grad(_reduced_grad(op, g), op, 0)]


@MEAN.def_grad
def _mean_grad(op, g):
    x, y = op.forward_inputs[0], op.forward_outputs[0]
    n_in, n_out = x.shape.num_elements(), y.shape.num_elements()
    g = _reduced_grad(op, g)
    if n_in is not None and n_out is not None:
        scaled = _math.divide(g, max(n_in // max(n_out, 1), 1))
        return [gradient_ops.broadcast_grad(scaled, op, 0)]
    full = gradient_ops.broadcast_grad(g, op, 0)
    count = _math.divide(_array.cast(_array.size(op.inputs[0]), x.dtype),
                         _array.cast(_array.size(op.outputs[0]), x.dtype))
    return [_math.divide(full, count)]


@PROD.def_grad
def _prod_grad(op, g):
    others = apply(PROD_OTHERS, [op.inputs[0]], {"axis": op.attrs["axis"]})
    return [_math.multiply(others, _reduced_grad(op, g))]


@PROD_OTHERS.def_grad
def _prod_others_grad(op, g):
    """ProdOthers(x)_i is the product of the other x_j of i's group, so its derivative by x_k
    (k != i) is the product of the x_j with j not i or k: for each i, the ProdOthers of the
    group with x_i replaced by 1. Built from ProdOthers and elementwise ops, the rule is itself
    differentiable (reduce_prod gets derivatives of any order); it holds n x n values a group."""
    x = op.inputs[0]
    rank = x.shape.rank
    if rank is None:
        raise NotImplementedError("The gradient of reduce_prod's gradient needs a known rank.")
    axis = op.attrs["axis"]
    axes = tuple(range(rank)) if axis is None else tuple(a % max(rank, 1) for a in axis)
    rest = tuple(a for a in range(rank) if a not in axes)
    perm = list(rest + axes)
    moved_x, moved_g = _array.transpose(x, perm), _array.transpose(g, perm)
    moved_shape = _array.shape(moved_x)
    flat_shape = _array.concat([moved_shape[:len(rest)], [-1]], 0)
    flat_x = _array.reshape(moved_x, flat_shape)                  # (..., n)
    flat_g = _array.reshape(moved_g, flat_shape)
    n = _array.shape(flat_x)[-1]
    eye = _array.eye(n, dtype=x.dtype)
    rows = _math.add(_math.multiply(_array.expand_dims(flat_x, -2), 1 - eye), eye)  # x_i -> 1
    pairs = apply(PROD_OTHERS, [rows], {"axis": (len(rest) + 1,)})  # [..., i, k]
    weighted = _math.multiply(_math.multiply(_array.expand_dims(flat_g, -1), pairs), 1 - eye)
    grad = _array.reshape(reduce_sum(weighted, axis=-2), moved_shape)
    inverse = [perm.index(a) for a in range(rank)]
    return [_array.transpose(grad, inverse)]


def _reduced_grad(op, g):
    """The output gradient with the reduced axes kept as size-1 dims."""
    return g if op.attrs["keepdims"] else gradient_ops.keepdims_grad(g, op, op.attrs["axis"])


def _extremum_grad(op, g):
    x = op.inputs[0]
    y = op.outputs[0] if op.attrs["keepdims"] else gradient_ops.keepdims_grad(op.outputs[0], op, op.attrs["axis"])
    hits = _array.cast(_math.equal(x, y), x.dtype)
    count = reduce_sum(hits, axis=op.attrs["axis"], keepdims=True)
    return [_math.multiply(_math.divide(hits, count), _reduced_grad(op, g))]


MAX.def_grad(_extremum_grad)
MIN.def_grad(_extremum_grad)
