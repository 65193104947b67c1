"""Scatter ops, gathers with batch dimensions, and segment reductions, with their gradients.

`scatter_nd` and the `tensor_scatter_nd_*` family write slices at index tuples (the last
axis of `indices`); `gather`/`gather_nd` with `batch_dims` gather within each batch entry;
the segment ops reduce the rows of `data` that share a segment id. Out-of-range indices and
ids raise `rt.errors.InvalidArgumentError` naming the argument, on every tier (the NumPy
kernels check them). This module builds on array_math.
"""

from __future__ import annotations

import builtins

import numpy as np

from .. import dtypes as _dtypes
from ..attr_kinds import AXIS, INT, OPT_DIMS
from ..errors import InvalidArgumentError
from ..exports import export
from ..opdef import define
from ..shapes import TensorShape
from ..tensor import Tensor
from . import array_math
from .core import apply, convert_to_tensor
from .shape_rules import normalize_axis, partial_scalar, shape_from_tensor

# -- checks shared by the kernels ----------------------------------------------------------


def _check_index_tuples(op_name: str, indices: np.ndarray, dims: tuple, what: str = "indices"):
    """Raises when an index tuple (the last axis of `indices`) falls outside `dims`."""
    k = indices.shape[-1]
    if k > len(dims):
        raise InvalidArgumentError(f"{op_name}: {what} has index tuples of length {k}, more "
                                   f"than the rank of shape {list(dims)}.")
    if indices.size == 0:
        return
    flat = indices.reshape(-1, k)
    bad = (flat < 0) | (flat >= np.asarray(dims[:k], dtype=np.int64))
    if bad.any():
        row = int(np.argmax(bad.any(axis=1)))
        where = np.unravel_index(row, indices.shape[:-1])
        raise InvalidArgumentError(
            f"{op_name}: {what}{list(int(w) for w in where)} = {flat[row].tolist()} does not "
            f"index into shape {list(dims)}.")


def _check_range(op_name: str, indices: np.ndarray, size: int, what: str = "indices"):
    """Raises when an index is outside [0, size)."""
    if indices.size and (indices.min() < 0 or indices.max() >= size):
        bad = np.argwhere((indices < 0) | (indices >= size))[0]
        raise InvalidArgumentError(
            f"{op_name}: {what}{bad.tolist()} = {int(indices[tuple(bad)])} is not in "
            f"[0, {size}).")


def _int_tensor(value, what: str) -> Tensor:
    t = convert_to_tensor(value, dtype_hint=_dtypes.int32)
    if not t.dtype.is_integer:
        raise TypeError(f"{what} must be integers, got a {t.dtype.name} tensor.")
    return t


def _slice_shape(op_name, indices, updates_shape, out_dims):
    """The shape updates must have: indices.shape[:-1] + out_dims[k:]; checked when known."""
    idims, udims = indices.shape.as_tuple(), updates_shape.as_tuple()
    if idims is None or out_dims is None or udims is None or idims[-1] is None:
        return
    k = idims[-1]
    if k > len(out_dims):
        raise InvalidArgumentError(f"{op_name}: indices has index tuples of length {k}, more "
                                   f"than the rank of shape {list(out_dims)}.")
    expected = TensorShape(idims[:-1] + tuple(out_dims[k:]))
    if not expected.is_compatible_with(TensorShape(udims)):
        raise InvalidArgumentError(f"{op_name}: updates has shape {list(udims)}; indices of shape "
                                   f"{list(idims)} into shape {list(out_dims)} need updates of "
                                   f"shape {expected.as_list()}.")


def _run_slice_shape(op_name, indices, updates, dims):
    k = indices.shape[-1]
    expected = indices.shape[:-1] + tuple(dims[k:])
    if updates.shape != expected:
        raise InvalidArgumentError(f"{op_name}: updates has shape {list(updates.shape)}; indices "
                                   f"of shape {list(indices.shape)} into shape {list(dims)} need "
                                   f"updates of shape {list(expected)}.")


# -- scatter_nd ----------------------------------------------------------------------------

