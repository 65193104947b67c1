"""NumPy reductions on tensors (sum, mean, max, std, argmax, cumsum, ...), NumPy's dtypes."""

from __future__ import annotations

import functools

import numpy as np

from ..ops import array_math
from . import promotion
from .arguments import flatten, no_out, refuse
from .registry import implements


@functools.lru_cache(maxsize=None)
def _numpy_result(np_func, dtype: np.dtype) -> np.dtype:
    """The dtype NumPy's reduction gives for `dtype` (sum of int32 is int64, mean of ints float64)."""
    return np.asarray(np_func(np.ones(1, dtype))).dtype


def _prepare(np_func, a, axis, dtype):
    """`a` as a tensor of the reduction's dtype, and the axis as the runtime takes it."""
    x = promotion.as_tensor(a, promotion.result_dtype(a))
    target = promotion.to_numpy_dtype(dtype) if dtype is not None else _numpy_result(
        np_func, x.dtype.as_numpy_dtype)
    return promotion.cast_to(x, target), (list(axis) if isinstance(axis, tuple) else axis)


def _reduction(np_func, rt_reduce, name):
    def reduce(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
        no_out(name, out)
        refuse(name, initial=initial, where=where)
        x, axis = _prepare(np_func, a, axis, dtype)
        return rt_reduce(x, axis=axis, keepdims=keepdims)
    reduce.__name__ = reduce.__qualname__ = name.removeprefix("np.")
    reduce.__doc__ = f"{name} with NumPy's arguments and result dtype, as {rt_reduce.__name__}."
    return reduce


sum_ = implements("sum", staged_as="rt.reduce_sum")(_reduction(np.sum, array_math.reduce_sum, "np.sum"))
prod = implements("prod", staged_as="rt.reduce_prod")(
    _reduction(np.prod, array_math.reduce_prod, "np.prod"))
max_ = implements("max", "amax", staged_as="rt.reduce_max")(
    _reduction(np.max, array_math.reduce_max, "np.max"))
min_ = implements("min", "amin", staged_as="rt.reduce_min")(
    _reduction(np.min, array_math.reduce_min, "np.min"))


def _truth(a):
    x = promotion.as_tensor(a, promotion.result_dtype(a))
    return x if x.dtype.is_bool else array_math.not_equal(x, 0)


@implements("any", staged_as="rt.reduce_any")
def any_(a, axis=None, out=None, keepdims=False, *, where=None):
    no_out("np.any", out)
    refuse("np.any", where=where)
    return array_math.reduce_any(_truth(a), axis=axis, keepdims=keepdims)


@implements("all", staged_as="rt.reduce_all")
def all_(a, axis=None, out=None, keepdims=False, *, where=None):
    no_out("np.all", out)
    refuse("np.all", where=where)
    return array_math.reduce_all(_truth(a), axis=axis, keepdims=keepdims)


@implements("count_nonzero", staged_as="rt.not_equal, rt.reduce_sum")
def count_nonzero(a, axis=None, *, keepdims=False):
    return array_math.reduce_sum(array_math.cast(_truth(a), np.int64), axis=axis, keepdims=keepdims)


@implements("mean", staged_as="rt.reduce_mean")
def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    no_out("np.mean", out)
    refuse("np.mean", where=where)
    x, axis = _prepare(np.mean, a, axis, dtype)
    return array_math.reduce_mean(x, axis=axis, keepdims=keepdims)


def _count(x, axis):
    """How many elements each result of reducing `x` over `axis` covers (an int or a tensor)."""
    dims = x.shape.as_tuple()
    axes = range(len(dims)) if axis is None else [axis] if isinstance(axis, int) else axis
    known = [dims[a] for a in axes]
    if None not in known:
        return int(np.prod(known, dtype=np.int64))
    full = array_math.size(x, out_type=x.dtype)
    kept = array_math.size(array_math.reduce_sum(x, axis=axis, keepdims=True), out_type=x.dtype)
    return array_math.divide(full, kept)


@implements("var", staged_as="rt.reduce_mean, rt.multiply, rt.reduce_sum")
def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None, mean=None,
        correction=None):
    """Mean squared deviation, divided by n - ddof (NumPy's formula, so gradients come free)."""
    no_out("np.var", out)
    refuse("np.var", where=where, mean=mean)
    ddof = ddof if correction is None else correction
    x, axis = _prepare(np.var, a, axis, dtype)
    deviation = array_math.subtract(x, array_math.reduce_mean(x, axis=axis, keepdims=True))
    total = array_math.reduce_sum(array_math.multiply(deviation, deviation), axis=axis,
                                  keepdims=keepdims)
    count = _count(x, axis)
    return array_math.divide(total, count - ddof if isinstance(count, int) else
                             array_math.subtract(count, ddof))


@implements("std", staged_as="np.var, rt.sqrt")
def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None, mean=None,
        correction=None):
    """The square root of np.var."""
    return array_math.sqrt(var(a, axis, dtype, out, ddof, keepdims, where=where, mean=mean,
                               correction=correction))


@implements("average", staged_as="rt.reduce_sum, rt.divide")
def average(a, axis=None, weights=None, returned=False, *, keepdims=False):
    refuse("np.average", returned=returned or None)
    if weights is None:
        return mean(a, axis=axis, keepdims=keepdims)
    x, w = promotion.as_tensors([a, weights], promotion.result_dtype(a, weights, 1.0))
    if w.shape.rank == 1 and x.shape.rank > 1 and isinstance(axis, int):  # weights along axis
        w = array_math.reshape(w, [-1 if i == axis % x.shape.rank else 1
                                   for i in range(x.shape.rank)])
    total = array_math.reduce_sum(array_math.multiply(x, w), axis=axis, keepdims=keepdims)
    return array_math.divide(total, array_math.reduce_sum(
        array_math.add(array_math.zeros_like(x), w), axis=axis, keepdims=keepdims))


def _arg_extremum(rt_arg, name):
    def arg(a, axis=None, out=None, *, keepdims=False):
        no_out(name, out)
        x = promotion.as_tensor(a, promotion.result_dtype(a))
        if axis is None:
            x, axis = flatten(x), 0
        index = rt_arg(x, axis=axis)
        if keepdims:
            index = array_math.expand_dims(index, axis if axis >= 0 else x.shape.rank + axis)
        return index
    arg.__name__ = arg.__qualname__ = name.removeprefix("np.")
    arg.__doc__ = f"{name}: int64 indices; axis=None indexes the flattened tensor."
    return arg


argmax = implements("argmax", staged_as="rt.argmax")(_arg_extremum(array_math.argmax, "np.argmax"))
argmin = implements("argmin", staged_as="rt.argmin")(_arg_extremum(array_math.argmin, "np.argmin"))


@implements("cumsum", staged_as="rt.cumsum")
def cumsum(a, axis=None, dtype=None, out=None):
    no_out("np.cumsum", out)
    x, axis = _prepare(np.cumsum, a, axis, dtype)
    if axis is None:
        x, axis = flatten(x), 0
    return array_math.cumsum(x, axis=axis)
