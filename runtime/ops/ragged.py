"""Ragged tensors (`rt.ragged`, `rt.RaggedTensor`): rows of different lengths, held as the
concatenated `values` of all rows and the int64 `row_splits` that cut them into rows (row i
is `values[row_splits[i]:row_splits[i + 1]]`). `values` may itself be a RaggedTensor: each
ragged dimension adds one level of splits; `flat_values` is the dense tensor at the bottom.

Conversions are composed from existing ops (gather, scatter_nd, repeat, ...), so they stage
and differentiate with respect to the values. A RaggedTensor is a nest of its `values` and
`row_splits` (a dataclass), so it can be an argument or result of `rt.function`; calls are
keyed by the shapes of those tensors.
"""

from __future__ import annotations

import builtins
import dataclasses
import numbers
from typing import Any, Callable

import numpy as np

from .. import dtypes as _dtypes
from ..errors import InvalidArgumentError
from ..exports import export
from ..graph import constant_value
from ..shapes import TensorShape, TensorSpec
from ..tensor import Tensor
from . import array_math
from . import array_scatter as _scatter
from . import array_sort as _sort
from .core import convert_to_tensor
from .extension_type import CompositeTensor, TypeSpec, register_composite

_CONVERTIBLE = (Tensor, list, tuple, np.ndarray, np.generic, numbers.Number, bytes, str)

class _Operations(dict):
    """The operations ragged_ops (which builds on this module) fills: inner indexing,
    broadcasting, sparse. A missing one loads that family first (`loader`, set by runtime.ops).
    (The rt APIs take RaggedTensors through ragged_dispatch, loaded on their first refusal of one.)
    """

    loader: Callable[[], None] | None = None

    def __missing__(self, name: str) -> Callable:
        if self.loader is not None:
            self.loader()
            if name in self:
                return dict.__getitem__(self, name)
        raise KeyError(name)


OPS = _Operations()


def _splits(value, what: str) -> Tensor:
    if not isinstance(value, Tensor):
        array = np.asarray(value)
        if array.size and array.dtype.kind not in "iu":
            raise TypeError(f"`{what}` must hold integers, got {value!r:.60}.")
        value = array.astype(np.int64)
    t = convert_to_tensor(value)
    if not t.dtype.is_integer:
        raise TypeError(f"`{what}` must hold integers, got dtype {t.dtype.name}.")
    if t.shape.rank not in (1, None):
        raise ValueError(f"`{what}` must be a vector, got shape {t.shape}.")
    return t if t.dtype in (_dtypes.int64, _dtypes.int32) else array_math.cast(t, _dtypes.int64)


