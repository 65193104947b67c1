"""Array ops: shapes, joining and splitting, gathering, creation, casting, indexing."""

from __future__ import annotations

import builtins
import functools

import numpy as np

from .. import context
from .. import dtypes as _dtypes
from ..attr_kinds import AXES, AXIS, BOOL, DIMS, DTYPE, INT, INTS, KEY, NUMBER, OPT_AXES, OPT_DTYPE
from ..errors import IndexOutOfBoundsError, InvalidArgumentError
from ..exports import export
from ..graph import constant_value
from ..opdef import define
from ..shapes import TensorShape
from ..tensor import EagerTensor, Tensor
from . import math_ops as _math
from .core import apply, binary_operands, constant, convert_to_tensor, register_conversions
from .shape_rules import broadcast, normalize_axis, partial_ints, same_dtype, shape_from_tensor


def static_ints(value, what: str):
    """A tuple of Python ints for a shape-like argument known at trace time, or None."""
    if isinstance(value, TensorShape):
        return tuple(-1 if d is None else d for d in value.as_list())
    if isinstance(value, Tensor):
        known = constant_value(value)
        if known is None:
            return None
        return tuple(int(v) for v in np.ravel(known))
    if isinstance(value, (int, np.integer)):
        return (int(value),)
    try:
        return tuple(int(constant_value(v)) if isinstance(v, Tensor) else int(v) for v in value)
    except TypeError:
        raise TypeError(f"{what} must be a list of ints or an int tensor, got {value!r}.") from None


def _known_later(shape) -> bool:
    """Whether a shape list holds a scalar tensor whose value is known when the graph runs."""
    return isinstance(shape, (list, tuple)) and any(
        isinstance(d, Tensor) and constant_value(d) is None for d in shape)


def static_or_later(value, what: str):
    """`static_ints(value)`, or None when the value is known only when the graph runs (a
    tensor, or a list holding one): the argument is then an op input, not an attribute."""
    if _known_later(value):
        return None
    return static_ints(value, what)


def int_vector(value) -> Tensor:
    """A shape-like argument (a list of ints and scalar tensors, or a tensor) as a 1-D int
    tensor: a scalar becomes a vector of one element."""
    if isinstance(value, (list, tuple)) and any(isinstance(d, Tensor) for d in value):
        value = _same_int_dtype(value)
    t = convert_to_tensor(value, dtype_hint=_dtypes.int32)
    if not t.dtype.is_integer:
        raise TypeError(f"A shape must hold integers, got a {t.dtype.name} tensor.")
    if t.shape.rank == 0:
        t = apply(RESHAPE, [t], {"shape": (1,)})
    return t


def _same_int_dtype(dims) -> list:
    """A shape list of ints and integer tensors, all of one dtype (int64 when a tensor is
    int64, else int32), so that it packs into one vector as TensorFlow packs it."""
    tensors = [d for d in dims if isinstance(d, Tensor)]
    if not all(t.dtype.is_integer for t in tensors):
        return list(dims)       # refused with the dtype named when it is packed
    target = _dtypes.int64 if any(t.dtype == _dtypes.int64 for t in tensors) else _dtypes.int32
    return [(cast(d, target) if d.dtype != target else d) if isinstance(d, Tensor)
            else convert_to_tensor(d, dtype=target) for d in dims]


def scalar_known_later(value) -> bool:
    """Whether `value` is a tensor whose value trace time does not know."""
    return isinstance(value, Tensor) and constant_value(value) is None


def as_int(value, what: str) -> int:
    """A Python int for an int argument known at trace time (a tensor constant too)."""
    if isinstance(value, Tensor):
        known = constant_value(value)
        if known is not None:
            return int(known)
    try:
        return int(value)
    except TypeError:
        raise TypeError(f"{what} must be an int or an int tensor, got {value!r}.") from None


# -- reshape / transpose -----------------------------------------------------------------

def _reshape_infer(x, shape):
    new = list(shape)
    if new.count(-1) > 1:
        raise ValueError(f"Reshape: at most one dimension may be -1, got {list(shape)}.")
    total = x.shape.num_elements()
    known = 1
    for d in new:
        if d != -1:
            known *= d
    if -1 in new:
        if total is not None:
            if known == 0 or total % known:
                raise InvalidArgumentError(f"Cannot reshape a tensor of shape {x.shape} ({total} elements) "
                                 f"into shape {list(shape)}.")
            new[new.index(-1)] = total // known
        else:
            new[new.index(-1)] = None
    elif total is not None and total != known:
        raise InvalidArgumentError(f"Cannot reshape a tensor of shape {x.shape} ({total} elements) into "
                         f"shape {list(shape)} ({known} elements).")
    return TensorShape(new), x.dtype


RESHAPE = define("Reshape", _reshape_infer, lambda x, shape: np.reshape(x, shape),
                 template="np.reshape({0}, {shape})", attrs={"shape": DIMS})


@export("reshape")
def reshape(tensor, shape, name=None) -> Tensor:
    """The same elements in a new shape; one dimension may be -1 (inferred)."""
    tensor = convert_to_tensor(tensor)
    dims = static_or_later(shape, "reshape's shape")
    if dims is None:
        return apply(RESHAPE_DYNAMIC, [tensor, int_vector(shape)], name=name)
    return apply(RESHAPE, [tensor], {"shape": dims}, name=name)


def _reshape_dynamic_infer(x, shape):
    new = partial_ints(shape) if shape.shape.rank == 1 else None
    if new is None:
        return TensorShape(None), x.dtype
    if new.count(-1) > 1:
        raise ValueError(f"Reshape: at most one dimension may be -1, got {list(new)}.")
    dims = [None if d is None or d < 0 else d for d in new]
    total = x.shape.num_elements()
    if -1 in new and total is not None and None not in [d for d in new if d != -1]:
        known = 1
        for d in new:
            if d != -1:
                known *= d
        if known and total % known == 0:
            dims[new.index(-1)] = total // known
    return TensorShape(dims), x.dtype


