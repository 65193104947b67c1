"""Operations on RaggedTensors, composed from dense ops on their values and row splits (so
they stage and differentiate with respect to the values): row gathers, the positions of
values in their rows, per-row slicing, broadcasting with dense tensors, reductions along
ragged axes, concatenation, tiling, reversal and conversions to and from sparse tensors.
`ragged_dispatch` publishes them under the rt APIs a TensorFlow user calls (`rt.concat`,
`rt.reduce_sum`, `rt.add`, ...).
"""

from __future__ import annotations

import builtins
import numbers
from typing import Any, Callable

import numpy as np

from .. import dtypes as _dtypes
from ..context import current_graph
from ..errors import InvalidArgumentError
from ..graph import constant_value
from ..tensor import Tensor
from . import array_math
from . import array_scatter as _scatter
from . import array_sort as _sort
from .control_flow import while_loop
from .control_flow_functional import map_fn
from .core import convert_to_tensor
from .ragged import OPS, RaggedTensor
from .sparse import SparseTensor
from .tensor_array import TensorArray


def _i64(t) -> Tensor:
    t = convert_to_tensor(t)
    return t if t.dtype is _dtypes.int64 else array_math.cast(t, _dtypes.int64)


def rank_of(x) -> int | None:
    return x.shape.rank


# -- positions and row gathers ------------------------------------------------------------------

def positions(x: RaggedTensor) -> Tensor:
    """The position of each value of `x.values` within its row (int64)."""
    splits = _i64(x.row_splits)
    ids = _i64(x.value_rowids())
    return array_math.subtract(array_math.range(array_math.size(ids, out_type=_dtypes.int64)),
                               _scatter.gather(splits[:-1], ids))


def ragged_range_indices(starts: Tensor, lengths: Tensor) -> tuple[Tensor, Tensor]:
    """(indices, splits): row i holds starts[i], starts[i] + 1, ... (lengths[i] of them)."""
    starts, lengths = _i64(starts), _i64(lengths)
    splits = array_math.concat([array_math.zeros([1], _dtypes.int64), array_math.cumsum(lengths)], 0)
    total = splits[-1]
    offsets = _sort.repeat(array_math.subtract(starts, splits[:-1]), lengths)
    return array_math.add(array_math.range(total), offsets), splits


def gather_rows(values, indices: Tensor):
    """values[indices] along the first axis, for a Tensor or a RaggedTensor."""
    if isinstance(values, RaggedTensor):
        splits = _i64(values.row_splits)
        idx = _i64(indices)
        starts = _scatter.gather(splits[:-1], idx)
        lengths = array_math.subtract(_scatter.gather(splits[1:], idx), starts)
        inner, new_splits = ragged_range_indices(starts, lengths)
        return RaggedTensor(gather_rows(values.values, inner),
                            array_math.cast(new_splits, values.row_splits.dtype))
    return _scatter.gather(values, indices)


def expand_dims(x: RaggedTensor, axis: int) -> RaggedTensor:
    """A new dimension of size 1 at `axis` (0: one row holding x; 1: each row alone)."""
    rank = rank_of(x)
    if axis < 0:
        axis += rank + 1
    dtype = x.row_splits.dtype
    if axis == 0:
        bounds = array_math.stack([array_math.zeros([], _dtypes.int64), x.nrows(out_type=_dtypes.int64)])
        return RaggedTensor(x, array_math.cast(bounds, dtype))
    if axis == 1:
        return RaggedTensor(x, array_math.cast(array_math.range(x.nrows(out_type=_dtypes.int64) + 1), dtype))
    values = x.values
    inner = expand_dims(values, axis - 1) if isinstance(values, RaggedTensor) \
        else array_math.expand_dims(values, axis - 1)
    return x.with_values(inner)


# -- indexing of inner axes ---------------------------------------------------------------------

def getitem(x: RaggedTensor, key: tuple):
    """x[key] for a tuple `key` (ints, slices, None, one Ellipsis)."""
    if sum(k is Ellipsis for k in key) > 1:
        raise IndexError("An index can only have one ellipsis (...).")
    if Ellipsis in [k for k in key if not isinstance(k, (Tensor, np.ndarray))]:
        at = next(i for i, k in enumerate(key) if k is Ellipsis)
        used = sum(1 for k in key if k is not None and k is not Ellipsis)
        fill = builtins.max((rank_of(x) or used) - used, 0)
        key = key[:at] + (builtins.slice(None),) * fill + key[at + 1:]
    if not key:
        return x
    k0, rest = key[0], key[1:]
    if k0 is None:
        return getitem(expand_dims(x, 0), (builtins.slice(None),) + rest)
    first = x[k0]
    if not rest:
        return first
    if isinstance(k0, builtins.slice):
        if all(isinstance(k, builtins.slice) and k == builtins.slice(None) for k in rest):
            return first
        return index_inner(first, rest)
    return first[rest if len(rest) > 1 else rest[0]]


