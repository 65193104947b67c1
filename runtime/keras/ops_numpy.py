"""The NumPy-like functions of `keras.ops` (and `keras.ops.numpy`) that NumPy's own API on
tensors (`rt.experimental.numpy`) does not offer, with Keras 3's signatures and dtypes.

Each is composed of the runtime's ops, so it runs eagerly, on a GradientTape and inside
`rt.function`. Inputs convert as Keras converts them: a tensor or NumPy array keeps its
dtype, Python floats become float32 and Python ints int32; a float result of integer inputs
is float32 (Keras's floatx).
"""

from __future__ import annotations

import functools
import re

import numpy as np

from .. import dtypes as _dtypes
from ..experimental import numpy as _tnp
from ..exports import NAMESPACES as _NS
from ..graph import constant_value as _constant_value
from ..ops import array_math as _am
from ..ops.core import convert_to_tensor as _convert
from ..tensor import Tensor


class _Space:
    """`rt.<space>.<op>` looked up when called (the table is full once `runtime` is loaded)."""

    def __init__(self, space: str):
        self._space = space

    def __getattr__(self, name: str):
        return _NS[self._space][name]


_rt, _math, _linalg, _signal = _Space(""), _Space("math"), _Space("linalg"), _Space("signal")


def _t(x) -> Tensor:
    """`x` as Keras converts it (a tensor stays; Python floats float32, ints int32)."""
    return x if isinstance(x, Tensor) else _convert(x)


def _float(x) -> Tensor:
    """`x` as a tensor of a floating (or complex) dtype: integers and bools become float32."""
    t = _t(x)
    return t if t.dtype.is_floating or t.dtype.is_complex else _am.cast(t, _dtypes.float32)


def _same(x1, x2) -> tuple[Tensor, Tensor]:
    """Both operands in one dtype: NumPy's promotion of their dtypes (a Python number takes
    the other operand's kind when it is of the same kind)."""
    a, b = _t(x1), _t(x2)
    if a.dtype is b.dtype:
        return a, b
    if not isinstance(x2, (Tensor, np.ndarray, np.generic)) and \
            (a.dtype.is_floating or not b.dtype.is_floating):
        return a, _am.cast(b, a.dtype)
    if not isinstance(x1, (Tensor, np.ndarray, np.generic)) and \
            (b.dtype.is_floating or not a.dtype.is_floating):
        return _am.cast(a, b.dtype), b
    target = _dtypes.from_numpy(np.result_type(a.dtype.as_numpy_dtype, b.dtype.as_numpy_dtype))
    return _am.cast(a, target), _am.cast(b, target)


def _rank(x: Tensor, what: str) -> int:
    if x.shape.rank is None:
        raise ValueError(f"keras.ops.{what} needs a tensor of known rank, got shape {x.shape}.")
    return x.shape.rank


def _axes(axis, rank: int) -> list[int]:
    if axis is None:
        return list(range(rank))
    axes = [axis] if np.ndim(axis) == 0 else list(axis)
    return sorted(int(a) % rank if rank else 0 for a in axes)


def _kept_shape(x: Tensor, axes: list[int]) -> Tensor:
    """The shape of `x` with the reduced `axes` as 1 (for keepdims)."""
    dims = _am.shape(x)
    ones = np.zeros(_rank(x, "keepdims"), bool)
    ones[axes] = True
    return _am.where(ones, _am.ones_like(dims), dims)


def _rows(x: Tensor, axis, what: str) -> tuple[Tensor, list[int]]:
    """`x` with the reduced axes moved last and merged into one: [..., n], and the axes."""
    rank = _rank(x, what)
    axes = _axes(axis, rank)
    kept = [a for a in range(rank) if a not in axes]
    moved = _am.transpose(x, kept + axes) if kept + axes != list(range(rank)) else x
    dims = _am.shape(moved)
    lead = _rt.slice(dims, [0], [len(kept)])
    return _am.reshape(moved, _am.concat([lead, [-1]], 0)), axes


def _nan_to(x: Tensor, value) -> Tensor:
    return _am.where(_math.is_nan(x), _am.fill(_am.shape(x), _am.cast(value, x.dtype)), x)


def _maybe_keep(out: Tensor, x: Tensor, axes: list[int], keepdims: bool) -> Tensor:
    return _am.reshape(out, _kept_shape(x, axes)) if keepdims else out


# -- NaN-ignoring reductions -----------------------------------------------------------

def _nan_extreme(x, axis, keepdims, largest: bool):
    t = _t(x)
    if not t.dtype.is_floating:
        reduce = _am.reduce_max if largest else _am.reduce_min
        return reduce(t, axis=axis, keepdims=keepdims)
    fill = -np.inf if largest else np.inf
    reduce = _am.reduce_max if largest else _am.reduce_min
    out = reduce(_nan_to(t, fill), axis=axis, keepdims=keepdims)
    all_nan = _am.reduce_all(_math.is_nan(t), axis=axis, keepdims=keepdims)
    return _am.where(all_nan, _am.fill(_am.shape(out), _am.cast(np.nan, t.dtype)), out)