RESHAPE_DYNAMIC = define("ReshapeDynamic", _reshape_dynamic_infer,
                         lambda x, s: np.reshape(x, tuple(int(v) for v in s)),
                         template="np.reshape({0}, tuple({1}.tolist()))")


def _transpose_infer(x, perm):
    dims = x.shape.as_tuple()
    if dims is None:
        return TensorShape(None), x.dtype
    perm = perm if perm is not None else tuple(builtins.range(len(dims)))[::-1]
    if sorted(perm) != list(builtins.range(len(dims))):
        raise ValueError(f"Transpose: perm {list(perm)} is not a permutation of the "
                         f"{len(dims)} axes of shape {x.shape}.")
    return TensorShape([dims[p] for p in perm]), x.dtype


TRANSPOSE = define("Transpose", _transpose_infer, lambda x, perm: np.transpose(x, perm),
                   template="np.transpose({0}, {perm})", attrs={"perm": AXES})


@TRANSPOSE.def_grad
def _transpose_grad(op, g):
    perm = op.attrs["perm"]
    if perm is None:
        return [transpose(g)]
    return [transpose(g, tuple(int(i) for i in np.argsort(perm)))]


@export("transpose")
def transpose(a, perm=None, name=None) -> Tensor:
    """Permutes the axes (reverses them when perm is None)."""
    a = convert_to_tensor(a)
    if perm is None and a.shape.rank is not None:
        perm = tuple(builtins.range(a.shape.rank))[::-1]
    perm = None if perm is None else static_ints(perm, "perm")
    return apply(TRANSPOSE, [a], {"perm": perm}, name=name)


# -- joining and splitting ---------------------------------------------------------------

def _concat_infer(*xs, axis):
    dtype = same_dtype("ConcatV2", *xs)
    ranks = {x.shape.rank for x in xs} - {None}
    if len(ranks) > 1:
        raise InvalidArgumentError(f"ConcatV2: inputs have different ranks: {[str(x.shape) for x in xs]}.")
    if not ranks:
        return TensorShape(None), dtype
    rank = ranks.pop()
    ax = normalize_axis(axis, rank, "ConcatV2")[0]
    dims = [None] * rank
    total = 0
    for x in xs:
        shape = x.shape.as_tuple()
        if shape is None:
            total = None
            continue
        for i, d in enumerate(shape):
            if i == ax:
                continue
            if dims[i] is None:
                dims[i] = d
            elif d is not None and d != dims[i]:
                raise InvalidArgumentError(f"ConcatV2: shapes {[str(t.shape) for t in xs]} differ outside "
                                 f"the concatenation axis {axis}.")
        if total is not None:
            total = None if shape[ax] is None else total + shape[ax]
    dims[ax] = total
    return TensorShape(dims), dtype


CONCAT = define("ConcatV2", _concat_infer, lambda *xs, axis: np.concatenate(xs, axis),
                attrs={"axis": AXIS})


@export("concat")
def concat(values, axis, name=None) -> Tensor:
    """Joins tensors along an existing axis."""
    dtype = next((v.dtype for v in values if isinstance(v, Tensor)), None)
    values = [_packed_as(v, dtype) for v in values]
    if not values:
        raise ValueError("concat needs at least one tensor.")
    if len(values) == 1:
        return identity(values[0])
    return apply(CONCAT, values, {"axis": int(axis)}, name=name)


def _holds_tensor(value) -> bool:
    return isinstance(value, (list, tuple)) and any(
        isinstance(v, Tensor) or _holds_tensor(v) for v in value)


def _packed_as(value, dtype) -> Tensor:
    """`value` as a tensor of `dtype` (the other inputs' dtype) where it can be one: Python
    values convert to it, and a list holding tensors is packed with them cast to it, as
    TensorFlow converts `[0]` or `[i]` next to a tensor of another dtype."""
    if dtype is None or isinstance(value, Tensor):
        return convert_to_tensor(value)
    if not _holds_tensor(value):
        return convert_to_tensor(value, dtype_hint=dtype)

    def cast_leaves(v):
        if isinstance(v, (list, tuple)):
            return [cast_leaves(x) for x in v]
        if isinstance(v, Tensor) and v.dtype != dtype:
            return cast(v, dtype)
        return v
    return convert_to_tensor(cast_leaves(value), dtype=dtype)


def _stack_infer(*xs, axis):
    dtype = same_dtype("Pack", *xs)
    shape = xs[0].shape
    for x in xs[1:]:
        if not x.shape.is_compatible_with(shape):
            raise InvalidArgumentError(f"Pack: all tensors must have one shape, got {xs[0].shape} and "
                             f"{x.shape}.")
        shape = shape.merge_with(x.shape)
    dims = shape.as_tuple()
    if dims is None:
        return TensorShape(None), dtype
    ax = normalize_axis(axis, len(dims) + 1, "Pack")[0]
    return TensorShape(dims[:ax] + (len(xs),) + dims[ax:]), dtype


STACK = define("Pack", _stack_infer, lambda *xs, axis: np.stack(xs, axis), attrs={"axis": AXIS})


@STACK.def_grad
def _pack_grad(op, g):
    return list(unstack(g, num=len(op.forward_inputs), axis=op.attrs["axis"]))


@export("stack")
def stack(values, axis=0, name=None) -> Tensor:
    """Joins tensors of one shape along a new axis (also accepts a TensorArray or staged list)."""
    if hasattr(values, "stack") and not isinstance(values, (list, tuple)):
        return values.stack()
    values = [convert_to_tensor(v) for v in values]
    if not values:
        raise ValueError("stack needs at least one tensor.")
    if values and all(isinstance(v, EagerTensor) for v in values) and len({v.dtype for v in values}) > 1:
        same_dtype("Pack", *values)
    return apply(STACK, values, {"axis": int(axis)}, name=name)


def _unstack_infer(x, num, axis):
    dims = x.shape.as_tuple()
    ax = axis % len(dims)
    out = TensorShape(dims[:ax] + dims[ax + 1:])
    return [(out, x.dtype)] * num