def _scatter_nd_infer(indices, updates, shape):
    if not indices.dtype.is_integer:
        raise TypeError(f"ScatterNd: indices must be integers, got {indices.dtype.name}.")
    out = shape_from_tensor(shape)
    _slice_shape("ScatterNd", indices, updates.shape, out.as_tuple())
    return out, updates.dtype


def _scatter_nd_kernel(indices, updates, shape):
    indices, updates = np.asarray(indices), np.asarray(updates)
    dims = tuple(int(d) for d in np.ravel(shape))
    if any(d < 0 for d in dims):
        raise InvalidArgumentError(f"ScatterNd: shape {list(dims)} has a negative dimension.")
    _check_index_tuples("ScatterNd", indices, dims)
    _run_slice_shape("ScatterNd", indices, updates, dims)
    out = np.zeros(dims, updates.dtype)
    np.add.at(out, tuple(np.moveaxis(indices, -1, 0)), updates)
    return out


SCATTER_ND = define("ScatterNd", _scatter_nd_infer, _scatter_nd_kernel)


@SCATTER_ND.def_grad
def _scatter_nd_grad(op, g):
    return [None, array_math.gather_nd(g, op.inputs[0]), None]


@export("scatter_nd")
def scatter_nd(indices, updates, shape, name=None) -> Tensor:
    """A zero tensor of `shape` with `updates` added at the index tuples in the last axis of
    `indices` (duplicate indices add up)."""
    indices = _int_tensor(indices, "scatter_nd's indices")
    updates = convert_to_tensor(updates)
    return apply(SCATTER_ND, [indices, updates, array_math.int_vector(shape)], name=name)


# -- tensor_scatter_nd_* ---------------------------------------------------------------------

_SCATTER_UFUNCS = {"Update": None, "Add": np.add, "Sub": np.subtract, "Min": np.minimum,
                   "Max": np.maximum}


def _tensor_scatter_infer(name):
    def infer(tensor, indices, updates):
        if not indices.dtype.is_integer:
            raise TypeError(f"{name}: indices must be integers, got {indices.dtype.name}.")
        if updates.dtype is not tensor.dtype:
            raise TypeError(f"{name}: updates ({updates.dtype.name}) must have the dtype of "
                            f"tensor ({tensor.dtype.name}).")
        _slice_shape(name, indices, updates.shape, tensor.shape.as_tuple())
        return tensor.shape, tensor.dtype
    return infer


def _tensor_scatter_kernel(name, ufunc):
    def kernel(tensor, indices, updates):
        tensor, indices, updates = np.asarray(tensor), np.asarray(indices), np.asarray(updates)
        _check_index_tuples(name, indices, tensor.shape)
        _run_slice_shape(name, indices, updates, tensor.shape)
        out = tensor.copy()
        key = tuple(np.moveaxis(indices, -1, 0))
        if ufunc is None:
            out[key] = updates
        else:
            ufunc.at(out, key, updates)
        return out
    kernel.__name__ = f"{name}_kernel"
    return kernel


TENSOR_SCATTER = {kind: define(f"TensorScatter{kind}", _tensor_scatter_infer(f"TensorScatter{kind}"),
                               _tensor_scatter_kernel(f"TensorScatter{kind}", ufunc))
                  for kind, ufunc in _SCATTER_UFUNCS.items()}


@TENSOR_SCATTER["Update"].def_grad
def _tensor_scatter_update_grad(op, g):
    indices = op.inputs[1]
    gx = apply(TENSOR_SCATTER["Update"], [g, indices, array_math.zeros_like(op.inputs[2])]) \
        if op.needs[0] else None
    gu = array_math.gather_nd(g, indices) if op.needs[2] else None
    return [gx, None, gu]


@TENSOR_SCATTER["Add"].def_grad
def _tensor_scatter_add_grad(op, g):
    return [g, None, array_math.gather_nd(g, op.inputs[1]) if op.needs[2] else None]


@TENSOR_SCATTER["Sub"].def_grad
def _tensor_scatter_sub_grad(op, g):
    return [g, None, array_math.negative(array_math.gather_nd(g, op.inputs[1])) if op.needs[2] else None]


