"""More of `tf.sparse`: `bincount` (counts as a SparseTensor), `cross_hashed` (feature
crosses hashed with TensorFlow's FingerprintCat64 of FarmHash fingerprints; the crossing kernel
is shared with `ragged.cross`, runtime/ops/ragged_cross.py), `mask` (the slices of an
IndexedSlices-like value whose index is not masked) and `sampled_addmm` (a matrix product
computed only at the given indices).

Counting, crossing and hashing run as one NumPy call each (`numpy_function`; TensorFlow gives
them no gradient either); `mask` and `sampled_addmm` are composed of gathers and reductions, so
gradients reach the values.
"""

from __future__ import annotations

import itertools
from typing import TypeVar

import numpy as np

from .. import dtypes as _dtypes
from ..errors import InvalidArgumentError
from ..exports import export
from ..graph import constant_value
from ..shapes import TensorSpec
from ..tensor import Tensor
from . import array_math
from . import array_scatter as _scatter
from .array_sort import bincount_length
from .core import convert_to_tensor
from .farmhash import fingerprint64
from .linalg import matmul
from .py_function import numpy_function
from .ragged import RaggedTensor
from .sparse import SparseTensor

_MASK64 = (1 << 64) - 1
_MUL = 0xC6A4A7935BD1E995
_DEFAULT_HASH_KEY = 0xDECAFCAFFE  # TensorFlow's key of FingerprintCat64 when none is given
_INT64_MAX = (1 << 63) - 1
_Slices = TypeVar("_Slices")  # an IndexedSlices, or any value with its three fields


# -- bincount ------------------------------------------------------------------------------

