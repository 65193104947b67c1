"""Sorting, searching, counting and reordering ops: sort, argsort, top_k, searchsorted,
unique, roll, repeat, bincount, histogram_fixed_width, cumprod, sequence_mask.

Ops whose result size depends on values (unique, bincount, repeat with a repeats tensor)
have unknown dims when staged. Gradients: sort and top_k send the values' gradient back to
the positions the values came from; roll, repeat and cumprod have theirs. This module builds
on array_math.
"""

from __future__ import annotations

import builtins
import collections

import numpy as np

from .. import dtypes as _dtypes
from ..attr_kinds import AXIS, BOOL, DTYPE, INT, OPT_DIMS, OPT_INT, one_of
from ..errors import InvalidArgumentError
from ..exports import export
from ..opdef import define
from ..shapes import TensorShape
from ..tensor import Tensor
from . import array_math
from .core import apply, convert_to_tensor
from .shape_rules import normalize_axis, partial_scalar

_DIRECTIONS = ("ASCENDING", "DESCENDING")


def _direction(direction) -> bool:
    """True for a descending order; ValueError for anything but the two names."""
    if direction not in _DIRECTIONS:
        raise ValueError(f"direction must be 'ASCENDING' or 'DESCENDING', got {direction!r}.")
    return direction == "DESCENDING"


def _axis(x, axis, what: str) -> int:
    rank = x.shape.rank
    if rank is None:
        raise ValueError(f"{what} needs a tensor of known rank.")
    if rank == 0:
        raise ValueError(f"{what} needs a tensor of rank >= 1, got a scalar.")
    return normalize_axis(array_math.as_int(axis, "axis"), rank, what)[0]


def _argsort(x: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    """A stable argsort; descending keeps equal elements in their original order."""
    if not descending:
        return np.argsort(x, axis=axis, kind="stable")
    n = x.shape[axis]
    flipped = np.argsort(np.flip(x, axis), axis=axis, kind="stable")
    return n - 1 - np.flip(flipped, axis)


# -- take along an axis, and its gradient ----------------------------------------------------

def _take_along_infer(x, indices, axis):
    return indices.shape, x.dtype


TAKE_ALONG = define("TakeAlongAxis", _take_along_infer,
                    lambda x, indices, axis: np.take_along_axis(x, indices, axis),
                    attrs={"axis": AXIS})


def _scatter_along_infer(g, indices, *like, axis, shape):
    return (TensorShape(shape) if shape is not None else like[0].shape), g.dtype


def _scatter_along_kernel(g, indices, *like, axis, shape):
    g, indices = np.asarray(g), np.asarray(indices)
    shape = np.shape(like[0]) if shape is None else tuple(shape)
    out = np.zeros(shape, g.dtype)
    grid = list(np.ix_(*[np.arange(d) for d in indices.shape]))
    grid[axis] = indices
    np.add.at(out, tuple(grid), g)
    return out


SCATTER_ALONG = define("ScatterAlongAxis", _scatter_along_infer, _scatter_along_kernel,
                       attrs={"axis": AXIS, "shape": OPT_DIMS})


@TAKE_ALONG.def_grad
def _take_along_grad(op, g):
    shape_attr, like = array_math.like_input(op, 0)
    return [apply(SCATTER_ALONG, [g, op.inputs[1], *like],
                  {"axis": op.attrs["axis"], "shape": shape_attr}), None]


@SCATTER_ALONG.def_grad
def _scatter_along_grad(op, g):
    grad = apply(TAKE_ALONG, [g, op.inputs[1]], {"axis": op.attrs["axis"]})
    return [grad] + [None] * (len(op.forward_inputs) - 1)


def _scatter_back(op, g, indices, axis):
    """`g`, the gradient of values taken from input 0 at `indices` along `axis`, sent back."""
    shape_attr, like = array_math.like_input(op, 0)
    return apply(SCATTER_ALONG, [g, indices, *like], {"axis": axis, "shape": shape_attr})


# -- sort, argsort, top_k --------------------------------------------------------------------

def _sortable(name, x):
    if not (x.dtype.is_numeric or x.dtype.is_bool):
        raise TypeError(f"{name}: values must be numeric, got {x.dtype.name}.")


def _sort_infer(x, axis, descending):
    _sortable("Sort", x)
    return x.shape, x.dtype


def _sort_kernel(x, axis, descending):
    out = np.sort(x, axis=axis)
    return np.flip(out, axis) if descending else out


SORT = define("Sort", _sort_infer, _sort_kernel, attrs={"axis": AXIS, "descending": BOOL})


def _argsort_infer(x, axis, descending, stable):
    _sortable("ArgSort", x)
    return x.shape, _dtypes.int32


ARGSORT = define("ArgSort", _argsort_infer,
                 lambda x, axis, descending, stable: _argsort(np.asarray(x), axis,
                                                              descending).astype(np.int32),
                 differentiable=False, attrs={"axis": AXIS, "descending": BOOL, "stable": BOOL})


@SORT.def_grad
def _sort_grad(op, g):
    axis, descending = op.attrs["axis"], op.attrs["descending"]
    order = apply(ARGSORT, [op.inputs[0]], {"axis": axis, "descending": descending, "stable": True})
    return [_scatter_back(op, g, order, axis)]


@export("sort")
def sort(values, axis=-1, direction="ASCENDING", name=None) -> Tensor:
    """`values` sorted along `axis` ('ASCENDING' or 'DESCENDING')."""
    descending = _direction(direction)
    x = convert_to_tensor(values)
    ax = _axis(x, axis, "sort")
    return apply(SORT, [x], {"axis": ax, "descending": descending}, name=name)


@export("argsort")
def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None) -> Tensor:
    """The int32 indices that sort `values` along `axis`; the sort is always stable (equal
    values keep their order), which `stable=True` asks for."""
    descending = _direction(direction)
    x = convert_to_tensor(values)
    ax = _axis(x, axis, "argsort")
    return apply(ARGSORT, [x], {"axis": ax, "descending": descending, "stable": bool(stable)},
                 name=name)