def _tensor_scatter_extremum_grad(op, g):
    """The gradient goes to the tensor elements and updates equal to the result, shared
    evenly among ties."""
    tensor, indices, updates = op.inputs
    out = op.outputs[0]
    dtype = tensor.dtype
    from_tensor = array_math.cast(array_math.equal(tensor, out), dtype)
    from_updates = array_math.cast(array_math.equal(updates, array_math.gather_nd(out, indices)), dtype)
    count = apply(TENSOR_SCATTER["Add"], [from_tensor, indices, from_updates])
    share = array_math.divide(g, count)
    return [array_math.multiply(share, from_tensor), None,
            array_math.multiply(array_math.gather_nd(share, indices), from_updates)]


TENSOR_SCATTER["Min"].def_grad(_tensor_scatter_extremum_grad)
TENSOR_SCATTER["Max"].def_grad(_tensor_scatter_extremum_grad)


def _tensor_scatter(kind: str, doc: str):
    opdef = TENSOR_SCATTER[kind]

    def fn(tensor, indices, updates, name=None) -> Tensor:
        tensor = convert_to_tensor(tensor)
        indices = _int_tensor(indices, f"tensor_scatter_nd_{kind.lower()}'s indices")
        updates = convert_to_tensor(updates, dtype=tensor.dtype) if not isinstance(
            updates, Tensor) else updates
        return apply(opdef, [tensor, indices, updates], name=name)
    fn.__doc__ = doc
    return fn


tensor_scatter_nd_update = export("tensor_scatter_nd_update")(_tensor_scatter(
    "Update", "A copy of `tensor` with the slices at `indices` replaced by `updates`."))
tensor_scatter_nd_add = export("tensor_scatter_nd_add")(_tensor_scatter(
    "Add", "A copy of `tensor` with `updates` added at `indices` (duplicates add up)."))
tensor_scatter_nd_sub = export("tensor_scatter_nd_sub")(_tensor_scatter(
    "Sub", "A copy of `tensor` with `updates` subtracted at `indices` (duplicates add up)."))
tensor_scatter_nd_min = export("tensor_scatter_nd_min")(_tensor_scatter(
    "Min", "A copy of `tensor` with each slice at `indices` the minimum of it and `updates`."))
tensor_scatter_nd_max = export("tensor_scatter_nd_max")(_tensor_scatter(
    "Max", "A copy of `tensor` with each slice at `indices` the maximum of it and `updates`."))


# -- gather and gather_nd with batch dimensions -------------------------------------------------

def _batch_lead(op_name, params_dims, indices_dims, batch_dims):
    lead_p, lead_i = params_dims[:batch_dims], indices_dims[:batch_dims]
    if not TensorShape(lead_p).is_compatible_with(TensorShape(lead_i)):
        raise InvalidArgumentError(f"{op_name}: the first batch_dims={batch_dims} dimensions of "
                                   f"params {list(params_dims)} and indices {list(indices_dims)} "
                                   "must be equal.")
    return tuple(p if p is not None else i for p, i in zip(lead_p, lead_i))


def _batch_gather_infer(params, indices, axis, batch_dims):
    if not indices.dtype.is_integer:
        raise TypeError(f"BatchGather: indices must be integers, got {indices.dtype.name}.")
    dims, idims = params.shape.as_tuple(), indices.shape.as_tuple()
    if dims is None or idims is None:
        return TensorShape(None), params.dtype
    lead = _batch_lead("BatchGather", dims, idims, batch_dims)
    return TensorShape(lead + dims[batch_dims:axis] + idims[batch_dims:] + dims[axis + 1:]), \
        params.dtype


def _run_lead(op_name, params, indices, batch_dims):
    if params.shape[:batch_dims] != indices.shape[:batch_dims]:
        raise InvalidArgumentError(f"{op_name}: the first batch_dims={batch_dims} dimensions of "
                                   f"params {list(params.shape)} and indices "
                                   f"{list(indices.shape)} must be equal.")
    lead = params.shape[:batch_dims]
    return lead, int(np.prod(lead, dtype=np.int64))


