"""TensorFlow functions composed from existing ops: linspace, slice, pad, broadcast_to,
meshgrid, is_nan/is_inf/is_finite, norm, clip_by_norm, clip_by_global_norm, and the
linalg helpers diag, diag_part, matrix_transpose, trace and band_part.

None of them defines an op: each builds its result from ops that every tier runs and
differentiates, so they stage, compile and have gradients like the ops they use.
"""

from __future__ import annotations

import builtins
import numbers

import numpy as np

from .. import dtypes as _dtypes
from ..errors import InvalidArgumentError
from ..exports import export
from ..graph import constant_value
from ..tensor import Tensor
from . import array_math
from . import nn as _nn
from .core import convert_to_tensor


def _static(value, what):
    """The ints of `value` (a list, a tuple, an array or a tensor known when tracing), or None."""
    if isinstance(value, Tensor):
        known = constant_value(value)
        if known is None:
            return None
        value = known
    array = np.asarray(value)
    if array.dtype.kind not in "iu":
        raise TypeError(f"`{what}` must hold integers, got {value!r}.")
    return array


def _key(axis, part):
    """An indexing key that applies the slice `part` to `axis` and keeps the other axes."""
    return (builtins.slice(None),) * axis + (part,)


def _float_tensor(value, what, dtype=None):
    t = convert_to_tensor(value, dtype=dtype)
    if not t.dtype.is_floating:
        raise TypeError(f"`{what}` must be a floating-point tensor, got {t.dtype.name}.")
    return t


# -- creation ------------------------------------------------------------------------------------

def _linspace_bound(value, what, dtype=None):
    """A bound of linspace: floating tensors as they are; integers become float64, as
    TensorFlow's integer division gives (`tf.linspace(-2, 2, 5)` is float64)."""
    t = convert_to_tensor(value) if dtype is None else None
    if t is not None and t.dtype.is_integer:
        return array_math.cast(t, _dtypes.float64)
    if dtype is not None and not isinstance(value, Tensor) and np.asarray(value).dtype.kind in "iu":
        return array_math.cast(convert_to_tensor(value), dtype)
    return _float_tensor(value, what, dtype=dtype)


@export("linspace", "lin_space")
def linspace(start, stop, num, name=None, axis=0) -> Tensor:
    """`num` evenly spaced values from `start` to `stop`, both included (TF's `tf.linspace`).

    `start` and `stop` are floating-point and may be tensors of broadcastable shapes: the
    values then run along a new axis `axis` of the result. The last value is exactly `stop`
    (for num > 1; num == 1 gives `start`).
    Differentiable with respect to `start` and `stop`.
    """
    start = _linspace_bound(start, "start")
    stop = _linspace_bound(stop, "stop", dtype=start.dtype if not isinstance(stop, Tensor) else None)
    if stop.dtype is not start.dtype:
        raise TypeError(f"`start` and `stop` must share a dtype, got {start.dtype.name} and "
                        f"{stop.dtype.name}.")
    n_known = _static(num, "num")
    if n_known is not None:
        if n_known.ndim != 0:
            raise InvalidArgumentError(f"`num` must be a scalar, got shape {n_known.shape}.")
        if int(n_known) < 1:
            raise InvalidArgumentError(f"`num` must be positive, got {int(n_known)}.")
        num = int(n_known)
    else:
        num = array_math.cast(convert_to_tensor(num), _dtypes.int32)
    rank = array_math.add(start, stop).shape.rank
    if rank is None:
        raise ValueError("linspace needs `start` and `stop` of known rank.")
    ax = int(axis)
    if not -rank - 1 <= ax <= rank:
        raise InvalidArgumentError(f"`axis` {ax} is out of range for a result of rank {rank + 1}.")
    ax = ax % (rank + 1)
    for _ in builtins.range(rank - start.shape.rank):
        start = array_math.expand_dims(start, 0)
    for _ in builtins.range(rank - stop.shape.rank):
        stop = array_math.expand_dims(stop, 0)
    first = array_math.expand_dims(start, ax)
    last = array_math.expand_dims(stop, ax)
    index = array_math.range(num)
    steps = array_math.maximum(array_math.cast(array_math.subtract(num, 1), start.dtype), 1)
    ramp = array_math.reshape(array_math.cast(index, start.dtype), [1] * ax + [-1] + [1] * (rank - ax))
    values = array_math.add(first, array_math.multiply(array_math.divide(ramp, steps),
                                                       array_math.subtract(last, first)))
    at_end = array_math.reshape(array_math.logical_and(array_math.equal(index, array_math.subtract(num, 1)),
                                                       array_math.greater(num, 1)),
                                [1] * ax + [-1] + [1] * (rank - ax))
    return array_math.where(at_end, array_math.add(last, array_math.zeros_like(values)), values)