@export("RaggedTensor", "ragged.RaggedTensor")
@dataclasses.dataclass(eq=False, repr=False)
class RaggedTensor(CompositeTensor):
    """A tensor whose rows have different lengths. Build one with `rt.ragged.constant` or
    the `from_row_splits` / `from_row_lengths` / `from_value_rowids` / `from_tensor` class
    methods; `to_tensor()` pads it, `to_list()` gives nested Python lists.

        r = rt.ragged.constant([[0, 1, 2, 3], [4, 5], [6, 7, 8], [9]])
        r.row_lengths()     # [4, 2, 3, 1]
        r + 1, r * r        # elementwise, same row structure
    """

    values: Any
    row_splits: Tensor

    def __post_init__(self) -> None:
        if isinstance(self.values, RaggedTensor):
            pass
        elif isinstance(self.values, _CONVERTIBLE):
            self.values = convert_to_tensor(self.values)
        else:
            return  # a structure template of rt.function (TensorSpecs in place of tensors)
        if not isinstance(self.row_splits, _CONVERTIBLE):
            return
        self.row_splits = _splits(self.row_splits, "row_splits")
        if isinstance(self.values, Tensor) and self.values.shape.rank == 0:
            raise ValueError("`values` of a RaggedTensor must have rank >= 1, got a scalar.")

    @classmethod
    def __nest_from_fields__(cls, fields: dict) -> RaggedTensor:
        """A RaggedTensor of its components as they are (arrays inside a dataset pipeline,
        tensors outside), without converting or checking them again."""
        out = object.__new__(cls)
        out.values, out.row_splits = fields["values"], fields["row_splits"]
        return out

    # -- construction -------------------------------------------------------------------------

    @classmethod
    def from_row_splits(cls, values, row_splits, name=None, validate: bool = True) -> RaggedTensor:
        """Rows `values[row_splits[i]:row_splits[i + 1]]`: `row_splits` starts at 0, never
        decreases and ends at the number of values (checked when known eagerly)."""
        result = cls(values, row_splits)
        if validate:
            _validate_splits(result)
        return result

    @classmethod
    def from_row_lengths(cls, values, row_lengths, name=None, validate: bool = True) -> RaggedTensor:
        """Rows of the given lengths, cut from `values` in order."""
        lengths = _splits(row_lengths, "row_lengths")
        known = constant_value(lengths)
        if known is not None and (known < 0).any():
            raise InvalidArgumentError(f"`row_lengths` must not be negative, got {known.tolist()}.")
        zero = array_math.zeros([1], dtype=lengths.dtype)
        splits = array_math.concat([zero, _cumsum(lengths)], 0)
        return cls.from_row_splits(values, splits, validate=validate)

    @classmethod
    def from_value_rowids(cls, values, value_rowids, nrows=None, name=None,
                          validate: bool = True) -> RaggedTensor:
        """Rows from the row id of each value (ids never decrease); `nrows` (default: the last
        id + 1) allows empty rows at the end."""
        ids = _splits(value_rowids, "value_rowids")
        known = constant_value(ids)
        if known is not None and known.size and ((known < 0).any() or (np.diff(known) < 0).any()):
            raise InvalidArgumentError("`value_rowids` must be non-negative and never decrease, "
                                       f"got {known.tolist()}.")
        if nrows is None:
            nrows = array_math.add(array_math.reduce_max(array_math.concat([_minus_one(ids), ids], 0)), 1)
        elif known is not None and known.size and int(nrows) <= int(known.max()):
            raise InvalidArgumentError(f"`nrows` = {int(nrows)} is too small for value_rowids "
                                       f"up to {int(known.max())}.")
        lengths = _scatter.unsorted_segment_sum(array_math.ones_like(ids), ids, nrows)
        return cls.from_row_lengths(values, lengths, validate=validate)

    @classmethod
    def from_row_starts(cls, values, row_starts, name=None, validate: bool = True) -> RaggedTensor:
        """Rows starting at `row_starts` (the last row runs to the end of `values`)."""
        starts = _splits(row_starts, "row_starts")
        n = values.nrows(out_type=starts.dtype) if isinstance(values, RaggedTensor) \
            else array_math.shape(convert_to_tensor(values), out_type=starts.dtype)[0]
        return cls.from_row_splits(values, array_math.concat([starts, array_math.reshape(n, [1])], 0),
                                   validate=validate)

    @classmethod
    def from_row_limits(cls, values, row_limits, name=None, validate: bool = True) -> RaggedTensor:
        """Rows ending at `row_limits` (the first row starts at 0)."""
        limits = _splits(row_limits, "row_limits")
        return cls.from_row_splits(values, array_math.concat([array_math.zeros([1], limits.dtype), limits], 0),
                                   validate=validate)

    @classmethod
    def from_tensor(cls, tensor, lengths=None, padding=None, ragged_rank: int = 1,
                    name=None, row_splits_dtype=_dtypes.int64) -> RaggedTensor:
        """The rows of a dense `tensor` (rank >= 2), each cut to its `lengths` entry (or
        before its trailing `padding` values) when given; `ragged_rank` > 1 makes the next
        dimensions ragged too (with uniform rows)."""
        x = convert_to_tensor(tensor)
        rank = x.shape.rank
        if rank is not None and rank < 2:
            raise ValueError(f"`tensor` must have rank >= 2, got shape {x.shape}.")
        if not isinstance(ragged_rank, int) or ragged_rank < 1 or (rank is not None and ragged_rank >= rank):
            raise ValueError(f"`ragged_rank` must be an int in [1, rank - 1], got {ragged_rank!r} "
                             f"for shape {x.shape}.")
        if lengths is not None and padding is not None:
            raise ValueError("Give at most one of `lengths` and `padding`.")
        if ragged_rank > 1:
            if lengths is not None or padding is not None:
                raise NotImplementedError("RaggedTensor.from_tensor: `lengths` and `padding` "
                                          "with ragged_rank > 1 are not supported.")
            dims = array_math.shape(x, out_type=_dtypes.int64)
            inner = array_math.reshape(x, array_math.concat([[-1], dims[2:]], 0))
            inner_ragged = cls.from_tensor(inner, ragged_rank=ragged_rank - 1,
                                           row_splits_dtype=row_splits_dtype)
            return cls.from_uniform_row_length(inner_ragged, dims[1], nrows=dims[0])
        dims = array_math.shape(x)
        if padding is not None:
            is_pad = array_math.equal(x, convert_to_tensor(padding, dtype=x.dtype))
            for _ in builtins.range(2, x.shape.rank):
                is_pad = array_math.reduce_all(is_pad, axis=-1)
            keep = array_math.logical_not(is_pad)
            pos = array_math.cast(array_math.range(1, dims[1] + 1), _dtypes.int64)
            lengths = array_math.reduce_max(array_math.where(keep, pos, array_math.zeros_like(pos)), axis=1)
        if lengths is None:
            lengths = array_math.fill([dims[0]], array_math.cast(dims[1], _dtypes.int64))
        lengths = _splits(lengths, "lengths")
        mask = _sort.sequence_mask(lengths, maxlen=dims[1])
        return cls.from_row_lengths(array_math.boolean_mask(x, mask),
                                    array_math.cast(lengths, row_splits_dtype))

    @classmethod
    def from_uniform_row_length(cls, values, uniform_row_length, nrows=None, validate: bool = True,
                                name=None) -> RaggedTensor:
        """Rows of `uniform_row_length` values each (`nrows` of them: needed when the length
        is 0)."""
        if not isinstance(values, RaggedTensor):
            values = convert_to_tensor(values)
        length = array_math.cast(convert_to_tensor(uniform_row_length), _dtypes.int64)
        if length.shape.rank not in (0, None):
            raise ValueError(f"`uniform_row_length` must be a scalar, got shape {length.shape}.")
        known = constant_value(length)
        if known is not None and int(known) < 0:
            raise InvalidArgumentError(f"`uniform_row_length` must not be negative, got {int(known)}.")
        n_values = values.nrows(out_type=_dtypes.int64) if isinstance(values, RaggedTensor) \
            else array_math.shape(values, out_type=_dtypes.int64)[0]
        if nrows is None:
            if known is not None and int(known) == 0:
                raise ValueError("`nrows` is needed when `uniform_row_length` is 0.")
            nrows = array_math.floordiv(n_values, length)
        nrows = array_math.cast(convert_to_tensor(nrows), _dtypes.int64)
        splits = array_math.multiply(array_math.range(nrows + 1), length)
        result = cls(values, splits)
        result._uniform_row_length = length
        if validate:
            _validate_splits(result)
        return result

    @classmethod
    def from_nested_row_splits(cls, flat_values, nested_row_splits, name=None,
                               validate: bool = True) -> RaggedTensor:
        """Ragged dimensions from the outermost splits in, over `flat_values`."""
        if isinstance(nested_row_splits, (Tensor, np.ndarray)):
            raise TypeError("`nested_row_splits` must be a list of vectors, got one tensor.")
        result = flat_values
        for splits in reversed(list(nested_row_splits)):
            result = cls.from_row_splits(result, splits, validate=validate)
        return result

    @classmethod
    def from_nested_row_lengths(cls, flat_values, nested_row_lengths, name=None,
                                validate: bool = True) -> RaggedTensor:
        """Ragged dimensions from the outermost row lengths in, over `flat_values`."""
        result = flat_values
        for lengths in reversed(list(nested_row_lengths)):
            result = cls.from_row_lengths(result, lengths, validate=validate)
        return result

    @classmethod
    def from_nested_value_rowids(cls, flat_values, nested_value_rowids, nested_nrows=None,
                                 name=None, validate: bool = True) -> RaggedTensor:
        """Ragged dimensions from the outermost value row ids in, over `flat_values`."""
        ids = list(nested_value_rowids)
        nrows = [None] * len(ids) if nested_nrows is None else list(nested_nrows)
        if len(nrows) != len(ids):
            raise ValueError("`nested_nrows` must have one entry per `nested_value_rowids`.")
        result = flat_values
        for rowids, n in zip(reversed(ids), reversed(nrows)):
            result = cls.from_value_rowids(result, rowids, nrows=n, validate=validate)
        return result

    @classmethod
    def from_sparse(cls, st_input, name=None, row_splits_dtype=_dtypes.int64) -> RaggedTensor:
        """The rows of a rank-2 SparseTensor whose entries fill each row from column 0."""
        return OPS["from_sparse"](st_input, row_splits_dtype)

    def to_sparse(self, name=None):
        """A SparseTensor with one entry per value (dense shape: `bounding_shape()`)."""
        return OPS["to_sparse"](self)

    # -- structure ----------------------------------------------------------------------------

    @property
    def flat_values(self) -> Tensor:
        v = self.values
        while isinstance(v, RaggedTensor):
            v = v.values
        return v

    @property
    def nested_row_splits(self) -> tuple:
        out, r = [], self
        while isinstance(r, RaggedTensor):
            out.append(r.row_splits)
            r = r.values
        return tuple(out)

    def nested_row_lengths(self, name=None) -> tuple:
        """The row lengths of each ragged dimension, outermost first."""
        out, r = [], self
        while isinstance(r, RaggedTensor):
            out.append(r.row_lengths())
            r = r.values
        return tuple(out)

    def nested_value_rowids(self, name=None) -> tuple:
        """The value row ids of each ragged dimension, outermost first."""
        out, r = [], self
        while isinstance(r, RaggedTensor):
            out.append(r.value_rowids())
            r = r.values
        return tuple(out)

    @property
    def uniform_row_length(self):
        """The length of every row when made by `from_uniform_row_length`, else None."""
        return getattr(self, "_uniform_row_length", None)

    def with_row_splits_dtype(self, dtype) -> RaggedTensor:
        """The same rows with row splits of `dtype` (int32 or int64) at every level."""
        dtype = _dtypes.as_dtype(dtype)
        if dtype not in (_dtypes.int32, _dtypes.int64):
            raise ValueError(f"`dtype` must be int32 or int64, got {dtype.name}.")
        inner = self.values.with_row_splits_dtype(dtype) if isinstance(self.values, RaggedTensor) \
            else self.values
        return RaggedTensor(inner, array_math.cast(self.row_splits, dtype))

    def merge_dims(self, outer_axis: int, inner_axis: int) -> RaggedTensor | Tensor:
        """Axes `outer_axis` to `inner_axis` merged into one (0 and 1 of a 2-D ragged tensor
        give its values)."""
        rank = self.shape.rank
        lo = outer_axis + rank if outer_axis < 0 else outer_axis
        hi = inner_axis + rank if inner_axis < 0 else inner_axis
        if not 0 <= lo <= hi < rank:
            raise ValueError(f"merge_dims: need 0 <= outer_axis <= inner_axis < {rank}, got "
                             f"{outer_axis} and {inner_axis}.")
        if lo == hi:
            return self
        if lo >= 2:  # inside the items: the rows keep their lengths
            if isinstance(self.values, RaggedTensor):
                return self.with_values(self.values.merge_dims(lo - 1, hi - 1))
            dims = array_math.shape(self.values)
            return self.with_values(array_math.reshape(self.values, array_math.concat(
                [dims[:lo - 1], [-1], dims[hi:]], 0)))
        if lo == 0:  # the rows' items in order, then merged with the axes after them
            if hi == 1:
                return self.values
            if isinstance(self.values, RaggedTensor):
                return self.values.merge_dims(0, hi - 1)
            return array_math.reshape(self.values, array_math.concat(
                [[-1], array_math.shape(self.values)[hi:]], 0))
        splits, inner = array_math.cast(self.row_splits, _dtypes.int64), self.values
        for _ in builtins.range(hi - lo):  # fold one more axis into the rows' items
            if isinstance(inner, RaggedTensor):
                splits = _scatter.gather(array_math.cast(inner.row_splits, _dtypes.int64), splits)
                inner = inner.values
            else:
                dims = array_math.shape(inner, out_type=_dtypes.int64)
                splits = array_math.multiply(splits, dims[1])
                inner = array_math.reshape(inner, array_math.concat([[-1], dims[2:]], 0))
        return RaggedTensor(inner, array_math.cast(splits, self.row_splits.dtype))

    @property
    def ragged_rank(self) -> int:
        return len(self.nested_row_splits)

    @property
    def _type_spec(self) -> RaggedTensorSpec:
        return RaggedTensorSpec(self.shape, self.dtype, self.ragged_rank, self.row_splits.dtype)

    def _trace_template(self) -> RaggedTensor:
        """What `rt.function` traces for this argument: its spec's template (the number of
        values unknown), so ragged tensors of one spec share a trace."""
        return self._type_spec._to_template()

    @property
    def dtype(self) -> _dtypes.DType:
        return self.flat_values.dtype

    @property
    def shape(self) -> TensorShape:
        """[nrows, None (each ragged dimension), *the dense inner dimensions]."""
        n = self.row_splits.shape.as_tuple()
        rows = None if n is None or n[0] is None else n[0] - 1
        inner = self.flat_values.shape.as_tuple()
        tail = [None] * (len(inner) - 1) if inner is None else list(inner[1:])
        if inner is None:
            return TensorShape(None)
        ragged = [None] * self.ragged_rank
        r, level = self, 0
        while isinstance(r, RaggedTensor):  # from_uniform_row_length: a known row length
            known = getattr(r, "_uniform_row_length", None)
            if known is not None and constant_value(known) is not None:
                ragged[level] = int(constant_value(known))
            r, level = r.values, level + 1
        return TensorShape([rows] + ragged + tail)

    def get_shape(self) -> TensorShape:
        return self.shape

    def nrows(self, out_type=None, name=None) -> Tensor:
        n = array_math.subtract(array_math.size(self.row_splits, out_type=self.row_splits.dtype), 1)
        return n if out_type is None else array_math.cast(n, out_type)

    def row_lengths(self, axis: int = 1, name=None) -> Tensor:
        """The length of each row (axis 1), or of each row at a deeper ragged axis."""
        if axis == 1:
            return array_math.subtract(self.row_splits[1:], self.row_splits[:-1])
        if axis > 1 and isinstance(self.values, RaggedTensor):
            return self.with_values(self.values.row_lengths(axis - 1))
        raise ValueError(f"`axis` {axis} is not a ragged axis of this RaggedTensor.")

    def row_starts(self) -> Tensor:
        return self.row_splits[:-1]

    def row_limits(self) -> Tensor:
        return self.row_splits[1:]

    def value_rowids(self, name=None) -> Tensor:
        """The row of each value of `values`."""
        return _sort.repeat(array_math.range(self.nrows()), self.row_lengths())

    def with_values(self, new_values) -> RaggedTensor:
        return RaggedTensor(new_values, self.row_splits)

    def with_flat_values(self, new_values) -> RaggedTensor:
        if isinstance(self.values, RaggedTensor):
            return self.with_values(self.values.with_flat_values(new_values))
        return self.with_values(new_values)

    def bounding_shape(self, axis=None, out_type=_dtypes.int64, name=None) -> Tensor:
        """The shape of the smallest dense tensor holding this one (what `to_tensor` gives)."""
        dims = [self.nrows()]
        r = self
        while isinstance(r, RaggedTensor):
            lengths = r.row_lengths()
            dims.append(array_math.reduce_max(array_math.concat([array_math.zeros([1], lengths.dtype),
                                                                 lengths], 0)))
            r = r.values
        inner = array_math.shape(r)[1:]
        shape = array_math.concat([array_math.cast(array_math.stack(dims), out_type),
                                   array_math.cast(inner, out_type)], 0)
        return shape if axis is None else shape[axis]

    # -- conversions --------------------------------------------------------------------------

    def to_tensor(self, default_value=None, name=None, shape=None) -> Tensor:
        """The rows padded with `default_value` (zero, or b"" for strings, by default) to the
        longest row; `shape` (None entries: the bounding size) pads or truncates each axis."""
        dims = None
        if shape is not None:
            dims = TensorShape(shape).as_tuple() if not isinstance(shape, Tensor) \
                else tuple(int(d) if d >= 0 else None for d in _eager(shape, "to_tensor"))
            if dims is not None:
                rank = self.shape.rank
                if rank is not None and len(dims) != rank:
                    raise ValueError(f"to_tensor: `shape` has rank {len(dims)}, the RaggedTensor "
                                     f"rank {rank}.")
        inner_dims = None if dims is None else dims[1:]
        if isinstance(self.values, RaggedTensor):
            inner = self.values.to_tensor(default_value, shape=inner_dims)
        else:
            inner = self.values
            if inner_dims is not None and any(d is not None for d in inner_dims[1:]):
                inner = _fit_inner(inner, inner_dims[1:], default_value)
        return _pad_rows(self, inner, default_value, dims)

    def to_list(self) -> list:
        """The rows as nested Python lists (eager tensors only)."""
        splits = _eager(self.row_splits, "to_list").tolist()
        inner = self.values.to_list() if isinstance(self.values, RaggedTensor) \
            else _eager(self.values, "to_list").tolist()
        return [inner[splits[i]:splits[i + 1]] for i in builtins.range(len(splits) - 1)]

    def numpy(self) -> np.ndarray:
        """An object array with one NumPy array (or, nested, one object array) per row."""
        splits = _eager(self.row_splits, "numpy").tolist()
        inner = self.values.numpy() if isinstance(self.values, RaggedTensor) \
            else _eager(self.values, "numpy")
        out = np.empty(len(splits) - 1, dtype=object)
        for i in builtins.range(len(splits) - 1):
            out[i] = inner[splits[i]:splits[i + 1]]
        return out

    def __repr__(self) -> str:
        try:
            body = str(self.to_list())
        except TypeError:
            return f"rt.RaggedTensor(values={self.values!r}, row_splits={self.row_splits!r})"
        return f"<rt.RaggedTensor {body}>"

    __str__ = __repr__

    # -- indexing -----------------------------------------------------------------------------

    def __len__(self) -> int:
        n = self.shape.as_tuple()[0]
        if n is None:
            raise TypeError("len() of a RaggedTensor with an unknown number of rows.")
        return n

    def __iter__(self):
        for i in builtins.range(len(self)):
            yield self[i]

    def _rows(self, start, stop) -> RaggedTensor:
        """Rows start..stop-1 as a RaggedTensor."""
        lo, hi = self.row_splits[start], self.row_splits[stop]
        splits = array_math.subtract(self.row_splits[start:stop + 1], lo)
        return RaggedTensor(_slice_rows(self.values, lo, hi), splits)

    def __getitem__(self, key):
        if isinstance(key, tuple) or key is Ellipsis or key is None:
            return OPS["getitem"](self, key if isinstance(key, tuple) else (key,))
        if isinstance(key, builtins.slice):
            n = len(self)
            start, stop, step = key.indices(n)
            if step != 1:  # every step-th row
                return OPS["gather_rows"](self, convert_to_tensor(np.arange(start, stop, step, dtype=np.int64)))
            return self._rows(start, max(start, stop))
        if isinstance(key, (numbers.Integral, Tensor, np.integer)):
            i = int(key) if not isinstance(key, Tensor) or constant_value(key) is not None else key
            if not isinstance(i, Tensor):
                n = self.shape.as_tuple()[0]
                if n is not None:
                    if not -n <= i < n:
                        raise IndexError(f"Row index {i} is out of range for {n} rows.")
                    i %= n
            return _slice_rows(self.values, self.row_splits[i], self.row_splits[i + 1])
        raise TypeError(f"RaggedTensor indices must be integers, slices or tuples, got "
                        f"{type(key).__name__}.")

    # -- elementwise arithmetic -------------------------------------------------------------

    def _binary(self, other, fn, reverse=False):
        a, b = (other, self) if reverse else (self, other)
        return OPS["broadcast"](fn, a, b)

    def __add__(self, other):
        return self._binary(other, array_math.add)

    def __radd__(self, other):
        return self._binary(other, array_math.add, reverse=True)

    def __sub__(self, other):
        return self._binary(other, array_math.subtract)

    def __rsub__(self, other):
        return self._binary(other, array_math.subtract, reverse=True)

    def __mul__(self, other):
        return self._binary(other, array_math.multiply)

    def __rmul__(self, other):
        return self._binary(other, array_math.multiply, reverse=True)

    def __truediv__(self, other):
        return self._binary(other, array_math.truediv)

    def __rtruediv__(self, other):
        return self._binary(other, array_math.truediv, reverse=True)

    def __pow__(self, other):
        return self._binary(other, array_math.pow)

    def __neg__(self):
        return self.with_flat_values(array_math.negative(self.flat_values))

    def __abs__(self):
        return self.with_flat_values(array_math.abs(self.flat_values))

    def __floordiv__(self, other):
        return self._binary(other, array_math.floordiv)

    def __rfloordiv__(self, other):
        return self._binary(other, array_math.floordiv, reverse=True)

    def __mod__(self, other):
        return self._binary(other, array_math.floormod)

    def __rmod__(self, other):
        return self._binary(other, array_math.floormod, reverse=True)

    def __rpow__(self, other):
        return self._binary(other, array_math.pow, reverse=True)

    def __lt__(self, other):
        return self._binary(other, array_math.less)

    def __le__(self, other):
        return self._binary(other, array_math.less_equal)

    def __gt__(self, other):
        return self._binary(other, array_math.greater)

    def __ge__(self, other):
        return self._binary(other, array_math.greater_equal)

    def __and__(self, other):
        return self._binary(other, array_math.logical_and)

    def __rand__(self, other):
        return self._binary(other, array_math.logical_and, reverse=True)

    def __or__(self, other):
        return self._binary(other, array_math.logical_or)

    def __ror__(self, other):
        return self._binary(other, array_math.logical_or, reverse=True)

    def __invert__(self):
        return self.with_flat_values(array_math.logical_not(self.flat_values))