UNSTACK = define("Unpack", _unstack_infer,
                 lambda x, num, axis: [np.take(x, i, axis=axis) for i in builtins.range(num)],
                 num_outputs=None, attrs={"axis": AXIS, "num": INT})


@export("unstack")
def unstack(value, num=None, axis=0, name=None) -> list[Tensor]:
    """Splits a tensor along `axis` into a list of tensors (the axis size must be known)."""
    value = convert_to_tensor(value)
    dims = value.shape.as_tuple()
    if dims is None or not dims:
        raise ValueError(f"unstack needs a tensor of known rank >= 1, got shape {value.shape}.")
    n = dims[axis]
    if num is None:
        num = n
    if num is None:
        raise ValueError(f"Cannot unstack a dimension of unknown size (shape {value.shape}); "
                         "pass num=.")
    return apply(UNSTACK, [value], {"num": int(num), "axis": int(axis)}, name=name)


def _split_infer(x, sizes, axis):
    dims = x.shape.as_tuple()
    ax = normalize_axis(axis, len(dims), "Split")[0]
    if dims[ax] is not None and builtins.sum(sizes) != dims[ax]:
        raise InvalidArgumentError(f"Split: sizes {list(sizes)} do not add up to dimension {dims[ax]} of "
                         f"shape {x.shape}.")
    return [(TensorShape(dims[:ax] + (s,) + dims[ax + 1:]), x.dtype) for s in sizes]


SPLIT = define("Split", _split_infer,
               lambda x, sizes, axis: np.split(x, np.cumsum(sizes)[:-1], axis=axis),
               num_outputs=None, attrs={"axis": AXIS, "sizes": INTS})