def nanmax(x, axis=None, keepdims=False):
    """The maximum ignoring NaNs (NaN where a slice is all NaN)."""
    return _nan_extreme(x, axis, keepdims, True)


def nanmin(x, axis=None, keepdims=False):
    """The minimum ignoring NaNs (NaN where a slice is all NaN)."""
    return _nan_extreme(x, axis, keepdims, False)


def _nan_arg(x, axis, keepdims, largest: bool):
    t = _t(x)
    if t.dtype.is_floating:
        t = _nan_to(t, -np.inf if largest else np.inf)
    flat = axis is None
    if flat:
        t = _am.reshape(t, [-1])
    arg = (_am.argmax if largest else _am.argmin)(t, axis=0 if flat else axis,
                                                   output_type=_dtypes.int32)
    if keepdims:
        rank = _rank(_t(x), "nanargmax")
        arg = _am.reshape(arg, [1] * rank) if flat else _am.expand_dims(arg, axis)
    return arg


def nanargmax(x, axis=None, keepdims=False):
    """The int32 index of the maximum ignoring NaNs (of the flattened `x` when axis is None)."""
    return _nan_arg(x, axis, keepdims, True)


def nanargmin(x, axis=None, keepdims=False):
    """The int32 index of the minimum ignoring NaNs (of the flattened `x` when axis is None)."""
    return _nan_arg(x, axis, keepdims, False)


def _nan_moments(x, axis, keepdims):
    t = _float(x)
    valid = _am.logical_not(_math.is_nan(t))
    clean = _nan_to(t, 0.0)
    count = _am.reduce_sum(_am.cast(valid, t.dtype), axis=axis, keepdims=True)
    mean = _am.divide(_am.reduce_sum(clean, axis=axis, keepdims=True), count)
    dev = _am.where(valid, _am.subtract(t, mean), _am.zeros_like(t))
    var = _am.divide(_am.reduce_sum(_am.square(dev), axis=axis, keepdims=keepdims),
                     count if keepdims else _am.reduce_sum(
                         _am.cast(valid, t.dtype), axis=axis, keepdims=False))
    return var


def nanvar(x, axis=None, keepdims=False):
    """The variance of the elements that are not NaN."""
    return _nan_moments(x, axis, keepdims)


def nanstd(x, axis=None, keepdims=False):
    """The standard deviation of the elements that are not NaN."""
    return _am.sqrt(_nan_moments(x, axis, keepdims))


def _nan_cumulative(x, axis, dtype, fill, op):
    t = _t(x)
    if dtype is not None:
        t = _am.cast(t, dtype)
    if t.dtype.is_floating:
        t = _nan_to(t, fill)
    if axis is None:
        t, axis = _am.reshape(t, [-1]), 0
    return op(t, axis=axis)


def nancumsum(x, axis=None, dtype=None):
    """Cumulative sums with NaNs counted as 0 (of the flattened `x` when axis is None)."""
    return _nan_cumulative(x, axis, dtype, 0.0, _am.cumsum)


def nancumprod(x, axis=None, dtype=None):
    """Cumulative products with NaNs counted as 1 (of the flattened `x` when axis is None)."""
    return _nan_cumulative(x, axis, dtype, 1.0, _math.cumprod)


# -- quantiles ---------------------------------------------------------------------------