def _default_of(dtype, default_value):
    if default_value is not None:
        return convert_to_tensor(default_value, dtype=dtype)
    return convert_to_tensor(b"" if dtype is _dtypes.string else np.zeros((), dtype.as_numpy_dtype))


def _fit_inner(values: Tensor, dims: tuple, default_value) -> Tensor:
    """values [N, ...] padded or cut to `dims` (None: keep) along the axes after the first."""
    have = array_math.shape(values, out_type=_dtypes.int64)
    out = values
    for axis, want in enumerate(dims, start=1):
        if want is None:
            continue
        size = have[axis]
        keep = array_math.minimum(size, want)
        idx = array_math.range(keep)
        out = _scatter.gather(out, idx, axis=axis)
        pad_shape = array_math.concat([array_math.shape(out, out_type=_dtypes.int64)[:axis],
                                       array_math.reshape(array_math.maximum(want - keep, 0), [1]),
                                       array_math.shape(out, out_type=_dtypes.int64)[axis + 1:]], 0)
        filler = array_math.fill(pad_shape, _default_of(values.dtype, default_value))
        out = array_math.concat([out, filler], axis)
    return out


def _pad_rows(r: RaggedTensor, inner: Tensor, default_value, dims) -> Tensor:
    """The rows of `r` (whose items are the rows of `inner`) as a dense tensor, padded with
    `default_value`; `dims` (or None) fixes the number of rows and the row width."""
    splits = array_math.cast(r.row_splits, _dtypes.int64)
    lengths = array_math.subtract(splits[1:], splits[:-1])
    nrows = array_math.subtract(array_math.size(splits, out_type=_dtypes.int64), 1)
    width = array_math.reduce_max(array_math.concat([array_math.zeros([1], _dtypes.int64), lengths], 0))
    if dims is not None and dims[0] is not None:
        nrows = convert_to_tensor(np.int64(dims[0]))
    if dims is not None and len(dims) > 1 and dims[1] is not None:
        width = convert_to_tensor(np.int64(dims[1]))
    n_values = array_math.shape(inner, out_type=_dtypes.int64)[0]
    rowids = _sort.repeat(array_math.range(array_math.size(lengths, out_type=_dtypes.int64)), lengths)
    cols = array_math.subtract(array_math.range(n_values), _scatter.gather(splits[:-1], rowids))
    keep = array_math.logical_and(array_math.less(rowids, nrows), array_math.less(cols, width))
    cell = array_math.boolean_mask(array_math.add(array_math.multiply(rowids, width), cols), keep)
    source = array_math.boolean_mask(array_math.range(n_values), keep)
    # where[c] = 1 + the value stored in cell c, 0 for a cell left as padding
    where = _scatter.scatter_nd(array_math.expand_dims(cell, 1), array_math.add(source, 1),
                                array_math.reshape(array_math.multiply(nrows, width), [1]))
    filler = array_math.expand_dims(array_math.fill(array_math.shape(inner)[1:],
                                                    _default_of(inner.dtype, default_value)), 0)
    extended = array_math.concat([filler, inner], 0)
    dense = _scatter.gather(extended, where)
    out_shape = array_math.concat([array_math.stack([nrows, width]),
                                   array_math.shape(inner, out_type=_dtypes.int64)[1:]], 0)
    return array_math.reshape(dense, out_shape)