@export("broadcast_to")
def broadcast_to(input, shape, name=None) -> Tensor:  # noqa: A002 - TensorFlow's name
    """`input` repeated along axes of size 1 (or missing in front) to `shape`, as NumPy's
    `np.broadcast_to`; the gradient sums over the repeated axes."""
    x = convert_to_tensor(input)
    dims = _static(shape, "shape")
    if dims is not None:
        if dims.ndim != 1:
            raise InvalidArgumentError(f"`shape` must be a vector, got {dims.tolist()!r}.")
        xs = x.shape.as_tuple()
        if xs is not None:
            ok = len(xs) <= len(dims) and all(
                d is None or d == 1 or d == int(t) for d, t in zip(reversed(xs), reversed(dims)))
            if not ok:
                raise InvalidArgumentError(f"Unable to broadcast `input` of shape {x.shape} to "
                                           f"`shape` {dims.tolist()}.")
        shape = [int(d) for d in dims]
    if x.dtype.is_numeric and not x.dtype.is_bool:
        return array_math.add(x, array_math.fill(shape, np.zeros((), x.dtype.as_numpy_dtype)))
    everywhere = array_math.fill(shape, True)
    return array_math.where(everywhere, x, x)


@export("meshgrid")
def meshgrid(*args, indexing="xy", name=None) -> list[Tensor]:
    """Coordinate grids from 1-D tensors, as NumPy's `np.meshgrid`: `indexing="xy"` (the
    default) swaps the first two output axes, `"ij"` keeps the inputs' order."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"`indexing` must be either 'xy' or 'ij', got {indexing!r}.")
    tensors = [array_math.reshape(convert_to_tensor(a), [-1]) for a in args]
    n = len(tensors)
    if n == 0:
        return []
    sizes = [array_math.size(t) for t in tensors]
    order = list(builtins.range(n))
    if indexing == "xy" and n > 1:
        order[0], order[1] = 1, 0
    shape = array_math.stack([sizes[i] for i in order])
    outputs = []
    for i, t in enumerate(tensors):
        where_i = order.index(i)
        outputs.append(broadcast_to(array_math.reshape(t, [1] * where_i + [-1] + [1] * (n - 1 - where_i)),
                                    shape))
    return outputs


# -- slicing and padding ---------------------------------------------------------------------------

@export("slice")
def slice(input_, begin, size, name=None) -> Tensor:  # noqa: A001 - TensorFlow's name
    """The block of `input_` starting at `begin` with `size` elements per axis; a size of -1
    takes everything to the end of that axis (TF's `tf.slice`)."""
    x = convert_to_tensor(input_)
    rank = x.shape.rank
    b, s = _static(begin, "begin"), _static(size, "size")
    for what, value in (("begin", b), ("size", s)):
        if value is not None and (value.ndim != 1 or (rank is not None and len(value) != rank)):
            raise InvalidArgumentError(f"`{what}` must be a vector with one entry per axis of "
                                       f"`input_` (shape {x.shape}), got {value.tolist()!r}.")
    if b is None or s is None or rank is None:
        return _slice_later(x, begin, size)
    dims = x.shape.as_tuple()
    key = []
    for axis, (lo, n, d) in enumerate(zip(b.tolist(), s.tolist(), dims)):
        if lo < 0 or (d is not None and lo > d):
            raise InvalidArgumentError(f"`begin`[{axis}] = {lo} is out of range for axis {axis} "
                                       f"of size {d} (shape {x.shape}).")
        if n < -1 or (n != -1 and d is not None and lo + n > d):
            raise InvalidArgumentError(f"`size`[{axis}] = {n} with begin {lo} does not fit axis "
                                       f"{axis} of size {d} (shape {x.shape}).")
        key.append(builtins.slice(lo, None if n == -1 else lo + n))
    return array_math.getitem(x, tuple(key))


def _slice_later(x, begin, size):
    """slice whose begin or size is known only when the graph runs (ranks must be known)."""
    begin = array_math.cast(convert_to_tensor(begin), _dtypes.int32)
    size = array_math.cast(convert_to_tensor(size), _dtypes.int32)
    rank = x.shape.rank if x.shape.rank is not None else begin.shape.as_tuple()[0]
    if rank is None:
        raise ValueError("slice needs `input_` of known rank or `begin` of known length.")
    dims = array_math.shape(x)
    key = []
    for axis in builtins.range(rank):
        lo, n = begin[axis], size[axis]
        stop = array_math.where(array_math.equal(n, -1), dims[axis], array_math.add(lo, n))
        key.append(builtins.slice(lo, stop))
    return array_math.getitem(x, tuple(key))


_PAD_MODES = ("CONSTANT", "REFLECT", "SYMMETRIC")


@export("pad")
def pad(tensor, paddings, mode="CONSTANT", constant_values=0, name=None) -> Tensor:
    """`tensor` padded by `paddings[i] = [before, after]` elements on each axis i (TF's
    `tf.pad`). `mode` (any case): "CONSTANT" fills with `constant_values`; "REFLECT" mirrors
    without repeating the edge (at most size - 1 per side); "SYMMETRIC" mirrors including the
    edge (at most size per side). `paddings` must be known when tracing."""
    x = convert_to_tensor(tensor)
    if not isinstance(mode, str) or mode.upper() not in _PAD_MODES:
        raise ValueError(f"`mode` must be one of {_PAD_MODES} (any case), got {mode!r}.")
    mode = mode.upper()
    widths = _static(paddings, "paddings")
    if widths is None:
        raise ValueError("`paddings` must be known when tracing (a list or a constant tensor).")
    rank = x.shape.rank
    if widths.ndim != 2 or widths.shape[1] != 2 or (rank is not None and widths.shape[0] != rank):
        raise InvalidArgumentError(f"`paddings` must have shape [{rank}, 2] for `tensor` of shape "
                                   f"{x.shape}, got {widths.tolist()!r}.")
    if (widths < 0).any():
        raise InvalidArgumentError(f"`paddings` must be non-negative, got {widths.tolist()!r}.")
    fill_value = None
    if mode == "CONSTANT":
        fill_value = convert_to_tensor(constant_values, dtype=x.dtype)
    out = x
    for axis, (before, after) in enumerate(widths.tolist()):
        if before == 0 and after == 0:
            continue
        dims = out.shape.as_tuple()
        d = None if dims is None else dims[axis]     # None: the rank is unknown too
        if mode == "CONSTANT":
            parts = [_block(out, axis, before, fill_value), out, _block(out, axis, after, fill_value)]
        else:
            extra = 1 if mode == "REFLECT" else 0
            limit = None if d is None else d - extra
            if limit is not None and builtins.max(before, after) > limit:
                raise InvalidArgumentError(
                    f"`paddings` {[before, after]} of axis {axis} must be at most {limit} in "
                    f"{mode} mode (the axis has size {d}).")
            left = array_math.reverse(out[_key(axis, builtins.slice(extra, before + extra))], [axis])
            right = array_math.reverse(out[_key(axis, builtins.slice(-after - extra, -extra or None))],
                                       [axis])
            parts = [left, out, right]
        sizes = [before, None, after]
        out = array_math.concat([p for p, n in zip(parts, sizes) if n != 0], axis)
    return out


def _block(x, axis, n, value):
    """A tensor of `value` shaped like `x` but with `n` elements on `axis` (None when n == 0)."""
    if n == 0:
        return None
    dims = x.shape.as_tuple()
    if dims is not None and None not in dims:
        shape = list(dims[:axis]) + [n] + list(dims[axis + 1:])
    else:
        full = array_math.shape(x)
        shape = array_math.concat([full[:axis], [n], full[axis + 1:]], 0)
    return array_math.fill(shape, value)


# -- elementwise tests ------------------------------------------------------------------------------

def _floating(x, fn):
    x = convert_to_tensor(x)
    if not x.dtype.is_floating:
        raise TypeError(f"{fn} needs a floating-point tensor `x`, got {x.dtype.name}.")
    return x


@export("math.is_nan")
def is_nan(x, name=None) -> Tensor:
    """True where `x` is NaN, elementwise."""
    x = _floating(x, "is_nan")
    return array_math.not_equal(x, x)


@export("math.is_inf")
def is_inf(x, name=None) -> Tensor:
    """True where `x` is +inf or -inf, elementwise."""
    x = _floating(x, "is_inf")
    return array_math.equal(array_math.abs(x), np.inf)


@export("math.is_finite")
def is_finite(x, name=None) -> Tensor:
    """True where `x` is neither NaN nor infinite, elementwise."""
    x = _floating(x, "is_finite")
    return array_math.less(array_math.abs(x), np.inf)


# -- norms and clipping ----------------------------------------------------------------------------

_MATRIX_ORDS = ("euclidean", "fro", 1, np.inf)


@export("norm", "linalg.norm")
def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None) -> Tensor:  # noqa: A002
    """The norm of `tensor` (TF's `tf.norm`).

    `axis=None` treats the whole tensor as a vector; an int gives vector norms along that
    axis; a pair of distinct ints gives matrix norms over those axes. Vector `ord`:
    "euclidean" (the default), 1, 2, np.inf or any positive real p (`"fro"` only with
    `axis=None`, where it equals "euclidean"). Matrix `ord`: "euclidean"/"fro" (Frobenius),
    1 (largest column sum) and np.inf (largest row sum); the spectral norm (ord=2 over a
    pair of axes) needs an SVD and is not supported (ValueError).
    """
    is_matrix = isinstance(axis, (tuple, list)) and len(axis) == 2
    if is_matrix:
        axis = tuple(axis)
        if not all(isinstance(a, numbers.Integral) for a in axis) or axis[0] == axis[1]:
            raise ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique integers, "
                             f"got {axis!r}")
        if ord not in _MATRIX_ORDS:
            raise ValueError(f"'ord' must be a supported matrix norm in ['euclidean', 'fro', 1, "
                             f"np.inf] (the spectral norm ord=2 is not supported), got {ord!r}")
    else:
        if not (axis is None or isinstance(axis, numbers.Integral)):
            raise ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique integers, "
                             f"got {axis!r}")
        if isinstance(ord, str):
            if ord != "euclidean" and not (ord == "fro" and axis is None):
                raise ValueError(f"'ord' must be a supported vector norm, got {ord!r}")
        elif isinstance(ord, bool) or not isinstance(ord, numbers.Real) or not ord > 0:
            raise ValueError(f"'ord' must be a supported vector norm, got {ord!r}")
        if axis is not None:
            axis = (int(axis),)
    x = convert_to_tensor(tensor)
    if not (x.dtype.is_floating or x.dtype.is_complex):
        raise TypeError(f"norm needs a floating-point `tensor`, got {x.dtype.name}.")
    if ord in ("fro", "euclidean") or (not isinstance(ord, str) and ord == 2):
        result = array_math.sqrt(array_math.reduce_sum(array_math.square(array_math.abs(x)), axis, keepdims=True))
    else:
        result = array_math.abs(x)
        if ord == 1:
            result = array_math.reduce_sum(result, None if axis is None else axis[0], keepdims=True)
            if is_matrix:
                result = array_math.reduce_max(result, axis[-1], keepdims=True)
        elif ord == np.inf:
            if is_matrix:
                result = array_math.reduce_sum(result, axis[1], keepdims=True)
            result = array_math.reduce_max(result, None if axis is None else axis[0], keepdims=True)
        else:
            p = float(ord)
            result = array_math.pow(array_math.reduce_sum(array_math.pow(result, p), axis, keepdims=True),
                                    1.0 / p)
    if not keepdims:
        result = array_math.squeeze(result, list(axis) if axis is not None else None)
    return result