def index_inner(x: RaggedTensor, key: tuple):
    """x[:, key[0], key[1], ...]: the rows of `x` indexed along their own axes."""
    if not key:
        return x
    k, rest = key[0], key[1:]
    if k is None:
        return index_inner(expand_dims(x, 1), (builtins.slice(None),) + rest)
    splits = _i64(x.row_splits)
    starts, limits = splits[:-1], splits[1:]
    lengths = array_math.subtract(limits, starts)
    if isinstance(k, builtins.slice):
        if k.step not in (None, 1):
            idx, new_splits = _stepped(k, starts, lengths)
            values = gather_rows(x.values, idx)
            if rest:
                values = _index_values(values, rest)
            return RaggedTensor(values, array_math.cast(new_splits, x.row_splits.dtype))
        lo = _clamp_bound(k.start, lengths, 0)
        hi = _clamp_bound(k.stop, lengths, None)
        hi = array_math.maximum(hi, lo)
        idx, new_splits = ragged_range_indices(array_math.add(starts, lo), array_math.subtract(hi, lo))
        values = gather_rows(x.values, idx)
        if rest:
            values = _index_values(values, rest)
        return RaggedTensor(values, array_math.cast(new_splits, x.row_splits.dtype))
    if isinstance(k, (numbers.Integral, np.integer, Tensor)):
        i = _i64(k)
        known_i = constant_value(i)
        known_len = constant_value(lengths)
        if known_i is not None and known_len is not None and known_len.size:
            j = int(known_i)
            bad = (known_len <= j) if j >= 0 else (known_len < -j)
            if bad.any():
                raise InvalidArgumentError(f"Index {j} is out of range for a ragged axis with "
                                           f"rows of lengths {known_len.tolist()}.")
        at = array_math.where(array_math.less(i, 0), array_math.add(limits, i), array_math.add(starts, i))
        values = gather_rows(x.values, at)
        return _index_values(values, rest) if rest else values
    raise TypeError(f"RaggedTensor indices must be integers, slices, None or ..., got "
                    f"{type(k).__name__}.")


def _index_values(values, rest: tuple):
    """values[:, *rest] (the first axis kept): for the items of the rows of a RaggedTensor."""
    if isinstance(values, RaggedTensor):
        return index_inner(values, rest)
    return values[(builtins.slice(None),) + tuple(rest)]


def _stepped(k: builtins.slice, starts: Tensor, lengths: Tensor) -> tuple[Tensor, Tensor]:
    """(indices into the values, new row splits) of `row[k]` for every row, Python's slice
    rules applied to each row's length."""
    step = int(k.step)
    if step == 0:
        raise ValueError("slice step cannot be zero")
    zero, minus_one = array_math.zeros_like(lengths), array_math.subtract(array_math.zeros_like(lengths), 1)

    def bound(b, default, low, high):
        if b is None:
            return default
        b = _i64(b)
        value = array_math.where(array_math.less(b, 0), array_math.add(lengths, b),
                                 array_math.add(zero, b))
        return array_math.minimum(array_math.maximum(value, low), high)

    if step > 0:
        lo = bound(k.start, zero, zero, lengths)
        hi = bound(k.stop, lengths, zero, lengths)
        count = array_math.floordiv(array_math.add(array_math.subtract(hi, lo), step - 1), step)
    else:
        last = array_math.subtract(lengths, 1)
        lo = bound(k.start, last, minus_one, last)
        hi = bound(k.stop, minus_one, minus_one, last)
        count = array_math.floordiv(array_math.add(array_math.subtract(lo, hi), -step - 1), -step)
    count = array_math.maximum(count, zero)
    splits = array_math.concat([array_math.zeros([1], _dtypes.int64), array_math.cumsum(count)], 0)
    k_of = array_math.subtract(array_math.range(splits[-1]), _sort.repeat(splits[:-1], count))
    base = _sort.repeat(array_math.add(starts, lo), count)
    return array_math.add(base, array_math.multiply(k_of, step)), splits