def _eager(t: Tensor, what: str) -> np.ndarray:
    known = constant_value(t)
    if known is None:
        raise TypeError(f"RaggedTensor.{what}() needs eager tensors; inside rt.function use "
                        "to_tensor().")
    return known


def _cumsum(lengths: Tensor) -> Tensor:
    return array_math.cumsum(lengths)


def _minus_one(ids: Tensor) -> Tensor:
    return array_math.fill([1], np.array(-1, ids.dtype.as_numpy_dtype))


def _slice_rows(values, lo, hi):
    if isinstance(values, RaggedTensor):
        return values._rows(lo, hi)
    return values[lo:hi]


def _validate_splits(r: RaggedTensor) -> None:
    splits = constant_value(r.row_splits)
    if splits is None:
        return
    if splits.size == 0:
        raise InvalidArgumentError("`row_splits` must have at least one entry (0).")
    if splits[0] != 0:
        raise InvalidArgumentError(f"`row_splits` must start at 0, got {splits.tolist()}.")
    if (np.diff(splits) < 0).any():
        raise InvalidArgumentError(f"`row_splits` must never decrease, got {splits.tolist()}.")
    n = r.values.nrows() if isinstance(r.values, RaggedTensor) else array_math.shape(r.values)[0]
    n = constant_value(n)
    if n is not None and int(n) != int(splits[-1]):
        raise InvalidArgumentError(f"`row_splits` must end at the number of values ({int(n)}), "
                                   f"got {splits.tolist()}.")