def _top_k_infer(x, k, sorted):  # noqa: A002 - TensorFlow's attribute name
    _sortable("TopKV2", x)
    if not k.dtype.is_integer or k.shape.rank not in (None, 0):
        raise TypeError(f"TopKV2: k must be an int scalar, got {k.dtype.name} of shape {k.shape}.")
    dims = x.shape.as_tuple()
    if dims is None:
        return [(TensorShape(None), x.dtype), (TensorShape(None), _dtypes.int32)]
    if not dims:
        raise ValueError("top_k: input must have rank >= 1, got a scalar.")
    kk = partial_scalar(k)
    if kk is not None:
        _check_k(kk, dims[-1])
    out = TensorShape(dims[:-1] + (kk,))
    return [(out, x.dtype), (out, _dtypes.int32)]


def _check_k(k, n):
    if k < 0:
        raise InvalidArgumentError(f"top_k: k must be >= 0, got {k}.")
    if n is not None and k > n:
        raise InvalidArgumentError(f"top_k: input must have at least k={k} entries in its last "
                                   f"axis, got {n}.")


def _top_k_kernel(x, k, sorted):  # noqa: A002
    x = np.asarray(x)
    k = int(k)
    _check_k(k, x.shape[-1])
    order = _argsort(x, -1, True)[..., :k]
    return np.take_along_axis(x, order, -1), order.astype(np.int32)


TOP_K = define("TopKV2", _top_k_infer, _top_k_kernel, num_outputs=2, attrs={"sorted": BOOL})


@TOP_K.def_grad
def _top_k_grad(op, g, g_indices):
    if g is None:
        return [None, None]
    rank = op.forward_inputs[0].shape.rank
    return [_scatter_back(op, g, op.outputs[1], rank - 1), None]


TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])


