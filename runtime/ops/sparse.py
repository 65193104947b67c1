"""Sparse tensors (`rt.sparse`): a SparseTensor is three dense tensors, the int64 `indices`
[N, rank] of the set entries, their `values` [N] and the int64 `dense_shape` [rank].

Every function here is composed from existing ops (scatter_nd, gather_nd, gather, sort, ...),
so it runs eagerly and staged, and gradients reach `values` (and dense operands) for free.
A SparseTensor is a nest of its three tensors (a dataclass), so it can be an argument or
result of `rt.function`: calls are keyed by the shapes and dtypes of the three parts.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .. import dtypes as _dtypes
from ..errors import InvalidArgumentError
from ..exports import export
from ..graph import constant_value
from ..shapes import TensorShape, TensorSpec
from ..tensor import Tensor
from . import array_composed as _composed
from . import array_math
from . import array_scatter as _scatter
from . import array_sort as _sort
from . import math_special as _special
from .core import convert_to_tensor
from .extension_type import CompositeTensor, TypeSpec, register_composite


def _int64(value, what: str) -> Tensor:
    if not isinstance(value, Tensor):
        array = np.asarray(value)
        if array.dtype.kind not in "iu" and not (array.size == 0 and array.dtype.kind == "f"):
            raise TypeError(f"`{what}` must hold integers, got {value!r:.60}.")
        value = array.astype(np.int64)
    t = convert_to_tensor(value)
    if not t.dtype.is_integer:
        raise TypeError(f"`{what}` must hold integers, got dtype {t.dtype.name}.")
    return t if t.dtype is _dtypes.int64 else array_math.cast(t, _dtypes.int64)


_CONVERTIBLE = (Tensor, list, tuple, np.ndarray, np.generic, int, float, bool, complex, bytes, str)


@export("sparse.SparseTensor", "SparseTensor")
@dataclasses.dataclass(eq=False, repr=False)
class SparseTensor(CompositeTensor):
    """A tensor of shape `dense_shape` whose entries at `indices` hold `values`; the others
    are zero (or the `default_value` given to `to_dense`).

        sp = rt.sparse.SparseTensor(indices=[[0, 0], [1, 2]], values=[1, 2], dense_shape=[3, 4])
        rt.sparse.to_dense(sp)
    """

    indices: Tensor
    values: Tensor
    dense_shape: Tensor
    # the dense shape its spec knows, while tracing (its dense_shape tensor is then unknown):
    # not a component; nests carry it from a template to the value built from it
    _static_shape: TensorShape | None = dataclasses.field(default=None, init=False,
                                                          compare=False, repr=False)
    __nest_keep__ = ("_static_shape",)

    def __post_init__(self) -> None:
        if not all(isinstance(v, _CONVERTIBLE) for v in (self.indices, self.values, self.dense_shape)):
            return  # a structure template of rt.function (TensorSpecs in place of tensors)
        self.indices = _int64(self.indices, "indices")
        self.values = convert_to_tensor(self.values)
        self.dense_shape = _int64(self.dense_shape, "dense_shape")
        ishape, vshape, sshape = (self.indices.shape, self.values.shape, self.dense_shape.shape)
        if ishape.rank is not None and ishape.rank != 2:
            raise ValueError(f"`indices` must be a matrix [N, rank], got shape {ishape}.")
        if vshape.rank is not None and vshape.rank != 1:
            raise ValueError(f"`values` must be a vector [N], got shape {vshape}.")
        if sshape.rank is not None and sshape.rank != 1:
            raise ValueError(f"`dense_shape` must be a vector [rank], got shape {sshape}.")
        n_i, n_v = ishape.as_tuple()[0] if ishape.rank else None, vshape.as_tuple()[0] if vshape.rank else None
        if n_i is not None and n_v is not None and n_i != n_v:
            raise ValueError(f"`indices` has {n_i} rows but `values` has {n_v} entries.")
        r_i, r_s = (ishape.as_tuple()[1] if ishape.rank else None,
                    sshape.as_tuple()[0] if sshape.rank else None)
        if r_i is not None and r_s is not None and r_i != r_s:
            raise ValueError(f"`indices` has {r_i} columns but `dense_shape` has rank {r_s}.")

    @property
    def dtype(self) -> _dtypes.DType:
        return self.values.dtype

    @property
    def shape(self) -> TensorShape:
        """The static dense shape (dimensions unknown while tracing are None)."""
        known = constant_value(self.dense_shape)
        if known is not None:
            return TensorShape([int(d) for d in np.asarray(known)])
        if self._static_shape is not None:
            return self._static_shape
        rank = self.dense_shape.shape.as_tuple()
        return TensorShape(None if rank is None or rank[0] is None else [None] * rank[0])

    def _trace_key_extra(self):
        """What `rt.function` keys a traced SparseTensor by besides its components: its
        static dense shape (one trace per spec, as TensorFlow)."""
        return None if self._static_shape is None else self._static_shape.as_tuple()

    @property
    def _type_spec(self) -> SparseTensorSpec:
        return SparseTensorSpec(self.shape, self.dtype)

    def _trace_template(self) -> SparseTensor:
        """What `rt.function` traces for this argument: its spec's template (the number of
        entries unknown), so sparse tensors of one spec share a trace."""
        return self._type_spec._to_template()

    def get_shape(self) -> TensorShape:
        return self.shape

    def __repr__(self) -> str:
        # as TensorFlow writes it: the components as `print` shows them (inside a function,
        # their symbolic names)
        return (f"SparseTensor(indices={self.indices!s}, values={self.values!s}, "
                f"dense_shape={self.dense_shape!s})")

    def with_values(self, new_values) -> SparseTensor:
        """The same indices and shape with `new_values`."""
        return SparseTensor(self.indices, new_values, self.dense_shape)

    @staticmethod
    def from_value(value) -> SparseTensor:
        if isinstance(value, SparseTensor):
            return value
        raise TypeError(f"Expected a SparseTensor, got {type(value).__name__}.")

    def __add__(self, other):
        return add(self, other)

    def __mul__(self, other):
        if isinstance(other, SparseTensor):
            raise TypeError("Multiplying two SparseTensors is not supported.")
        other = convert_to_tensor(other, dtype=self.values.dtype)  # a Python 2 scales floats
        if other.shape.rank == 0:
            return self.with_values(array_math.multiply(self.values, other))
        return self.with_values(array_math.multiply(self.values, _scatter.gather_nd(
            _broadcast(other, self), self.indices)))

    __rmul__ = __mul__


def _broadcast(dense: Tensor, sp: SparseTensor) -> Tensor:
    return _composed.broadcast_to(dense, sp.dense_shape)


def _sparse(value, what: str) -> SparseTensor:
    if not isinstance(value, SparseTensor):
        raise TypeError(f"`{what}` must be a SparseTensor, got {type(value).__name__}.")
    return value


def _check_indices(sp: SparseTensor, need_order: bool) -> None:
    """Eager check that the indices are in bounds (and, when asked, sorted and unique)."""
    idx, shape = constant_value(sp.indices), constant_value(sp.dense_shape)
    if idx is None or shape is None or idx.size == 0:
        return
    bad = np.nonzero(((idx < 0) | (idx >= shape[None, :])).any(axis=1))[0]
    if bad.size:
        raise InvalidArgumentError(f"indices[{bad[0]}] = {idx[bad[0]].tolist()} is out of bounds "
                                   f"for dense_shape {shape.tolist()}.")
    if need_order and len(idx) > 1:
        linear = np.ravel_multi_index(tuple(idx.T), tuple(shape))
        step = np.diff(linear)
        if (step <= 0).any():
            i = int(np.nonzero(step <= 0)[0][0]) + 1
            what = "repeated" if step[i - 1] == 0 else "out of order"
            raise InvalidArgumentError(f"indices[{i}] = {idx[i].tolist()} is {what}; indices "
                                       "must be sorted and unique (see rt.sparse.reorder).")


@export("sparse.to_dense")
def to_dense(sp_input: SparseTensor, default_value=None, validate_indices: bool = True,
             name=None) -> Tensor:
    """The dense tensor of `sp_input`: its values at its indices, `default_value` (zero by
    default) elsewhere. With `validate_indices`, indices that are out of bounds, repeated or
    not in row-major order raise InvalidArgumentError (checked when known eagerly)."""
    sp = _sparse(sp_input, "sp_input")
    if validate_indices:
        _check_indices(sp, need_order=True)
    else:
        _check_indices(sp, need_order=False)
    if sp.dtype == _dtypes.string:  # no sum of strings: write the values over the default
        fill = b"" if default_value is None else convert_to_tensor(default_value, dtype=sp.dtype)
        dense = _scatter.tensor_scatter_nd_update(array_math.fill(sp.dense_shape, fill), sp.indices, sp.values)
        if sp._static_shape is not None and not dense.shape.is_fully_defined():
            dense.set_shape(sp._static_shape)
        return dense
    dense = _scatter.scatter_nd(sp.indices, sp.values, sp.dense_shape)
    if sp._static_shape is not None and not dense.shape.is_fully_defined():
        dense.set_shape(sp._static_shape)  # what the spec knows while tracing
    if default_value is None:
        return dense
    default = convert_to_tensor(default_value, dtype=sp.dtype)
    if default.shape.rank not in (0, None):
        raise ValueError(f"`default_value` must be a scalar, got shape {default.shape}.")
    is_set = _scatter.scatter_nd(sp.indices, array_math.cast(array_math.ones_like(sp.values), _dtypes.int32),
                                 sp.dense_shape)
    return array_math.where(array_math.greater(is_set, 0), dense, array_math.add(array_math.zeros_like(dense), default))


@export("sparse.from_dense")
def from_dense(tensor, name=None) -> SparseTensor:
    """The SparseTensor of the nonzero entries of `tensor`, in row-major order."""
    x = convert_to_tensor(tensor)
    if x.shape.rank == 0:
        raise ValueError("`tensor` must have rank >= 1 to be made sparse, got a scalar.")
    zero = np.zeros((), x.dtype.as_numpy_dtype) if x.dtype.name != "string" else b""
    indices = array_math.cast(array_math.where(array_math.not_equal(x, zero)), _dtypes.int64)
    return SparseTensor(indices, _scatter.gather_nd(x, indices),
                        array_math.cast(array_math.shape(x), _dtypes.int64))


def _linear(indices: Tensor, dense_shape: Tensor) -> Tensor:
    """Row-major positions of `indices` in a tensor of `dense_shape` (int64 [N])."""
    # strides[k] = prod(dense_shape[k+1:]), as a reversed cumulative product
    rev = array_math.reverse(dense_shape, [0])
    strides = array_math.reverse(_sort.cumprod(rev, exclusive=True), [0])
    return array_math.reduce_sum(array_math.multiply(indices, strides), axis=1)


@export("sparse.reorder")
def reorder(sp_input: SparseTensor, name=None) -> SparseTensor:
    """`sp_input` with its entries sorted in row-major order of their indices."""
    sp = _sparse(sp_input, "sp_input")
    order = _sort.argsort(_linear(sp.indices, sp.dense_shape), stable=True)
    return SparseTensor(_scatter.gather(sp.indices, order), _scatter.gather(sp.values, order),
                        sp.dense_shape)


@export("sparse.add")
def add(a, b, threshold=0, name=None) -> SparseTensor | Tensor:
    """`a + b` where at least one is a SparseTensor: sparse + sparse is a SparseTensor over the
    union of the indices (sorted; entries whose sum has magnitude below `threshold` dropped),
    sparse + dense is a dense tensor."""
    if not isinstance(a, SparseTensor) and not isinstance(b, SparseTensor):
        raise TypeError("rt.sparse.add needs at least one SparseTensor operand, got "
                        f"{type(a).__name__} and {type(b).__name__}.")
    if not isinstance(a, SparseTensor):
        a, b = b, a
    if not isinstance(b, SparseTensor):
        dense = convert_to_tensor(b, dtype=a.dtype)
        _check_indices(a, need_order=False)
        return _scatter.tensor_scatter_nd_add(_broadcast(dense, a), a.indices, a.values)
    if a.dtype is not b.dtype:
        raise TypeError(f"SparseTensors of different dtypes: {a.dtype.name} and {b.dtype.name}.")
    sa, sb = constant_value(a.dense_shape), constant_value(b.dense_shape)
    if sa is not None and sb is not None and (sa.shape != sb.shape or (sa != sb).any()):
        raise InvalidArgumentError(f"Sparse operands have different dense shapes: {sa.tolist()} "
                                   f"and {sb.tolist()}.")
    _check_indices(a, need_order=False)
    _check_indices(b, need_order=False)
    shape = a.dense_shape
    both = array_math.concat([a.indices, b.indices], 0)
    linear = _linear(both, shape)
    unique = _sort.unique(linear, out_idx=_dtypes.int64)
    sums = _scatter.unsorted_segment_sum(array_math.concat([a.values, b.values], 0), unique.idx,
                                      array_math.size(unique.y))
    order = _sort.argsort(unique.y, stable=True)
    firsts = _scatter.unsorted_segment_min(array_math.range(array_math.size(linear)), unique.idx,
                                        array_math.size(unique.y))
    indices = _scatter.gather(both, _scatter.gather(firsts, order))
    values = _scatter.gather(sums, order)
    if threshold:  # as TensorFlow: only sums of entries set in both operands may be dropped
        counts = _scatter.unsorted_segment_sum(array_math.ones_like(linear), unique.idx,
                                               array_math.size(unique.y))
        single = array_math.equal(_scatter.gather(counts, order), 1)
        keep = array_math.logical_or(single, array_math.greater_equal(array_math.abs(values),
                                                                      threshold))
        indices = array_math.boolean_mask(indices, keep)
        values = array_math.boolean_mask(values, keep)
    return SparseTensor(indices, values, shape)


@export("sparse.sparse_dense_matmul")
def sparse_dense_matmul(sp_a, b, adjoint_a: bool = False, adjoint_b: bool = False,
                        name=None) -> Tensor:
    """The dense product `sp_a @ b` of a sparse matrix and a dense matrix (either adjointed:
    transposed and conjugated). `b` may be sparse and `sp_a` dense, then the product is
    formed the other way round. Differentiable with respect to the values and `b`."""
    if not isinstance(sp_a, SparseTensor) and isinstance(b, SparseTensor):
        # a @ sp_b == (sp_b^T @ a^T)^T
        a = convert_to_tensor(sp_a)
        a = _special.conj(array_math.transpose(a)) if adjoint_a else a
        return array_math.transpose(sparse_dense_matmul(b, array_math.transpose(a), adjoint_a=not adjoint_b))
    sp = _sparse(sp_a, "sp_a")
    if sp.shape.rank not in (2, None):
        raise ValueError(f"`sp_a` must be a sparse matrix, got rank {sp.shape.rank}.")
    dense = convert_to_tensor(b, dtype=sp.dtype)
    if dense.shape.rank not in (2, None):
        raise ValueError(f"`b` must be a matrix, got shape {dense.shape}.")
    if adjoint_b:
        dense = array_math.transpose(dense)
        if dense.dtype.is_complex:
            dense = _special.conj(dense)
    _check_indices(sp, need_order=False)
    rows, cols = sp.indices[:, 0], sp.indices[:, 1]
    values = sp.values
    n_rows = sp.dense_shape[0]
    inner = sp.dense_shape[1]
    if adjoint_a:
        rows, cols, n_rows, inner = cols, rows, inner, n_rows
        if values.dtype.is_complex:
            values = _special.conj(values)
    sa, sb = sp.shape.as_tuple(), dense.shape.as_tuple()
    if sa is not None and sb is not None:
        k = sa[0] if adjoint_a else sa[1]
        if k is not None and sb[0] is not None and k != sb[0]:
            raise InvalidArgumentError(f"Cannot multiply a sparse matrix of shape {list(sa)}"
                                       f"{' (adjointed)' if adjoint_a else ''} by a matrix with "
                                       f"{sb[0]} rows.")
    picked = _scatter.gather(dense, cols)
    contrib = array_math.multiply(array_math.expand_dims(values, 1), picked)
    out_shape = array_math.stack([n_rows, array_math.cast(array_math.shape(dense)[1], _dtypes.int64)])
    return _scatter.scatter_nd(array_math.expand_dims(rows, 1), contrib, out_shape)


@export("sparse.reduce_sum")
def reduce_sum(sp_input: SparseTensor, axis=None, keepdims: bool = False,
               output_is_sparse: bool = False, name=None) -> Tensor | SparseTensor:
    """The sum of `sp_input`'s entries over `axis` (all axes when None), as a dense tensor
    (a SparseTensor of its nonzero sums with `output_is_sparse`)."""
    sp = _sparse(sp_input, "sp_input")
    dense = array_math.reduce_sum(to_dense(sp, validate_indices=False), axis=axis, keepdims=keepdims)
    return from_dense(dense) if output_is_sparse else dense


@export("sparse.reduce_max")
def reduce_max(sp_input: SparseTensor, axis=None, keepdims: bool = False,
               output_is_sparse: bool = False, name=None) -> Tensor | SparseTensor:
    """The maximum of `sp_input`'s set entries over `axis` (unset entries do not count; an
    all-unset slice gives the dtype's lowest value... as zero, like TF's output for empty
    slices)."""
    sp = _sparse(sp_input, "sp_input")
    low = np.finfo(sp.dtype.as_numpy_dtype).min if sp.dtype.is_floating else np.iinfo(sp.dtype.as_numpy_dtype).min
    dense = to_dense(sp, default_value=low, validate_indices=False)
    result = array_math.reduce_max(dense, axis=axis, keepdims=keepdims)
    result = array_math.where(array_math.equal(result, low), array_math.zeros_like(result), result)
    return from_dense(result) if output_is_sparse else result


@export("sparse.to_indicator")
def to_indicator(sp_input: SparseTensor, vocab_size, name=None) -> Tensor:
    """A bool tensor [..., vocab_size]: row `r` is True at each id that `sp_input` (integer
    ids in its last dimension) holds in row `r`."""
    sp = _sparse(sp_input, "sp_input")
    if not sp.dtype.is_integer:
        raise TypeError(f"`sp_input` must hold integer ids, got {sp.dtype.name}.")
    ids = array_math.cast(sp.values, _dtypes.int64)
    known = constant_value(ids)
    if known is not None and known.size and (known.min() < 0 or known.max() >= int(vocab_size)):
        raise InvalidArgumentError(f"An id of `sp_input` is out of range [0, {int(vocab_size)}).")
    rows = sp.indices[:, :-1]
    where = array_math.concat([rows, array_math.expand_dims(ids, 1)], 1)
    shape = array_math.concat([sp.dense_shape[:-1], array_math.reshape(
        array_math.cast(convert_to_tensor(vocab_size), _dtypes.int64), [1])], 0)
    counts = _scatter.scatter_nd(where, array_math.ones_like(ids), shape)
    return array_math.greater(counts, 0)


@export("sparse.transpose")
def transpose(sp_input: SparseTensor, perm=None, name=None) -> SparseTensor:
    """`sp_input` with its axes permuted by `perm` (reversed when None), reordered."""
    sp = _sparse(sp_input, "sp_input")
    rank = sp.shape.rank
    if perm is None:
        if rank is None:
            raise ValueError("sparse.transpose needs `perm` when the rank is unknown.")
        perm = list(range(rank))[::-1]
    perm = [int(p) for p in perm]
    indices = _scatter.gather(sp.indices, perm, axis=1)
    return reorder(SparseTensor(indices, sp.values, _scatter.gather(sp.dense_shape, perm)))


@export("sparse.expand_dims")
def expand_dims(sp_input: SparseTensor, axis=None, name=None) -> SparseTensor:
    """`sp_input` with a dimension of size 1 inserted at `axis` (-1, the last, when None):
    its indices gain a column of zeros there and its dense shape a 1."""
    sp = _sparse(sp_input, "sp_input")
    axis = -1 if axis is None else axis
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        raise TypeError(f"sparse.expand_dims: axis must be a Python int, got {axis!r}.")
    rank = sp.shape.rank
    if rank is not None and not -(rank + 1) <= axis <= rank:
        raise ValueError(f"sparse.expand_dims: axis {axis} is out of range [{-(rank + 1)}, "
                         f"{rank}] for a SparseTensor of rank {rank}.")
    if axis >= 0:
        at = axis
    elif rank is not None:
        at = rank + 1 + axis
    else:  # known when the graph runs: the rank is the length of dense_shape
        at = array_math.add(array_math.shape(sp.dense_shape, out_type=_dtypes.int64)[0], axis + 1)
    column = array_math.zeros(array_math.stack([array_math.shape(sp.indices, out_type=_dtypes.int64)[0],
                                                np.int64(1)]), _dtypes.int64)
    indices = array_math.concat([sp.indices[:, :at], column, sp.indices[:, at:]], 1)
    one = convert_to_tensor(np.array([1], np.int64))
    dense_shape = array_math.concat([sp.dense_shape[:at], one, sp.dense_shape[at:]], 0)
    return SparseTensor(indices, sp.values, dense_shape)


@export("SparseTensorSpec", "sparse.SparseTensorSpec")
class SparseTensorSpec(TypeSpec):
    """The TypeSpec of a SparseTensor: its dense shape and dtype (the number of entries is not
    part of it); usable in `input_signature`."""

    def __init__(self, shape=None, dtype=_dtypes.float32):
        self._shape = TensorShape(shape)
        self._dtype = _dtypes.as_dtype(dtype)

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)
    value_type = property(lambda self: SparseTensor)

    def _to_template(self) -> SparseTensor:
        rank = self._shape.rank
        template = SparseTensor(TensorSpec([None, rank], _dtypes.int64),
                                TensorSpec([None], self._dtype), TensorSpec([rank], _dtypes.int64))
        if rank is not None:
            template._static_shape = self._shape
        return template

    def _key(self) -> tuple:
        return (self._shape.as_tuple(), self._dtype.name)

    def __eq__(self, other) -> bool:
        return isinstance(other, SparseTensorSpec) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        dims = self._shape.as_list() if self._shape.rank is not None else None
        return f"SparseTensorSpec(TensorShape({dims}), {self._dtype!r})"


register_composite(SparseTensor, "rt.SparseTensor")  # saved functions name its values so
