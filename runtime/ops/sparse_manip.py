"""rt.sparse's structural functions: concat, slice, map_values, retain, reset_shape, reshape,
fill_empty_rows, the sparse segment reductions and cross, with TensorFlow's semantics and errors.

Each is composed from existing ops (gathers, scatters, boolean masks, sorts) on the three
tensors of a SparseTensor, so it runs eagerly and staged and gradients reach the values.
Checks that need values (shapes that must agree, bounds) run when the values are known.
`cross` builds strings, so it is one NumPy call (`numpy_function`, the NumPy tier only).
"""

from __future__ import annotations

import itertools

import numpy as np

from .. import dtypes as _dtypes
from ..errors import InvalidArgumentError
from ..exports import export
from ..graph import constant_value
from ..tensor import Tensor
from . import array_math
from . import array_scatter as _scatter
from .array_sort import cumprod
from .core import convert_to_tensor
from .py_function import numpy_function
from .sparse import SparseTensor, _linear, _sparse, reorder


def _static_shape(sp: SparseTensor):
    known = constant_value(sp.dense_shape)
    return None if known is None else [int(d) for d in np.asarray(known)]


def _rank(sp: SparseTensor, what: str) -> int:
    rank = sp.shape.rank
    if rank is None:
        raise ValueError(f"{what} needs SparseTensors of known rank.")
    return rank


def _int64_vector(value, what: str) -> Tensor:
    t = convert_to_tensor(value)
    if not t.dtype.is_integer:
        raise TypeError(f"`{what}` must hold integers, got dtype {t.dtype.name}.")
    return t if t.dtype is _dtypes.int64 else array_math.cast(t, _dtypes.int64)


# -- concat --------------------------------------------------------------------------------

def _concat_shapes(axis: int, shapes: list, expand: bool) -> None:
    """TensorFlow's checks of the inputs' dense shapes, when they are known."""
    if any(s is None for s in shapes):
        return
    first = shapes[0]
    for i, shape in enumerate(shapes[1:], 1):
        if len(shape) != len(first):
            raise InvalidArgumentError(f"Ranks of all input tensors should match: shape[0] = "
                                       f"{first} vs. shape[{i}] = {shape}")
        for d, (a, b) in enumerate(zip(first, shape)):
            if d != axis and a != b and not expand:
                raise InvalidArgumentError(f"Input shapes must match: expected {a} for dimension "
                                           f"{d} but got {b} at position {i}")


@export("sparse.concat")
def concat(axis, sp_inputs, expand_nonconcat_dims: bool = False, name=None) -> SparseTensor:
    """The SparseTensors `sp_inputs` joined along `axis`, entries in row-major order. Their
    other dimensions must agree, unless `expand_nonconcat_dims`: then each is the largest."""
    if not isinstance(sp_inputs, (list, tuple)) or not sp_inputs:
        raise ValueError("`sp_inputs` must be a non-empty list of SparseTensors.")
    inputs = [_sparse(sp, f"sp_inputs[{i}]") for i, sp in enumerate(sp_inputs)]
    rank = _rank(inputs[0], "sparse.concat")
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        raise TypeError(f"sparse.concat: axis must be a Python int, got {axis!r}.")
    if not -rank <= axis < rank:
        raise InvalidArgumentError(f"Concat dimension must be in range [{-rank}, {rank}), got "
                                   f"{axis}")
    axis = int(axis) % rank
    _concat_shapes(axis, [_static_shape(sp) for sp in inputs], expand_nonconcat_dims)
    unit = convert_to_tensor(np.eye(rank, dtype=np.int64)[axis])
    offset = convert_to_tensor(np.int64(0))
    indices, shapes = [], []
    for sp in inputs:
        indices.append(array_math.add(sp.indices, array_math.multiply(unit, offset)))
        offset = array_math.add(offset, sp.dense_shape[axis])
        shapes.append(sp.dense_shape)
    others = (array_math.reduce_max(array_math.stack(shapes), axis=0) if expand_nonconcat_dims
              else shapes[0])
    dense_shape = array_math.add(array_math.multiply(others, 1 - unit),
                                 array_math.multiply(unit, offset))
    joined = SparseTensor(array_math.concat(indices, 0),
                          array_math.concat([sp.values for sp in inputs], 0), dense_shape)
    return reorder(joined)


# -- slice, retain, reset_shape ------------------------------------------------------------