def _check_same_splits(a: RaggedTensor, b: RaggedTensor) -> None:
    sa, sb = a.nested_row_splits, b.nested_row_splits
    if len(sa) != len(sb):
        raise ValueError(f"RaggedTensors of different ragged ranks: {len(sa)} and {len(sb)}.")
    for x, y in zip(sa, sb):
        kx, ky = constant_value(x), constant_value(y)
        if kx is not None and ky is not None and (kx.shape != ky.shape or (kx != ky).any()):
            raise InvalidArgumentError("RaggedTensors have different row structures: row "
                                       f"splits {kx.tolist()} and {ky.tolist()}.")


# -- rt.ragged ------------------------------------------------------------------------------------

def _depth(value) -> int:
    return _depth_of(value)[0]


def _depth_of(value) -> tuple[int, bool]:
    """(nesting depth, whether it is fixed by a scalar): an empty list only bounds it below."""
    if isinstance(value, (list, tuple)):
        found = [_depth_of(v) for v in value]
        fixed = {d for d, f in found if f}
        if len(fixed) > 1:
            raise ValueError("All scalar values of `pylist` must have the same nesting depth, "
                             f"got depths {sorted(fixed)}.")
        if fixed:
            depth = fixed.pop()
            if any(d > depth for d, f in found if not f):
                raise ValueError("All scalar values of `pylist` must have the same nesting "
                                 "depth: an empty list is nested deeper than the scalars.")
            return 1 + depth, True
        return 1 + max((d for d, _ in found), default=0), False
    if isinstance(value, np.ndarray):
        return value.ndim, True
    return 0, True