def _clamp_bound(bound, lengths: Tensor, default) -> Tensor:
    """A slice bound per row: None -> 0 or the length; negative counts from the end."""
    if bound is None:
        return lengths if default is None else array_math.zeros_like(lengths)
    b = _i64(bound)
    value = array_math.where(array_math.less(b, 0), array_math.add(lengths, b),
                             array_math.add(array_math.zeros_like(lengths), b))
    return array_math.minimum(array_math.maximum(value, array_math.zeros_like(lengths)), lengths)


# -- broadcasting with dense tensors ------------------------------------------------------------

def _dims(t: Tensor) -> tuple | None:
    return t.shape.as_tuple()


def broadcast_binary(fn: Callable, x, y):
    """fn(x, y) for a RaggedTensor and a RaggedTensor, Tensor or Python value."""
    if isinstance(x, RaggedTensor) and isinstance(y, RaggedTensor):
        _check_same(x, y)
        return x.with_flat_values(fn(x.flat_values, y.flat_values))
    if isinstance(x, RaggedTensor):
        return x.with_flat_values(fn(x.flat_values, _dense_like(x, y)))
    return y.with_flat_values(fn(_dense_like(y, x), y.flat_values))


def _check_same(x: RaggedTensor, y: RaggedTensor) -> None:
    sx, sy = x.nested_row_splits, y.nested_row_splits
    if len(sx) != len(sy):
        raise ValueError(f"RaggedTensors of different ragged ranks ({len(sx)} and {len(sy)}) do "
                         "not broadcast here.")
    for a, b in zip(sx, sy):
        ka, kb = constant_value(a), constant_value(b)
        if ka is not None and kb is not None and (ka.shape != kb.shape or (ka != kb).any()):
            raise InvalidArgumentError("RaggedTensors have different row structures: row "
                                       f"splits {ka.tolist()} and {kb.tolist()}.")
    fx, fy = x.flat_values.shape.as_tuple(), y.flat_values.shape.as_tuple()
    if fx is not None and fy is not None and len(fx) != len(fy):
        raise ValueError(f"RaggedTensors of different ranks ({len(sx) + len(fx)} and "
                         f"{len(sy) + len(fy)}) do not broadcast here.")
    if fx is not None and fy is not None:
        for a, b in zip(fx[1:][::-1], fy[1:][::-1]):
            if a is not None and b is not None and a != b and 1 not in (a, b):
                raise InvalidArgumentError(f"RaggedTensors' inner dimensions do not broadcast: "
                                           f"{list(fx[1:])} and {list(fy[1:])}.")


def _dense_like(x: RaggedTensor, y):
    """`y` arranged to broadcast against `x.flat_values` (its leading axis the values')."""
    if isinstance(y, (numbers.Number, np.generic, str, bytes)):
        return y
    y = convert_to_tensor(y, dtype=x.dtype if not isinstance(y, Tensor) else None)
    ry, rx = y.shape.rank, rank_of(x)
    if ry is None or rx is None:
        raise ValueError("Broadcasting a RaggedTensor with a tensor needs both ranks known.")
    inner = rx - 1 - x.ragged_rank  # the dense dimensions of flat_values after its first
    if ry <= inner:
        return y
    if ry > rx:
        raise ValueError(f"A tensor of rank {ry} does not broadcast to a RaggedTensor of rank "
                         f"{rx}.")
    for _ in builtins.range(rx - ry):
        y = array_math.expand_dims(y, 0)
    return _spread(x, y)


def _spread(x, y: Tensor) -> Tensor:
    """y (of x's rank) for x.values: row i of x takes y[i] (or y[0] when y's first axis is 1),
    and the ragged axis must have size 1 in y."""
    dims = _dims(y)
    d1 = dims[1]
    if d1 is not None and d1 != 1:
        lengths = constant_value(x.row_lengths()) if isinstance(x, RaggedTensor) else None
        if lengths is None or lengths.size == 0 or not (lengths == d1).all():
            raise InvalidArgumentError(f"A dense dimension of size {d1} does not broadcast "
                                       "against a ragged dimension (rows of different "
                                       "lengths); give it size 1.")
        # every row has length d1: y's axis 1 lines up with the rows' items
        per_value = array_math.reshape(_take_rows(x, y), array_math.concat(
            [[-1], array_math.shape(y)[2:]], 0))
    else:
        per_value = _take_rows(x, y[:, 0])
    if isinstance(x.values, RaggedTensor):
        return _spread(x.values, per_value)
    return per_value


def _take_rows(x: RaggedTensor, y: Tensor) -> Tensor:
    d0 = _dims(y)[0]
    if d0 == 1:
        return y
    known_rows = x.shape.as_tuple()[0]
    if d0 is not None and known_rows is not None and d0 != known_rows:
        raise InvalidArgumentError(f"A dense dimension of size {d0} does not broadcast against "
                                   f"{known_rows} rows.")
    return _scatter.gather(y, x.value_rowids())