@export("sparse.slice")
def slice(sp_input, start, size, name=None) -> SparseTensor:  # noqa: A001 - TensorFlow's name
    """The entries of `sp_input` in the box from `start` of extent `size`, their indices made
    relative to `start`; the box is clipped to the dense shape."""
    sp = _sparse(sp_input, "sp_input")
    start, size = _int64_vector(start, "start"), _int64_vector(size, "size")
    rank = _rank(sp, "sparse.slice")
    for what, t in (("start", start), ("size", size)):
        if t.shape.rank != 1 or t.shape.as_tuple()[0] not in (None, rank):
            raise ValueError(f"sparse.slice: `{what}` must be a vector of length {rank} (the "
                             f"rank of `sp_input`), got shape {t.shape}.")
    end = array_math.add(start, size)
    inside = array_math.logical_and(array_math.greater_equal(sp.indices, start),
                                    array_math.less(sp.indices, end))
    keep = array_math.reduce_all(inside, axis=1)
    indices = array_math.subtract(array_math.boolean_mask(sp.indices, keep), start)
    extent = array_math.maximum(array_math.subtract(array_math.minimum(end, sp.dense_shape),
                                                    start), 0)
    return SparseTensor(indices, array_math.boolean_mask(sp.values, keep), extent)


@export("sparse.retain")
def retain(sp_input, to_retain) -> SparseTensor:
    """The entries of `sp_input` where the bool vector `to_retain` is True."""
    sp = _sparse(sp_input, "sp_input")
    mask = convert_to_tensor(to_retain)
    if mask.dtype is not _dtypes.bool_ or mask.shape.rank not in (None, 1):
        raise ValueError(f"`to_retain` must be a bool vector, got {mask.dtype.name} of shape "
                         f"{mask.shape}.")
    n, count = sp.values.shape.as_tuple()[0], mask.shape.as_tuple()[0]
    if n is not None and count is not None and n != count:
        raise ValueError(f"`to_retain` has {count} entries but `sp_input` has {n} values.")
    return SparseTensor(array_math.boolean_mask(sp.indices, mask),
                        array_math.boolean_mask(sp.values, mask), sp.dense_shape)


@export("sparse.reset_shape")
def reset_shape(sp_input, new_shape=None) -> SparseTensor:
    """`sp_input` with dense shape `new_shape` (which must not shrink it), or, when None, the
    tightest shape holding its indices."""
    sp = _sparse(sp_input, "sp_input")
    if new_shape is None:
        rank = _rank(sp, "sparse.reset_shape")
        floor = convert_to_tensor(np.zeros(rank, np.int64))
        tight = array_math.reduce_max(array_math.concat(
            [sp.indices, array_math.expand_dims(floor - 1, 0)], 0), axis=0)
        return SparseTensor(sp.indices, sp.values, array_math.add(tight, 1))
    shape = _int64_vector(new_shape, "new_shape")
    if shape.shape.rank != 1:
        raise ValueError(f"`new_shape` must be a vector, got shape {shape.shape}.")
    rank, length = sp.shape.rank, shape.shape.as_tuple()[0]
    if rank is not None and length is not None and rank != length:
        raise ValueError(f"`new_shape` has {length} dimensions but `sp_input` has rank {rank}.")
    old, new = _static_shape(sp), constant_value(shape)
    if old is not None and new is not None and any(n < o for n, o in zip(new.tolist(), old)):
        raise ValueError(f"Requested new_shape should have dimension sizes >= sp_input.shape: "
                         f"new_shape {new.tolist()} is smaller than {old} in some dimension.")
    return SparseTensor(sp.indices, sp.values, shape)


# -- reshape -------------------------------------------------------------------------------

def _reshape_target(shape: Tensor, total: Tensor) -> Tensor:
    """`shape` with its one -1 (if any) inferred from the number of elements `total`."""
    known = constant_value(shape)
    if known is not None and int(np.sum(known == -1)) > 1:
        raise ValueError(f"sparse.reshape: at most one dimension of `shape` may be -1, got "
                         f"{known.tolist()}.")
    unknown = array_math.equal(shape, -1)
    rest = array_math.reduce_prod(array_math.where(unknown, array_math.ones_like(shape), shape))
    inferred = array_math.floordiv(total, array_math.maximum(rest, 1))
    return array_math.where(unknown, array_math.fill(array_math.shape(shape), inferred), shape)


@export("sparse.reshape")
def reshape(sp_input, shape, name=None) -> SparseTensor:
    """`sp_input` with the dense shape `shape` (one dimension may be -1), each entry keeping
    its row-major position."""
    sp = _sparse(sp_input, "sp_input")
    target = _int64_vector(shape, "shape")
    total = array_math.reduce_prod(sp.dense_shape)
    new_shape = _reshape_target(target, total)
    before, after = constant_value(total), constant_value(new_shape)
    if before is not None and after is not None and int(np.prod(after)) != int(before):
        raise InvalidArgumentError(
            f"Input to reshape is a tensor with {int(before)} dense values, but the requested "
            f"shape has {int(np.prod(after))}. input_shape={_static_shape(sp)} "
            f"output_shape={np.asarray(after).tolist()}")
    linear = array_math.expand_dims(_linear(sp.indices, sp.dense_shape), 1)
    rev = array_math.reverse(new_shape, [0])
    strides = array_math.reverse(cumprod(rev, exclusive=True), [0])
    indices = array_math.mod(array_math.floordiv(linear, strides), new_shape)
    return SparseTensor(indices, sp.values, new_shape)


