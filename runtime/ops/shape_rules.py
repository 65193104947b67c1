"""Shape and dtype rules shared by many ops."""

from __future__ import annotations

import numpy as np

from .. import dtypes as _dtypes
from ..errors import InvalidArgumentError
from ..shapes import TensorShape


def broadcast(a: TensorShape, b: TensorShape, op_name: str = "op") -> TensorShape:
    """NumPy broadcasting of two partial shapes; ValueError naming both when impossible."""
    da, db = a.as_tuple(), b.as_tuple()
    if da is None or db is None:
        return TensorShape(None)
    n = max(len(da), len(db))
    da = (1,) * (n - len(da)) + da
    db = (1,) * (n - len(db)) + db
    dims = []
    for x, y in zip(da, db):
        if x == 1:
            dims.append(y)
        elif y == 1:
            dims.append(x)
        elif x is None:
            dims.append(y)
        elif y is None or x == y:
            dims.append(x)
        else:
            raise InvalidArgumentError(f"{op_name}: shapes {a} and {b} are incompatible for broadcasting "
                             f"(dimension {x} vs {y}).")
    return TensorShape(dims)


def same_dtype(op_name: str, *tensors) -> _dtypes.DType:
    dtype = tensors[0].dtype
    for t in tensors[1:]:
        if t.dtype is not dtype:
            raise TypeError(f"{op_name}: inputs have different dtypes {dtype.name} and "
                            f"{t.dtype.name}; cast one with rt.cast.")
    return dtype


def normalize_axis(axis, rank, op_name="op"):
    """Axis (int, list or None) as a sorted tuple of non-negative ints, or None for all."""
    if axis is None:
        return None
    axes = (axis,) if isinstance(axis, int) else tuple(int(a) for a in axis)
    if rank is None:
        return axes
    out = []
    for a in axes:
        if not -rank <= a < rank:
            raise ValueError(f"{op_name}: axis {a} is out of range for a tensor of rank {rank}.")
        out.append(a % rank)
    return tuple(sorted(set(out)))


def reduced_shape(shape: TensorShape, axes, keepdims: bool) -> TensorShape:
    dims = shape.as_tuple()
    if dims is None:
        return TensorShape(None)
    if axes is None:
        return TensorShape([1] * len(dims) if keepdims else [])
    if keepdims:
        return TensorShape([1 if i in axes else d for i, d in enumerate(dims)])
    return TensorShape([d for i, d in enumerate(dims) if i not in axes])


# -- values of small int tensors known (in part) at trace time ------------------------------

def _const_array(t):
    """The NumPy value of an eager tensor or a graph constant, else None."""
    value = getattr(t, "_value", None)
    if value is not None:
        return value
    op = getattr(t, "op", None)
    if op is not None and op.opdef.is_constant:
        return op.attrs["value"]
    return None


def partial_scalar(t):
    """The int value of a scalar int tensor when trace time knows it, else None: constants,
    and elements of shape vectors whose dims are static (`rt.shape(x)[1]` with x (None, 3))."""
    value = _const_array(t)
    if value is not None:
        return int(value) if np.ndim(value) == 0 and value.dtype.kind in "iu" else None
    op = getattr(t, "op", None)
    if op is None or t.shape.rank != 0:
        return None
    kind = op.opdef.name
    if kind in ("Cast", "Identity") and op.inputs and op.inputs[0].dtype.is_integer:
        return partial_scalar(op.inputs[0])
    if kind == "StridedSlice" and len(op.inputs) == 1:
        key = op.attrs["key"]
        if len(key) == 1 and type(key[0]) is int:
            values = partial_ints(op.inputs[0])
            if values is not None and -len(values) <= key[0] < len(values):
                return values[key[0]]
    return None


def partial_ints(t):
    """The values of a 1-D int tensor as a tuple of ints and Nones (those known only when the
    graph runs), or None when its length is unknown too. Follows the ops that build shape
    vectors: constants, `stack` of scalars, `shape`, `concat`, casts and slices of these."""
    value = _const_array(t)
    if value is not None:
        if np.ndim(value) != 1 or value.dtype.kind not in "iu":
            return None
        return tuple(int(v) for v in value)
    if t.shape.rank != 1:
        return None
    op = t.op
    kind = op.opdef.name
    found = None
    if kind == "Pack" and op.attrs["axis"] == 0:
        found = tuple(partial_scalar(x) for x in op.inputs)
    elif kind == "Shape":
        found = op.inputs[0].shape.as_tuple()
    elif kind in ("Cast", "Identity") and op.inputs[0].dtype.is_integer:
        found = partial_ints(op.inputs[0])
    elif kind == "ConcatV2" and op.attrs["axis"] in (0, -1):
        parts = [partial_ints(x) for x in op.inputs]
        found = None if any(p is None for p in parts) else tuple(d for p in parts for d in p)
    elif kind == "StridedSlice" and len(op.inputs) == 1 and len(op.attrs["key"]) == 1:
        key = op.attrs["key"][0]
        whole = partial_ints(op.inputs[0])
        if whole is not None and type(key) is slice and all(
                p is None or type(p) is int for p in (key.start, key.stop, key.step)):
            found = whole[key]
    if found is not None:
        return found
    n = t.shape[0]
    return None if n is None else (None,) * n


def shape_from_tensor(t) -> TensorShape:
    """The static shape a 1-D int tensor describes (a shape argument given as a tensor):
    known dims where trace time knows them, unknown rank when its length is unknown. A
    scalar describes a 1-D shape."""
    if t.shape.rank == 0:
        return TensorShape([_dim_or_none(partial_scalar(t))])
    values = partial_ints(t)
    if values is None:
        return TensorShape(None)
    return TensorShape([_dim_or_none(d) for d in values])


def _dim_or_none(d):
    return d if d is not None and d >= 0 else None