def _batch_gather_kernel(params, indices, axis, batch_dims):
    params, indices = np.asarray(params), np.asarray(indices)
    lead, n = _run_lead("BatchGather", params, indices, batch_dims)
    _check_range("BatchGather", indices, params.shape[axis])
    local = axis - batch_dims
    out_dims = lead + params.shape[batch_dims:axis] + indices.shape[batch_dims:] + \
        params.shape[axis + 1:]
    out = np.empty(out_dims, params.dtype)
    p = params.reshape((n,) + params.shape[batch_dims:])
    i = indices.reshape((n,) + indices.shape[batch_dims:])
    o = out.reshape((n,) + out_dims[batch_dims:])
    for j in builtins.range(n):
        o[j] = np.take(p[j], i[j], axis=local)
    return out


BATCH_GATHER = define("BatchGather", _batch_gather_infer, _batch_gather_kernel,
                      attrs={"axis": AXIS, "batch_dims": INT})


def _batch_gather_grad_kernel(g, indices, *like, axis, batch_dims, shape):
    g, indices = np.asarray(g), np.asarray(indices)
    shape = np.shape(like[0]) if shape is None else tuple(shape)
    out = np.zeros(shape, g.dtype)
    n = int(np.prod(shape[:batch_dims], dtype=np.int64))
    local, inner = axis - batch_dims, indices.ndim - batch_dims
    o = out.reshape((n,) + shape[batch_dims:])
    i = indices.reshape((n,) + indices.shape[batch_dims:])
    gs = g.reshape((n,) + g.shape[batch_dims:])
    for j in builtins.range(n):
        moved = np.moveaxis(o[j], local, 0)
        rows = np.moveaxis(gs[j], list(builtins.range(local, local + inner)),
                           list(builtins.range(inner)))
        np.add.at(moved, i[j].reshape(-1), rows.reshape((i[j].size,) + moved.shape[1:]))
    return out


BATCH_GATHER_GRAD = define(
    "BatchGatherGrad",
    lambda g, indices, *like, axis, batch_dims, shape: (
        TensorShape(shape) if shape is not None else like[0].shape, g.dtype),
    _batch_gather_grad_kernel, attrs={"axis": AXIS, "batch_dims": INT, "shape": OPT_DIMS})


@BATCH_GATHER.def_grad
def _batch_gather_grad(op, g):
    shape_attr, like = array_math.like_input(op, 0)
    return [apply(BATCH_GATHER_GRAD, [g, op.inputs[1], *like],
                  {"axis": op.attrs["axis"], "batch_dims": op.attrs["batch_dims"],
                   "shape": shape_attr}), None]


@BATCH_GATHER_GRAD.def_grad
def _batch_gather_grad_grad(op, g):
    grad = apply(BATCH_GATHER, [g, op.inputs[1]],
                 {"axis": op.attrs["axis"], "batch_dims": op.attrs["batch_dims"]})
    return [grad] + [None] * (len(op.forward_inputs) - 1)


def _batch_gather_nd_infer(params, indices, batch_dims):
    if not indices.dtype.is_integer:
        raise TypeError(f"BatchGatherNd: indices must be integers, got {indices.dtype.name}.")
    dims, idims = params.shape.as_tuple(), indices.shape.as_tuple()
    if dims is None or idims is None or idims[-1] is None:
        return TensorShape(None), params.dtype
    lead = _batch_lead("BatchGatherNd", dims, idims, batch_dims)
    k = idims[-1]
    if batch_dims + k > len(dims):
        raise InvalidArgumentError(f"BatchGatherNd: index tuples of length {k} after "
                                   f"batch_dims={batch_dims} do not fit params of shape "
                                   f"{list(dims)}.")
    return TensorShape(lead + idims[batch_dims:-1] + dims[batch_dims + k:]), params.dtype