# -- map_values, fill_empty_rows -----------------------------------------------------------

def _same_layout(first: SparseTensor, other: SparseTensor) -> None:
    a_shape, b_shape = _static_shape(first), _static_shape(other)
    a_idx, b_idx = constant_value(first.indices), constant_value(other.indices)
    if a_shape is not None and b_shape is not None and a_shape != b_shape:
        raise InvalidArgumentError(f"map_values: SparseTensors have different dense shapes: "
                                   f"{a_shape} and {b_shape}.")
    if a_idx is not None and b_idx is not None and (
            a_idx.shape != b_idx.shape or (a_idx != b_idx).any()):
        raise InvalidArgumentError("map_values: SparseTensors have different indices; they must "
                                   "have the same indices and dense shape.")


@export("sparse.map_values")
def map_values(op, *args, **kwargs) -> SparseTensor:
    """`op` applied to the values of the SparseTensors among the arguments (other arguments
    passed as they are); the result has their indices and dense shape, which must agree."""
    found: list[SparseTensor] = []

    def values_of(arg):
        if isinstance(arg, SparseTensor):
            found.append(arg)
            return arg.values
        if isinstance(arg, (list, tuple)):
            return type(arg)(values_of(a) for a in arg)
        if isinstance(arg, dict):
            return {k: values_of(v) for k, v in arg.items()}
        return arg

    args = values_of(list(args))
    kwargs = values_of(kwargs)
    if not found:
        raise ValueError("No SparseTensor in argument list of map_values")
    for other in found[1:]:
        _same_layout(found[0], other)
    return SparseTensor(found[0].indices, op(*args, **kwargs), found[0].dense_shape)


@export("sparse.fill_empty_rows")
def fill_empty_rows(sp_input, default_value, name=None) -> tuple[SparseTensor, Tensor]:
    """(`sp_input` with an entry `default_value` at [row, 0, ...] of each row that has none,
    a bool vector marking those rows), entries in row-major order."""
    sp = _sparse(sp_input, "sp_input")
    rank = _rank(sp, "sparse.fill_empty_rows")
    default = convert_to_tensor(default_value, dtype=sp.dtype)
    if default.shape.rank not in (0, None):
        raise ValueError(f"`default_value` must be a scalar, got shape {default.shape}.")
    rows = sp.dense_shape[0]
    counts = _scatter.unsorted_segment_sum(array_math.ones_like(sp.indices[:, 0]),
                                           sp.indices[:, 0], rows)
    empty = array_math.equal(counts, 0)
    empty_rows = array_math.cast(array_math.where(empty), _dtypes.int64)
    n_new = array_math.shape(empty_rows, out_type=_dtypes.int64)[0]
    padding = array_math.zeros(array_math.stack([n_new, np.int64(rank - 1)]), _dtypes.int64)
    indices = array_math.concat([sp.indices, array_math.concat([empty_rows, padding], 1)], 0)
    values = array_math.concat([sp.values, array_math.fill(array_math.expand_dims(n_new, 0),
                                                            default)], 0)
    return reorder(SparseTensor(indices, values, sp.dense_shape)), empty


# -- sparse segment reductions -------------------------------------------------------------

def _segments(data, indices, segment_ids, num_segments):
    data = convert_to_tensor(data)
    rows = _scatter.gather(data, convert_to_tensor(indices))
    ids = convert_to_tensor(segment_ids)
    if not ids.dtype.is_integer:
        raise TypeError(f"`segment_ids` must hold integers, got {ids.dtype.name}.")
    if num_segments is None:
        num = array_math.add(array_math.reduce_max(array_math.concat(
            [array_math.cast(ids, _dtypes.int64), convert_to_tensor(np.array([-1], np.int64))], 0)), 1)
    else:
        num = num_segments
    return data, rows, ids, num


def _counts(ids, num, dtype):
    return _scatter.unsorted_segment_sum(array_math.ones_like(array_math.cast(ids, dtype)), ids, num)


def _per_row(scale: Tensor, total: Tensor) -> Tensor:
    """`scale` [segments] broadcast over the trailing dimensions of `total`."""
    rank = total.shape.rank
    return array_math.reshape(scale, [-1] + [1] * (rank - 1)) if rank else scale


def _float_data(data: Tensor, what: str) -> None:
    if not data.dtype.is_floating:
        raise TypeError(f"sparse.{what} needs floating-point `data`, got {data.dtype.name}.")