@export("math.top_k", "nn.top_k")
def top_k(input, k=1, sorted=True, name=None) -> TopKV2:  # noqa: A002
    """The k largest entries along the last axis and their int32 indices, as a namedtuple
    (values, indices); equal values keep the lower index first."""
    x = convert_to_tensor(input)
    if x.shape.rank == 0:
        raise ValueError("top_k: input must have rank >= 1, got a scalar.")
    kt = convert_to_tensor(k, dtype_hint=_dtypes.int32)
    values, indices = apply(TOP_K, [x, kt], {"sorted": bool(sorted)}, name=name)
    return TopKV2(values, indices)


# -- searchsorted -----------------------------------------------------------------------------

def _searchsorted_infer(sorted_sequence, values, side, out_type):
    if sorted_sequence.dtype is not values.dtype:
        raise TypeError(f"searchsorted: values ({values.dtype.name}) must have the dtype of "
                        f"sorted_sequence ({sorted_sequence.dtype.name}).")
    s, v = sorted_sequence.shape.as_tuple(), values.shape.as_tuple()
    if s is not None and v is not None and (
            len(s) != len(v) or not TensorShape(s[:-1]).is_compatible_with(TensorShape(v[:-1]))):
        raise InvalidArgumentError(f"searchsorted: sorted_sequence (shape {list(s)}) and values "
                                   f"(shape {list(v)}) must have the same leading dimensions.")
    return values.shape, out_type


def _searchsorted_kernel(sorted_sequence, values, side, out_type):
    seq, vals = np.asarray(sorted_sequence), np.asarray(values)
    if seq.shape[:-1] != vals.shape[:-1]:
        raise InvalidArgumentError(f"searchsorted: sorted_sequence (shape {list(seq.shape)}) and "
                                   f"values (shape {list(vals.shape)}) must have the same leading "
                                   "dimensions.")
    rows_s = seq.reshape(-1, seq.shape[-1])
    rows_v = vals.reshape(-1, vals.shape[-1])
    out = np.empty(rows_v.shape, np.int64)
    for i in builtins.range(rows_v.shape[0]):
        out[i] = np.searchsorted(rows_s[i], rows_v[i], side=side)
    return out.reshape(vals.shape).astype(out_type.as_numpy_dtype)


SEARCHSORTED = define("SearchSorted", _searchsorted_infer, _searchsorted_kernel,
                      differentiable=False, attrs={"side": one_of("left", "right"), "out_type": DTYPE})


@export("searchsorted")
def searchsorted(sorted_sequence, values, side="left", out_type=_dtypes.int32,
                 name=None) -> Tensor:
    """Where each of `values` goes in `sorted_sequence` (sorted along its last axis; leading
    axes are batch axes shared with `values`): `side='left'` or `'right'` for ties."""
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}.")
    out_type = _dtypes.as_dtype(out_type)
    if out_type not in (_dtypes.int32, _dtypes.int64):
        raise TypeError(f"searchsorted: out_type must be int32 or int64, got {out_type.name}.")
    seq = convert_to_tensor(sorted_sequence)
    vals = convert_to_tensor(values, dtype=seq.dtype) if not isinstance(values, Tensor) else values
    if seq.shape.rank == 0 or vals.shape.rank == 0:
        raise ValueError("searchsorted: sorted_sequence and values must have rank >= 1.")
    return apply(SEARCHSORTED, [seq, vals], {"side": side, "out_type": out_type}, name=name)


# -- unique ----------------------------------------------------------------------------------

def _unique_infer(counts):
    def infer(x, out_idx):
        if x.shape.rank not in (None, 1):
            raise InvalidArgumentError(f"unique: x must be a vector, got shape {x.shape}.")
        specs = [(TensorShape([None]), x.dtype), (x.shape if x.shape.rank else TensorShape([None]),
                                                  out_idx)]
        return specs + [(TensorShape([None]), out_idx)] if counts else specs
    return infer