@export("clip_by_norm")
def clip_by_norm(t, clip_norm, axes=None, name=None) -> Tensor:
    """`t * clip_norm / max(l2norm(t), clip_norm)`: `t` rescaled so that its L2 norm (over
    `axes`, every axis by default) is at most `clip_norm` (TF's `tf.clip_by_norm`)."""
    t = convert_to_tensor(t)
    if not t.dtype.is_floating:
        raise TypeError(f"clip_by_norm needs a floating-point `t`, got {t.dtype.name}.")
    clip_norm = array_math.cast(convert_to_tensor(clip_norm, dtype_hint=t.dtype), t.dtype)
    l2sum = array_math.reduce_sum(array_math.multiply(t, t), axes, keepdims=True)
    positive = array_math.greater(l2sum, 0)
    safe = array_math.where(positive, l2sum, array_math.ones_like(l2sum))
    l2norm = array_math.where(positive, array_math.sqrt(safe), l2sum)
    return array_math.divide(array_math.multiply(t, clip_norm), array_math.maximum(l2norm, clip_norm))


def _tensor_list(t_list, what):
    if isinstance(t_list, (str, bytes, Tensor, np.ndarray)) or not isinstance(t_list, (list, tuple)):
        raise TypeError(f"`{what}` should be a sequence of tensors, got {type(t_list).__name__}.")
    return [None if t is None else convert_to_tensor(t) for t in t_list]


