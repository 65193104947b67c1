"""More of `tf.ragged`: `cross` / `cross_hashed` (the feature crosses of `sparse.cross` and
`sparse.cross_hashed` over RaggedTensors, SparseTensors and tensors, in the order given, as
RaggedTensors) and `stack_dynamic_partitions` (the rows of a tensor grouped by partition).
"""

from __future__ import annotations

import numpy as np

from .. import dtypes as _dtypes
from ..errors import InvalidArgumentError
from ..exports import export
from ..graph import constant_value
from ..shapes import TensorSpec
from . import array_math
from . import array_scatter as _scatter
from . import array_sort as _sort
from .core import convert_to_tensor
from .py_function import numpy_function
from .ragged import RaggedTensor
from .sparse_ragged_extras import _buckets_and_key, _cross_inputs, _cross_kernel


@export("ragged.cross")
def cross(inputs, name=None) -> RaggedTensor:
    """The crossed string features of each row of `inputs` (2-D RaggedTensors, SparseTensors
    and tensors of strings or integers, in the order given): every combination of one
    feature of each, joined by "_X_", as a RaggedTensor of strings."""
    kinds, flat = _cross_inputs(inputs, "ragged.cross", ragged_ok=True)
    values, lengths = numpy_function(
        _cross_kernel(kinds, False, 0, 0), flat,
        [TensorSpec([None], _dtypes.string), TensorSpec([None], _dtypes.int64)], stateful=False)
    return RaggedTensor.from_row_lengths(values, lengths, validate=False)


@export("ragged.cross_hashed")
def cross_hashed(inputs, num_buckets=0, hash_key=None, name=None) -> RaggedTensor:
    """As `ragged.cross`, each crossed feature hashed as `sparse.cross_hashed` does: an
    int64 RaggedTensor."""
    buckets, key = _buckets_and_key(num_buckets, hash_key, "ragged.cross_hashed")
    kinds, flat = _cross_inputs(inputs, "ragged.cross_hashed", ragged_ok=True)
    values, lengths = numpy_function(
        _cross_kernel(kinds, True, buckets, key), flat,
        [TensorSpec([None], _dtypes.int64), TensorSpec([None], _dtypes.int64)], stateful=False)
    return RaggedTensor.from_row_lengths(values, lengths, validate=False)


# -- stack_dynamic_partitions --------------------------------------------------------------

@export("ragged.stack_dynamic_partitions")
def stack_dynamic_partitions(data, partitions, num_partitions, name=None) -> RaggedTensor:
    """The rows of `data` grouped by `partitions` (an int per row, in `[0,
    num_partitions)`): row `i` of the result holds, in order, the rows of `data` whose
    partition is `i` (`tf.dynamic_partition` stacked into one RaggedTensor)."""
    parts = array_math.cast(convert_to_tensor(partitions), _dtypes.int64)
    n = int(num_partitions)
    if n < 0:
        raise ValueError(f"num_partitions must be non-negative, got {n}.")
    known = constant_value(parts)
    if known is not None and np.size(known):
        if np.max(known) >= n:
            raise InvalidArgumentError(f"partitions must be less than num_partitions; got "
                                       f"{int(np.max(known))} with num_partitions={n}.")
        if np.min(known) < 0:
            raise InvalidArgumentError(f"partitions must be non-negative; got "
                                       f"{int(np.min(known))}.")
    if parts.shape.rank not in (None, 1):
        raise ValueError(f"stack_dynamic_partitions: `partitions` must be 1-D, got shape "
                         f"{parts.shape}.")
    order = _sort.argsort(parts, stable=True)
    rows = _scatter.gather(data if isinstance(data, RaggedTensor) else convert_to_tensor(data),
                           order)
    return RaggedTensor.from_value_rowids(rows, _scatter.gather(parts, order), nrows=n,
                                          validate=False)
