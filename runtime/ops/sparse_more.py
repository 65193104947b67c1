"""More of `tf.sparse`: `eye`, `maximum` / `minimum` (the union of two SparseTensors' entries,
a missing entry counting as zero), `softmax` over the present entries of each row, and
`split`; composed of the sparse and dense ops.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes as _dtypes
from ..exports import export
from ..graph import constant_value
from . import array_math as _math
from . import nn as _nn
from .core import convert_to_tensor
from .sparse import SparseTensor
from .sparse import add as sparse_add
from .sparse import to_dense as sparse_to_dense
from .sparse_manip import slice as sparse_slice


def _sparse_arg(value, fn: str, what: str) -> SparseTensor:
    if not isinstance(value, SparseTensor):
        raise TypeError(f"{fn}: {what} must be a SparseTensor, got {type(value).__name__}.")
    return value


@export("sparse.eye")
def eye(num_rows, num_columns=None, dtype=_dtypes.float32, name=None) -> SparseTensor:
    """The `num_rows` x `num_columns` identity as a SparseTensor (ones on the diagonal)."""
    rows = int(num_rows)
    cols = rows if num_columns is None else int(num_columns)
    n = min(rows, cols)
    diagonal = np.repeat(np.arange(n, dtype=np.int64)[:, None], 2, axis=1)
    return SparseTensor(diagonal, np.ones(n, _dtypes.as_dtype(dtype).as_numpy_dtype),
                        [rows, cols])


def _pairwise(sp_a, sp_b, fn, name):
    a, b = _sparse_arg(sp_a, name, "sp_a"), _sparse_arg(sp_b, name, "sp_b")
    union = sparse_add(a, b)  # the union of their indices (the values are not used)
    indices = union.indices
    va = _math.gather_nd(sparse_to_dense(a), indices)
    vb = _math.gather_nd(sparse_to_dense(b), indices)
    return SparseTensor(indices, fn(va, vb), union.dense_shape)


@export("sparse.maximum")
def maximum(sp_a, sp_b, name=None) -> SparseTensor:
    """The elementwise maximum of two SparseTensors of one shape, at the union of their
    entries (a missing entry is zero)."""
    return _pairwise(sp_a, sp_b, _math.maximum, "sparse.maximum")


@export("sparse.minimum")
def minimum(sp_a, sp_b, name=None) -> SparseTensor:
    """The elementwise minimum of two SparseTensors of one shape, at the union of their
    entries (a missing entry is zero)."""
    return _pairwise(sp_a, sp_b, _math.minimum, "sparse.minimum")


@export("sparse.softmax")
def softmax(sp_input, name=None) -> SparseTensor:
    """The softmax of each row's present entries (along the last dimension); missing entries
    stay missing."""
    sp = _sparse_arg(sp_input, "sparse.softmax", "sp_input")
    if not sp.values.dtype.is_floating:
        raise TypeError(f"sparse.softmax needs float values, got {sp.values.dtype.name}.")
    dense = sparse_to_dense(sp, default_value=convert_to_tensor(-np.inf, sp.values.dtype))
    return SparseTensor(sp.indices, _math.gather_nd(_nn.softmax(dense, axis=-1), sp.indices),
                        sp.dense_shape)


@export("sparse.split")
def split(sp_input=None, num_split=None, axis=None, name=None) -> list[SparseTensor]:
    """`num_split` SparseTensors cut from `sp_input` along `axis`; when the dimension is not
    a multiple of `num_split`, the first `size % num_split` pieces are one longer."""
    sp = _sparse_arg(sp_input, "sparse.split", "sp_input")
    shape = constant_value(sp.dense_shape)
    if shape is None:
        raise ValueError("sparse.split needs the dense shape known while tracing.")
    shape = [int(d) for d in np.asarray(shape)]
    n, ax = int(num_split), int(axis) % len(shape)
    base, extra = divmod(shape[ax], n)
    pieces, start = [], 0
    for i in range(n):
        size = base + (1 if i < extra else 0)
        begin = [0] * len(shape)
        begin[ax] = start
        extent = list(shape)
        extent[ax] = size
        pieces.append(sparse_slice(sp, begin, extent))
        start += size
    return pieces