def _unique_kernel(counts):
    def kernel(x, out_idx):
        x = np.asarray(x)
        if x.ndim != 1:
            raise InvalidArgumentError(f"unique: x must be a vector, got shape {list(x.shape)}.")
        values, first, inverse, count = np.unique(x, return_index=True, return_inverse=True,
                                                  return_counts=True)
        order = np.argsort(first, kind="stable")  # first-occurrence order
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        out = [values[order], rank[inverse.reshape(-1)].astype(out_idx.as_numpy_dtype)]
        return tuple(out + [count[order].astype(out_idx.as_numpy_dtype)]) if counts else tuple(out)
    return kernel


UNIQUE = define("Unique", _unique_infer(False), _unique_kernel(False), num_outputs=2,
                differentiable=False, attrs={"out_idx": DTYPE})
UNIQUE_WITH_COUNTS = define("UniqueWithCounts", _unique_infer(True), _unique_kernel(True),
                            num_outputs=3, differentiable=False, attrs={"out_idx": DTYPE})

UniqueOutput = collections.namedtuple("UniqueOutput", ["y", "idx"])
UniqueWithCountsOutput = collections.namedtuple("UniqueWithCountsOutput", ["y", "idx", "count"])


def _out_idx(out_idx):
    out_idx = _dtypes.as_dtype(out_idx)
    if out_idx not in (_dtypes.int32, _dtypes.int64):
        raise TypeError(f"unique: out_idx must be int32 or int64, got {out_idx.name}.")
    return out_idx


@export("unique")
def unique(x, out_idx=_dtypes.int32, name=None) -> UniqueOutput:
    """The distinct elements of the vector `x` in order of first occurrence, and for each
    element of `x` the index of its value in them: (y, idx)."""
    t = convert_to_tensor(x)
    return UniqueOutput(*apply(UNIQUE, [t], {"out_idx": _out_idx(out_idx)}, name=name))


@export("unique_with_counts")
def unique_with_counts(x, out_idx=_dtypes.int32, name=None) -> UniqueWithCountsOutput:
    """`unique` with how often each distinct element occurs: (y, idx, count)."""
    t = convert_to_tensor(x)
    return UniqueWithCountsOutput(*apply(UNIQUE_WITH_COUNTS, [t], {"out_idx": _out_idx(out_idx)},
                                         name=name))


# -- roll and repeat ---------------------------------------------------------------------------

def _roll_infer(x, shift, axis):
    for what, t in (("shift", shift), ("axis", axis)):
        if not t.dtype.is_integer or t.shape.rank not in (None, 0, 1):
            raise TypeError(f"roll: {what} must be an int scalar or vector, got "
                            f"{t.dtype.name} of shape {t.shape}.")
    return x.shape, x.dtype


def _roll_kernel(x, shift, axis):
    x = np.asarray(x)
    shift, axis = np.ravel(shift), np.ravel(axis)
    if shift.size != axis.size:
        raise InvalidArgumentError(f"roll: shift ({shift.size} values) and axis ({axis.size} "
                                   "values) must have the same length.")
    for a in axis:
        if not -x.ndim <= a < x.ndim:
            raise InvalidArgumentError(f"roll: axis {int(a)} is out of range for a tensor of "
                                       f"rank {x.ndim}.")
    return np.roll(x, tuple(int(s) for s in shift), tuple(int(a) for a in axis))


ROLL = define("Roll", _roll_infer, _roll_kernel)


@ROLL.def_grad
def _roll_grad(op, g):
    return [apply(ROLL, [g, array_math.negative(op.inputs[1]), op.inputs[2]]), None, None]


@export("roll")
def roll(input, shift, axis, name=None) -> Tensor:  # noqa: A002
    """The elements shifted by `shift` along `axis` (ints or int vectors of one length),
    those that fall off one end coming back at the other."""
    x = convert_to_tensor(input)
    shift_t = convert_to_tensor(shift, dtype_hint=_dtypes.int32)
    axis_t = convert_to_tensor(axis, dtype_hint=_dtypes.int32)
    return apply(ROLL, [x, shift_t, axis_t], name=name)