@export("split")
def split(value, num_or_size_splits, axis=0, num=None, name=None) -> list[Tensor]:
    """Splits a tensor into equal parts (an int) or parts of the given sizes along `axis`."""
    value = convert_to_tensor(value)
    dims = value.shape.as_tuple()
    if dims is None:
        raise ValueError("split needs a tensor of known rank.")
    ax = normalize_axis(int(axis), len(dims), "Split")[0]
    if isinstance(num_or_size_splits, (int, np.integer)):
        n = int(num_or_size_splits)
        if dims[ax] is None or dims[ax] % n:
            raise InvalidArgumentError(f"Cannot split dimension {ax} of shape {value.shape} into {n} "
                             "equal parts.")
        sizes = (dims[ax] // n,) * n
    else:
        sizes = static_ints(num_or_size_splits, "num_or_size_splits")
    return apply(SPLIT, [value], {"sizes": tuple(sizes), "axis": ax}, name=name)


def _squeeze_infer(x, axis):
    dims = x.shape.as_tuple()
    if dims is None:
        return TensorShape(None), x.dtype
    if axis is None:
        if any(d is None for d in dims):
            return TensorShape(None), x.dtype
        return TensorShape([d for d in dims if d != 1]), x.dtype
    axes = normalize_axis(axis, len(dims), "Squeeze")
    for a in axes:
        if dims[a] not in (1, None):
            raise InvalidArgumentError(f"Squeeze: cannot squeeze axis {a} of size {dims[a]} in shape {x.shape}.")
    return TensorShape([d for i, d in enumerate(dims) if i not in axes]), x.dtype


SQUEEZE = define("Squeeze", _squeeze_infer, lambda x, axis: np.squeeze(x, axis),
                 template="np.squeeze({0}, {axis})", attrs={"axis": OPT_AXES})


@export("squeeze")
def squeeze(input, axis=None, name=None) -> Tensor:  # noqa: A002 - TensorFlow's name
    """Removes axes of size 1 (those in `axis`, or all of them)."""
    x = convert_to_tensor(input)
    if axis is not None:
        axis = normalize_axis(axis, x.shape.rank, "Squeeze")
    return apply(SQUEEZE, [x], {"axis": axis}, name=name)


def _expand_infer(x, axis):
    dims = x.shape.as_tuple()
    if dims is None:
        return TensorShape(None), x.dtype
    ax = normalize_axis(axis, len(dims) + 1, "ExpandDims")[0]
    return TensorShape(dims[:ax] + (1,) + dims[ax:]), x.dtype


EXPAND_DIMS = define("ExpandDims", _expand_infer, lambda x, axis: np.expand_dims(x, axis),
                     template="np.expand_dims({0}, {axis})", attrs={"axis": AXIS})


@export("expand_dims")
def expand_dims(input, axis, name=None) -> Tensor:  # noqa: A002
    """Inserts an axis of size 1 at `axis`."""
    x = convert_to_tensor(input)
    rank = x.shape.rank
    axis = int(axis)
    if rank is not None:
        axis = normalize_axis(axis, rank + 1, "ExpandDims")[0]
    return apply(EXPAND_DIMS, [x], {"axis": axis}, name=name)


def _tile_infer(x, multiples):
    dims = x.shape.as_tuple()
    if dims is None:
        return TensorShape(None), x.dtype
    if len(multiples) != len(dims):
        raise InvalidArgumentError(f"Tile: multiples {list(multiples)} must have one entry per axis of "
                         f"shape {x.shape}.")
    return TensorShape([None if d is None else d * m for d, m in zip(dims, multiples)]), x.dtype


TILE = define("Tile", _tile_infer, lambda x, multiples: np.tile(x, multiples),
              template="np.tile({0}, {multiples})", attrs={"multiples": DIMS})


@export("tile")
def tile(input, multiples, name=None) -> Tensor:  # noqa: A002
    """Repeats the tensor `multiples[i]` times along each axis i."""
    x = convert_to_tensor(input)
    known = static_or_later(multiples, "multiples")
    if known is None:
        return apply(TILE_DYNAMIC, [x, int_vector(multiples)], name=name)
    return apply(TILE, [x], {"multiples": known}, name=name)


def _tile_dynamic_infer(x, multiples):
    values = partial_ints(multiples) if multiples.shape.rank == 1 else None
    dims = x.shape.as_tuple()
    if dims is None:
        return TensorShape(None), x.dtype
    if values is None:
        values = (None,) * len(dims)
    if len(values) != len(dims):
        raise InvalidArgumentError(f"Tile: multiples ({len(values)} entries) must have one entry per axis "
                         f"of shape {x.shape}.")
    return TensorShape([None if d is None or m is None else d * m
                        for d, m in zip(dims, values)]), x.dtype


TILE_DYNAMIC = define("TileDynamic", _tile_dynamic_infer,
                      lambda x, multiples: np.tile(x, tuple(int(m) for m in multiples)),
                      template="np.tile({0}, tuple({1}.tolist()))")


def _tile_grad_kernel(g, x, multiples):
    """The gradient of tile(x, multiples): the tiles of `g` summed."""
    dims = np.shape(x)
    split = [d for pair in zip((int(m) for m in multiples), dims) for d in pair]
    return np.reshape(g, split).sum(axis=tuple(builtins.range(0, 2 * len(dims), 2)),
                                    dtype=np.asarray(g).dtype)


TILE_GRAD_DYNAMIC = define("TileGradDynamic", lambda g, x, multiples: (x.shape, g.dtype),
                           _tile_grad_kernel, differentiable=False)


@TILE_DYNAMIC.def_grad
def _tile_dynamic_grad(op, g):
    return [apply(TILE_GRAD_DYNAMIC, [g, op.inputs[0], op.inputs[1]]), None]


# -- gathering -----------------------------------------------------------------------------

def _gather_infer(params, indices, axis):
    if not indices.dtype.is_integer:
        raise TypeError(f"GatherV2: indices must be integers, got {indices.dtype.name}.")
    dims = params.shape.as_tuple()
    idims = indices.shape.as_tuple()
    if dims is None or idims is None:
        return TensorShape(None), params.dtype
    ax = normalize_axis(axis, len(dims), "GatherV2")[0]
    return TensorShape(dims[:ax] + idims + dims[ax + 1:]), params.dtype


def _position(where) -> str:
    """`[0,1]` for an index position, as TensorFlow's messages write it (`` for a scalar)."""
    return f"[{','.join(str(int(w)) for w in where)}]" if len(where) else ""


def index_out_of_range(op_name: str, indices: np.ndarray, size: int) -> InvalidArgumentError:
    """The error for the first of `indices` outside [0, size), worded as TensorFlow's:
    `indices[0] = -1 is not in [0, 3)`."""
    indices = np.asarray(indices)
    bad = np.argwhere((indices < 0) | (indices >= size))[0]
    return InvalidArgumentError(f"{op_name}: indices{_position(bad)} = "
                                f"{int(indices[tuple(bad)])} is not in [0, {size}).")


def _gather_kernel(params, indices, axis):
    """np.take, refusing (as TensorFlow does) negative indices, which NumPy counts from the
    end; np.take itself refuses indices past the end. One pass: the indices' minimum."""
    if type(indices) is not np.ndarray:
        indices = np.asarray(indices)
    if indices.size and indices.min() < 0:
        raise index_out_of_range("GatherV2", indices, np.shape(params)[axis])
    try:
        return np.take(params, indices, axis=axis)
    except IndexError:
        raise index_out_of_range("GatherV2", indices, np.shape(params)[axis]) from None


GATHER = define("GatherV2", _gather_infer, _gather_kernel, attrs={"axis": AXIS})


def gather(params, indices, axis=0, batch_dims=0, name=None):
    """Takes the slices at `indices` along `axis`, like np.take (`rt.gather`, published by
    runtime.ops.scatter_ops, adds batch_dims)."""
    if batch_dims:
        raise NotImplementedError("gather with batch_dims is not supported; use gather_nd.")
    params = convert_to_tensor(params)
    indices = convert_to_tensor(indices, dtype_hint=_dtypes.int32)
    return apply(GATHER, [params, indices], {"axis": int(axis)}, name=name)


def _gather_nd_infer(params, indices):
    dims = params.shape.as_tuple()
    idims = indices.shape.as_tuple()
    if dims is None or idims is None or idims[-1] is None:
        return TensorShape(None), params.dtype
    return TensorShape(idims[:-1] + dims[idims[-1]:]), params.dtype


def _gather_nd_kernel(params, indices):
    indices, dims = np.asarray(indices), np.shape(params)
    k = indices.shape[-1]
    if indices.size and k:
        flat = indices.reshape(-1, k)
        bad = ((flat < 0) | (flat >= np.asarray(dims[:k]))).any(axis=1)
        if bad.any():  # NumPy would count negative indices from the end
            row = int(np.argmax(bad))
            where = np.unravel_index(row, indices.shape[:-1])
            raise InvalidArgumentError(
                f"GatherNd: indices{_position(where)} = {flat[row].tolist()} does not index "
                f"into param shape {list(dims)}.")
    return params[tuple(np.moveaxis(indices, -1, 0))]


GATHER_ND = define("GatherNd", _gather_nd_infer, _gather_nd_kernel)


def gather_nd(params, indices, name=None):
    """Takes the elements (or slices) whose index tuples are the last axis of `indices`."""
    return apply(GATHER_ND, [convert_to_tensor(params),
                             convert_to_tensor(indices, dtype_hint=_dtypes.int32)], name=name)


def _select_infer(cond, x, y):
    if not cond.dtype.is_bool:
        raise TypeError(f"where: condition must be bool, got {cond.dtype.name}.")
    dtype = same_dtype("SelectV2", x, y)
    return broadcast(broadcast(cond.shape, x.shape, "SelectV2"), y.shape, "SelectV2"), dtype


SELECT = define("SelectV2", _select_infer, np.where, template="np.where({0}, {1}, {2})",
                scalar="{1} if {0} else {2}", scalar_only=True)


def _where_indices_infer(cond):
    rank = cond.shape.rank
    return TensorShape([None, rank]), _dtypes.int64


WHERE_INDICES = define("Where", _where_indices_infer, lambda c: np.argwhere(c).astype(np.int64),
                       template="np.argwhere({0})")


@export("where")
def where(condition, x=None, y=None, name=None) -> Tensor:
    """Elementwise select (x and y given) or the int64 indices of true elements."""
    condition = convert_to_tensor(condition, dtype_hint=_dtypes.bool_)
    if x is None and y is None:
        return apply(WHERE_INDICES, [condition], name=name)
    if x is None or y is None:
        raise ValueError("where needs both x and y, or neither.")
    x, y = binary_operands(x, y)
    return apply(SELECT, [condition, x, y], name=name)


def _boolean_mask_infer(tensor, mask):
    dims = tensor.shape.as_tuple()
    mdims = mask.shape.as_tuple()
    if dims is None or mdims is None:
        return TensorShape(None), tensor.dtype
    if not TensorShape(dims[:len(mdims)]).is_compatible_with(mdims):
        raise InvalidArgumentError(f"boolean_mask: mask shape {mask.shape} does not match the leading "
                         f"dimensions of shape {tensor.shape}.")
    return TensorShape((None,) + dims[len(mdims):]), tensor.dtype


BOOLEAN_MASK = define("BooleanMask", _boolean_mask_infer, lambda t, m: t[m], template="{0}[{1}]")


@export("boolean_mask")
def boolean_mask(tensor, mask, axis=None, name=None) -> Tensor:
    """The elements (or rows) of `tensor` where the bool `mask` is true."""
    if axis not in (None, 0):
        raise NotImplementedError("boolean_mask supports axis=0 only.")
    return apply(BOOLEAN_MASK, [convert_to_tensor(tensor),
                                convert_to_tensor(mask, dtype=_dtypes.bool_)], name=name)


# -- creation ------------------------------------------------------------------------------

def _shape_arg(shape, what="shape"):
    dims = None if _known_later(shape) else static_ints(shape, what)
    if dims is None:
        return None
    if any(d < 0 for d in dims):
        raise ValueError(f"{what} must be fully defined, got {list(dims)}.")
    return dims


@export("zeros")
def zeros(shape, dtype=_dtypes.float32, name=None) -> Tensor:
    """A tensor of zeros of the given shape and dtype."""
    dtype = _dtypes.as_dtype(dtype)
    dims = _shape_arg(shape)
    if dims is None:
        return fill(shape, np.zeros((), dtype.as_numpy_dtype), name=name)
    return constant(np.zeros(dims, dtype.as_numpy_dtype))


@export("ones")
def ones(shape, dtype=_dtypes.float32, name=None) -> Tensor:
    """A tensor of ones of the given shape and dtype."""
    dtype = _dtypes.as_dtype(dtype)
    dims = _shape_arg(shape)
    if dims is None:
        return fill(shape, np.ones((), dtype.as_numpy_dtype), name=name)
    return constant(np.ones(dims, dtype.as_numpy_dtype))


def _fill_infer(dims, value):
    if not dims.dtype.is_integer:
        raise TypeError(f"Fill: dims must be integers, got {dims.dtype.name}.")
    if dims.shape.rank not in (None, 0, 1):
        raise ValueError(f"Fill: dims must be a vector, got shape {dims.shape}.")
    if value.shape.rank not in (None, 0):
        raise ValueError(f"Fill: value must be a scalar, got shape {value.shape}.")
    return shape_from_tensor(dims), value.dtype


FILL = define("Fill", _fill_infer, lambda dims, value: np.full(tuple(np.ravel(dims)), value),
              template="np.full(tuple({0}.tolist()), {1})")


@export("fill")
def fill(dims, value, name=None) -> Tensor:
    """A tensor of shape `dims` filled with `value`."""
    return apply(FILL, [int_vector(dims), convert_to_tensor(value)], name=name)


def _like_infer(x, dtype):
    return x.shape, (dtype or x.dtype)


ZEROS_LIKE = define("ZerosLike", _like_infer, lambda x, dtype: np.zeros_like(x, dtype=dtype and dtype.as_numpy_dtype),
                    differentiable=False, attrs={"dtype": OPT_DTYPE})


ONES_LIKE = define("OnesLike", _like_infer, lambda x, dtype: np.ones_like(x, dtype=dtype and dtype.as_numpy_dtype),
                   differentiable=False, attrs={"dtype": OPT_DTYPE})


@export("zeros_like")
def zeros_like(input, dtype=None, name=None) -> Tensor:  # noqa: A002
    """Zeros with the shape (and, unless given, dtype) of `input`."""
    x = convert_to_tensor(input)
    return apply(ZEROS_LIKE, [x], {"dtype": _dtypes.as_dtype(dtype) if dtype else None}, name=name)


@export("ones_like")
def ones_like(input, dtype=None, name=None) -> Tensor:  # noqa: A002
    """Ones with the shape (and, unless given, dtype) of `input`."""
    x = convert_to_tensor(input)
    return apply(ONES_LIKE, [x], {"dtype": _dtypes.as_dtype(dtype) if dtype else None}, name=name)


def _range_infer(start, limit, delta, dtype):
    values = [constant_value(t) for t in (start, limit, delta)]
    if values[2] is not None:
        _check_delta(values[2])
    if all(v is not None for v in values):
        n = len(np.arange(*[v.item() for v in values]))
        return TensorShape([n]), dtype
    return TensorShape([None]), dtype


def _check_delta(delta):
    if delta == 0:
        raise InvalidArgumentError("rt.range: delta must not be 0 (the range would never end).")


def _range_kernel(start, limit, delta, dtype):
    _check_delta(delta)
    return np.arange(start, limit, delta, dtype=dtype.as_numpy_dtype)


RANGE = define("Range", _range_infer, _range_kernel, differentiable=False, attrs={"dtype": DTYPE})


@export("range")
def range(start, limit=None, delta=1, dtype=None, name=None) -> Tensor:  # noqa: A001
    """Like Python's range, as a tensor: range(5), range(2, 8, 2)."""
    if limit is None:
        start, limit = 0, start
    parts = [start, limit, delta]
    if dtype is None:
        kinds = [p.dtype if isinstance(p, Tensor) else _dtypes.python_scalar_dtype(p) or _dtypes.int32
                 for p in parts]
        dtype = next((k for k in kinds if k.is_floating), None) or next(
            (k for k in kinds if k is _dtypes.int64), _dtypes.int32)
    dtype = _dtypes.as_dtype(dtype)
    tensors = [cast(convert_to_tensor(p), dtype) if isinstance(p, Tensor) else convert_to_tensor(p, dtype)
               for p in parts]
    return apply(RANGE, tensors, {"dtype": dtype}, name=name)


@export("eye", "linalg.eye")
def eye(num_rows, num_columns=None, batch_shape=None, dtype=_dtypes.float32, name=None) -> Tensor:
    """An identity matrix (num_rows x num_columns), optionally repeated over batch_shape."""
    dtype = _dtypes.as_dtype(dtype)
    sizes = [num_rows, num_columns]
    if any(scalar_known_later(v) for v in sizes) or _known_later(batch_shape) or (
            isinstance(batch_shape, Tensor) and constant_value(batch_shape) is None):
        return _eye_later(num_rows, num_rows if num_columns is None else num_columns,
                          batch_shape, dtype)
    rows = as_int(num_rows, "num_rows")
    columns = None if num_columns is None else as_int(num_columns, "num_columns")
    value = np.eye(rows, columns, dtype=dtype.as_numpy_dtype)
    if batch_shape is not None:
        batch = static_ints(batch_shape, "batch_shape")
        value = np.broadcast_to(value, tuple(batch) + value.shape).copy()
    return constant(value)


def _eye_later(num_rows, num_columns, batch_shape, dtype):
    """eye whose sizes are known when the graph runs: rows == columns as a 0/1 matrix."""
    rows = range(convert_to_tensor(num_rows, dtype_hint=_dtypes.int32))
    columns = range(convert_to_tensor(num_columns, dtype_hint=_dtypes.int32))
    hits = _math.equal(expand_dims(rows, 1), expand_dims(columns, 0))
    matrix = cast(hits, dtype)
    if batch_shape is None:
        return matrix
    batch = int_vector(batch_shape)
    return _math.add(fill(concat([batch, shape(rows), shape(columns)], 0),
                             np.zeros((), dtype.as_numpy_dtype)), matrix)


# -- shape queries ---------------------------------------------------------------------------

def _shape_infer(x, out_type):
    rank = x.shape.rank
    return TensorShape([rank]), out_type


SHAPE = define("Shape", _shape_infer, lambda x, out_type: np.array(np.shape(x), out_type.as_numpy_dtype),
               differentiable=False, attrs={"out_type": DTYPE})


@export("shape")
def shape(input, out_type=_dtypes.int32, name=None) -> Tensor:  # noqa: A002
    """The shape as an int32 tensor (a constant when the shape is fully known)."""
    x = convert_to_tensor(input)
    out_type = _dtypes.as_dtype(out_type)
    if x.shape.is_fully_defined():
        return constant(np.array(x.shape.as_list(), out_type.as_numpy_dtype))
    return apply(SHAPE, [x], {"out_type": out_type}, name=name)


SIZE = define("Size", lambda x, out_type: (TensorShape([]), out_type),
              lambda x, out_type: np.array(np.size(x), out_type.as_numpy_dtype), differentiable=False,
              attrs={"out_type": DTYPE})


@export("size")
def size(input, out_type=_dtypes.int32, name=None) -> Tensor:  # noqa: A002
    """The number of elements, as a scalar (a constant when the shape is known)."""
    x = convert_to_tensor(input)
    out_type = _dtypes.as_dtype(out_type)
    n = x.shape.num_elements()
    if n is not None:
        return constant(np.array(n, out_type.as_numpy_dtype))
    return apply(SIZE, [x], {"out_type": out_type}, name=name)


@export("rank")
def rank(input, name=None) -> Tensor:  # noqa: A002
    """The number of axes, as a scalar int32 tensor."""
    x = convert_to_tensor(input)
    if x.shape.rank is None:
        raise ValueError("rank of a tensor of unknown rank is not supported.")
    return constant(np.array(x.shape.rank, np.int32))


# -- casting and identity ---------------------------------------------------------------------

@functools.cache
def int_range(target: np.dtype) -> tuple[int, int, float]:
    """The lowest and highest values of the integer dtype `target`, and the float just past
    the highest (a power of two, exact in every float type)."""
    info = np.iinfo(target)
    return int(info.min), int(info.max), float(int(info.max) + 1)


def saturating_cast(x, target: np.dtype):
    """Floats converted to the integer dtype `target` saturating, on every tier: truncated
    toward zero, NaN to 0, values below (above) the range (-inf, +inf) to its lowest
    (highest) value. NumPy's own conversion of those is platform dependent. In range (one
    min and one max over `x`) it is `astype`."""
    lo, hi, top = int_range(target)
    if isinstance(x, np.generic):  # a scalar (a loop counter): no array reductions
        if lo <= x < top:  # NaN fails
            return x.astype(target)
        return np.array(0 if x != x else lo if x < lo else hi, dtype=target)[()]
    if x.size == 0 or (x.min() >= lo and x.max() < top):  # NaN fails both
        return x.astype(target)
    with np.errstate(invalid="ignore"):
        out = x.astype(target)
    fixed = np.where(x != x, 0, np.where(x < lo, lo, np.where(x >= top, hi, out)))
    return fixed.astype(target)[()] if np.ndim(x) == 0 else fixed.astype(target)


def is_float_to_int(source: np.dtype, target: np.dtype) -> bool:
    """True for the casts that saturate (`saturating_cast`)."""
    return np.dtype(source).kind == "f" and np.dtype(target).kind in "iu"


def _cast_kernel(x, dtype):
    x = np.asarray(x)
    if is_float_to_int(x.dtype, dtype.as_numpy_dtype):
        return saturating_cast(x, dtype.as_numpy_dtype)
    return x.astype(dtype.as_numpy_dtype)


def _emit_cast(em, op):
    x, target = op.inputs[0], op.attrs["dtype"]._np
    type_name = f"np.{target.type.__name__}"
    if is_float_to_int(x.dtype.as_numpy_dtype, target):
        em.line(f"{em.outs(op)[0]} = {em.bind(saturating_cast)}({em.ins(op)[0]}, {type_name})")
    elif x.shape.rank == 0 and x.dtype._np.kind in "biu" and target.kind == "f":
        # a scalar integer (a loop counter) converts through int: several times faster than astype
        em.line(f"{em.outs(op)[0]} = {type_name}(int({em.ins(op)[0]}))")
    else:
        em.line(f"{em.outs(op)[0]} = {em.ins(op)[0]}.astype({type_name})")


CAST = define("Cast", lambda x, dtype: (x.shape, dtype), _cast_kernel, emit=_emit_cast,
              attrs={"dtype": DTYPE})


@CAST.def_grad
def _cast_grad(op, g):
    source = op.forward_inputs[0].dtype
    if source._np.kind not in "fc" or g.dtype._np.kind not in "fc":
        return [None]
    return [cast(g, source)]


@export("cast")
def cast(x, dtype, name=None) -> Tensor:
    """Converts `x` to `dtype` (floats to ints truncate toward zero, as in TensorFlow, and
    saturate: NaN gives 0, values out of the integer range its lowest or highest value)."""
    dtype = _dtypes.as_dtype(dtype)
    if not isinstance(x, Tensor):
        if isinstance(x, (np.ndarray, np.generic)):
            return convert_to_tensor(_cast_kernel(x, dtype))
        x = convert_to_tensor(x)
    x = convert_to_tensor(x)
    if x.dtype is dtype:
        return x
    return apply(CAST, [x], {"dtype": dtype}, name=name)


register_conversions(pack=stack, cast=cast)


IDENTITY = define("Identity", lambda x: (x.shape, x.dtype), lambda x: x,
                  emit=lambda em, op: em.alias(op.outputs[0], em.ins(op)[0]))


@IDENTITY.def_grad
def _identity_grad(op, g):
    return [g]


@export("identity")
def identity(input, name=None) -> Tensor:  # noqa: A002
    """The same value (a new op in a graph)."""
    return apply(IDENTITY, [convert_to_tensor(input)], name=name)


def _one_hot_infer(indices, depth, on_value, off_value, axis, dtype):
    dims = indices.shape.as_tuple()
    if dims is None:
        return TensorShape(None), dtype
    ax = len(dims) if axis == -1 else axis
    return TensorShape(dims[:ax] + (depth,) + dims[ax:]), dtype


def _one_hot_kernel(indices, depth, on_value, off_value, axis, dtype):
    indices = np.asarray(indices)
    hot = indices[..., None] == np.arange(depth)
    out = np.where(hot, on_value, off_value).astype(dtype.as_numpy_dtype)
    if axis != -1:
        out = np.moveaxis(out, -1, axis)
    return out


ONE_HOT = define("OneHot", _one_hot_infer, _one_hot_kernel, differentiable=False,
                 attrs={"depth": INT, "on_value": NUMBER, "off_value": NUMBER, "axis": AXIS,
                        "dtype": DTYPE})


@export("one_hot")
def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None) -> Tensor:
    """One-hot vectors of length `depth` for integer `indices` (on_value/off_value, float32 by default)."""
    dtype = _dtypes.as_dtype(dtype) if dtype is not None else _dtypes.float32
    indices = convert_to_tensor(indices, dtype_hint=_dtypes.int32)
    on = 1 if on_value is None else on_value
    off = 0 if off_value is None else off_value
    ax = -1 if axis is None else int(axis)
    if scalar_known_later(depth):
        return _one_hot_later(indices, depth, on, off, ax, dtype)
    return apply(ONE_HOT, [indices], {
        "depth": as_int(depth, "depth"), "on_value": on, "off_value": off, "axis": ax,
        "dtype": dtype}, name=name)


