"""`tf.sets`: set operations over the last axis of dense or sparse tensors.

Each set is the values along the last axis of one position of the other axes (of a dense
tensor, or the present entries of a SparseTensor). The results are SparseTensors whose last
axis holds each result set sorted ascending, as TensorFlow's set kernels return them. The
work runs host-side in NumPy (TensorFlow's set ops have no gradient either); inside a compiled
function it is a `numpy_function`, so the result's shapes are unknown there.
"""

from __future__ import annotations

import numpy as np

from . import dtypes as _dtypes
from .errors import InvalidArgumentError
from .exports import export
from .ops import py_function as _pyf
from .ops.core import convert_to_tensor
from .ops.sparse import SparseTensor
from .tensor import EagerTensor, Tensor

_SET_DTYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "string")


def _check_dtype(t, what: str):
    if t.dtype.name not in _SET_DTYPES:
        names = ", ".join(_SET_DTYPES)
        raise TypeError(f"{what!r} has invalid dtype {t.dtype.name}: tf.sets takes {names}.")


def _operand(value, what: str):
    if isinstance(value, SparseTensor):
        _check_dtype(value.values, what)
        return value
    t = convert_to_tensor(value)
    _check_dtype(t, what)
    return t


def _parts(value) -> list:
    """The tensors an operand is made of (a dense tensor, or a SparseTensor's three)."""
    if isinstance(value, SparseTensor):
        return [value.indices, value.values, value.dense_shape]
    return [value]


def _groups(arrays: list, sparse: bool, what: str):
    """(the shape of the positions, {position: set of values}) of one operand's arrays."""
    if not sparse:
        dense = arrays[0]
        if dense.ndim < 2:
            raise InvalidArgumentError(f"Shape {list(dense.shape)} has rank {dense.ndim} < 2 "
                                       f"({what} of a set operation).")
        outer = dense.shape[:-1]
        flat = dense.reshape(-1, dense.shape[-1]) if dense.size else \
            np.empty((int(np.prod(outer)), dense.shape[-1]), dense.dtype)
        return tuple(outer), {idx: set(flat[i].tolist()) for i, idx in
                              enumerate(np.ndindex(*outer))}
    indices, values, shape = arrays
    if shape.size < 2:
        raise InvalidArgumentError(f"Shape {shape.tolist()} has rank {shape.size} < 2 "
                                   f"({what} of a set operation).")
    groups: dict = {}
    for index, value in zip(indices.tolist(), values.tolist()):
        groups.setdefault(tuple(index[:-1]), set()).add(value)
    return tuple(int(d) for d in shape[:-1]), groups


def _set_kernel(op: str, sparse_a: bool, sparse_b: bool):
    def run(*arrays):
        arrays = [np.asarray(a) for a in arrays]
        na = 3 if sparse_a else 1
        a_arrays, b_arrays = arrays[:na], arrays[na:]
        outer_a, ga = _groups(a_arrays, sparse_a, "a")
        outer_b, gb = _groups(b_arrays, sparse_b, "b")
        if outer_a != outer_b:
            raise InvalidArgumentError(f"Mismatched shapes {list(outer_a)} vs {list(outer_b)} "
                                       "(the shapes of a and b but for their last axes).")
        rows = []
        for idx in np.ndindex(*outer_a):
            sa, sb = ga.get(idx, set()), gb.get(idx, set())
            result = {"intersection": sa & sb, "union": sa | sb, "a-b": sa - sb,
                      "b-a": sb - sa}[op]
            rows.append((idx, sorted(result)))
        width = max((len(r) for _, r in rows), default=0)
        indices = [list(idx) + [j] for idx, r in rows for j in range(len(r))]
        values = [v for _, r in rows for v in r]
        dtype = a_arrays[-2 if sparse_a else 0].dtype
        rank = len(outer_a) + 1
        return (np.asarray(indices, np.int64).reshape(-1, rank),
                np.asarray(values, dtype=object if dtype.kind in "OSU" else dtype),
                np.asarray(list(outer_a) + [width], np.int64))
    return run


def _set_operation(a, b, op: str, validate_indices: bool) -> SparseTensor:
    if not isinstance(validate_indices, bool):
        raise TypeError(f"validate_indices must be a bool, got {validate_indices!r}.")
    a, b = _operand(a, "a"), _operand(b, "b")
    da = a.values.dtype if isinstance(a, SparseTensor) else a.dtype
    db = b.values.dtype if isinstance(b, SparseTensor) else b.dtype
    if da is not db:
        raise TypeError(f"Types don't match, {da.name} vs {db.name}.")
    parts = _parts(a) + _parts(b)
    kernel = _set_kernel(op, isinstance(a, SparseTensor), isinstance(b, SparseTensor))
    if all(isinstance(p, EagerTensor) for p in parts):
        indices, values, shape = kernel(*[p.numpy() for p in parts])
        return SparseTensor(convert_to_tensor(indices), convert_to_tensor(values, da),
                            convert_to_tensor(shape))
    indices, values, shape = _pyf.numpy_function(kernel, parts,
                                                 [_dtypes.int64, da, _dtypes.int64])
    return SparseTensor(indices, values, shape)


@export("sets.intersection")
def intersection(a, b, validate_indices=True) -> SparseTensor:
    """The intersection of the sets in the last axis of `a` and `b` (tensors or
    SparseTensors of one integer or string dtype, equal but for their last axes)."""
    return _set_operation(a, b, "intersection", validate_indices)


@export("sets.union")
def union(a, b, validate_indices=True) -> SparseTensor:
    """The union of the sets in the last axis of `a` and `b`."""
    return _set_operation(a, b, "union", validate_indices)


@export("sets.difference")
def difference(a, b, aminusb=True, validate_indices=True) -> SparseTensor:
    """`a - b` (or `b - a` with `aminusb=False`) of the sets in the last axis of `a` and `b`."""
    if not isinstance(aminusb, bool):
        raise TypeError(f"aminusb must be a bool, got {aminusb!r}.")
    return _set_operation(a, b, "a-b" if aminusb else "b-a", validate_indices)


@export("sets.size")
def size(a, validate_indices=True) -> Tensor:
    """The number of distinct values in each set of the SparseTensor `a` (int32, shaped as
    `a` without its last axis)."""
    if not isinstance(a, SparseTensor):
        raise TypeError(f"Expected `SparseTensor`, got {a!r}.")
    if not isinstance(validate_indices, bool):
        raise TypeError(f"validate_indices must be a bool, got {validate_indices!r}.")
    _check_dtype(a.values, "a")

    def run(indices, values, shape):
        outer, groups = _groups([np.asarray(indices), np.asarray(values), np.asarray(shape)],
                                True, "a")
        out = np.zeros(outer, np.int32)
        for idx, members in groups.items():
            out[idx] = len(members)
        return out

    parts = _parts(a)
    if all(isinstance(p, EagerTensor) for p in parts):
        return convert_to_tensor(run(*[p.numpy() for p in parts]))
    return _pyf.numpy_function(run, parts, _dtypes.int32)


__all__ = ["difference", "intersection", "size", "union"]
