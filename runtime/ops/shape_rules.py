"""Shape and dtype rules shared by many ops."""

from __future__ import annotations

from .. import dtypes as _dtypes
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
            raise ValueError(f"{op_name}: shapes {a} and {b} are incompatible for broadcasting "
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