_METHODS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(x, q, axis, method, keepdims, skip_nan: bool, what: str, scale: float = 1.0):
    if method not in _METHODS:
        raise ValueError(f"keras.ops.{what}(method={method!r}): expected one of "
                         f"{', '.join(_METHODS)}.")
    t = _float(x)
    qs = _am.cast(q, t.dtype) if isinstance(q, Tensor) else _convert(np.asarray(
        q, t.dtype.as_numpy_dtype))
    if scale != 1.0:
        qs = _am.divide(qs, _am.cast(scale, t.dtype))
    rows, axes = _rows(t, axis, what)
    nan = _math.is_nan(rows)
    ordered = _rt.sort(_nan_to(rows, np.inf) if skip_nan else rows, axis=-1)
    counted = _am.logical_not(nan) if skip_nan else _am.ones_like(nan)
    count = _am.reduce_sum(_am.cast(counted, t.dtype), axis=-1, keepdims=True)  # [..., 1]
    flat_q = _am.reshape(qs, [-1])                              # [Q]
    pos = _am.multiply(flat_q, _am.subtract(count, 1.0))         # [..., Q]
    pos = _am.maximum(pos, _am.zeros_like(pos))
    lo_f, hi_f = _am.floor(pos), _am.ceil(pos)
    if method == "nearest":
        lo_f = hi_f = _am.round(pos)
    lo = _am.cast(lo_f, _dtypes.int32)
    hi = _am.cast(hi_f, _dtypes.int32)
    batch = _rank(rows, what) - 1
    lo_v = _rt.gather(ordered, lo, axis=-1, batch_dims=batch)
    hi_v = _rt.gather(ordered, hi, axis=-1, batch_dims=batch)
    if method == "lower":
        out = lo_v
    elif method == "higher":
        out = hi_v
    elif method == "midpoint":
        out = _am.multiply(_am.add(lo_v, hi_v), 0.5)
    elif method == "nearest":
        out = lo_v
    else:
        frac = _am.subtract(pos, lo_f)
        out = _am.add(lo_v, _am.multiply(_am.subtract(hi_v, lo_v), frac))
    if skip_nan:
        empty = _am.equal(count, _am.zeros_like(count))
        out = _am.where(_am.logical_or(empty, _am.zeros_like(out, dtype=_dtypes.bool_)),
                        _am.fill(_am.shape(out), _am.cast(np.nan, out.dtype)), out)
    else:
        any_nan = _am.reduce_any(nan, axis=-1, keepdims=True)
        out = _am.where(_am.logical_or(any_nan, _am.zeros_like(out, dtype=_dtypes.bool_)),
                        _am.fill(_am.shape(out), _am.cast(np.nan, out.dtype)), out)
    # [..., Q] -> q's shape + the kept shape
    rank = _rank(out, what)
    out = _am.transpose(out, [rank - 1] + list(range(rank - 1)))
    kept = _kept_shape(t, axes) if keepdims else _am.shape(out)[1:]
    return _am.reshape(out, _am.concat([_am.shape(qs), kept], 0))


def quantile(x, q, axis=None, method="linear", keepdims=False):
    """The `q`-th quantiles (q in [0, 1]) along `axis`, as NumPy's (shape: q's + the rest)."""
    return _quantile(x, q, axis, method, keepdims, False, "quantile")


def percentile(x, q, axis=None, method="linear", keepdims=False):
    """The `q`-th percentiles (q in [0, 100]) along `axis`, as NumPy's."""
    return _quantile(x, q, axis, method, keepdims, False, "percentile", 100.0)


def nanquantile(x, q, axis=None, method="linear", keepdims=False):
    """`quantile` of the elements that are not NaN."""
    return _quantile(x, q, axis, method, keepdims, True, "nanquantile")


def nanpercentile(x, q, axis=None, method="linear", keepdims=False):
    """`percentile` of the elements that are not NaN."""
    return _quantile(x, q, axis, method, keepdims, True, "nanpercentile", 100.0)


def median(x, axis=None, keepdims=False):
    """The median along `axis` (of all elements when None)."""
    return _quantile(x, 0.5, axis, "linear", keepdims, False, "median")


def nanmedian(x, axis=None, keepdims=False):
    """The median of the elements that are not NaN."""
    return _quantile(x, 0.5, axis, "linear", keepdims, True, "nanmedian")


# -- elementwise -----------------------------------------------------------------------------

def nan_to_num(x, nan=0.0, posinf=None, neginf=None):
    """`x` with NaN replaced by `nan` and infinities by `posinf` / `neginf` (the dtype's
    largest and smallest finite values by default)."""
    t = _t(x)
    if not t.dtype.is_floating:
        return t
    info = np.finfo(t.dtype.as_numpy_dtype)
    big = info.max if posinf is None else posinf
    small = info.min if neginf is None else neginf

    def fill(value):
        return _am.fill(_am.shape(t), _am.cast(value, t.dtype))
    t = _am.where(_math.is_nan(t), fill(nan), t)
    t = _am.where(_am.logical_and(_math.is_inf(t), _am.greater(t, _am.zeros_like(t))), fill(big), t)
    return _am.where(_math.is_inf(t), fill(small), t)


def fmod(x1, x2):
    """The remainder of division, with the sign of the dividend (C's fmod)."""
    a, b = _same(x1, x2)
    return _math.truncatemod(a, b)


def _nan_pick(x1, x2, pick):
    a, b = _same(x1, x2)
    if not a.dtype.is_floating:
        return pick(a, b)
    both = pick(a, b)
    return _am.where(_math.is_nan(a), b, _am.where(_math.is_nan(b), a, both))


def fmax(x1, x2):
    """The elementwise maximum, ignoring a NaN when the other element is a number."""
    return _nan_pick(x1, x2, _am.maximum)


def fmin(x1, x2):
    """The elementwise minimum, ignoring a NaN when the other element is a number."""
    return _nan_pick(x1, x2, _am.minimum)


def _integers(x1, x2, what: str):
    a, b = _same(x1, x2)
    if a.dtype.is_floating or a.dtype.is_complex or a.dtype is _dtypes.bool_:
        raise TypeError(f"keras.ops.{what} takes integer tensors, got {a.dtype.name}.")
    return a, b


