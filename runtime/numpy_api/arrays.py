"""NumPy's array functions on tensors: shapes, joining, selection, comparison, creation."""

from __future__ import annotations

import builtins

import numpy as np

from .. import dtypes as _dtypes
from ..ops import array_math
from ..ops.core import constant, convert_to_tensor
from ..tensor import Tensor
from . import primitives, promotion
from .arguments import flatten, no_out, refuse
from .registry import implements


def _tensor(a):
    return promotion.as_tensor(a, promotion.result_dtype(a))


def _rank(x) -> int:
    if x.shape.rank is None:
        raise ValueError("This NumPy function needs a tensor of known rank while tracing; give "
                         "the compiled function an input_signature with a known rank.")
    return x.shape.rank


# -- shape ---------------------------------------------------------------------------------

@implements("shape", staged_as="(static shape; rt.shape for unknown dims)")
def shape(a) -> tuple:
    """A tuple of ints; a dimension unknown while tracing is a scalar int32 tensor."""
    x = _tensor(a)
    dims = x.shape.as_tuple()
    if dims is None:
        return array_math.shape(x)
    dynamic = None if None not in dims else array_math.shape(x)
    return tuple(d if d is not None else dynamic[i] for i, d in enumerate(dims))


@implements("ndim", staged_as="(static rank)")
def ndim(a) -> int:
    return _rank(_tensor(a))


@implements("size", staged_as="(static size; rt.size when unknown)")
def size(a, axis=None):
    if axis is not None:
        return shape(a)[axis]
    x = _tensor(a)
    n = x.shape.num_elements()
    return n if n is not None else array_math.size(x)


@implements("reshape", staged_as="rt.reshape")
def reshape(a, shape=None, order="C", *, newshape=None, copy=None):
    if order != "C":
        raise TypeError(f"np.reshape(..., order={order!r}) is not supported on tensors; only "
                        "C order is.")
    shape = newshape if shape is None else shape
    return array_math.reshape(_tensor(a), [shape] if isinstance(shape, int) else shape)


@implements("ravel", staged_as="rt.reshape")
def ravel(a, order="C"):
    return reshape(a, -1, order)


@implements("transpose", "permute_dims", staged_as="rt.transpose")
def transpose(a, axes=None):
    return array_math.transpose(_tensor(a), axes)


@implements("swapaxes", staged_as="rt.transpose")
def swapaxes(a, axis1, axis2):
    x = _tensor(a)
    perm = list(builtins.range(_rank(x)))
    perm[axis1], perm[axis2] = perm[axis2], perm[axis1]
    return array_math.transpose(x, perm)


@implements("moveaxis", staged_as="rt.transpose")
def moveaxis(a, source, destination):
    x = _tensor(a)
    n = _rank(x)
    source = [s % n for s in ((source,) if isinstance(source, int) else source)]
    destination = [d % n for d in ((destination,) if isinstance(destination, int) else destination)]
    perm = [i for i in builtins.range(n) if i not in source]
    for dest, src in sorted(zip(destination, source)):
        perm.insert(dest, src)
    return array_math.transpose(x, perm)


@implements("squeeze", staged_as="rt.squeeze")
def squeeze(a, axis=None):
    x = _tensor(a)
    return array_math.squeeze(x, None if axis is None else [axis] if isinstance(axis, int) else axis)


@implements("expand_dims", staged_as="rt.expand_dims")
def expand_dims(a, axis):
    x = _tensor(a)
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    n = _rank(x) + len(axes)
    for ax in sorted(axis % n for axis in axes):
        x = array_math.expand_dims(x, ax)
    return x


@implements("broadcast_to", staged_as="rt.add (of zeros)")
def broadcast_to(array, shape, subok=False):
    x = _tensor(array)
    return array_math.add(x, array_math.zeros(shape, x.dtype))


@implements("tile", staged_as="rt.tile")
def tile(A, reps):  # noqa: N803 - NumPy's name
    x = _tensor(A)
    reps = (reps,) if isinstance(reps, int) else tuple(reps)
    n = builtins.max(_rank(x), len(reps))
    x = array_math.reshape(x, [1] * (n - _rank(x)) + list(shape(x))) if _rank(x) < n else x
    return array_math.tile(x, [1] * (n - len(reps)) + list(reps))


