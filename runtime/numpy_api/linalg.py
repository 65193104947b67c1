"""NumPy's products and np.linalg on tensors: dot, matmul, tensordot, einsum, norm, inv, ..."""

from __future__ import annotations

import numpy as np

from ..ops import array_math, linalg
from . import promotion
from .arguments import no_out, refuse
from .registry import implements
from .ufuncs import matmul


@implements("dot", staged_as="rt.matmul / rt.tensordot / rt.multiply")
def dot(a, b, out=None):
    """np.dot: a product for scalars, matmul for vectors and matrices, tensordot beyond."""
    no_out("np.dot", out)
    x, y = promotion.as_tensors([a, b])
    rx, ry = x.shape.rank, y.shape.rank
    if rx == 0 or ry == 0:
        return array_math.multiply(x, y)
    if rx <= 2 and ry <= 2:
        return matmul(x, y)
    return linalg.tensordot(x, y, [[rx - 1], [ry - 2 if ry > 1 else 0]])


@implements("vdot", staged_as="rt.reduce_sum, rt.multiply")
def vdot(a, b):
    x, y = promotion.as_tensors([a, b])
    return array_math.reduce_sum(array_math.multiply(array_math.reshape(x, [-1]),
                                                     array_math.reshape(y, [-1])))


@implements("inner", staged_as="rt.tensordot")
def inner(a, b):
    x, y = promotion.as_tensors([a, b])
    if x.shape.rank == 0 or y.shape.rank == 0:
        return array_math.multiply(x, y)
    return linalg.tensordot(x, y, [[x.shape.rank - 1], [y.shape.rank - 1]])


@implements("outer", staged_as="rt.multiply")
def outer(a, b, out=None):
    no_out("np.outer", out)
    x, y = promotion.as_tensors([a, b])
    return array_math.multiply(array_math.reshape(x, [-1, 1]), array_math.reshape(y, [1, -1]))


@implements("tensordot", staged_as="rt.tensordot")
def tensordot(a, b, axes=2):
    x, y = promotion.as_tensors([a, b])
    return linalg.tensordot(x, y, axes)


@implements("einsum", staged_as="rt.einsum")
def einsum(subscripts, *operands, out=None, dtype=None, order="K", casting="safe",
           optimize=False):
    no_out("np.einsum", out)
    if not isinstance(subscripts, str):
        raise TypeError("np.einsum on tensors needs the subscripts as a string, "
                        "e.g. np.einsum('ij,jk->ik', a, b).")
    return linalg.einsum(subscripts, *promotion.as_tensors(list(operands), dtype))


@implements("trace", staged_as="rt.multiply (by the identity), rt.reduce_sum")
def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    no_out("np.trace", out)
    refuse("np.trace", offset=offset or None)
    x = promotion.as_tensor(a, promotion.result_dtype(a))
    if (axis1, axis2) != (0, 1) or x.shape.rank != 2 or not x.shape.is_fully_defined():
        raise TypeError("np.trace on tensors supports matrices of known shape (axis1=0, "
                        "axis2=1); use np.einsum otherwise.")
    rows, cols = x.shape.as_list()
    return array_math.reduce_sum(array_math.multiply(x, np.eye(rows, cols, dtype=x.dtype.as_numpy_dtype)))


@implements("linalg.norm", staged_as="rt.sqrt, rt.reduce_sum, rt.reduce_max, ...")
def norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002 - NumPy's name
    """Vector norms (ord None, 1, 2, inf, -inf, 0, p) and the Frobenius, 1 and inf matrix norms."""
    t = promotion.as_tensor(x, promotion.result_dtype(x, 1.0))
    magnitude = array_math.abs(t)
    matrix = (axis is None and t.shape.rank == 2 and ord is not None) or (
        isinstance(axis, tuple) and len(axis) == 2)
    if ord is None or ord == "fro" or (ord == 2 and not matrix):
        return array_math.sqrt(array_math.reduce_sum(array_math.multiply(t, t), axis=_axes(axis),
                                                     keepdims=keepdims))
    if matrix:
        return _matrix_norm(magnitude, ord, axis or (0, 1), keepdims)
    if ord == np.inf:
        return array_math.reduce_max(magnitude, axis=axis, keepdims=keepdims)
    if ord == -np.inf:
        return array_math.reduce_min(magnitude, axis=axis, keepdims=keepdims)
    if ord == 0:
        return array_math.reduce_sum(array_math.cast(array_math.not_equal(t, 0), t.dtype), axis=axis,
                                     keepdims=keepdims)
    if ord == 1:
        return array_math.reduce_sum(magnitude, axis=axis, keepdims=keepdims)
    total = array_math.reduce_sum(array_math.pow(magnitude, float(ord)), axis=axis,
                                  keepdims=keepdims)
    return array_math.pow(total, 1.0 / ord)


def _axes(axis):
    return list(axis) if isinstance(axis, tuple) else axis


def _matrix_norm(magnitude, ord, axis, keepdims):  # noqa: A002
    rows, cols = axis
    if ord in (1, -1):
        sums, over = array_math.reduce_sum(magnitude, axis=rows, keepdims=True), cols
    elif ord in (np.inf, -np.inf):
        sums, over = array_math.reduce_sum(magnitude, axis=cols, keepdims=True), rows
    else:
        raise TypeError(f"np.linalg.norm(..., ord={ord!r}) of a matrix needs singular values, "
                        "which no runtime op computes; use ord=None ('fro'), 1 or np.inf.")
    pick = array_math.reduce_max if ord in (1, np.inf) else array_math.reduce_min
    result = pick(sums, axis=[rows, over], keepdims=True)
    return result if keepdims else array_math.squeeze(result, [rows, over])


@implements("linalg.inv", staged_as="rt.linalg.inv")
def inv(a):
    return linalg.inv(promotion.as_tensor(a, promotion.result_dtype(a, 1.0)))


@implements("linalg.det", staged_as="rt.linalg.det")
def det(a):
    return linalg.det(promotion.as_tensor(a, promotion.result_dtype(a, 1.0)))


@implements("linalg.solve", staged_as="rt.linalg.inv, rt.matmul")
def solve(a, b):
    """inv(a) @ b: agrees with np.linalg.solve to rounding, for well-conditioned a."""
    x, y = promotion.as_tensors([a, b], promotion.result_dtype(a, b, 1.0))
    return matmul(linalg.inv(x), y)