# -- reductions ---------------------------------------------------------------------------------

_SEGMENT = {"sum": _scatter.unsorted_segment_sum, "max": _scatter.unsorted_segment_max,
            "min": _scatter.unsorted_segment_min, "prod": _scatter.unsorted_segment_prod}


def reduce(kind: str, x: RaggedTensor, axis=None, keepdims: bool = False):
    """reduce_<kind> of a RaggedTensor (`kind`: sum, max, min, prod, mean, any, all,
    variance, std); `keepdims` keeps each reduced axis with size 1."""
    out = _reduce(kind, x, axis)
    if not keepdims:
        return out
    rank = rank_of(x)
    if axis is None:
        return array_math.reshape(out, [1] * rank)
    for a in sorted(set(_axes(axis, rank))):
        out = expand_dims(out, a) if isinstance(out, RaggedTensor) else array_math.expand_dims(out, a)
    return out


def _reduce(kind: str, x: RaggedTensor, axis=None):
    if kind in ("variance", "std"):
        if not x.dtype.is_floating:
            raise TypeError(f"reduce_{kind} needs floating-point values, got {x.dtype.name}.")
        mean = _reduce("mean", x, axis)
        mean_sq = _reduce("mean", x.with_flat_values(array_math.square(x.flat_values)), axis)
        var = _binary_any(lambda a, b: array_math.maximum(array_math.subtract(a, array_math.square(b)),
                                                          array_math.zeros_like(a)), mean_sq, mean)
        return var if kind == "variance" else _map_any(array_math.sqrt, var)
    if kind == "mean":
        values = x.flat_values
        if not values.dtype.is_floating:
            x = x.with_flat_values(array_math.cast(values, _dtypes.float64))
        total = _reduce("sum", x, axis)
        count = _reduce("sum", x.with_flat_values(array_math.ones_like(x.flat_values)), axis)
        return _binary_any(array_math.truediv, total, count)
    if kind in ("any", "all"):  # counts of True (any) or of False (all): empty rows are right
        flat = x.flat_values if kind == "any" else array_math.logical_not(x.flat_values)
        counts = _reduce("sum", x.with_flat_values(array_math.cast(flat, _dtypes.int32)), axis)
        test = array_math.greater if kind == "any" else array_math.equal
        return _map_any(lambda v: test(v, array_math.zeros_like(v)), counts)
    dense = {"sum": array_math.reduce_sum, "max": array_math.reduce_max,
             "min": array_math.reduce_min, "prod": array_math.reduce_prod}[kind]
    if axis is None:
        return dense(x.flat_values)
    rank = rank_of(x)
    axes = _axes(axis, rank)
    out: Any = x
    for a in sorted(set(axes), reverse=True):
        out = _reduce_axis(kind, dense, out, a) if isinstance(out, RaggedTensor) \
            else dense(out, axis=a)
    return out


def _axes(axis, rank) -> list[int]:
    known = constant_value(axis) if isinstance(axis, Tensor) else axis
    if known is None:
        raise ValueError("The `axis` of a RaggedTensor reduction must be known when traced.")
    items = np.atleast_1d(np.asarray(known)).tolist()
    out = []
    for a in items:
        a = int(a)
        if rank is not None:
            if not -rank <= a < rank:
                raise ValueError(f"`axis` {a} is out of range for a RaggedTensor of rank {rank}.")
            a %= rank
        out.append(a)
    return out


def _reduce_axis(kind: str, dense: Callable, x: RaggedTensor, axis: int):
    if axis == 0:  # x as the one row of a RaggedTensor, reduced along that row's items
        outer = RaggedTensor(x, array_math.cast(array_math.stack(
            [array_math.zeros([], _dtypes.int64), x.nrows(out_type=_dtypes.int64)]), x.row_splits.dtype))
        return _reduce_items(kind, outer)[0]
    if axis == 1:
        return _reduce_items(kind, x)
    values = x.values
    inner = _reduce_axis(kind, dense, values, axis - 1) if isinstance(values, RaggedTensor) \
        else dense(values, axis=axis - 1)
    return x.with_values(inner)