def _batch_gather_nd_kernel(params, indices, batch_dims):
    params, indices = np.asarray(params), np.asarray(indices)
    lead, n = _run_lead("BatchGatherNd", params, indices, batch_dims)
    _check_index_tuples("BatchGatherNd", indices, params.shape[batch_dims:])
    k = indices.shape[-1]
    out_dims = lead + indices.shape[batch_dims:-1] + params.shape[batch_dims + k:]
    out = np.empty(out_dims, params.dtype)
    p = params.reshape((n,) + params.shape[batch_dims:])
    i = indices.reshape((n,) + indices.shape[batch_dims:])
    o = out.reshape((n,) + out_dims[batch_dims:])
    for j in builtins.range(n):
        o[j] = p[j][tuple(np.moveaxis(i[j], -1, 0))]
    return out


BATCH_GATHER_ND = define("BatchGatherNd", _batch_gather_nd_infer, _batch_gather_nd_kernel,
                         attrs={"batch_dims": INT})


def _batch_gather_nd_grad_kernel(g, indices, *like, batch_dims, shape):
    g, indices = np.asarray(g), np.asarray(indices)
    shape = np.shape(like[0]) if shape is None else tuple(shape)
    out = np.zeros(shape, g.dtype)
    n = int(np.prod(shape[:batch_dims], dtype=np.int64))
    o = out.reshape((n,) + shape[batch_dims:])
    i = indices.reshape((n,) + indices.shape[batch_dims:])
    gs = g.reshape((n,) + g.shape[batch_dims:])
    for j in builtins.range(n):
        np.add.at(o[j], tuple(np.moveaxis(i[j], -1, 0)), gs[j])
    return out


BATCH_GATHER_ND_GRAD = define(
    "BatchGatherNdGrad",
    lambda g, indices, *like, batch_dims, shape: (
        TensorShape(shape) if shape is not None else like[0].shape, g.dtype),
    _batch_gather_nd_grad_kernel, attrs={"batch_dims": INT, "shape": OPT_DIMS})


@BATCH_GATHER_ND.def_grad
def _batch_gather_nd_grad(op, g):
    shape_attr, like = array_math.like_input(op, 0)
    return [apply(BATCH_GATHER_ND_GRAD, [g, op.inputs[1], *like],
                  {"batch_dims": op.attrs["batch_dims"], "shape": shape_attr}), None]


@BATCH_GATHER_ND_GRAD.def_grad
def _batch_gather_nd_grad_grad(op, g):
    grad = apply(BATCH_GATHER_ND, [g, op.inputs[1]], {"batch_dims": op.attrs["batch_dims"]})
    return [grad] + [None] * (len(op.forward_inputs) - 1)


def _batch_dims(batch_dims, indices, what):
    b = array_math.as_int(batch_dims, "batch_dims")
    rank = indices.shape.rank
    if b < 0:
        if rank is None:
            raise ValueError(f"{what}: a negative batch_dims needs indices of known rank.")
        b += rank
    if b < 0 or (rank is not None and b > rank):
        raise ValueError(f"{what}: batch_dims={batch_dims} is out of range for indices of rank "
                         f"{rank}.")
    return b


@export("gather")
def gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None) -> Tensor:
    """The slices of `params` at `indices` along `axis` (default: `batch_dims`), like
    np.take; with `batch_dims=b` the first b axes of both are batch axes gathered entry by
    entry. `validate_indices` is accepted and ignored (indices are always checked)."""
    del validate_indices
    params = convert_to_tensor(params)
    indices = _int_tensor(indices, "gather's indices")
    b = _batch_dims(batch_dims, indices, "gather")
    ax = b if axis is None else array_math.as_int(axis, "axis")
    rank = params.shape.rank
    if rank is not None:
        ax = normalize_axis(ax, rank, "gather")[0]
    if b == 0:
        return array_math.gather(params, indices, axis=ax, name=name)
    if rank is None or ax < 0:
        raise ValueError("gather with batch_dims needs params of known rank.")
    if b > ax:
        raise ValueError(f"gather: batch_dims={b} must be at most axis={ax}.")
    return apply(BATCH_GATHER, [params, indices], {"axis": ax, "batch_dims": b}, name=name)


