"""SparseTensors as dataset elements.

Inside a pipeline a SparseTensor is held as a `SparseElement`: its dense values and a bool
mask of the entries that are set, two arrays of its dense shape. Slicing, batching and
unbatching them is slicing and stacking arrays, as for any element, and the iterator (and a
function mapped over the dataset) receives the SparseTensor again, its entries in row-major
order, as TensorFlow's. The price is memory: an element takes the room of its dense shape.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from .. import dtypes as _dtypes
from ..graph import constant_value
from ..ops import array_math
from ..ops.sparse import SparseTensor, SparseTensorSpec
from ..shapes import TensorSpec
from ..tensor import EagerTensor, Tensor


@dataclasses.dataclass(eq=False)
class SparseElement:
    """A SparseTensor in a pipeline: `dense` values and the `present` mask (arrays, eager
    tensors, or TensorSpecs in an element structure)."""

    dense: Any
    present: Any

    @classmethod
    def __nest_from_fields__(cls, fields: dict) -> "SparseElement":
        return cls(**fields)


def is_sparse(value: Any) -> bool:
    return isinstance(value, (SparseTensor, SparseTensorSpec))


def encode(value: Any) -> SparseElement:
    """A SparseTensor (or its spec, or a symbolic one: TensorSpecs then) as a SparseElement."""
    if isinstance(value, SparseTensor):
        known = [constant_value(t) for t in (value.indices, value.values, value.dense_shape)]
        if all(k is not None for k in known):
            return _encode_arrays(*known)
    shape, dtype = value.shape, value.dtype
    return SparseElement(TensorSpec(shape, dtype), TensorSpec(shape, _dtypes.bool_))


def _encode_arrays(indices: np.ndarray, values: np.ndarray, dense_shape: np.ndarray):
    shape = tuple(int(d) for d in dense_shape)
    dense = np.zeros(shape, values.dtype) if values.dtype.kind != "O" else np.full(shape, b"", object)
    present = np.zeros(shape, bool)
    where = tuple(np.asarray(indices, np.int64).T)
    dense[where] = values
    present[where] = True
    return SparseElement(dense, present)


def decode(element: SparseElement) -> Any:
    """The SparseTensor of an element of eager values (its spec for an element of specs)."""
    if isinstance(element.dense, TensorSpec):
        return SparseTensorSpec(element.dense.shape, element.dense.dtype)
    dense, present = (np.asarray(v._value if isinstance(v, EagerTensor) else v)
                      for v in (element.dense, element.present))
    indices = np.argwhere(present).astype(np.int64).reshape(-1, dense.ndim)
    return SparseTensor(indices, EagerTensor(dense[present]),
                        np.asarray(dense.shape, np.int64))


def decode_symbolic(element: SparseElement) -> SparseTensor:
    """The SparseTensor of an element of symbolic tensors (a staged iteration's): the set
    entries in row-major order, as `decode` gives them eagerly."""
    indices = array_math.where(element.present)
    values = array_math.boolean_mask(element.dense, element.present)
    return SparseTensor(indices, values, array_math.shape(element.dense, out_type=_dtypes.int64))


def decode_all(structure: Any, decoder=decode) -> Any:
    """`structure` with each SparseElement replaced by its SparseTensor (or spec), made by
    `decoder`."""
    if isinstance(structure, SparseElement):
        return decoder(structure)
    if isinstance(structure, tuple) and not isinstance(structure, Tensor):
        items = [decode_all(v, decoder) for v in structure]
        return type(structure)(*items) if hasattr(structure, "_fields") else type(structure)(items)
    if isinstance(structure, dict):
        return type(structure)((k, decode_all(v, decoder)) for k, v in structure.items())
    return structure


def holds_sparse(structure: Any) -> bool:
    if isinstance(structure, SparseElement):
        return True
    if isinstance(structure, tuple):
        return any(holds_sparse(v) for v in structure)
    if isinstance(structure, dict):
        return any(holds_sparse(v) for v in structure.values())
    return False