@export("ragged.constant")
def constant(pylist, dtype=None, ragged_rank: int | None = None, inner_shape=None,
             name=None, row_splits_dtype=_dtypes.int64) -> RaggedTensor | Tensor:
    """A RaggedTensor of nested Python lists whose rows may differ in length.

    `ragged_rank` (default: every nesting level but the innermost) is how many dimensions
    are ragged; lists below it must be rectangular and form the dense `flat_values`.
    A flat list gives an ordinary tensor.
    """
    depth = _depth(pylist)
    if not isinstance(pylist, (list, tuple, np.ndarray)) or depth < 1:
        return convert_to_tensor(pylist, dtype=dtype)
    if ragged_rank is None:
        ragged_rank = max(depth - 1, 0) if inner_shape is None else depth - 1 - len(inner_shape)
    ragged_rank = int(ragged_rank)
    if not 0 <= ragged_rank < max(depth, 1):
        raise ValueError(f"`ragged_rank` must be in [0, {depth - 1}] for a list of depth "
                         f"{depth}, got {ragged_rank}.")
    if ragged_rank == 0:
        return convert_to_tensor(pylist, dtype=dtype)
    rows = list(pylist)
    all_splits = []
    for _ in builtins.range(ragged_rank):
        lengths = [len(r) for r in rows]
        all_splits.append(np.concatenate([[0], np.cumsum(lengths)]).astype(row_splits_dtype.as_numpy_dtype))
        rows = [item for r in rows for item in r]
    if rows:
        try:
            flat = convert_to_tensor(rows, dtype=dtype)
        except ValueError:
            raise ValueError(f"The lists below ragged_rank={ragged_rank} of `pylist` must be "
                             "rectangular.") from None
        except TypeError as exc:
            raise ValueError(f"The scalars of `pylist` must all have one type: {exc}") from None
    else:
        np_dtype = (dtype._np if dtype is not None else np.float32)
        inner = [0] * (depth - ragged_rank) if inner_shape is None else [0] + list(inner_shape)
        flat = convert_to_tensor(np.zeros(inner or [0], np_dtype))
    result = flat
    for splits in reversed(all_splits):
        result = RaggedTensor(result, splits)
    return result