def _reduce_items(kind: str, x: RaggedTensor):
    """Axis 1 of [B, (r1), (r2), ..., inner]: result[i][p2][p3]... combines x[i][j][p2][p3]...
    over j. Each ragged level below gets rows as long as the longest of those it combines;
    every value goes to the segment of its place in the result."""
    if not isinstance(x.values, RaggedTensor):
        return _SEGMENT[kind](x.values, x.value_rowids(), x.nrows())
    cur, out_of_row = x.values, _i64(x.value_rowids())   # the items j and the result row of each
    count = x.nrows(out_type=_dtypes.int64)
    all_splits = []
    while True:
        lengths = _scatter.unsorted_segment_max(_i64(cur.row_lengths()), out_of_row, count)
        lengths = array_math.maximum(lengths, array_math.zeros_like(lengths))
        splits = array_math.concat([array_math.zeros([1], _dtypes.int64), array_math.cumsum(lengths)], 0)
        all_splits.append(splits)
        place = array_math.add(_scatter.gather(splits, _scatter.gather(out_of_row, _i64(cur.value_rowids()))),
                               positions(cur))
        if not isinstance(cur.values, RaggedTensor):
            values = _SEGMENT[kind](cur.values, place, splits[-1])
            break
        cur, out_of_row, count = cur.values, place, splits[-1]
    for splits in reversed(all_splits):
        values = RaggedTensor(values, array_math.cast(splits, x.row_splits.dtype))
    return values


def _map_any(fn: Callable, v):
    return v.with_flat_values(fn(v.flat_values)) if isinstance(v, RaggedTensor) else fn(v)


def _binary_any(fn: Callable, a, b):
    if isinstance(a, RaggedTensor):
        return a.with_flat_values(fn(a.flat_values, b.flat_values))
    return fn(a, b)


# -- concat, stack, tile, reverse ---------------------------------------------------------------

def as_ragged(value, like: RaggedTensor) -> RaggedTensor:
    """`value` as a RaggedTensor of `like`'s ragged rank (a dense one has uniform rows)."""
    if isinstance(value, RaggedTensor):
        return value
    t = convert_to_tensor(value, dtype=like.dtype)
    return RaggedTensor.from_tensor(t, ragged_rank=builtins.min(like.ragged_rank, t.shape.rank - 1),
                                    row_splits_dtype=like.row_splits.dtype)


def concat(values: list, axis: int):
    """Concatenation of RaggedTensors (and dense tensors) along `axis`."""
    first = next(v for v in values if isinstance(v, RaggedTensor))
    rank = rank_of(first)
    axis = _axes(axis, rank)[0]
    parts = [as_ragged(v, first) for v in values]
    if len({p.ragged_rank for p in parts}) != 1:
        raise ValueError("rt.concat: RaggedTensors of different ragged ranks: "
                         f"{[p.ragged_rank for p in parts]}.")
    if axis == 0:
        return _concat_rows(parts)
    if axis == 1:
        return _concat_within_rows(parts)
    for p in parts[1:]:
        _check_outer(parts[0], p)
    inner = [p.values for p in parts]
    if isinstance(inner[0], RaggedTensor):
        return parts[0].with_values(concat(inner, axis - 1))
    return parts[0].with_values(array_math.concat(inner, axis - 1))


def _check_outer(a: RaggedTensor, b: RaggedTensor) -> None:
    ka, kb = constant_value(a.row_splits), constant_value(b.row_splits)
    if ka is not None and kb is not None and (ka.shape != kb.shape or (ka != kb).any()):
        raise InvalidArgumentError("rt.concat: the RaggedTensors' rows differ in length along "
                                   "an axis before the concatenation axis.")


def _concat_rows(parts: list) -> RaggedTensor:
    dtype = parts[0].row_splits.dtype
    splits, offset = [], None
    for p in parts:
        s = _i64(p.row_splits)
        if offset is None:
            splits.append(s)
            offset = s[-1]
        else:
            splits.append(array_math.add(s[1:], offset))
            offset = array_math.add(offset, s[-1])
    inner = [p.values for p in parts]
    values = _concat_rows(inner) if isinstance(inner[0], RaggedTensor) else array_math.concat(inner, 0)
    return RaggedTensor(values, array_math.cast(array_math.concat(splits, 0), dtype))


