"""The shape of a RaggedTensor (`rt.experimental.DynamicRaggedShape`, what `rt.shape` gives
for one) and its row partitions (`rt.experimental.RowPartition`): the number of rows, then for
each ragged dimension the length of every row, then the dense inner dimensions.
`rt.zeros`, `rt.ones`, `rt.fill` and `rt.reshape` take one (see ragged_dispatch).
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from .. import dtypes as _dtypes
from ..errors import InvalidArgumentError
from ..exports import export
from ..graph import constant_value
from ..tensor import Tensor
from . import array_math
from .core import convert_to_tensor
from .extension_type import CompositeTensor, TypeSpec
from .ragged import RaggedTensor


def _ints(value, what: str) -> Tensor:
    t = convert_to_tensor(value if isinstance(value, Tensor) else np.asarray(value, np.int64))
    if not t.dtype.is_integer:
        raise TypeError(f"`{what}` must hold integers, got dtype {t.dtype.name}.")
    return t if t.dtype is _dtypes.int64 else array_math.cast(t, _dtypes.int64)


@export("experimental.RowPartition")
class RowPartition:
    """How a vector of values is cut into rows: by `row_splits` (row i is
    values[splits[i]:splits[i + 1]])."""

    def __init__(self, row_splits) -> None:
        self._row_splits = _ints(row_splits, "row_splits")

    @classmethod
    def from_row_splits(cls, row_splits, validate: bool = True, dtype=None,
                        dtype_hint=None) -> RowPartition:
        return cls(row_splits)

    @classmethod
    def from_row_lengths(cls, row_lengths, validate: bool = True, dtype=None,
                         dtype_hint=None) -> RowPartition:
        lengths = _ints(row_lengths, "row_lengths")
        known = constant_value(lengths)
        if known is not None and (known < 0).any():
            raise InvalidArgumentError(f"`row_lengths` must not be negative, got {known.tolist()}.")
        return cls(array_math.concat([array_math.zeros([1], _dtypes.int64), array_math.cumsum(lengths)], 0))

    @classmethod
    def from_uniform_row_length(cls, uniform_row_length, nvals=None, nrows=None,
                                validate: bool = True, dtype=None, dtype_hint=None) -> RowPartition:
        length = _ints(uniform_row_length, "uniform_row_length")
        if nrows is None:
            if nvals is None:
                raise ValueError("RowPartition.from_uniform_row_length needs `nvals` or `nrows`.")
            nrows = array_math.floordiv(_ints(nvals, "nvals"), length)
        return cls(array_math.multiply(array_math.range(_ints(nrows, "nrows") + 1), length))

    def row_splits(self) -> Tensor:
        return self._row_splits

    def row_lengths(self) -> Tensor:
        return array_math.subtract(self._row_splits[1:], self._row_splits[:-1])

    def nrows(self) -> Tensor:
        return array_math.subtract(array_math.size(self._row_splits, out_type=_dtypes.int64), 1)

    def nvals(self) -> Tensor:
        return self._row_splits[-1]

    def __repr__(self) -> str:
        known = constant_value(self._row_splits)
        return f"RowPartition(row_splits={known.tolist() if known is not None else self._row_splits})"


class DynamicRaggedShapeSpec(TypeSpec):
    """The spec of a DynamicRaggedShape: its number of row partitions and inner rank."""

    def __init__(self, num_row_partitions: int, inner_rank: int) -> None:
        self._key_value = (num_row_partitions, inner_rank)

    value_type = property(lambda self: DynamicRaggedShape)

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, DynamicRaggedShapeSpec) and other._key_value == self._key_value

    def __hash__(self) -> int:
        return hash(self._key_value)


@export("experimental.DynamicRaggedShape")
class DynamicRaggedShape(CompositeTensor):
    """The shape of a RaggedTensor: `row_partitions` (one per ragged dimension, outermost
    first) and `inner_shape` (the shape of the flat values: its first entry is the number of
    values of the last partition). `rt.shape(ragged)` gives one; `rt.zeros(shape)` builds a
    RaggedTensor of it."""

    def __init__(self, row_partitions, inner_shape, dtype=None, validate: bool = True,
                 static_inner_shape=None) -> None:
        self._partitions = list(row_partitions)
        self._inner = _ints(inner_shape, "inner_shape")
        if self._inner.shape.rank != 1:
            raise ValueError(f"`inner_shape` must be a vector, got shape {self._inner.shape}.")
        if self._partitions and validate:
            want = constant_value(self._partitions[-1].nvals())
            have = constant_value(self._inner)
            if want is not None and have is not None and have.size and int(have[0]) != int(want):
                # TensorFlow's inner_shape for a ragged value starts with the number of values
                raise InvalidArgumentError(f"`inner_shape` starts with {int(have[0])}, but the "
                                           f"last row partition has {int(want)} values.")

    @classmethod
    def from_lengths(cls, lengths, num_row_partitions=None, dtype=_dtypes.int64) -> DynamicRaggedShape:
        """From a list of dimension sizes: an int for a uniform dimension, a tuple of row
        lengths for a ragged one (`[4, (2, 1, 0, 8), 12]`)."""
        lengths = list(lengths)
        if not lengths:
            return cls([], [])
        partitions = []
        nrows = lengths[0]
        if isinstance(nrows, (tuple, list)):
            raise ValueError("from_lengths: the first dimension must be an int.")
        count = int(nrows)
        last_ragged = max((i for i, d in enumerate(lengths) if isinstance(d, (tuple, list))), default=0)
        for i, d in enumerate(lengths[1:last_ragged + 1], start=1):
            if isinstance(d, (tuple, list)):
                if len(d) != count:
                    raise ValueError(f"from_lengths: dimension {i} has {len(d)} row lengths for "
                                     f"{count} rows.")
                partitions.append(RowPartition.from_row_lengths(list(d)))
                count = int(np.sum(d))
            else:
                partitions.append(RowPartition.from_uniform_row_length(int(d), nrows=count))
                count *= int(d)
        inner = [count] + [int(d) for d in lengths[last_ragged + 1:]]
        return cls(partitions, inner)

    @property
    def row_partitions(self) -> tuple:
        return tuple(self._partitions)

    @property
    def num_row_partitions(self) -> int:
        return len(self._partitions)

    @property
    def inner_shape(self) -> Tensor:
        return self._inner

    @property
    def rank(self) -> int | None:
        n = self._inner.shape.as_tuple()
        return None if n is None or n[0] is None else len(self._partitions) + n[0]

    @property
    def dtype(self):
        return _dtypes.int64

    @property
    def _type_spec(self) -> DynamicRaggedShapeSpec:
        return DynamicRaggedShapeSpec(len(self._partitions), self._inner.shape.as_tuple()[0])

    def _dims(self) -> list:
        """Each dimension: an int64 scalar tensor (uniform) or a vector of row lengths."""
        if not self._partitions:
            return [self._inner[i] for i in builtins.range(self._inner.shape.as_tuple()[0])]
        dims: list = [self._partitions[0].nrows()]
        for p in self._partitions:
            lengths = constant_value(p.row_lengths())
            if lengths is not None and lengths.size and (lengths == lengths[0]).all():
                dims.append(convert_to_tensor(np.int64(lengths[0])))
            else:
                dims.append(p.row_lengths())
        dims.extend(self._inner[i] for i in builtins.range(1, self._inner.shape.as_tuple()[0]))
        return dims

    def is_uniform(self, axis: int) -> bool:
        return self._dims()[axis].shape.rank == 0

    def __getitem__(self, key):
        dims = self._dims()
        if isinstance(key, builtins.slice):
            start, stop, step = key.indices(len(dims))
            if start != 0 or step != 1:
                raise NotImplementedError("DynamicRaggedShape slices must start at 0 with step 1.")
            kept = self._partitions[:builtins.max(stop - 1, 0)]
            if stop <= len(self._partitions):
                nvals = kept[-1].nvals() if kept else None
                inner = [nvals] if kept else ([dims[0]] if stop else [])
                return DynamicRaggedShape(kept, array_math.stack(inner) if inner else [])
            tail = self._inner[:stop - len(self._partitions)]
            return DynamicRaggedShape(kept, tail)
        i = int(key)
        if i < 0:
            i += len(dims)
        if not 0 <= i < len(dims):
            raise IndexError(f"Index {key} is out of range for a shape of rank {len(dims)}.")
        d = dims[i]
        if d.shape.rank != 0:
            raise ValueError(f"Index {i} is not uniform")
        return array_math.cast(d, _dtypes.int32)

    def __len__(self) -> int:
        return len(self._dims())

    def __repr__(self) -> str:
        parts = []
        for d in self._dims():
            known = constant_value(d)
            if known is None:
                parts.append("?")
            elif np.ndim(known) == 0:
                parts.append(str(int(known)))
            else:
                items = ", ".join(str(int(v)) for v in known)
                parts.append(f"({items}{',' if len(known) == 1 else ''})")
        return (f"<DynamicRaggedShape lengths=[{', '.join(parts)}] "
                f"num_row_partitions={len(self._partitions)}>")

    __str__ = __repr__

    def _with_values(self, flat: Tensor):
        """A RaggedTensor of this shape over `flat` (flat values of shape inner_shape)."""
        out: Any = flat
        for p in reversed(self._partitions):
            out = RaggedTensor(out, p.row_splits())
        return out


def shape_of(x: RaggedTensor) -> DynamicRaggedShape:
    partitions = [RowPartition(s) for s in x.nested_row_splits]
    return DynamicRaggedShape(partitions, array_math.shape(x.flat_values, out_type=_dtypes.int64))


def filled(shape: DynamicRaggedShape, value, dtype=None):
    flat = array_math.fill(shape.inner_shape, convert_to_tensor(value, dtype=dtype))
    return shape._with_values(flat)


def reshape_to(x, shape: DynamicRaggedShape):
    """A dense `x` (or a RaggedTensor's flat values) with the shape `shape`: its values in
    row-major order."""
    flat = x.flat_values if isinstance(x, RaggedTensor) else convert_to_tensor(x)
    return shape._with_values(array_math.reshape(flat, shape.inner_shape))