def _repeat_infer(x, repeats, axis):
    if not repeats.dtype.is_integer or repeats.shape.rank not in (None, 0, 1):
        raise TypeError(f"repeat: repeats must be an int scalar or vector, got "
                        f"{repeats.dtype.name} of shape {repeats.shape}.")
    dims = x.shape.as_tuple()
    if axis is None:
        return TensorShape([None]), x.dtype
    if dims is None:
        return TensorShape(None), x.dtype
    n = dims[axis]
    times = partial_scalar(repeats) if repeats.shape.rank == 0 else None
    size = None if n is None or times is None else n * times
    return TensorShape(dims[:axis] + (size,) + dims[axis + 1:]), x.dtype


def _repeat_counts(x, repeats, axis):
    n = x.size if axis is None else x.shape[axis]
    counts = np.ravel(repeats).astype(np.int64)
    if counts.size == 1:
        counts = np.full(n, counts[0], np.int64)
    if counts.size != n:
        raise InvalidArgumentError(f"repeat: repeats has {counts.size} entries, the axis has {n}.")
    if (counts < 0).any():
        raise InvalidArgumentError("repeat: repeats must be non-negative.")
    return counts


def _repeat_kernel(x, repeats, axis):
    x = np.asarray(x)
    return np.repeat(x.reshape(-1) if axis is None else x, _repeat_counts(x, repeats, axis),
                     axis=0 if axis is None else axis)


REPEAT = define("Repeat", _repeat_infer, _repeat_kernel, attrs={"axis": OPT_INT})


def _repeat_grad_kernel(g, x, repeats, axis):
    g, x = np.asarray(g), np.asarray(x)
    counts = _repeat_counts(x, repeats, axis)
    ax = 0 if axis is None else axis
    target = x.reshape(-1) if axis is None else x
    out = np.zeros(np.moveaxis(target, ax, 0).shape, g.dtype)
    np.add.at(out, np.repeat(np.arange(counts.size), counts), np.moveaxis(g, ax, 0))
    return np.moveaxis(out, 0, ax).reshape(x.shape)


REPEAT_GRAD = define("RepeatGrad", lambda g, x, repeats, axis: (x.shape, g.dtype),
                     _repeat_grad_kernel, attrs={"axis": OPT_INT})


@REPEAT.def_grad
def _repeat_grad(op, g):
    return [apply(REPEAT_GRAD, [g, op.inputs[0], op.inputs[1]], {"axis": op.attrs["axis"]}),
            None]


@REPEAT_GRAD.def_grad
def _repeat_grad_grad(op, g):
    return [apply(REPEAT, [g, op.inputs[2]], {"axis": op.attrs["axis"]}), None, None]


@export("repeat")
def repeat(input, repeats, axis=None, name=None) -> Tensor:  # noqa: A002
    """Each element (or slice along `axis`) repeated `repeats` times (an int, or one count
    per entry of the axis); without an axis the input is flattened first."""
    x = convert_to_tensor(input)
    r = convert_to_tensor(repeats, dtype_hint=_dtypes.int32)
    ax = None
    if axis is not None:
        if x.shape.rank is None:
            raise ValueError("repeat with an axis needs input of known rank.")
        ax = normalize_axis(array_math.as_int(axis, "axis"), x.shape.rank, "repeat")[0]
    return apply(REPEAT, [x, r], {"axis": ax}, name=name)


# -- counting ----------------------------------------------------------------------------------

def _bincount_infer(arr, *weights, minlength, maxlength, dtype, binary_output):
    if not arr.dtype.is_integer:
        raise TypeError(f"bincount: arr must be integers, got {arr.dtype.name}.")
    if weights and not weights[0].shape.is_compatible_with(arr.shape):
        raise InvalidArgumentError(f"bincount: weights (shape {weights[0].shape}) must have the "
                                   f"shape of arr ({arr.shape}).")
    size = minlength if minlength is not None and minlength == maxlength else None
    return TensorShape([size]), (weights[0].dtype if weights and not binary_output else dtype)