def _bincount_kernel(axis_last: bool, minlength, maxlength, binary: bool, has_weights: bool,
                     out_dtype):
    def kernel(values, rows, weights, batch):
        values = np.asarray(values).astype(np.int64, copy=False).ravel()
        rows = np.asarray(rows, np.int64).ravel()
        weights = np.asarray(weights).ravel() if has_weights else None
        if values.size and values.min() < 0:
            raise InvalidArgumentError("Input values must all be non-negative; got "
                                       f"{int(values.min())}.")
        size = bincount_length(values, minlength, maxlength)
        keep = values < size
        values, rows = values[keep], rows[keep]
        if weights is not None:
            weights = weights[keep]
        n_rows = int(batch) if axis_last else 1
        flat = rows * size + values if axis_last else values
        counts = np.zeros(n_rows * size, out_dtype)
        seen = np.zeros(n_rows * size, bool)
        seen[flat] = True
        if binary:
            counts[seen] = 1
        elif weights is not None:
            np.add.at(counts, flat, weights.astype(out_dtype))
        else:
            np.add.at(counts, flat, 1)
        at = np.flatnonzero(seen)
        if axis_last:
            indices = np.stack([at // max(size, 1), at % max(size, 1)], 1).astype(np.int64)
            shape = np.array([n_rows, size], np.int64)
        else:
            indices = at.astype(np.int64).reshape(-1, 1)
            shape = np.array([size], np.int64)
        return indices, counts[at], shape
    return kernel


def _optional_length(value, what: str):
    if value is None:
        return None
    known = constant_value(convert_to_tensor(value))
    if known is None:
        raise ValueError(f"sparse.bincount: `{what}` must be known while tracing.")
    return int(np.asarray(known))


@export("sparse.bincount")
def bincount(values, weights=None, axis=0, minlength=None, maxlength=None,
             binary_output=False, name=None) -> SparseTensor:
    """The number of times each non-negative integer occurs in `values` (a tensor,
    SparseTensor or RaggedTensor; a SparseTensor's missing entries are not counted), as a
    SparseTensor holding the nonzero counts. `axis=0` (or None) counts over everything (a 1-D
    result), `axis=-1` counts each row of a 2-D input apart (`[rows, size]`). The size is the
    largest value + 1, at least `minlength`, at most `maxlength` (larger values are dropped).
    `weights` (a tensor of the same structure) sums weights instead of counting;
    `binary_output` records 1 for each value present."""
    if axis is None:
        axis = 0
    if axis not in (0, -1):
        raise ValueError(f"Unsupported value for argument axis={axis}. Only 0 and -1 are "
                         "currently supported.")
    if binary_output and weights is not None:
        raise ValueError("Arguments `binary_output` and `weights` are mutually exclusive. "
                         "Please specify only one.")
    if isinstance(values, SparseTensor):
        if weights is not None and not isinstance(weights, SparseTensor):
            raise ValueError("Argument `weights` must be a SparseTensor if `values` is a "
                             f"SparseTensor. Received weights={weights!r}.")
        if values.shape.rank not in (None, 1, 2):
            raise InvalidArgumentError(f"Input must be a 1 or 2-dimensional tensor. Got: "
                                       f"{values.shape}")
        flat = values.values
        rows = (values.indices[:, 0] if values.shape.rank == 2
                else array_math.zeros_like(values.indices[:, 0]))
        batch = values.dense_shape[0]
        w = weights.values if weights is not None else None
    elif isinstance(values, RaggedTensor):
        if weights is not None and not isinstance(weights, RaggedTensor):
            raise ValueError("Argument `weights` must be a RaggedTensor if `values` is a "
                             f"RaggedTensor. Received weights={weights!r}.")
        if values.ragged_rank != 1 or values.shape.rank != 2:
            raise InvalidArgumentError("Input must be a 2-dimensional RaggedTensor "
                                       "(ragged_rank 1).")
        flat, rows, batch = values.values, values.value_rowids(), values.nrows()
        w = weights.values if weights is not None else None
    else:
        dense = convert_to_tensor(values)
        rank = dense.shape.rank
        if rank is not None and rank not in (1, 2) and axis == -1:
            raise InvalidArgumentError(f"Input must be a 1 or 2-dimensional tensor. Got: "
                                       f"{dense.shape.as_list()}")
        if axis == -1 and rank == 2:
            shape = array_math.shape(dense, out_type=_dtypes.int64)
            batch = shape[0]
            rows = array_math.reshape(array_math.tile(
                array_math.expand_dims(array_math.range(batch), 1), [1, shape[1]]), [-1])
        else:
            batch = convert_to_tensor(1, _dtypes.int64)
            rows = array_math.zeros_like(array_math.reshape(dense, [-1]), dtype=_dtypes.int64)
        flat = array_math.reshape(dense, [-1])
        w = array_math.reshape(convert_to_tensor(weights), [-1]) if weights is not None else None
    if not (flat.dtype.is_integer):
        raise TypeError(f"sparse.bincount: `values` must hold integers, got {flat.dtype.name}.")
    axis_last = axis == -1
    if axis_last and not isinstance(values, RaggedTensor) and (
            values.shape.rank if isinstance(values, SparseTensor)
            else convert_to_tensor(values).shape.rank) == 1:
        axis_last = False  # a 1-D input has one row either way
    out_dtype = w.dtype if w is not None else flat.dtype
    kernel = _bincount_kernel(axis_last, _optional_length(minlength, "minlength"),
                              _optional_length(maxlength, "maxlength"), bool(binary_output),
                              w is not None, out_dtype.as_numpy_dtype)
    width = 2 if axis_last else 1
    indices, counts, shape = numpy_function(
        kernel, [flat, rows, w if w is not None else flat, batch],
        [TensorSpec([None, width], _dtypes.int64), TensorSpec([None], out_dtype),
         TensorSpec([width], _dtypes.int64)], stateful=False)
    return SparseTensor(indices, counts, shape)


# -- crosses -------------------------------------------------------------------------------

def fingerprint_cat64(first: int, second: int) -> int:
    """TensorFlow's FingerprintCat64: two 64-bit fingerprints combined into one."""
    def mix(v: int) -> int:
        return v ^ (v >> 47)
    result = first ^ _MUL
    result ^= (mix((second * _MUL) & _MASK64) * _MUL) & _MASK64
    result = (result * _MUL) & _MASK64
    result = (mix(result) * _MUL) & _MASK64
    return mix(result)


def _feature_bytes(value) -> bytes:
    if isinstance(value, (bytes, np.bytes_)):
        return bytes(value)
    if isinstance(value, str):
        return value.encode()
    return str(int(value)).encode()


def _feature_hash(value) -> int:
    if isinstance(value, (bytes, np.bytes_, str)):
        return fingerprint64(_feature_bytes(value))
    return int(value) & _MASK64


def _row_features(kinds: str, arrays) -> tuple[int, list[list[list]]]:
    """For each row, the list of features of each input ('S': a SparseTensor's indices,
    values, dense shape; 'D': a dense 2-D array), in the order given."""
    parts, at = [], 0
    for kind in kinds:
        if kind == "S":
            indices, values, shape = arrays[at:at + 3]
            at += 3
            parts.append((int(shape[0]), lambda r, i=np.asarray(indices), v=np.asarray(values):
                          list(v[i[:, 0] == r])))
        else:
            dense = np.asarray(arrays[at])
            at += 1
            parts.append((len(dense), lambda r, d=dense: list(np.ravel(d[r]))))
    batch = parts[0][0] if parts else 0
    for i, (size, _) in enumerate(parts):
        if size != batch:
            raise InvalidArgumentError(f"Expected batch size {batch} got {size} at input {i}")
    return batch, [[get(r) for _, get in parts] for r in range(batch)]


def _cross_kernel(kinds: str, hashed: bool, num_buckets: int, hash_key: int,
                  separator: bytes = b"_X_"):
    def kernel(*arrays):
        batch, rows = _row_features(kinds, arrays)
        out = []
        for features in rows:
            crossed = []
            for combo in itertools.product(*features):
                if hashed:
                    h = hash_key
                    for value in combo:
                        h = fingerprint_cat64(h, _feature_hash(value))
                    crossed.append(h % num_buckets if num_buckets > 0 else h % _INT64_MAX)
                else:
                    crossed.append(separator.join(_feature_bytes(v) for v in combo))
            out.append(crossed)
        lengths = np.array([len(r) for r in out], np.int64)
        if hashed:
            values = np.array([v for r in out for v in r], np.uint64).astype(np.int64)
        else:
            values = np.array([v for r in out for v in r] + [b""], dtype=object)[:-1]
        return values, lengths
    return kernel


def _cross_inputs(inputs, fn: str, ragged_ok: bool):
    if not isinstance(inputs, (list, tuple)):
        raise TypeError(f"{fn}: `inputs` must be a list of tensors, got "
                        f"{type(inputs).__name__}.")
    kinds, flat = "", []
    for x in inputs:
        if isinstance(x, RaggedTensor):
            if not ragged_ok:
                raise TypeError(f"{fn}: inputs must be SparseTensors or tensors, got a "
                                "RaggedTensor.")
            if x.ragged_rank != 1:
                raise ValueError(f"{fn}: a RaggedTensor input must have ragged_rank 1.")
            x = x.to_sparse()
        if isinstance(x, SparseTensor):
            if x.shape.rank not in (None, 2):
                raise ValueError(f"{fn}: every input must be 2-D, got shape {x.shape}.")
            kinds += "S"
            flat += [x.indices, x.values, x.dense_shape]
        else:
            x = convert_to_tensor(x)
            if x.shape.rank not in (None, 2):
                raise ValueError(f"{fn}: every input must be 2-D, got shape {x.shape}.")
            kinds += "D"
            flat.append(x)
    return kinds, flat


def _buckets_and_key(num_buckets, hash_key, fn: str) -> tuple[int, int]:
    buckets = int(num_buckets)
    if buckets < 0:
        raise ValueError(f"{fn}: `num_buckets` must be >= 0, got {buckets}.")
    key = _DEFAULT_HASH_KEY if hash_key is None else int(hash_key) & _MASK64
    return buckets, key


def _sparse_result(values, lengths) -> SparseTensor:
    ragged = RaggedTensor.from_row_lengths(values, lengths, validate=False)
    return ragged.to_sparse()


@export("sparse.cross_hashed")
def cross_hashed(inputs, num_buckets=0, hash_key=None, name=None) -> SparseTensor:
    """As `sparse.cross`, each crossed feature hashed instead of joined: FarmHash's
    fingerprint of a string (an integer's own 64 bits) combined in order by FingerprintCat64
    from `hash_key` (0xDECAFCAFFE by default), modulo `num_buckets` (0: modulo the int64
    maximum). Sparse inputs come first, then dense ones, as TensorFlow's."""
    buckets, key = _buckets_and_key(num_buckets, hash_key, "sparse.cross_hashed")
    if not isinstance(inputs, (list, tuple)):
        raise TypeError("sparse.cross_hashed: `inputs` must be a list of SparseTensors and "
                        f"tensors, got {type(inputs).__name__}.")
    ordered = ([x for x in inputs if isinstance(x, SparseTensor)]
               + [x for x in inputs if not isinstance(x, SparseTensor)])
    kinds, flat = _cross_inputs(ordered, "sparse.cross_hashed", ragged_ok=False)
    values, lengths = numpy_function(
        _cross_kernel(kinds, True, buckets, key), flat,
        [TensorSpec([None], _dtypes.int64), TensorSpec([None], _dtypes.int64)], stateful=False)
    return _sparse_result(values, lengths)


# -- mask, sampled_addmm -------------------------------------------------------------------

@export("sparse.mask")
def mask(a: _Slices, mask_indices, name=None) -> _Slices:
    """The slices of `a` (an IndexedSlices, or any value with `.values`, `.indices` and
    `.dense_shape`) whose index is not in `mask_indices`, in their order, as a value of the
    same type."""
    for attr in ("values", "indices", "dense_shape"):
        if not hasattr(a, attr):
            raise TypeError(f"sparse.mask: `a` must be an IndexedSlices (values, indices, "
                            f"dense_shape), got {type(a).__name__}.")
    indices = convert_to_tensor(a.indices)
    masked = array_math.cast(array_math.reshape(convert_to_tensor(mask_indices), [1, -1]),
                             indices.dtype)
    hit = array_math.reduce_any(array_math.equal(array_math.expand_dims(indices, 1), masked),
                                axis=1)
    keep = array_math.logical_not(hit)
    kept = array_math.boolean_mask(convert_to_tensor(a.values), keep)
    return type(a)(kept, array_math.boolean_mask(indices, keep), a.dense_shape)


@export("sparse.sampled_addmm")
def sampled_addmm(indices, values, dense_shape, mat1, mat2, beta=1.0, alpha=1.0,
                  output_type=_dtypes.float32) -> tuple[Tensor, Tensor, Tensor]:
    """`alpha * (mat1 @ mat2)` at `indices` plus `beta * values`, computed only at those
    entries: the triple (indices, values, dense_shape) of the result. `mat1` `[..., M, K]`,
    `mat2` `[..., K, N]`; `indices` `[..., nnz, 2]` (row, column) per batch; `dense_shape`
    must be `[M, N]`. Everything is cast to `output_type`."""
    out = _dtypes.as_dtype(output_type)
    a = array_math.cast(convert_to_tensor(mat1), out)
    b = array_math.cast(convert_to_tensor(mat2), out)
    idx = convert_to_tensor(indices)
    vals = array_math.cast(convert_to_tensor(values), out)
    dense = convert_to_tensor(dense_shape)
    a_shape, b_shape = a.shape.as_list(), b.shape.as_list()
    if a.shape.rank is not None and b.shape.rank is not None:
        if a.shape.rank < 2 or a.shape.rank != b.shape.rank:
            raise ValueError(f"sampled_addmm: `mat1` and `mat2` must have the same rank >= 2, "
                             f"got shapes {a_shape} and {b_shape}.")
        wanted = [a_shape[-2], b_shape[-1]]  # TensorFlow's check: the matrices' shape
        known = constant_value(dense)
        if known is not None and None not in wanted and list(np.asarray(known)) != wanted:
            raise ValueError(f"Dense shape: {np.asarray(known)} does not match output shape: "
                             f"{np.asarray(wanted)}")
    product = matmul(a, b)
    # one row of gather_nd per entry: its batch position, row and column
    batch_rank = (a.shape.rank or 2) - 2
    gathered = _scatter.gather_nd(product, array_math.cast(idx, _dtypes.int64),
                                    batch_dims=batch_rank)
    result = array_math.add(array_math.multiply(convert_to_tensor(alpha, out), gathered),
                            array_math.multiply(convert_to_tensor(beta, out), vals))
    return idx, result, dense