@implements("flip", staged_as="rt.reverse")
def flip(m, axis=None):
    x = _tensor(m)
    axes = list(builtins.range(_rank(x))) if axis is None else axis
    return array_math.reverse(x, [axes] if isinstance(axes, int) else axes)


@implements("copy", staged_as="rt.identity")
def copy(a, order="K", subok=False):
    return array_math.identity(_tensor(a))


# -- joining and splitting -------------------------------------------------------------------

def _joined(arrays, dtype):
    return promotion.as_tensors(list(arrays), dtype)


@implements("concatenate", "concat", staged_as="rt.concat")
def concatenate(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    no_out("np.concatenate", out)
    tensors = _joined(arrays, dtype)
    if axis is None:
        tensors, axis = [flatten(t) for t in tensors], 0
    return array_math.concat(tensors, axis)


@implements("stack", staged_as="rt.stack")
def stack(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    no_out("np.stack", out)
    return array_math.stack(_joined(arrays, dtype), axis)


@implements("hstack", staged_as="rt.concat")
def hstack(tup, *, dtype=None, casting="same_kind"):
    tensors = [_at_least(t, 1) for t in _joined(tup, dtype)]
    return array_math.concat(tensors, 0 if _rank(tensors[0]) == 1 else 1)


@implements("vstack", staged_as="rt.concat")
def vstack(tup, *, dtype=None, casting="same_kind"):
    return array_math.concat([_at_least(t, 2) for t in _joined(tup, dtype)], 0)


def _at_least(x, rank):
    while _rank(x) < rank:
        x = array_math.expand_dims(x, 0)
    return x


@implements("split", staged_as="rt.split")
def split(ary, indices_or_sections, axis=0):
    x = _tensor(ary)
    if isinstance(indices_or_sections, int):
        return array_math.split(x, indices_or_sections, axis)
    length = shape(x)[axis]
    bounds = [0, *indices_or_sections, length]
    return array_math.split(x, [bounds[i + 1] - bounds[i] for i in builtins.range(len(bounds) - 1)],
                            axis)


@implements("diff", staged_as="rt.subtract of slices")
def diff(a, n=1, axis=-1, prepend=None, append=None):
    refuse("np.diff", prepend=prepend, append=append)
    x = _tensor(a)
    head = (builtins.slice(None),) * (axis % _rank(x))
    for _ in builtins.range(n):
        x = array_math.subtract(x[head + (builtins.slice(1, None),)],
                                x[head + (builtins.slice(None, -1),)])
    return x


# -- selection ---------------------------------------------------------------------------------

@implements("where", staged_as="rt.where")
def where(condition, x=None, y=None):
    """np.where(c, x, y) selects; np.where(c) gives a tuple of int64 index tensors (np.nonzero)."""
    cond = promotion.as_tensor(condition, np.bool_) if not _is_bool(condition) else _tensor(condition)
    if x is None and y is None:
        indices = array_math.where(cond)
        return tuple(indices[:, i] for i in builtins.range(_rank(cond)))
    x, y = promotion.as_tensors([x, y])
    return array_math.where(cond, x, y)


def _is_bool(value) -> bool:
    return promotion.result_dtype(value) == np.bool_


@implements("clip", staged_as="rt.maximum, rt.minimum")
def clip(a, a_min=None, a_max=None, out=None, *, min=None, max=None):  # noqa: A002
    no_out("np.clip", out)
    low = a_min if min is None else min
    high = a_max if max is None else max
    if low is None and high is None:
        raise ValueError("np.clip needs a lower bound, an upper bound, or both.")
    x, *bounds = promotion.as_tensors([a] + [b for b in (low, high) if b is not None])
    if low is not None:
        x = array_math.maximum(x, bounds.pop(0))
    return x if high is None else array_math.minimum(x, bounds.pop(0))


@implements("take", staged_as="rt.gather")
def take(a, indices, axis=None, out=None, mode="raise"):
    no_out("np.take", out)
    if mode != "raise":
        raise TypeError(f"np.take(..., mode={mode!r}) is not supported on tensors.")
    x = _tensor(a)
    if axis is None:
        x, axis = flatten(x), 0
    # NumPy counts a negative index from the end; gather, as TensorFlow's, refuses it
    indices = convert_to_tensor(indices, dtype_hint=_dtypes.int32)
    size = array_math.cast(array_math.shape(x)[axis], indices.dtype)
    indices = array_math.where(array_math.less(indices, 0), array_math.add(indices, size), indices)
    return array_math.gather(x, indices, axis=axis)


# -- comparison ------------------------------------------------------------------------------

@implements("isclose", staged_as="rt.abs, rt.less_equal")
def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    x, y = promotion.as_tensors([a, b], promotion.result_dtype(a, b, 1.0))
    close = array_math.less_equal(array_math.abs(array_math.subtract(x, y)),
                                  array_math.add(atol, array_math.multiply(rtol, array_math.abs(y))))
    finite = array_math.logical_and(primitives.isfinite(x), primitives.isfinite(y))
    close = array_math.where(finite, close, array_math.equal(x, y))
    if equal_nan:
        close = array_math.logical_or(close, array_math.logical_and(primitives.isnan(x),
                                                                    primitives.isnan(y)))
    return close


@implements("allclose", staged_as="np.isclose, rt.reduce_all")
def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """A scalar bool tensor (a Python bool needs its value: use it in `if`, or bool() it eagerly)."""
    return array_math.reduce_all(isclose(a, b, rtol, atol, equal_nan))


@implements("array_equal", staged_as="rt.equal, rt.reduce_all")
def array_equal(a1, a2, equal_nan=False):
    x, y = promotion.as_tensors([a1, a2])
    if x.shape.is_fully_defined() and y.shape.is_fully_defined() and x.shape != y.shape:
        return constant(False)
    same = array_math.equal(x, y)
    if equal_nan and not x.dtype.is_integer and not x.dtype.is_bool:
        same = array_math.logical_or(same, array_math.logical_and(primitives.isnan(x),
                                                                  primitives.isnan(y)))
    return array_math.reduce_all(same)


# -- creation from a tensor ------------------------------------------------------------------

def _like_dtype(x, dtype):
    return x.dtype if dtype is None else _dtypes.from_numpy(promotion.to_numpy_dtype(dtype))


@implements("zeros_like", "empty_like", staged_as="rt.zeros_like")
def zeros_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    refuse("np.zeros_like", shape=shape)
    x = _tensor(a)
    return array_math.zeros_like(x, dtype=_like_dtype(x, dtype))


@implements("ones_like", staged_as="rt.ones_like")
def ones_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    refuse("np.ones_like", shape=shape)
    x = _tensor(a)
    return array_math.ones_like(x, dtype=_like_dtype(x, dtype))


@implements("full_like", staged_as="rt.fill")
def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    refuse("np.full_like", shape=shape)
    x = _tensor(a)
    value = promotion.as_tensor(fill_value, _like_dtype(x, dtype).as_numpy_dtype)
    return array_math.fill(array_math.shape(x), value)


@implements("round", "around", staged_as="rt.round")
def round_(a, decimals=0, out=None):
    no_out("np.round", out)
    x = _tensor(a)
    if decimals == 0:
        return array_math.round(x)
    scale = 10.0 ** decimals
    return array_math.divide(array_math.round(array_math.multiply(x, scale)), scale)


@implements("result_type", staged_as="(dtypes only)")
def result_type(*arrays_and_dtypes) -> np.dtype:
    """The dtype np.* calls on these operands give (tensors strong, other values weak)."""
    keys = [promotion.promotion_key(v) if isinstance(v, Tensor) or not _is_dtype(v) else
            promotion.to_numpy_dtype(v) for v in arrays_and_dtypes]
    return np.result_type(*[k(0) if isinstance(k, type) else k for k in keys])


def _is_dtype(value) -> bool:
    return isinstance(value, (np.dtype, type, str, _dtypes.DType))


@implements("roll", staged_as="rt.concat of slices")
def roll(a, shift, axis=None):
    """Elements shifted along `axis` (the flattened tensor when None), wrapping around."""
    x = _tensor(a)
    if axis is None:
        return reshape(roll(flatten(x), shift, 0), shape(x))
    shifts, axes = ((shift,), (axis,)) if isinstance(axis, int) else (shift, axis)
    for s, ax in zip(shifts, axes):
        n = shape(x)[ax]
        if not isinstance(n, int):
            raise ValueError("np.roll on tensors needs the rolled axis's length known while tracing.")
        head = (builtins.slice(None),) * (ax % _rank(x))
        s = s % n if n else 0
        x = array_math.concat([x[head + (builtins.slice(n - s, None),)],
                               x[head + (builtins.slice(None, n - s),)]], ax)
    return x