def _concat_within_rows(parts: list) -> RaggedTensor:
    nrows = [p.shape.as_tuple()[0] for p in parts]
    if len({n for n in nrows if n is not None}) > 1:
        raise InvalidArgumentError(f"rt.concat along axis 1 needs the same number of rows, got "
                                   f"{nrows}.")
    lengths = [_i64(p.row_lengths()) for p in parts]
    total = lengths[0]
    for n in lengths[1:]:
        total = array_math.add(total, n)
    new_splits = array_math.concat([array_math.zeros([1], _dtypes.int64), array_math.cumsum(total)], 0)
    before = array_math.zeros_like(total)
    targets = []
    for p, n in zip(parts, lengths):
        ids = _i64(p.value_rowids())
        at = array_math.add(_scatter.gather(array_math.add(new_splits[:-1], before), ids), positions(p))
        targets.append(at)
        before = array_math.add(before, n)
    order = _sort.argsort(array_math.concat(targets, 0), stable=True)
    inner = [p.values for p in parts]
    allv = _concat_rows(inner) if isinstance(inner[0], RaggedTensor) else array_math.concat(inner, 0)
    return RaggedTensor(gather_rows(allv, order), array_math.cast(new_splits, parts[0].row_splits.dtype))


def stack(values: list, axis: int = 0):
    """Stacking along a new axis: each value gets a dimension of size 1 there, then concat."""
    first = next((v for v in values if isinstance(v, RaggedTensor)), None)
    if first is None:
        tensors = [convert_to_tensor(v) for v in values]
        if axis != 0:
            raise NotImplementedError("rt.ragged.stack of dense tensors supports axis=0 only.")
        lengths = [array_math.shape(t, out_type=_dtypes.int64)[0] for t in tensors]
        return RaggedTensor.from_row_lengths(array_math.concat(tensors, 0), array_math.stack(lengths))
    rank = rank_of(first)
    axis = axis + rank + 1 if axis < 0 else axis
    parts = [as_ragged(v, first) for v in values]
    return concat([expand_dims(p, axis) for p in parts], axis)


def tile(x: RaggedTensor, multiples) -> RaggedTensor:
    known = constant_value(multiples) if isinstance(multiples, Tensor) else np.asarray(multiples)
    if known is None:
        raise ValueError("rt.tile of a RaggedTensor needs `multiples` known when traced.")
    m = [int(v) for v in np.asarray(known).reshape(-1)]
    rank = rank_of(x)
    if rank is not None and len(m) != rank:
        raise ValueError(f"rt.tile: `multiples` has {len(m)} entries for a RaggedTensor of rank "
                         f"{rank}.")
    return _tile(x, m)


def _tile(x, m: list):
    if not isinstance(x, RaggedTensor):
        return array_math.tile(x, m)
    inner = _tile(x.values, [1] + m[2:])  # the items of each row, tiled in their own axes
    out = x.with_values(inner)
    if m[1] != 1:
        out = _concat_within_rows([out] * m[1]) if m[1] > 0 else index_inner(out, (builtins.slice(0, 0),))
    if m[0] != 1:
        out = _concat_rows([out] * m[0]) if m[0] > 0 else out[0:0]
    return out


def reverse(x: RaggedTensor, axis) -> RaggedTensor:
    out = x
    for a in _axes(axis, rank_of(x)):
        out = _reverse_axis(out, a)
    return out


def _reverse_axis(x, axis: int):
    if not isinstance(x, RaggedTensor):
        return array_math.reverse(x, [axis])
    if axis == 0:
        n = x.nrows(out_type=_dtypes.int64)
        return gather_rows(x, array_math.range(n - 1, -1, -1))
    if axis == 1:
        splits = _i64(x.row_splits)
        ids = _i64(x.value_rowids())
        back = array_math.subtract(array_math.add(_scatter.gather(splits[:-1], ids),
                                                  _scatter.gather(splits[1:], ids)),
                                   array_math.add(positions(x), _scatter.gather(splits[:-1], ids)))
        back = array_math.subtract(back, 1)
        return x.with_values(gather_rows(x.values, back))
    return x.with_values(_reverse_axis(x.values, axis - 1))


# -- boolean_mask, map_fn ------------------------------------------------------------------------

def boolean_mask(data, mask):
    """The items of `data` where `mask` (a prefix of data's shape, dense or ragged) is True;
    masking inside the rows keeps the rows (shorter)."""
    if isinstance(mask, RaggedTensor):
        data = data if isinstance(data, RaggedTensor) else as_ragged(data, mask)
        if isinstance(mask.values, RaggedTensor):
            return data.with_values(boolean_mask(data.values, mask.values))
        keep = convert_to_tensor(mask.values)
        counts = _scatter.unsorted_segment_sum(array_math.cast(keep, _dtypes.int64),
                                               mask.value_rowids(), mask.nrows())
        where = array_math.where(keep)[:, 0]
        return RaggedTensor(gather_rows(data.values, where), array_math.cast(
            array_math.concat([array_math.zeros([1], _dtypes.int64), array_math.cumsum(counts)], 0),
            data.row_splits.dtype))
    m = convert_to_tensor(mask)
    if m.shape.rank == 1:
        kept = array_math.where(m)[:, 0]
        return gather_rows(data, kept) if isinstance(data, RaggedTensor) \
            else array_math.boolean_mask(data, m)
    if isinstance(data, RaggedTensor):
        return boolean_mask(data, as_ragged(m, data))
    x = convert_to_tensor(data)
    if m.shape.rank != 2:
        raise ValueError(f"`mask` must be a vector, a matrix or a RaggedTensor, got shape {m.shape}.")
    lengths = array_math.reduce_sum(array_math.cast(m, _dtypes.int64), axis=1)
    return RaggedTensor.from_row_lengths(array_math.boolean_mask(x, m), lengths)