def gcd(x1, x2):
    """The elementwise greatest common divisor of integers (non-negative)."""
    a, b = _integers(x1, x2, "gcd")
    a, b = _am.abs(a), _am.abs(b)
    a, b = _am.add(a, _am.zeros_like(b)), _am.add(b, _am.zeros_like(a))   # broadcast

    def step(u, v):
        nonzero = _am.not_equal(v, _am.zeros_like(v))
        safe = _am.where(nonzero, v, _am.ones_like(v))
        return [_am.where(nonzero, v, u), _am.where(nonzero, _math.floormod(u, safe), v)]
    out, _ = _rt.while_loop(lambda u, v: _am.reduce_any(_am.not_equal(v, _am.zeros_like(v))),
                            step, [a, b])
    return out


def lcm(x1, x2):
    """The elementwise least common multiple of integers (non-negative; 0 with a 0)."""
    a, b = _integers(x1, x2, "lcm")
    divisor = gcd(a, b)
    zero = _am.equal(divisor, _am.zeros_like(divisor))
    safe = _am.where(zero, _am.ones_like(divisor), divisor)
    return _am.abs(_am.multiply(_am.floordiv(a, safe), b))


def ldexp(x1, x2):
    """`x1 * 2 ** x2` (x2 integer)."""
    mantissa, exponent = _float(x1), _t(x2)
    if exponent.dtype.is_floating or exponent.dtype.is_complex:
        raise TypeError(f"keras.ops.ldexp: x2 must be integers, got {exponent.dtype.name}.")
    return _am.multiply(mantissa, _am.pow(_am.cast(2.0, mantissa.dtype),
                                          _am.cast(exponent, mantissa.dtype)))


def i0(x):
    """The modified Bessel function of the first kind, order 0."""
    return _math.bessel_i0(_float(x))


def divide_no_nan(x1, x2):
    """`x1 / x2`, 0 where `x2` is 0."""
    a, b = _same(_float(x1), _float(x2))
    return _math.divide_no_nan(a, b)


def digitize(x, bins):
    """The int32 index of the bin each value falls in: `bins[i-1] <= x < bins[i]`."""
    edges = _t(bins)
    values = _am.cast(_t(x), edges.dtype)
    flat = _am.reshape(values, [-1])
    out = _rt.searchsorted(edges, flat, side="right", out_type=_dtypes.int32)
    return _am.reshape(out, _am.shape(values))


def isin(x1, x2, assume_unique=False, invert=False):
    """Whether each element of `x1` is among the elements of `x2`."""
    a, b = _same(x1, x2)
    found = _am.reduce_any(_am.equal(_am.expand_dims(a, -1), _am.reshape(b, [-1])), axis=-1)
    return _am.logical_not(found) if invert else found


def searchsorted(sorted_sequence, values, side="left"):
    """The int32 positions at which to insert `values` in the 1-D `sorted_sequence`."""
    if side not in ("left", "right"):
        raise ValueError(f"keras.ops.searchsorted(side={side!r}): expected 'left' or 'right'.")
    seq, vals = _same(sorted_sequence, values)
    if seq.shape.rank != 1:
        raise ValueError(f"keras.ops.searchsorted: sorted_sequence must be 1-D, got shape "
                         f"{seq.shape}.")
    out = _rt.searchsorted(seq, _am.reshape(vals, [-1]), side=side, out_type=_dtypes.int32)
    return _am.reshape(out, _am.shape(vals))


def trapezoid(y, x=None, dx=1.0, axis=-1):
    """The integral of `y` along `axis` by the trapezoidal rule (samples at `x`, or `dx` apart)."""
    ys = _float(y)
    rank = _rank(ys, "trapezoid")
    axis = int(axis) % rank
    n = _am.shape(ys)[axis]
    head = _rt.gather(ys, _rt.range(1, n), axis=axis)
    tail = _rt.gather(ys, _rt.range(0, n - 1), axis=axis)
    mids = _am.multiply(_am.add(head, tail), 0.5)
    if x is None:
        return _am.multiply(_am.reduce_sum(mids, axis=axis), _am.cast(dx, ys.dtype))
    xs = _am.cast(_t(x), ys.dtype)
    if xs.shape.rank == 1:
        steps = _am.subtract(xs[1:], xs[:-1])
        shape = [1] * rank
        shape[axis] = -1
        steps = _am.reshape(steps, shape)
    else:
        m = _am.shape(xs)[axis]
        steps = _am.subtract(_rt.gather(xs, _rt.range(1, m), axis=axis),
                             _rt.gather(xs, _rt.range(0, m - 1), axis=axis))
    return _am.reduce_sum(_am.multiply(mids, steps), axis=axis)