@export("gather_nd")
def gather_nd(params, indices, batch_dims=0, name=None) -> Tensor:
    """The elements (or slices) of `params` whose index tuples are the last axis of
    `indices`; with `batch_dims=b` the first b axes of both are batch axes."""
    params = convert_to_tensor(params)
    indices = _int_tensor(indices, "gather_nd's indices")
    b = _batch_dims(batch_dims, indices, "gather_nd")
    if b == 0:
        return array_math.gather_nd(params, indices, name=name)
    return apply(BATCH_GATHER_ND, [params, indices], {"batch_dims": b}, name=name)


# -- segment reductions --------------------------------------------------------------------

_IDENTITY = {"Sum": 0, "Prod": 1}
_UFUNC = {"Sum": np.add, "Max": np.maximum, "Min": np.minimum, "Prod": np.multiply, "Mean": np.add}


def _segment_ids_check(op_name, ids):
    if not ids.dtype.is_integer:
        raise TypeError(f"{op_name}: segment_ids must be integers, got {ids.dtype.name}.")


def _segment_infer(name):
    def infer(data, segment_ids):
        _segment_ids_check(name, segment_ids)
        dims, idims = data.shape.as_tuple(), segment_ids.shape.as_tuple()
        if idims is not None and len(idims) != 1:
            raise InvalidArgumentError(f"{name}: segment_ids must be a vector, got shape "
                                       f"{segment_ids.shape}.")
        if dims is None:
            return TensorShape(None), data.dtype
        if not dims:
            raise InvalidArgumentError(f"{name}: data must have at least one axis.")
        if idims is not None and not TensorShape(dims[:1]).is_compatible_with(TensorShape(idims)):
            raise InvalidArgumentError(f"{name}: segment_ids (shape {list(idims)}) must have one "
                                       f"id per row of data (shape {list(dims)}).")
        return TensorShape((None,) + dims[1:]), data.dtype
    return infer


def _reduce_segments(kind, data, ids, num, empty_value):
    """Reduces rows of `data` (ids flattened to one axis) into `num` segments; rows whose id
    is negative are dropped."""
    rows = data.reshape((ids.size,) + data.shape[ids.ndim:])
    ids = ids.reshape(-1)
    keep = ids >= 0
    if not keep.all():
        rows, ids = rows[keep], ids[keep]
    shape = (num,) + rows.shape[1:]
    if kind in ("Sum", "Mean", "Prod"):
        out = np.full(shape, _IDENTITY.get(kind, 0), data.dtype)
    elif data.dtype.kind == "f":  # an empty segment holds the type's lowest (highest) value
        info = np.finfo(data.dtype)
        out = np.full(shape, info.min if kind == "Max" else info.max, data.dtype)
    else:
        info = np.iinfo(data.dtype) if data.dtype.kind in "iu" else None
        fill = (info.min if kind == "Max" else info.max) if info else kind == "Min"
        out = np.full(shape, fill, data.dtype)
    _UFUNC[kind].at(out, ids, rows)
    if kind == "Mean" or empty_value is not None:
        counts = np.bincount(ids, minlength=num).reshape((num,) + (1,) * (rows.ndim - 1))
        if kind == "Mean":
            if data.dtype.kind in "iu":
                out = out // np.maximum(counts, 1).astype(data.dtype)
            else:
                out = out / np.maximum(counts, 1).astype(data.dtype)
        if empty_value is not None:
            out = np.where(counts == 0, np.asarray(empty_value, data.dtype), out)
    return out.astype(data.dtype, copy=False)


def _segment_kernel(name, kind):
    def kernel(data, segment_ids):
        data, ids = np.asarray(data), np.asarray(segment_ids)
        if ids.ndim != 1 or not data.ndim or ids.shape[0] != data.shape[0]:
            raise InvalidArgumentError(f"{name}: segment_ids (shape {list(ids.shape)}) must be a "
                                       f"vector with one id per row of data (shape "
                                       f"{list(data.shape)}).")
        if ids.size and ids.min() < 0:
            raise InvalidArgumentError(f"{name}: segment_ids must be non-negative, got "
                                       f"{int(ids.min())}.")
        if ids.size > 1 and (np.diff(ids) < 0).any():
            raise InvalidArgumentError(f"{name}: segment_ids must be sorted, got "
                                       f"{ids.tolist()[:20]}.")
        num = int(ids[-1]) + 1 if ids.size else 0
        return _reduce_segments(kind, data, ids, num, 0 if kind in ("Max", "Min") else None)
    kernel.__name__ = f"{name}_kernel"
    return kernel