def _one_hot_later(indices, depth, on, off, axis, dtype):
    """one_hot whose depth is known when the graph runs: indices == range(depth), broadcast
    along the new axis, selecting on_value or off_value."""
    rank = indices.shape.rank
    if rank is None and axis != -1:
        raise ValueError("one_hot with a depth tensor and an axis needs indices of known rank.")
    ax = rank if axis == -1 else normalize_axis(axis, rank + 1, "OneHot")[0]
    positions = range(cast(convert_to_tensor(depth), indices.dtype))
    if rank is not None and rank - ax:
        positions = reshape(positions, (-1,) + (1,) * (rank - ax))
    hits = binary_operands(expand_dims(indices, ax), positions)
    hot = _math.equal(*hits)
    on_t = convert_to_tensor(on, dtype=dtype) if not isinstance(on, Tensor) else cast(on, dtype)
    off_t = convert_to_tensor(off, dtype=dtype) if not isinstance(off, Tensor) else cast(off, dtype)
    return where(hot, on_t, off_t)


REVERSE = define("ReverseV2", lambda x, axis: (x.shape, x.dtype), lambda x, axis: np.flip(x, axis),
                 template="np.flip({0}, {axis})", attrs={"axis": AXES})


@REVERSE.def_grad
def _reverse_grad(op, g):
    return [reverse(g, op.attrs["axis"])]