def corrcoef(x):
    """Pearson correlation coefficients of the rows of `x` (each row a variable)."""
    t = _float(x)
    if t.shape.rank == 1:
        t = _am.expand_dims(t, 0)
    centred = _am.subtract(t, _am.reduce_mean(t, axis=1, keepdims=True))
    cov = _rt.matmul(centred, centred, transpose_b=True)
    scale = _am.sqrt(_linalg.diag_part(cov))
    out = _am.divide(cov, _am.multiply(_am.expand_dims(scale, 1), _am.expand_dims(scale, 0)))
    return _am.clip_by_value(out, -1.0, 1.0) if not out.dtype.is_complex else out


def correlate(x1, x2, mode="valid"):
    """The cross-correlation of two 1-D sequences (`mode` "valid", "same" or "full"), as
    NumPy's `correlate`."""
    if mode not in ("valid", "same", "full"):
        raise ValueError(f"keras.ops.correlate(mode={mode!r}): expected 'valid', 'same' or "
                         "'full'.")
    a, v = _same(_float(x1), _float(x2))
    if a.shape.rank != 1 or v.shape.rank != 1 or None in (a.shape[0], v.shape[0]):
        raise ValueError(f"keras.ops.correlate takes two 1-D sequences of known length, got "
                         f"shapes {a.shape} and {v.shape}.")
    m, n = int(a.shape[0]), int(v.shape[0])
    if m < n:
        return _am.reverse(correlate(v, a, mode), [0])
    if mode == "valid":
        left = right = 0
    elif mode == "full":
        left = right = n - 1
    else:
        left = n // 2
        right = n - 1 - left
    padded = _rt.pad(a, [[left, right]])
    frames = _signal.frame(padded, n, 1)
    return _am.reshape(_rt.matmul(frames, _am.reshape(_math.conj(v) if v.dtype.is_complex
                                                        else v, [n, 1])), [-1])


def histogram(x, bins=10, range=None):  # noqa: A002 - Keras's name
    """The counts of `x`'s values in `bins` equal bins over `range` (its min and max by
    default) and the bin edges, as NumPy's `histogram` (the last bin includes its right edge;
    values outside `range` are not counted)."""
    t = _float(x)
    flat = _am.reshape(t, [-1])
    if range is None:
        lo, hi = _am.reduce_min(flat), _am.reduce_max(flat)
    else:
        lo, hi = (_am.cast(v, t.dtype) for v in range)
    bins = int(bins)
    width = _am.subtract(hi, lo)
    width = _am.where(_am.equal(width, 0.0), _am.ones_like(width), width)
    index = _am.cast(_am.floor(_am.multiply(_am.divide(_am.subtract(flat, lo), width), bins)),
                     _dtypes.int32)
    index = _am.where(_am.equal(flat, hi), _am.fill(_am.shape(index), bins - 1), index)
    inside = _am.logical_and(_am.greater_equal(flat, lo), _am.less_equal(flat, hi))
    index = _am.where(inside, index, _am.zeros_like(index))
    counts = _math.unsorted_segment_sum(_am.cast(inside, _dtypes.int32), index, bins)
    edges = _am.add(lo, _am.multiply(_am.divide(_am.cast(_rt.range(bins + 1), t.dtype), bins),
                                     _am.subtract(hi, lo)))
    return counts, edges


def argpartition(x, kth, axis=-1):
    """int32 indices that partition `x` along `axis` around its `kth` element (these are
    the indices of a stable sort, which is one such partition)."""
    return _am.cast(_rt.argsort(_t(x), axis=axis, stable=True), _dtypes.int32)


def array_split(x, indices_or_sections, axis=0):
    """`x` split along `axis` into `indices_or_sections` nearly equal parts (the first ones
    one longer when the length does not divide), or at the given indices."""
    t = _t(x)
    rank = _rank(t, "array_split")
    axis = int(axis) % rank
    length = t.shape[axis]
    if length is None:
        raise ValueError("keras.ops.array_split needs the length of the split axis to be known.")
    if np.ndim(indices_or_sections) == 0:
        sections = int(indices_or_sections)
        if sections <= 0:
            raise ValueError(f"keras.ops.array_split: indices_or_sections must be positive, "
                             f"got {sections}.")
        each, extra = divmod(length, sections)
        sizes = [each + 1] * extra + [each] * (sections - extra)
    else:
        cuts = [0] + [min(max(int(i), 0), length) for i in indices_or_sections] + [length]
        sizes = [max(b - a, 0) for a, b in zip(cuts, cuts[1:])]
    return _rt.split(t, sizes, axis=axis)


def bincount(x, weights=None, minlength=0, sparse=False):
    """Counts of each non-negative integer in `x` (summed `weights` when given)."""
    if sparse:
        raise ValueError("keras.ops.bincount(sparse=True): sparse outputs are not offered; "
                         "use sparse=False.")
    t = _t(x)
    w = None if weights is None else _t(weights)
    dtype = _dtypes.int32 if w is None else w.dtype
    if t.shape.rank == 2:  # a batch of samples: counts for each
        depth = _am.maximum(_am.add(_am.reduce_max(t), 1), minlength)
        hot = _rt.one_hot(t, depth, dtype=dtype if w is None else w.dtype)
        if w is not None:
            hot = _am.multiply(hot, _am.expand_dims(w, -1))
        return _am.reduce_sum(hot, axis=1)
    return _math.bincount(t, weights=w, minlength=minlength, dtype=dtype)