SEGMENT = {kind: define(f"Segment{kind}", _segment_infer(f"Segment{kind}"),
                        _segment_kernel(f"Segment{kind}", kind))
           for kind in ("Sum", "Mean", "Max", "Min", "Prod")}


def _unsorted_infer(name):
    def infer(data, segment_ids, num_segments):
        _segment_ids_check(name, segment_ids)
        if not num_segments.dtype.is_integer or num_segments.shape.rank not in (None, 0):
            raise TypeError(f"{name}: num_segments must be an int scalar, got "
                            f"{num_segments.dtype.name} of shape {num_segments.shape}.")
        dims, idims = data.shape.as_tuple(), segment_ids.shape.as_tuple()
        num = partial_scalar(num_segments)
        if dims is None or idims is None:
            return TensorShape(None), data.dtype
        if len(idims) > len(dims) or not TensorShape(dims[:len(idims)]).is_compatible_with(
                TensorShape(idims)):
            raise InvalidArgumentError(f"{name}: the shape of segment_ids {list(idims)} must be "
                                       f"a prefix of the shape of data {list(dims)}.")
        return TensorShape((num,) + dims[len(idims):]), data.dtype
    return infer


def _unsorted_kernel(name, kind):
    def kernel(data, segment_ids, num_segments):
        data, ids = np.asarray(data), np.asarray(segment_ids)
        num = int(num_segments)
        if num < 0:
            raise InvalidArgumentError(f"{name}: num_segments must be >= 0, got {num}.")
        if data.shape[:ids.ndim] != ids.shape:
            raise InvalidArgumentError(f"{name}: the shape of segment_ids {list(ids.shape)} must "
                                       f"be a prefix of the shape of data {list(data.shape)}.")
        if ids.size and ids.max() >= num:
            raise InvalidArgumentError(f"{name}: segment_ids holds {int(ids.max())}, not less "
                                       f"than num_segments={num}.")
        return _reduce_segments(kind, data, ids, num, None)
    kernel.__name__ = f"{name}_kernel"
    return kernel


UNSORTED_SEGMENT = {kind: define(f"UnsortedSegment{kind}", _unsorted_infer(f"UnsortedSegment{kind}"),
                                 _unsorted_kernel(f"UnsortedSegment{kind}", kind))
                    for kind in ("Sum", "Max", "Min", "Prod")}


def _per_row(t, ids, data_rank):
    """`t[ids]` for segment values `t`, zero where an id is negative (a dropped row)."""
    ids_rank = ids.shape.rank
    gathered = array_math.gather(t, array_math.maximum(ids, array_math.zeros_like(ids)))
    mask = array_math.cast(array_math.greater_equal(ids, array_math.zeros_like(ids)), t.dtype)
    for _ in builtins.range(data_rank - ids_rank):
        mask = array_math.expand_dims(mask, -1)
    return array_math.multiply(gathered, mask)


def _segment_sum_of(values, op, sorted_ids):
    ids = op.inputs[1]
    if sorted_ids:
        return apply(SEGMENT["Sum"], [values, ids])
    return apply(UNSORTED_SEGMENT["Sum"], [values, ids, op.inputs[2]])


def _spread(t, op, sorted_ids):
    ids = op.inputs[1]
    if sorted_ids:
        return array_math.gather(t, ids)
    return _per_row(t, ids, op.forward_inputs[0].shape.rank)


def _sum_grad(sorted_ids):
    def rule(op, g):
        return [_spread(g, op, sorted_ids)] + [None] * (len(op.inputs) - 1)
    return rule