def bincount_length(values: np.ndarray, minlength, maxlength) -> int:
    """The number of bins of non-negative `values`: one past the largest, at least
    `minlength` and at most `maxlength` (each when given)."""
    length = int(values.max()) + 1 if values.size else 0
    if minlength is not None:
        length = max(length, minlength)
    if maxlength is not None:
        length = min(length, maxlength)
    return length


def _bincount_kernel(arr, *weights, minlength, maxlength, dtype, binary_output):
    values = np.ravel(arr).astype(np.int64)
    if values.size and values.min() < 0:
        raise InvalidArgumentError(f"bincount: arr must be non-negative, got {int(values.min())}.")
    w = np.ravel(weights[0]) if weights else None
    if w is not None and w.size != values.size:
        raise InvalidArgumentError(f"bincount: weights ({w.size} values) must have the shape of "
                                   f"arr ({values.size} values).")
    length = bincount_length(values, minlength, maxlength)
    if maxlength is not None:
        keep = values < length
        values = values[keep]
        w = None if w is None else w[keep]
    if binary_output:
        out = np.zeros(length, dtype.as_numpy_dtype)
        out[values] = 1
        return out
    counts = np.bincount(values, weights=w, minlength=length)[:length]
    return counts.astype(w.dtype if w is not None else dtype.as_numpy_dtype)


BINCOUNT = define("Bincount", _bincount_infer, _bincount_kernel, differentiable=False,
                  attrs={"minlength": OPT_INT, "maxlength": OPT_INT, "dtype": DTYPE,
                         "binary_output": BOOL})


@export("math.bincount")
def bincount(arr, weights=None, minlength=None, maxlength=None, dtype=_dtypes.int32, name=None,
             axis=None, binary_output=False) -> Tensor:
    """How often each value 0, 1, ... occurs in the non-negative ints `arr` (or the sum of
    their `weights`); at least `minlength` and at most `maxlength` bins."""
    if axis not in (None, 0):
        raise NotImplementedError("bincount supports axis=None (all of arr) only.")
    arr = convert_to_tensor(arr, dtype_hint=_dtypes.int32)
    ins = [arr]
    if weights is not None:
        w = convert_to_tensor(weights)
        ins.append(w)
    lo = None if minlength is None else array_math.as_int(minlength, "minlength")
    hi = None if maxlength is None else array_math.as_int(maxlength, "maxlength")
    for what, v in (("minlength", lo), ("maxlength", hi)):
        if v is not None and v < 0:
            raise ValueError(f"bincount: {what} must be >= 0, got {v}.")
    return apply(BINCOUNT, ins, {"minlength": lo, "maxlength": hi,
                                 "dtype": _dtypes.as_dtype(dtype),
                                 "binary_output": bool(binary_output)}, name=name)


def _histogram_infer(values, value_range, nbins, dtype):
    if not values.dtype.is_numeric:
        raise TypeError(f"histogram_fixed_width: values must be numeric, got {values.dtype.name}.")
    if value_range.shape.as_tuple() not in (None, (2,)):
        raise InvalidArgumentError(f"histogram_fixed_width: value_range must have shape [2], got "
                                   f"{value_range.shape}.")
    return TensorShape([nbins]), dtype


def _histogram_kernel(values, value_range, nbins, dtype):
    lo, hi = (float(v) for v in np.ravel(value_range))
    if not hi > lo:
        raise InvalidArgumentError(f"histogram_fixed_width: value_range must be increasing, got "
                                   f"[{lo}, {hi}].")
    v = np.ravel(values).astype(np.float64)
    if np.isnan(v).any():  # as TensorFlow's kernel (NumPy's bincount gave a ValueError)
        raise InvalidArgumentError("histogram_fixed_width: values must not contain NaN.")
    bins = np.clip(np.floor((v - lo) / (hi - lo) * nbins), 0, nbins - 1).astype(np.int64)
    return np.bincount(bins, minlength=nbins).astype(dtype.as_numpy_dtype)