@export("linalg.global_norm")
def global_norm(t_list, name=None) -> Tensor:
    """sqrt(sum of the squares of every element of every tensor in `t_list`); None entries
    are ignored (TF's `tf.linalg.global_norm`)."""
    tensors = [t for t in _tensor_list(t_list, "t_list") if t is not None]
    if not tensors:
        raise ValueError("`t_list` holds no tensors.")
    halves = array_math.stack([_nn.l2_loss(t) for t in tensors])
    return array_math.sqrt(array_math.multiply(array_math.reduce_sum(halves), 2.0))


@export("clip_by_global_norm")
def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None) -> tuple[list[Tensor], Tensor]:
    """Rescales every tensor of `t_list` by `clip_norm / max(global_norm, clip_norm)`;
    returns `(list_clipped, global_norm)` (TF's `tf.clip_by_global_norm`). `use_norm`
    replaces the computed global norm; None entries stay None. An infinite global norm
    gives NaN values, as in TensorFlow."""
    tensors = _tensor_list(t_list, "t_list")
    if use_norm is None:
        use_norm = global_norm(tensors)
    use_norm = convert_to_tensor(use_norm)
    clip = array_math.cast(convert_to_tensor(clip_norm, dtype_hint=use_norm.dtype), use_norm.dtype)
    scale_finite = array_math.multiply(clip, array_math.minimum(array_math.divide(1.0, use_norm),
                                                                array_math.divide(1.0, clip)))
    scale = array_math.add(scale_finite, array_math.subtract(use_norm, use_norm))  # NaN when inf
    clipped = [None if t is None else array_math.multiply(t, array_math.cast(scale, t.dtype))
               for t in tensors]
    return clipped, use_norm