@export("reverse")
def reverse(tensor, axis, name=None) -> Tensor:
    """Reverses the order of elements along the given axes."""
    x = convert_to_tensor(tensor)
    axes = normalize_axis(static_ints(axis, "axis"), x.shape.rank, "ReverseV2")
    return apply(REVERSE, [x], {"axis": axes}, name=name)


def _cumsum_kernel(x, axis, exclusive, reverse):
    x = np.asarray(x)
    if reverse:
        x = np.flip(x, axis)
    out = np.cumsum(x, axis=axis, dtype=x.dtype)
    if exclusive:
        out = np.concatenate([np.zeros_like(np.take(out, [0], axis=axis)),
                              np.take(out, np.arange(out.shape[axis] - 1), axis=axis)], axis=axis)
    if reverse:
        out = np.flip(out, axis)
    return out


CUMSUM = define("Cumsum", lambda x, axis, exclusive, reverse: (x.shape, x.dtype), _cumsum_kernel,
                attrs={"axis": AXIS, "exclusive": BOOL, "reverse": BOOL})


@CUMSUM.def_grad
def _cumsum_grad(op, g):
    return [cumsum(g, op.attrs["axis"], exclusive=op.attrs["exclusive"],
                   reverse=not op.attrs["reverse"])]


@export("cumsum", "math.cumsum")
def cumsum(x, axis=0, exclusive=False, reverse=False, name=None) -> Tensor:
    """Cumulative sum along `axis`; `exclusive` shifts it by one, `reverse` sums from the end."""
    x = convert_to_tensor(x)
    ax = normalize_axis(int(axis), x.shape.rank, "Cumsum")[0]
    return apply(CUMSUM, [x], {"axis": ax, "exclusive": bool(exclusive), "reverse": bool(reverse)},
                 name=name)