@export("ragged.map_flat_values")
def map_flat_values(op: Callable, *args, **kwargs) -> RaggedTensor:
    """`op` applied to the flat values of the RaggedTensor arguments (which must share a row
    structure), rebuilt with that structure: `map_flat_values(rt.square, r)`."""
    first = [None]

    def swap(x):
        if isinstance(x, RaggedTensor):
            if first[0] is None:
                first[0] = x
            else:
                _check_same_splits(first[0], x)
            return x.flat_values
        return x

    def walk(x):   # RaggedTensors are leaves here (nest would open them as dataclasses)
        if isinstance(x, (list, tuple)) and not hasattr(x, "_fields"):
            return type(x)(walk(v) for v in x)
        if isinstance(x, dict):
            return {k: walk(v) for k, v in x.items()}
        return swap(x)

    new_args = walk(list(args))
    new_kwargs = walk(dict(kwargs))
    if first[0] is None:
        raise ValueError("map_flat_values needs at least one RaggedTensor argument.")
    return first[0].with_flat_values(op(*new_args, **new_kwargs))


@export("ragged.range")
def range(starts, limits=None, deltas=1, dtype=None, name=None,  # noqa: A001 - TF's name
          row_splits_dtype=_dtypes.int64) -> RaggedTensor:
    """Row i is `rt.range(starts[i], limits[i], deltas[i])` (one range when `limits` is None:
    from 0 to each `starts[i]`); scalars broadcast. The dtype is `dtype`, else that of the
    tensor arguments (int32 or float32 for Python numbers)."""
    if limits is None:
        starts, limits = 0, starts
    given = [v for v in (starts, limits, deltas) if isinstance(v, Tensor)]
    if dtype is None:
        floats = any(np.asarray(v).dtype.kind == "f" for v in (starts, limits, deltas) if not isinstance(v, Tensor))
        dtype = given[0].dtype if given else (_dtypes.float32 if floats else _dtypes.int32)
    dtype = _dtypes.as_dtype(dtype)
    s, lim, d = (array_math.cast(convert_to_tensor(v), dtype) for v in (starts, limits, deltas))
    if builtins.max(t.shape.rank or 0 for t in (s, lim, d)) > 1:
        raise ValueError("`starts`, `limits` and `deltas` must be scalars or vectors.")
    known = constant_value(d)
    if known is not None and (np.asarray(known) == 0).any():
        raise InvalidArgumentError("`deltas` must not be zero.")
    zero = array_math.zeros_like(array_math.add(array_math.add(s, lim), d))
    s, lim, d = (array_math.reshape(array_math.add(t, zero), [-1]) for t in (s, lim, d))
    span = array_math.subtract(lim, s)
    if dtype.is_integer:
        count = array_math.floordiv(array_math.subtract(array_math.add(span, d), array_math.sign(d)), d)
    else:
        count = array_math.ceil(array_math.truediv(span, d))
    count = array_math.cast(count, _dtypes.int64)
    lengths = array_math.maximum(count, array_math.zeros_like(count))
    splits = array_math.concat([array_math.zeros([1], _dtypes.int64), array_math.cumsum(lengths)], 0)
    start_of = _sort.repeat(s, lengths)
    step_of = _sort.repeat(d, lengths)
    pos = array_math.subtract(array_math.range(splits[-1]), _sort.repeat(splits[:-1], lengths))
    values = array_math.add(start_of, array_math.multiply(array_math.cast(pos, dtype), step_of))
    return RaggedTensor(values, array_math.cast(splits, row_splits_dtype))