# -- linalg ----------------------------------------------------------------------------------------

def _matrix(x, what, fn):
    x = convert_to_tensor(x)
    if x.shape.rank is None:
        raise ValueError(f"{fn} needs `{what}` of known rank.")
    if x.shape.rank < 2:
        raise ValueError(f"Argument `{what}` of {fn} should be a (batch) matrix with rank >= 2, "
                         f"got shape {x.shape}.")
    return x


@export("linalg.matrix_transpose")
def matrix_transpose(a, name="matrix_transpose", conjugate=False) -> Tensor:
    """`a` with its last two axes swapped (a batch of transposed matrices)."""
    a = _matrix(a, "a", "matrix_transpose")
    if conjugate and a.dtype.is_complex:
        raise NotImplementedError("matrix_transpose(conjugate=True) of complex tensors is not "
                                  "supported (there is no conj op).")
    rank = a.shape.rank
    return array_math.transpose(a, tuple(builtins.range(rank - 2)) + (rank - 1, rank - 2))


def _mask(rows, columns):
    """A bool [rows, columns] matrix, True on the main diagonal."""
    return array_math.equal(array_math.expand_dims(array_math.range(rows), 1),
                            array_math.expand_dims(array_math.range(columns), 0))


def _last_dims(x):
    """The sizes of the last two axes: ints when known, else scalar tensors."""
    dims = x.shape.as_tuple()
    full = None
    out = []
    for i in (-2, -1):
        if dims[i] is not None:
            out.append(dims[i])
        else:
            full = array_math.shape(x) if full is None else full
            out.append(full[i])
    return out