# -- indexing -------------------------------------------------------------------------------------

class IndexSlot:

    __slots__ = ("index",)

    def __init__(self, index):
        self.index = index

    def __repr__(self):
        return f"IndexSlot({self.index})"


def fill_key(key, values):
    """The indexing key with its tensor slots replaced by `values` (run-time indices)."""
    def one(k):
        if isinstance(k, IndexSlot):
            return values[k.index]
        if isinstance(k, slice):
            return slice(one(k.start), one(k.stop), one(k.step))
        return k
    return tuple(one(k) for k in key)


def _index_infer(x, *index_tensors, key):
    dims = x.shape.as_tuple()
    if any(isinstance(k, IndexSlot) and index_tensors[k.index].shape.rank not in (0,) for k in key):
        for k in key:
            if isinstance(k, IndexSlot) and index_tensors[k.index].dtype.is_bool:
                return TensorShape(None), x.dtype
        return TensorShape(None), x.dtype
    if dims is None:
        return TensorShape(None), x.dtype
    consumed = builtins.sum(1 for k in key if k is not None and k is not Ellipsis)
    if consumed > len(dims):
        raise IndexError(f"Too many indices ({consumed}) for a tensor of shape {x.shape}.")
    out = []
    pos = 0
    for k in key:
        if k is Ellipsis:
            n = len(dims) - consumed
            out.extend(dims[pos:pos + n])
            pos += n
        elif k is None:
            out.append(1)
        elif isinstance(k, slice):
            d = dims[pos]
            pos += 1
            parts = (k.start, k.stop, k.step)
            if d is None or any(isinstance(p, IndexSlot) for p in parts):
                out.append(None)
            else:
                out.append(len(builtins.range(*slice(*parts).indices(d))))
        else:
            d = dims[pos]
            pos += 1
            if not isinstance(k, IndexSlot) and d is not None and not -d <= k < d:
                raise IndexOutOfBoundsError(
                    f"Index {k} is out of bounds for axis {pos - 1} with size {d} (shape "
                    f"{x.shape}): slice index {k} of dimension {pos - 1} out of bounds.")
    out.extend(dims[pos:])
    return TensorShape(out), x.dtype