@export("sparse.segment_sum")
def segment_sum(data, indices, segment_ids, num_segments=None, name=None) -> Tensor:
    """Row `s` of the result is the sum of `data[indices[i]]` over the `i` with
    `segment_ids[i] == s`."""
    _, rows, ids, num = _segments(data, indices, segment_ids, num_segments)
    return _scatter.unsorted_segment_sum(rows, ids, num)


@export("sparse.segment_mean")
def segment_mean(data, indices, segment_ids, num_segments=None, name=None) -> Tensor:
    """As segment_sum, divided by each segment's number of rows (empty segments are zero)."""
    data, rows, ids, num = _segments(data, indices, segment_ids, num_segments)
    _float_data(data, "segment_mean")
    total = _scatter.unsorted_segment_sum(rows, ids, num)
    count = array_math.maximum(_counts(ids, num, data.dtype), 1)
    return array_math.divide(total, _per_row(count, total))


@export("sparse.segment_sqrt_n")
def segment_sqrt_n(data, indices, segment_ids, num_segments=None, name=None) -> Tensor:
    """As segment_sum, divided by the square root of each segment's number of rows."""
    data, rows, ids, num = _segments(data, indices, segment_ids, num_segments)
    _float_data(data, "segment_sqrt_n")
    total = _scatter.unsorted_segment_sum(rows, ids, num)
    count = array_math.sqrt(array_math.maximum(_counts(ids, num, data.dtype), 1))
    return array_math.divide(total, _per_row(count, total))


# -- cross ---------------------------------------------------------------------------------

def _feature_text(value) -> bytes:
    if isinstance(value, (bytes, np.bytes_)):
        return bytes(value)
    if isinstance(value, str):
        return value.encode()
    return str(int(value)).encode()   # integers (floats truncated, as TensorFlow)


def _cross_rows(sparse_parts: list, dense_parts: list, separator: bytes):
    """The crossed features of each row: sparse inputs first, then dense ones (TensorFlow's
    order); the product varies the last input fastest."""
    batch = [int(shape[0]) for _, _, shape in sparse_parts] + [len(d) for d in dense_parts]
    for i, size in enumerate(batch[1:], 1):
        if size != batch[0]:
            kind, at = ("sparse", i) if i < len(sparse_parts) else ("dense", i - len(sparse_parts))
            raise InvalidArgumentError(f"Expected batch size {batch[0]} got {size} at {kind} "
                                       f"tensor {at}")
    rows = []
    for r in range(batch[0]):
        features = [[_feature_text(v) for v in values[indices[:, 0] == r]]
                    for indices, values, _ in sparse_parts]
        features += [[_feature_text(v) for v in np.ravel(d[r])] for d in dense_parts]
        rows.append([separator.join(p) for p in itertools.product(*features)])
    return batch[0], rows


def _cross_kernel(n_sparse: int, separator: bytes):
    def kernel(*arrays):
        sparse_parts = [tuple(arrays[3 * i:3 * i + 3]) for i in range(n_sparse)]
        batch, rows = _cross_rows(sparse_parts, list(arrays[3 * n_sparse:]), separator)
        width = max((len(r) for r in rows), default=0)
        indices = np.array([[r, j] for r, row in enumerate(rows) for j in range(len(row))],
                           np.int64).reshape(-1, 2)
        values = np.array([v for row in rows for v in row] + [b""], dtype=object)[:-1]
        return indices, values, np.array([batch, width], np.int64)
    return kernel


@export("sparse.cross")
def cross(inputs, name=None, separator=None) -> SparseTensor:
    """The crossed string features of each row of `inputs` (SparseTensors and dense 2-D
    tensors of strings or integers): every combination of one feature of each, joined by
    `separator` ("_X_"), sparse inputs first, as TensorFlow's."""
    if not isinstance(inputs, (list, tuple)):
        raise TypeError(f"`inputs` must be a list of SparseTensors and tensors, got "
                        f"{type(inputs).__name__}.")
    sparse = [x for x in inputs if isinstance(x, SparseTensor)]
    dense = [convert_to_tensor(x) for x in inputs if not isinstance(x, SparseTensor)]
    for x in sparse + dense:
        if x.shape.rank not in (None, 2):
            raise ValueError(f"sparse.cross: every input must be 2-D (a batch of feature "
                             f"lists), got shape {x.shape}.")
    text = b"_X_" if separator is None else (separator.encode() if isinstance(separator, str)
                                             else bytes(separator))
    flat = [t for sp in sparse for t in (sp.indices, sp.values, sp.dense_shape)] + dense
    indices, values, shape = numpy_function(
        _cross_kernel(len(sparse), text), flat, [_dtypes.int64, _dtypes.string, _dtypes.int64],
        stateful=False)
    return SparseTensor(array_math.reshape(indices, [-1, 2]), array_math.reshape(values, [-1]),
                        array_math.reshape(shape, [2]))