@export("ragged.row_splits_to_segment_ids")
def row_splits_to_segment_ids(splits, name=None, out_type=None) -> Tensor:
    """The row of each value, from row splits: [0, 2, 2, 3] gives [0, 0, 2]."""
    splits = _splits(splits, "splits")
    lengths = array_math.subtract(splits[1:], splits[:-1])
    ids = _sort.repeat(array_math.range(array_math.size(lengths, out_type=splits.dtype)), lengths)
    return ids if out_type is None else array_math.cast(ids, out_type)


@export("ragged.segment_ids_to_row_splits")
def segment_ids_to_row_splits(segment_ids, num_segments=None, out_type=None, name=None) -> Tensor:
    """Row splits from the (sorted) row of each value; `num_segments` allows empty rows at
    the end: [0, 0, 2] gives [0, 2, 2, 3]."""
    ids = _splits(segment_ids, "segment_ids")
    r = RaggedTensor.from_value_rowids(array_math.zeros_like(ids), ids, nrows=num_segments)
    splits = r.row_splits
    return splits if out_type is None else array_math.cast(splits, out_type)


@export("ragged.boolean_mask")
def boolean_mask(data, mask, name=None) -> RaggedTensor | Tensor:
    """The items of `data` where `mask` is True: `mask` (dense or ragged) covers a prefix of
    data's dimensions; a mask over items inside the rows gives shorter rows, a vector mask
    keeps whole rows."""
    return OPS["boolean_mask"](data, mask)


@export("ragged.stack")
def stack(values, axis: int = 0, name=None) -> RaggedTensor:
    """Tensors and RaggedTensors stacked along a new `axis` into one RaggedTensor (rank-1
    tensors of different lengths become its rows)."""
    return OPS["stack"](list(values), axis)


@export("RaggedTensorSpec", "ragged.RaggedTensorSpec")
class RaggedTensorSpec(TypeSpec):
    """The TypeSpec of a RaggedTensor: its shape ([nrows, None for each ragged dimension, the
    inner dimensions]), dtype, ragged rank and row-splits dtype; usable in `input_signature`."""

    def __init__(self, shape=None, dtype=_dtypes.float32, ragged_rank=None,
                 row_splits_dtype=_dtypes.int64, flat_values_spec=None):
        self._shape = TensorShape(shape)
        self._dtype = _dtypes.as_dtype(dtype)
        self._row_splits_dtype = _dtypes.as_dtype(row_splits_dtype)
        if self._row_splits_dtype not in (_dtypes.int32, _dtypes.int64):
            raise ValueError(f"RaggedTensorSpec: row_splits_dtype must be int32 or int64, got "
                             f"{self._row_splits_dtype.name}.")
        rank = self._shape.rank
        if ragged_rank is None:
            if rank is None:
                raise ValueError("RaggedTensorSpec: give ragged_rank when the shape's rank is "
                                 "unknown.")
            ragged_rank = rank - 1
        if not isinstance(ragged_rank, int) or ragged_rank < 1 or (rank is not None and ragged_rank >= rank):
            raise ValueError(f"RaggedTensorSpec: ragged_rank must be an int in [1, rank - 1], got "
                             f"{ragged_rank!r} for shape {self._shape}.")
        self._ragged_rank = ragged_rank
        self._flat_values_spec = flat_values_spec

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)
    ragged_rank = property(lambda self: self._ragged_rank)
    row_splits_dtype = property(lambda self: self._row_splits_dtype)
    flat_values_spec = property(lambda self: self._flat_values_spec)
    value_type = property(lambda self: RaggedTensor)

    def _to_template(self) -> RaggedTensor:
        dims = self._shape.as_list() if self._shape.rank is not None else None
        inner = [None] + (dims[self._ragged_rank + 1:] if dims is not None else [])
        values: Any = self._flat_values_spec or (
            TensorSpec(inner if dims is not None else None, self._dtype))
        for level in builtins.range(self._ragged_rank, 0, -1):
            rows = dims[0] if level == 1 and dims is not None else None
            splits = TensorSpec([None if rows is None else rows + 1], self._row_splits_dtype)
            values = RaggedTensor(values, splits)
        return values

    def _key(self) -> tuple:
        return (self._shape.as_tuple(), self._dtype.name, self._ragged_rank,
                self._row_splits_dtype.name)

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, RaggedTensorSpec) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (f"RaggedTensorSpec(TensorShape({self._shape.as_list() if self._shape.rank is not None else None}), "
                f"{self._dtype!r}, {self._ragged_rank}, {self._row_splits_dtype!r})")


register_composite(RaggedTensor, "rt.RaggedTensor")  # saved functions name its values so