@export("linalg.diag")
def diag(diagonal, name="diag", k=0) -> Tensor:
    """Matrices with `diagonal` (shape [..., n]) on their k-th diagonal and zeros elsewhere:
    shape [..., n + |k|, n + |k|]. k > 0 is above the main diagonal, k < 0 below. (TF's
    `num_rows`, `num_cols`, `padding_value` and `align` are not supported.)"""
    d = convert_to_tensor(diagonal)
    if d.shape.rank is None or d.shape.rank < 1:
        raise ValueError(f"Argument `diagonal` of diag should have rank >= 1, got shape {d.shape}.")
    if not isinstance(k, numbers.Integral):
        raise TypeError(f"`k` must be an int (one diagonal), got {k!r}.")
    n = d.shape.as_tuple()[-1]
    if n is None:
        n = array_math.shape(d)[-1]
    column = array_math.expand_dims(d, -1)
    out = array_math.where(_mask(n, n), column, array_math.zeros_like(column))
    k = int(k)
    if k != 0:
        rank = out.shape.rank
        lead = [[0, 0]] * (rank - 2)
        out = pad(out, lead + ([[0, k], [k, 0]] if k > 0 else [[-k, 0], [0, -k]]))
    return out


@export("linalg.diag_part")
def diag_part(input, name="diag_part", k=0) -> Tensor:  # noqa: A002
    """The main diagonal of each matrix of `input` (shape [..., m, n]): shape
    [..., min(m, n)]. (Only k=0 is supported.)"""
    x = _matrix(input, "input", "diag_part")
    if k != 0:
        raise NotImplementedError(f"diag_part supports only the main diagonal (k=0), got k={k!r}.")
    m, n = _last_dims(x)
    kept = array_math.where(_mask(m, n), x, array_math.zeros_like(x))
    if isinstance(m, int) and isinstance(n, int):
        return array_math.reduce_sum(kept, -1 if m <= n else -2)
    sums = array_math.reduce_sum(kept, -1)
    return sums[..., :array_math.minimum(m, n)]


@export("linalg.trace")
def trace(x, name=None) -> Tensor:
    """The sum of the main diagonal of each matrix of `x` (shape [..., m, n]): shape [...]."""
    return array_math.reduce_sum(diag_part(_matrix(x, "x", "trace")), -1)


@export("linalg.band_part")
def band_part(input, num_lower, num_upper, name=None) -> Tensor:  # noqa: A002
    """`input` with everything outside a band around each matrix's diagonal set to zero:
    `num_lower` subdiagonals and `num_upper` superdiagonals are kept (a negative count keeps
    that whole triangle). `band_part(x, 0, -1)` is the upper triangle, `(x, -1, 0)` the lower."""
    x = _matrix(input, "input", "band_part")
    for what, value in (("num_lower", num_lower), ("num_upper", num_upper)):
        if isinstance(value, Tensor):
            if value.dtype.is_floating or value.dtype.is_bool or value.shape.rank not in (0, None):
                raise TypeError(f"`{what}` must be an integer scalar, got {value!r}.")
        elif isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise TypeError(f"`{what}` must be an integer scalar, got {value!r}.")
    m, n = _last_dims(x)
    rows = array_math.expand_dims(array_math.range(m), 1)
    columns = array_math.expand_dims(array_math.range(n), 0)
    lower = array_math.cast(convert_to_tensor(num_lower), _dtypes.int32)
    upper = array_math.cast(convert_to_tensor(num_upper), _dtypes.int32)
    below = array_math.logical_or(array_math.less(lower, 0),
                                  array_math.less_equal(array_math.subtract(rows, columns), lower))
    above = array_math.logical_or(array_math.less(upper, 0),
                                  array_math.less_equal(array_math.subtract(columns, rows), upper))
    return array_math.where(array_math.logical_and(below, above), x, array_math.zeros_like(x))