def map_rows(fn: Callable, elems, signature):
    """map_fn over the rows of a RaggedTensor or SparseTensor."""
    if current_graph() is None:
        n = int(elems.nrows()) if isinstance(elems, RaggedTensor) else int(constant_value(elems.dense_shape)[0])
        rows = [_row(elems, i) for i in builtins.range(n)]
        results = [fn(r) for r in rows]
        return _stack_results(results, signature)
    count = elems.nrows() if isinstance(elems, RaggedTensor) else elems.dense_shape[0]
    if signature is not None and not _is_ragged_spec(signature):
        return map_fn(lambda i: fn(_row(elems, i)), array_math.range(count), fn_output_signature=signature)
    return _staged_ragged_map(fn, elems, count, signature)


def _staged_ragged_map(fn: Callable, elems, count, signature) -> RaggedTensor:
    """A staged map whose rows may differ in length: each row's result (a tensor, or a
    RaggedTensor: its flat values and the row lengths of each of its ragged levels) is written
    to TensorArrays, which are concatenated and cut by the lengths again."""
    dtype = signature.dtype if signature is not None else elems.dtype
    if signature is not None:
        levels = signature.ragged_rank - 1
    else:
        levels = elems.ragged_rank - 1 if isinstance(elems, RaggedTensor) else 0
    values = TensorArray(dtype, size=0, dynamic_size=True, infer_shape=False)
    lengths = [TensorArray(_dtypes.int64, size=0, dynamic_size=True, infer_shape=False)
               for _ in builtins.range(levels + 1)]

    def body(i, values, *lengths):
        out = fn(_row(elems, i))
        got = out.ragged_rank if isinstance(out, RaggedTensor) else 0
        if isinstance(out, SparseTensor) or not isinstance(out, (Tensor, RaggedTensor)) or got != levels:
            raise TypeError("map_fn over a RaggedTensor inside rt.function: fn must return "
                            f"{'a tensor' if levels == 0 else f'a RaggedTensor of ragged_rank {levels}'} "
                            f"(the rows of the result, as fn_output_signature says), got {out!r:.80}.")
        if out.dtype != dtype:
            raise TypeError(f"map_fn: fn returned {out.dtype.name}, but {dtype.name} was expected "
                            "(give fn_output_signature).")
        if isinstance(out, Tensor) and out.shape.rank == 0:
            raise ValueError("map_fn over a RaggedTensor inside rt.function: fn returned a "
                             "scalar; give fn_output_signature=rt.TensorSpec([], dtype).")
        if isinstance(out, RaggedTensor):
            row_sizes = [array_math.reshape(out.nrows(out_type=_dtypes.int64), [1])]
            row_sizes += [_i64(t) for t in out.nested_row_lengths()]
            flat = out.flat_values
        else:
            row_sizes = [array_math.reshape(array_math.shape(out, out_type=_dtypes.int64)[0], [1])]
            flat = out
        return (i + 1, values.write(i, flat)) + tuple(ta.write(i, n) for ta, n in zip(lengths, row_sizes))

    _, values, *lengths = while_loop(lambda i, *_: array_math.less(i, count), body,
                                     [array_math.zeros([], count.dtype), values, *lengths])
    return RaggedTensor.from_nested_row_lengths(values.concat(), [ta.concat() for ta in lengths])


def _is_ragged_spec(spec) -> bool:
    return type(spec).__name__ == "RaggedTensorSpec"


def _row(elems, i):
    if isinstance(elems, RaggedTensor):
        return elems[i]
    ids = elems.indices
    keep = array_math.equal(ids[:, 0], _i64(i))
    return SparseTensor(array_math.boolean_mask(ids, keep)[:, 1:],
                        array_math.boolean_mask(elems.values, keep), elems.dense_shape[1:])