def _mean_grad(op, g):
    data, ids = op.inputs[0], op.inputs[1]
    ones = array_math.ones_like(ids, dtype=data.dtype)
    counts = array_math.maximum(apply(SEGMENT["Sum"], [ones, ids]), 1)
    for _ in builtins.range(op.forward_inputs[0].shape.rank - 1):
        counts = array_math.expand_dims(counts, -1)
    return [array_math.gather(array_math.divide(g, counts), ids), None]


def _extremum_grad(sorted_ids):
    def rule(op, g):
        data, out = op.inputs[0], op.outputs[0]
        chosen = array_math.cast(array_math.equal(data, _spread(out, op, sorted_ids)), data.dtype)
        if not sorted_ids:  # rows with a negative id are in no segment
            chosen = array_math.multiply(chosen, _spread(array_math.ones_like(out), op, sorted_ids))
        count = _segment_sum_of(chosen, op, sorted_ids)
        share = array_math.divide(g, array_math.maximum(count, 1))
        return [array_math.multiply(_spread(share, op, sorted_ids), chosen)] + \
            [None] * (len(op.inputs) - 1)
    return rule


def _prod_grad(sorted_ids):
    def rule(op, g):  # for rows without zeros: the segment's product over the row
        data, out = op.inputs[0], op.outputs[0]
        return [array_math.divide(_spread(array_math.multiply(g, out), op, sorted_ids), data)] + \
            [None] * (len(op.inputs) - 1)
    return rule


SEGMENT["Sum"].def_grad(_sum_grad(True))
SEGMENT["Mean"].def_grad(_mean_grad)
SEGMENT["Max"].def_grad(_extremum_grad(True))
SEGMENT["Min"].def_grad(_extremum_grad(True))
SEGMENT["Prod"].def_grad(_prod_grad(True))
UNSORTED_SEGMENT["Sum"].def_grad(_sum_grad(False))
UNSORTED_SEGMENT["Max"].def_grad(_extremum_grad(False))
UNSORTED_SEGMENT["Min"].def_grad(_extremum_grad(False))
UNSORTED_SEGMENT["Prod"].def_grad(_prod_grad(False))


def _sorted_segment(kind: str, what: str):
    opdef = SEGMENT[kind]

    def fn(data, segment_ids, name=None) -> Tensor:
        data = convert_to_tensor(data)
        ids = _int_tensor(segment_ids, f"segment_{kind.lower()}'s segment_ids")
        return apply(opdef, [data, ids], name=name)
    fn.__doc__ = (f"The {what} of the rows of `data` that share a segment id; `segment_ids` "
                  "is a sorted vector, one id per row; ids not present give 0.")
    return fn


def _unsorted_segment(kind: str, what: str):
    opdef = UNSORTED_SEGMENT[kind]

    def fn(data, segment_ids, num_segments, name=None) -> Tensor:
        data = convert_to_tensor(data)
        ids = _int_tensor(segment_ids, f"unsorted_segment_{kind.lower()}'s segment_ids")
        num = _int_tensor(num_segments, f"unsorted_segment_{kind.lower()}'s num_segments")
        return apply(opdef, [data, ids, num], name=name)
    fn.__doc__ = (f"The {what} of the slices of `data` per segment id (`segment_ids` has the "
                  "shape of a prefix of data's, any order; negative ids are dropped) into "
                  "`num_segments` segments.")
    return fn


segment_sum = export("math.segment_sum")(_sorted_segment("Sum", "sum"))
segment_mean = export("math.segment_mean")(_sorted_segment("Mean", "mean"))
segment_max = export("math.segment_max")(_sorted_segment("Max", "maximum"))
segment_min = export("math.segment_min")(_sorted_segment("Min", "minimum"))
segment_prod = export("math.segment_prod")(_sorted_segment("Prod", "product"))
unsorted_segment_sum = export("math.unsorted_segment_sum")(_unsorted_segment("Sum", "sum"))
unsorted_segment_max = export("math.unsorted_segment_max")(_unsorted_segment("Max", "maximum"))
unsorted_segment_min = export("math.unsorted_segment_min")(_unsorted_segment("Min", "minimum"))
unsorted_segment_prod = export("math.unsorted_segment_prod")(_unsorted_segment("Prod", "product"))