def _index_kernel(x, *index_values, key):
    return np.asarray(x)[fill_key(key, index_values)]


def _key_source(em, op) -> str:
    names = em.ins(op)
    values, key = names[1:], op.attrs["key"]

    def one(k):
        if isinstance(k, IndexSlot):
            return values[k.index]
        if k is Ellipsis:
            return "..."
        if isinstance(k, slice):
            parts = [one(p) if p is not None else "" for p in (k.start, k.stop, k.step)]
            return f"{parts[0]}:{parts[1]}" + (f":{parts[2]}" if parts[2] else "")
        return repr(k)
    inner = ", ".join(one(k) for k in key)
    return f"{names[0]}[{inner}{',' if len(key) == 1 and not isinstance(key[0], slice) else ''}]"


STRIDED_SLICE = define("StridedSlice", _index_infer, _index_kernel,
                       emit=lambda em, op: em.line(f"{em.outs(op)[0]} = {_key_source(em, op)}"),
                       attrs={"key": KEY})


def getitem(tensor, key):
    """`tensor[key]` with ints, slices, None, Ellipsis, and tensors as indices or bounds."""
    tensor = convert_to_tensor(tensor)
    if not isinstance(key, tuple):
        key = (key,)
    inputs = []

    def norm(k):
        if isinstance(k, Tensor) or isinstance(k, (list, np.ndarray)):
            t = convert_to_tensor(k, dtype_hint=_dtypes.int32)
            if t.dtype.is_floating:
                raise TypeError(f"Tensor indices must be integers or bools, got {t.dtype.name}.")
            known = constant_value(t) if not isinstance(k, (list, np.ndarray)) else None
            if known is not None and known.ndim == 0 and not t.dtype.is_bool and context.current_graph() is None:
                return int(known)
            inputs.append(t)
            return IndexSlot(len(inputs) - 1)
        if isinstance(k, slice):
            return slice(norm(k.start), norm(k.stop), norm(k.step))
        if isinstance(k, (bool, np.bool_)):
            raise TypeError("A Python bool is not a valid index.")
        if isinstance(k, (int, np.integer)):
            return int(k)
        if k is None or k is Ellipsis:
            return k
        raise TypeError(f"Cannot index a tensor with {k!r}; use ints, slices, None, Ellipsis or "
                        "integer tensors.")
    key = tuple(norm(k) for k in key)
    return apply(STRIDED_SLICE, [tensor, *inputs], {"key": key})


# -- gradients -------------------------------------------------------------------------------------
# (see runtime.ops.gradient_ops for what a rule receives and the helpers rules share)