def _stack_results(results: list, signature):
    if not results:
        raise ValueError("map_fn over an empty RaggedTensor needs no rows to map.")
    first = results[0]
    if isinstance(first, SparseTensor):
        idx = [array_math.concat([array_math.fill([array_math.shape(r.indices)[0], 1], np.int64(i)),
                                  r.indices], 1) for i, r in enumerate(results)]
        return SparseTensor(array_math.concat(idx, 0), array_math.concat([r.values for r in results], 0),
                            array_math.concat([[len(results)], first.dense_shape], 0))
    dense_sig = signature is not None and not _is_ragged_spec(signature)
    if dense_sig or (all(isinstance(r, Tensor) for r in results) and signature is not None):
        return array_math.stack([convert_to_tensor(r) for r in results])
    return stack(results, 0)


# -- reducing the innermost rows --------------------------------------------------------------------

def innermost(x: RaggedTensor) -> RaggedTensor:
    """The RaggedTensor at the bottom of `x` (its values are the flat values)."""
    while isinstance(x.values, RaggedTensor):
        x = x.values
    return x


def replace_innermost(x: RaggedTensor, per_row: Tensor):
    """`x` with its innermost rows replaced by one value each (`per_row`): one rank less."""
    if not isinstance(x.values, RaggedTensor):
        return per_row
    return x.with_values(replace_innermost(x.values, per_row))


def reduce_join(x: RaggedTensor, axis, keepdims: bool, separator: str, join: Callable,
                reduce_join_dense: Callable):
    """strings.reduce_join of a RaggedTensor of strings along its last axis (or all)."""
    if keepdims:
        raise NotImplementedError("strings.reduce_join of a RaggedTensor: keepdims=True is not "
                                  "supported.")
    if axis is None:
        return reduce_join_dense(array_math.reshape(x.flat_values, [-1]), separator=separator)
    rank = rank_of(x)
    if x.flat_values.shape.rank != 1 or _axes(axis, rank) != [rank - 1]:
        raise NotImplementedError("strings.reduce_join of a RaggedTensor joins along its last "
                                  "(ragged) axis or all axes only.")
    rows = innermost(x)
    # the separator goes in front of every value but a row's first: padding b"" then adds nothing
    first = array_math.equal(positions(rows), 0)
    with_sep = join([array_math.fill(array_math.shape(rows.values), separator), rows.values])
    marked = rows.with_values(array_math.where(first, rows.values, with_sep))
    joined = reduce_join_dense(marked.to_tensor(default_value=""), axis=1, separator="")
    return replace_innermost(x, joined)


# -- sparse -------------------------------------------------------------------------------------

def to_sparse(x: RaggedTensor):
    """The SparseTensor with an entry for each value of `x` (the bounding shape dense)."""
    idx = _sparse_indices(x)
    flat = x.flat_values
    values = array_math.reshape(flat, [-1]) if flat.shape.rank != 1 else flat
    return SparseTensor(idx, values, x.bounding_shape(out_type=_dtypes.int64))


def _sparse_indices(x) -> Tensor:
    if not isinstance(x, RaggedTensor):
        if x.shape.rank == 1:
            return array_math.expand_dims(array_math.range(array_math.size(x, out_type=_dtypes.int64)), 1)
        return _i64(array_math.where(array_math.ones_like(x, dtype=_dtypes.bool_)
                                     if x.dtype is not _dtypes.string else
                                     array_math.fill(array_math.shape(x), True)))
    inner = _sparse_indices(x.values)
    rows = _scatter.gather(_i64(x.value_rowids()), inner[:, 0])
    cols = _scatter.gather(positions(x), inner[:, 0])
    return array_math.concat([array_math.stack([rows, cols], 1), inner[:, 1:]], 1)


def from_sparse(st, row_splits_dtype=_dtypes.int64) -> RaggedTensor:
    """A RaggedTensor of a rank-2 SparseTensor whose entries fill each row from column 0."""
    rank = st.indices.shape.as_tuple()[1] if st.indices.shape.rank == 2 else None
    if rank is not None and rank != 2:
        raise ValueError(f"RaggedTensor.from_sparse needs a rank-2 SparseTensor, got rank {rank}.")
    r = RaggedTensor.from_value_rowids(st.values, st.indices[:, 0], nrows=st.dense_shape[0])
    return RaggedTensor(r.values, array_math.cast(r.row_splits, row_splits_dtype))


OPS.update(getitem=getitem, gather_rows=gather_rows, expand_dims=expand_dims, broadcast=broadcast_binary,
           to_sparse=to_sparse, from_sparse=from_sparse, boolean_mask=boolean_mask, stack=stack)