def unique(x, sorted=True, return_index=False, return_inverse=False,  # noqa: A002
           return_counts=False, axis=None, size=None, fill_value=None):
    """The sorted unique elements of the flattened `x`, and on request the index of each
    one's first occurrence, the index of each element in the result, and the counts; `size`
    pads (with `fill_value`, the smallest element by default) or cuts the results to that
    length."""
    if axis is not None:
        raise ValueError("keras.ops.unique(axis=...): only the flattened form (axis=None) is "
                         "offered.")
    flat = _am.reshape(_t(x), [-1])
    order = _rt.argsort(flat, stable=True)
    ordered = _rt.gather(flat, order)
    first = _am.concat([[True], _am.not_equal(ordered[1:], ordered[:-1])], 0)
    values = _rt.boolean_mask(ordered, first)
    group = _am.subtract(_am.cumsum(_am.cast(first, _dtypes.int32)), 1)
    fills = {}                        # what `size` pads each per-unique result with
    results = {"values": values}
    fills["values"] = _am.reduce_min(flat) if fill_value is None else fill_value
    if return_index:
        results["index"] = _am.cast(_rt.boolean_mask(order, first), _dtypes.int32)
        fills["index"] = 0
    if return_inverse:
        results["inverse"] = _rt.scatter_nd(
            _am.expand_dims(_am.cast(order, _dtypes.int32), 1), group, _am.shape(flat))
    if return_counts:
        results["counts"] = _math.unsorted_segment_sum(_am.ones_like(group), group,
                                                       _am.shape(values)[0])
        fills["counts"] = 0
    if size is not None:
        for key, pad in fills.items():
            cut = results[key][:size]
            missing = _am.maximum(size - _am.shape(cut)[0], 0)
            results[key] = _am.concat([cut, _am.fill([missing], _am.cast(pad, cut.dtype))], 0)
    results = list(results.values())
    return results[0] if len(results) == 1 else tuple(results)


def unravel_index(indices, shape):
    """The coordinates in an array of `shape` of each flat index, one tensor an axis."""
    flat = _t(indices)
    dims = [int(d) for d in shape]
    coords = []
    for stride in reversed(range(len(dims))):
        coords.append(_math.floormod(flat, _am.cast(dims[stride], flat.dtype)))
        flat = _am.floordiv(flat, _am.cast(dims[stride], flat.dtype))
    return tuple(reversed(coords))


def get_item(x, key):
    """`x[key]`."""
    return _t(x)[key]


def _window_length(x, name: str) -> int:
    value = _constant_value(x) if isinstance(x, Tensor) else x
    if value is None:
        raise ValueError(f"keras.ops.{name} needs a window length known while tracing.")
    return int(value)


def _window(name: str, make):
    def window(x):
        return _convert(make(_window_length(x, name)).astype(np.float32))
    window.__name__ = window.__qualname__ = name
    window.__doc__ = f"NumPy's {name} window of length `x`, as float32."
    return window


bartlett = _window("bartlett", np.bartlett)
blackman = _window("blackman", np.blackman)
hamming = _window("hamming", np.hamming)
hanning = _window("hanning", np.hanning)


def kaiser(x, beta):
    """NumPy's Kaiser window of length `x` and shape `beta`, as float32."""
    return _convert(np.kaiser(_window_length(x, "kaiser"), float(beta)).astype(np.float32))


def bitwise_invert(x):
    """The bitwise NOT of integers (`bitwise_not`)."""
    return _tnp.invert(_t(x))


def bitwise_left_shift(x, y):
    """`x` shifted left by `y` bits (`left_shift`)."""
    return _tnp.left_shift(*_same(x, y))


def bitwise_right_shift(x, y):
    """`x` shifted right by `y` bits, arithmetic for signed integers (`right_shift`)."""
    return _tnp.right_shift(*_same(x, y))


def view_as_complex(x):
    """A real tensor whose last axis has length 2 as the complex tensor real + 1j * imag."""
    t = _float(x)
    return _rt.complex(t[..., 0], t[..., 1])


def view_as_real(x):
    """A complex tensor as a real one with a last axis of (real, imag)."""
    t = _t(x)
    return _rt.stack([_math.real(t), _math.imag(t)], axis=-1)