HISTOGRAM = define("HistogramFixedWidth", _histogram_infer, _histogram_kernel,
                   differentiable=False, attrs={"nbins": INT, "dtype": DTYPE})


@export("histogram_fixed_width")
def histogram_fixed_width(values, value_range, nbins=100, dtype=_dtypes.int32,
                          name=None) -> Tensor:
    """Counts of `values` in `nbins` equal bins over `value_range` [lo, hi]; values below lo
    count in the first bin, values from hi up in the last."""
    x = convert_to_tensor(values)
    n = array_math.as_int(nbins, "nbins")
    if n <= 0:
        raise ValueError(f"histogram_fixed_width: nbins must be > 0, got {n}.")
    vr = convert_to_tensor(value_range, dtype=x.dtype) if not isinstance(value_range, Tensor) \
        else value_range
    return apply(HISTOGRAM, [x, vr], {"nbins": n, "dtype": _dtypes.as_dtype(dtype)}, name=name)


# -- cumprod ------------------------------------------------------------------------------------

def _cumprod_kernel(x, axis, exclusive, reverse):
    x = np.asarray(x)
    if reverse:
        x = np.flip(x, axis)
    if exclusive:
        head = np.ones_like(np.take(x, [0], axis=axis))
        x = np.concatenate([head, np.take(x, np.arange(x.shape[axis] - 1), axis=axis)], axis=axis)
    out = np.cumprod(x, axis=axis, dtype=x.dtype)
    return np.flip(out, axis) if reverse else out


CUMPROD = define("Cumprod", lambda x, axis, exclusive, reverse: (x.shape, x.dtype),
                 _cumprod_kernel, attrs={"axis": AXIS, "exclusive": BOOL, "reverse": BOOL})


@CUMPROD.def_grad
def _cumprod_grad(op, g):
    # d out_j / d x_i = out_j / x_i for the j that x_i enters: a reversed cumsum of g * out,
    # divided by x (for inputs without zeros)
    x, out = op.inputs[0], op.outputs[0]
    attrs = op.attrs
    summed = array_math.cumsum(array_math.multiply(g, out), attrs["axis"], exclusive=attrs["exclusive"],
                               reverse=not attrs["reverse"])
    return [array_math.divide(summed, x)]


@export("math.cumprod")
def cumprod(x, axis=0, exclusive=False, reverse=False, name=None) -> Tensor:
    """Cumulative product along `axis`; `exclusive` shifts it by one (starting at 1),
    `reverse` multiplies from the end."""
    t = convert_to_tensor(x)
    ax = _axis(t, axis, "cumprod")
    return apply(CUMPROD, [t], {"axis": ax, "exclusive": bool(exclusive),
                                "reverse": bool(reverse)}, name=name)


# -- sequence_mask (composed) -------------------------------------------------------------------

@export("sequence_mask")
def sequence_mask(lengths, maxlen=None, dtype=_dtypes.bool_, name=None) -> Tensor:
    """mask[..., j] = j < lengths[...]: one row of `maxlen` (default: the largest length)
    entries per length, as `dtype`."""
    lengths = convert_to_tensor(lengths, dtype_hint=_dtypes.int32)
    if not lengths.dtype.is_integer:
        raise TypeError(f"sequence_mask: lengths must be integers, got {lengths.dtype.name}.")
    if maxlen is None:
        maxlen = array_math.reduce_max(lengths) if lengths.shape.rank != 0 else lengths
        maxlen = array_math.maximum(maxlen, 0)
    positions = array_math.range(array_math.cast(convert_to_tensor(maxlen, dtype_hint=lengths.dtype),
                                                 lengths.dtype))
    mask = array_math.less(positions, array_math.expand_dims(lengths, -1))
    dtype = _dtypes.as_dtype(dtype)
    return mask if dtype.is_bool else array_math.cast(mask, dtype, name=name)