def view(x, dtype=None):
    """The bits of `x` read as `dtype` (NumPy's `ndarray.view`): a narrower dtype
    lengthens the last axis by the ratio of the item sizes, a wider one shortens it (its
    length must divide)."""
    t = _t(x)
    new = t.dtype if dtype is None else _dtypes.as_dtype(dtype)
    old_size = np.dtype(t.dtype.as_numpy_dtype).itemsize
    new_size = np.dtype(new.as_numpy_dtype).itemsize
    shape = t.shape.as_list()
    last = shape[-1] if shape else -1
    if (last == -1 and old_size != new_size) or (last is not None and
                                                 last * old_size % new_size != 0):
        raise ValueError(f"Cannot view array of shape {tuple(shape)} and dtype "
                         f"{t.dtype.name} as dtype {new.name} because the total number of "
                         "bytes is not divisible by the new itemsize.")
    if new is t.dtype:
        return t
    if old_size == new_size:
        return _rt.bitcast(t, new)
    if None in shape:
        raise ValueError(f"keras.ops.view to a dtype of another size needs the shape of x "
                         f"known, got {t.shape}.")
    if old_size > new_size:
        return _am.reshape(_rt.bitcast(t, new), shape[:-1] + [last * (old_size // new_size)])
    ratio = new_size // old_size
    return _rt.bitcast(_am.reshape(t, shape[:-1] + [last // ratio, ratio]), new)


_GUFUNC_ARGS = r"\((?:\w+(?:,\w+)*)?\)(?:,\((?:\w+(?:,\w+)*)?\))*"


def _gufunc_signature(signature: str) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
    compact = re.sub(r"\s+", "", signature)
    if not re.fullmatch(f"{_GUFUNC_ARGS}->{_GUFUNC_ARGS}", compact):
        raise ValueError(f"not a valid gufunc signature: {signature}")
    return [[tuple(re.findall(r"\w+", arg)) for arg in re.findall(r"\([^)]*\)", side)]
            for side in compact.split("->")]


def _core_sizes(sizes: dict, shape: list, core: tuple, what: str) -> None:
    for name, size in zip(core, shape[len(shape) - len(core):]):
        if sizes.setdefault(name, size) != size:
            raise ValueError(f"inconsistent size for core dimension {name!r}: {size} vs "
                             f"{sizes[name]} ({what})")


def vectorize(pyfunc, *, excluded=None, signature=None):
    """`pyfunc` (written for one element, or for core blocks named by a gufunc
    `signature` such as "(n),(n)->()") mapped over the broadcast leading axes of its
    arguments, as `numpy.vectorize` / `jax.numpy.vectorize`. `excluded`: positions and
    keyword names passed to `pyfunc` unchanged (None arguments are too)."""
    excluded = set(excluded or ())
    for item in excluded:
        if not isinstance(item, (int, str)):
            raise TypeError(f"vectorize(excluded=...) holds argument positions (int) and "
                            f"names (str), got {item!r}.")
    in_cores, out_cores = _gufunc_signature(signature) if signature is not None else (None,
                                                                                       None)

    @functools.wraps(pyfunc)
    def wrapped(*args, **kwargs):
        dynamic = [i for i, a in enumerate(args) if i not in excluded and a is not None]
        names = [k for k, v in kwargs.items() if k not in excluded and v is not None]
        if in_cores is not None and names:
            raise TypeError(f"vectorize with a signature maps positional arguments only; "
                            f"pass {names} positionally or list them in `excluded`.")
        cores = in_cores if in_cores is not None else [()] * (len(dynamic) + len(names))
        if in_cores is not None and len(in_cores) != len(dynamic):
            raise TypeError(f"wrong number of positional arguments: expected "
                            f"{len(in_cores)}, got {len(dynamic)}")
        if not dynamic and not names:
            return pyfunc(*args, **kwargs)
        values = [_t(args[i]) for i in dynamic] + [_t(kwargs[k]) for k in names]
        sizes: dict = {}
        batch_shapes = []
        for v, core in zip(values, cores):
            shape = v.shape.as_list()
            if None in shape:
                raise ValueError(f"vectorize needs its arguments' shapes known, got {v.shape}.")
            if len(shape) < len(core):
                raise ValueError(f"input with shape {tuple(shape)} does not have enough "
                                 f"dimensions for all core dimensions {core}")
            _core_sizes(sizes, shape, core, "inputs")
            batch_shapes.append(tuple(shape[:len(shape) - len(core)]))
        batch = tuple(np.broadcast_shapes(*batch_shapes)) if batch_shapes else ()
        count = int(np.prod(batch))
        if count == 0:
            raise ValueError(f"vectorize cannot map over an empty batch {batch}.")
        flat = []
        for v, core in zip(values, cores):
            core_shape = v.shape.as_list()[v.shape.rank - len(core):]
            full = _rt.broadcast_to(v, list(batch) + core_shape)
            flat.append(_am.reshape(full, [count] + core_shape))

        def one(elements):
            call_args, call_kwargs = list(args), dict(kwargs)
            for i, e in zip(dynamic, elements):
                call_args[i] = e
            for k, e in zip(names, elements[len(dynamic):]):
                call_kwargs[k] = e
            out = pyfunc(*call_args, **call_kwargs)
            return tuple(out) if isinstance(out, list) else out

        result = _rt.vectorized_map(one, tuple(flat))
        outs = list(result) if isinstance(result, tuple) else [result]
        if out_cores is not None:
            if len(out_cores) > 1 and not isinstance(result, tuple):
                raise TypeError(f"output must be a tuple when multiple outputs are expected, "
                                f"got: {result}")
            if len(outs) != len(out_cores):
                raise TypeError(f"wrong number of output arguments: expected "
                                f"{len(out_cores)}, got {len(outs)}")
            for o, core in zip(outs, out_cores):
                shape = o.shape.as_list()[1:]
                if len(shape) != len(core):
                    raise ValueError(f"output shape {tuple(shape)} does not match core "
                                     f"dimensions {core}")
                _core_sizes(sizes, shape, core, "outputs")
        outs = [_am.reshape(o, list(batch) + o.shape.as_list()[1:]) for o in outs]
        return tuple(outs) if isinstance(result, tuple) else outs[0]

    return wrapped



# -- arithmetic with Keras's dtypes ---------------------------------------------------------
# A Python number is weakly typed in Keras: it takes the other operand's dtype (an int with a
# bool tensor gives int32; a float with an integer or bool tensor gives float32, Keras's
# floatx), whichever side it is on; NumPy's rules (the first operand made an int64 or
# float64 array) would give float64 for `divide(127, float32_tensor)`. A true division of
# integers is float32. Two tensors promote as NumPy promotes them.

def _python_number(x) -> bool:
    return isinstance(x, (bool, int, float)) and not isinstance(x, np.generic)


def _weak_dtype(number, other: _dtypes.DType) -> _dtypes.DType:
    """The dtype of `number` (a Python bool, int or float) beside a tensor of `other`."""
    if isinstance(number, bool):
        return other
    if isinstance(number, int):
        return _dtypes.int32 if other is _dtypes.bool else other
    return other if other.is_floating or other.is_complex else _dtypes.float32


def _keras_operands(x1, x2, true_division: bool = False) -> tuple:
    """The two operands as Keras types them (tensors, or NumPy's rules for other pairs)."""
    if _python_number(x1) and not _python_number(x2):
        b = _t(x2)
        a = _am.cast(_convert(x1), _weak_dtype(x1, b.dtype))
        b = _am.cast(b, a.dtype) if a.dtype is not b.dtype else b
    elif _python_number(x2) and not _python_number(x1):
        a = _t(x1)
        b = _am.cast(_convert(x2), _weak_dtype(x2, a.dtype))
        a = _am.cast(a, b.dtype) if a.dtype is not b.dtype else a
    else:
        return x1, x2
    if true_division and not (a.dtype.is_floating or a.dtype.is_complex):
        a, b = _am.cast(a, _dtypes.float32), _am.cast(b, _dtypes.float32)
    return a, b


def _keras_binary(name: str, true_division: bool = False):
    numpy_function = getattr(_tnp, name)

    def op(x1, x2):
        a, b = _keras_operands(x1, x2, true_division)
        if true_division and isinstance(a, Tensor) and isinstance(b, Tensor) and not (
                a.dtype.is_floating or a.dtype.is_complex or
                b.dtype.is_floating or b.dtype.is_complex):
            a, b = _am.cast(a, _dtypes.float32), _am.cast(b, _dtypes.float32)
        return numpy_function(a, b)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = (f"`numpy.{name}(x1, x2)` with Keras's dtypes: a Python number takes the "
                  "other operand's dtype" + (" and integers divide to float32." if true_division
                                             else "."))
    return op


add = _keras_binary("add")
subtract = _keras_binary("subtract")
multiply = _keras_binary("multiply")
power = _keras_binary("power")
maximum = _keras_binary("maximum")
minimum = _keras_binary("minimum")
floor_divide = _keras_binary("floor_divide")
divide = _keras_binary("divide", true_division=True)
true_divide = _keras_binary("true_divide", true_division=True)


__all__ = [
    "add", "divide", "floor_divide", "maximum", "minimum", "multiply", "power", "subtract",
    "true_divide",
    "argpartition", "array_split", "bartlett", "bitwise_invert", "bitwise_left_shift",
    "bitwise_right_shift", "bincount", "blackman", "corrcoef", "correlate",
    "digitize", "divide_no_nan", "fmax", "fmin", "fmod", "gcd", "get_item", "hamming",
    "hanning", "histogram", "i0", "isin", "kaiser", "lcm", "ldexp", "median", "nan_to_num",
    "nanargmax", "nanargmin", "nancumprod", "nancumsum", "nanmax", "nanmedian", "nanmin",
    "nanpercentile", "nanquantile", "nanstd", "nanvar", "percentile", "quantile",
    "searchsorted", "trapezoid", "unique", "unravel_index", "vectorize", "view",
    "view_as_complex", "view_as_real"]
