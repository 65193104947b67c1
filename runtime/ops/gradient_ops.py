"""Ops and helpers that gradient rules share (broadcasting, summing and scattering gradients).

A rule maps (op, *output_grads) to one gradient per input, None where there is none. `op`
(see runtime.gradients.node.GradOp) gives `forward_inputs`/`forward_outputs` for static
shapes and dtypes, `inputs`/`outputs` for values, and `needs[i]` (is input i's gradient
wanted). Rules use ordinary ops, so gradients run eagerly or are staged, and are
differentiable again. This module builds on array_ops and reduce_ops; rules of those modules
(and math_ops) that need these helpers live in array_grads, math_grads and reduce_grads.
"""

from __future__ import annotations

import builtins

import numpy as np

from .. import dtypes as _dtypes
from ..attr_kinds import AXIS, DIMS, KEY, NP_DTYPE, OPT_DIMS
from ..opdef import define
from ..shapes import TensorShape
from . import array_ops, reduce_ops
from .core import apply


def static_dims(tensor):
    """The shape of `tensor` as a tuple of ints when fully known at trace time, else None."""
    dims = tensor.shape.as_tuple()
    if dims is None or None in dims:
        return None
    return dims


def _bcast_infer(x, *like, shape):
    if shape is not None:
        return TensorShape(shape), x.dtype
    return like[0].shape, x.dtype


def _bcast_kernel(x, *like, shape):
    return np.broadcast_to(x, np.shape(like[0]) if shape is None else shape).copy()


def _emit_bcast(em, op):
    names = em.ins(op)
    shape = em.literal(op.attrs["shape"]) if op.attrs["shape"] is not None else f"{names[1]}.shape"
    em.line(f"{em.outs(op)[0]} = np.broadcast_to({names[0]}, {shape}).copy()")


BROADCAST_TO = define("BroadcastTo", _bcast_infer, _bcast_kernel, emit=_emit_bcast,
                      attrs={"shape": OPT_DIMS})


@BROADCAST_TO.def_grad
def _broadcast_to_grad(op, g):
    return [sum_grad(g, op, 0, operands=False)] + [None] * (len(op.forward_inputs) - 1)


def _sum_to_infer(g, like):
    return like.shape, g.dtype


def _sum_to_kernel(g, like):
    g = np.asarray(g)
    shape = np.shape(like)
    if g.shape == shape:
        return g
    lead = g.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(lead + i for i, d in enumerate(shape)
                                      if d == 1 and g.shape[lead + i] != 1)
    return np.sum(g, axis=axes, dtype=g.dtype).reshape(shape)


SUM_TO_SHAPE = define("SumToShape", _sum_to_infer, _sum_to_kernel)


@SUM_TO_SHAPE.def_grad
def _sum_to_shape_grad(op, g):
    return [broadcast_grad(g, op, 0), None]


def _zeros_infer(shape, dtype):
    return TensorShape(shape), _dtypes.from_numpy(dtype)


ZEROS = define("Zeros", _zeros_infer, lambda shape, dtype: np.zeros(shape, dtype),
               template="np.zeros({shape}, {dtype})", differentiable=False,
               attrs={"shape": DIMS, "dtype": NP_DTYPE})


def zeros_for(op, index: int, output: bool = False):
    """Zeros shaped like input (or output) `index` of `op`, made fresh on every run."""
    forward = (op.forward_outputs if output else op.forward_inputs)[index]
    dims = static_dims(forward)
    if dims is not None:
        return apply(ZEROS, [], {"shape": dims, "dtype": forward.dtype._np})
    return array_ops.zeros_like((op.outputs if output else op.inputs)[index])


def broadcast_grad(grad, op, index: int):
    """`grad` broadcast to the shape of input `index` of `op` (a no-op when shapes agree)."""
    forward = op.forward_inputs[index]
    dims = static_dims(forward)
    if dims is not None:
        if static_dims(grad) == dims:
            return grad
        return apply(BROADCAST_TO, [grad], {"shape": dims})
    return apply(BROADCAST_TO, [grad, op.inputs[index]], {"shape": None})


def sum_grad(grad, op, index: int, operands: bool = True):
    """`grad` summed over the axes that broadcasting added to input `index` of `op`.

    `operands`: the op's other inputs are the operands broadcast together with this one
    (False for ops such as BroadcastTo, whose output shape comes from elsewhere).
    """
    forward = op.forward_inputs[index]
    others = [t.shape.as_tuple() for i, t in enumerate(op.forward_inputs) if i != index] \
        if operands else [None]
    axes = _broadcast_axes(forward.shape.as_tuple(), grad.shape.as_tuple(), others)
    if axes is None:
        return apply(SUM_TO_SHAPE, [grad, op.inputs[index]])
    lead, stretched = axes
    if not lead and not stretched:
        return grad
    if not lead:
        return reduce_ops.reduce_sum(grad, axis=stretched, keepdims=True)
    out = reduce_ops.reduce_sum(grad, axis=lead + stretched)
    if not stretched:
        return out
    dims = static_dims(forward)
    return array_ops.reshape(out, dims if dims is not None else array_ops.shape(op.inputs[index]))


def _broadcast_axes(dims, gdims, others):
    """(added leading axes, stretched size-1 axes) of a broadcast from `dims` to `gdims`.

    None when only the values can tell (unknown sizes that might be 1). `others` are the
    shapes of the other operands, which decide what an unknown size broadcast to.
    """
    if dims is None or gdims is None or len(gdims) < len(dims):
        return None
    lead = len(gdims) - len(dims)

    def others_are_one(axis):  # axis counted from the right
        return all(o is not None and (len(o) < axis or o[-axis] == 1) for o in others)
    stretched = []
    for i, d in enumerate(dims):
        g = gdims[lead + i]
        if d == 1:
            if g is not None and g != 1:
                stretched.append(lead + i)
            elif g is None and not others_are_one(len(dims) - i):
                return None
        elif d is None and not others_are_one(len(dims) - i):
            return None
    return list(builtins.range(lead)), stretched


def reshape_grad(grad, op, index: int = 0):
    """`grad` reshaped to the shape of input `index` of `op`."""
    dims = static_dims(op.forward_inputs[index])
    if dims is not None:
        return grad if static_dims(grad) == dims else array_ops.reshape(grad, dims)
    return array_ops.reshape(grad, array_ops.shape(op.inputs[index]))


def keepdims_grad(grad, op, axis):
    """The gradient of a reduction over `axis`, reshaped to keep the reduced axes as 1s."""
    rank = op.forward_inputs[0].shape.rank
    if axis is None:
        return array_ops.reshape(grad, (1,) * rank) if rank and grad.shape.rank else grad
    dims = grad.shape.as_tuple()
    if dims is not None and None not in dims and rank is not None:
        it = iter(dims)
        return array_ops.reshape(grad, tuple(1 if i in axis else next(it) for i in builtins.range(rank)))
    for a in sorted(axis):
        grad = array_ops.expand_dims(grad, a)
    return grad


def _split_like_infer(g, *xs, axis):
    return [(x.shape, g.dtype) for x in xs]


def _split_like_kernel(g, *xs, axis):
    sizes = [np.shape(x)[axis] for x in xs]
    return np.split(g, np.cumsum(sizes)[:-1], axis=axis)


SPLIT_LIKE = define("SplitLike", _split_like_infer, _split_like_kernel, num_outputs=None,
                    attrs={"axis": AXIS})


@SPLIT_LIKE.def_grad
def _split_like_grad(op, *grads):
    parts = [g if g is not None else zeros_for(op, i, output=True) for i, g in enumerate(grads)]
    return [array_ops.concat(parts, op.attrs["axis"])] + [None] * len(grads)


def _scatter_axis_infer(g, indices, *like, axis, shape):
    return (TensorShape(shape) if shape is not None else like[0].shape), g.dtype


def _scatter_axis_kernel(g, indices, *like, axis, shape):
    shape = np.shape(like[0]) if shape is None else shape
    out = np.zeros(shape, np.asarray(g).dtype)
    idx = np.asarray(indices)
    moved = np.moveaxis(out, axis, 0)
    rows = np.moveaxis(g, list(builtins.range(axis, axis + idx.ndim)), list(builtins.range(idx.ndim)))
    np.add.at(moved, idx.reshape(-1), rows.reshape((idx.size,) + moved.shape[1:]))
    return out


SCATTER_AXIS = define("ScatterAddAxis", _scatter_axis_infer, _scatter_axis_kernel,
                      attrs={"axis": AXIS, "shape": OPT_DIMS})


@SCATTER_AXIS.def_grad
def _scatter_axis_grad(op, g):
    return [array_ops.gather(g, op.inputs[1], axis=op.attrs["axis"])] + [None] * (len(op.forward_inputs) - 1)


def _scatter_nd_infer(g, indices, *like, shape):
    return (TensorShape(shape) if shape is not None else like[0].shape), g.dtype


def _scatter_nd_kernel(g, indices, *like, shape):
    shape = np.shape(like[0]) if shape is None else shape
    out = np.zeros(shape, np.asarray(g).dtype)
    np.add.at(out, tuple(np.moveaxis(np.asarray(indices), -1, 0)), g)
    return out


SCATTER_ND = define("ScatterNdAdd", _scatter_nd_infer, _scatter_nd_kernel,
                    attrs={"shape": OPT_DIMS})


@SCATTER_ND.def_grad
def _scatter_nd_grad(op, g):
    return [array_ops.gather_nd(g, op.inputs[1])] + [None] * (len(op.forward_inputs) - 1)


def _mask_scatter_kernel(g, mask, *like, shape):
    shape = np.shape(like[0]) if shape is None else shape
    out = np.zeros(shape, np.asarray(g).dtype)
    out[np.asarray(mask, bool)] = g
    return out


MASK_SCATTER = define("MaskScatter", _scatter_nd_infer, _mask_scatter_kernel,
                      attrs={"shape": OPT_DIMS})


@MASK_SCATTER.def_grad
def _mask_scatter_grad(op, g):
    return [array_ops.boolean_mask(g, op.inputs[1])] + [None] * (len(op.forward_inputs) - 1)


def _slice_grad_infer(g, *rest, key, shape):
    return (TensorShape(shape) if shape is not None else rest[0].shape), g.dtype


def _slice_grad_kernel(g, *rest, key, shape):
    if shape is None:
        shape, rest = np.shape(rest[0]), rest[1:]
    out = np.zeros(shape, np.asarray(g).dtype)
    filled = array_ops.fill_key(key, rest)
    if any(np.ndim(v) > 0 and np.asarray(v).dtype != bool for v in rest):
        np.add.at(out, filled, g)
    else:
        out[filled] = g
    return out


SLICE_GRAD = define("StridedSliceGrad", _slice_grad_infer, _slice_grad_kernel,
                    attrs={"key": KEY, "shape": OPT_DIMS})


@SLICE_GRAD.def_grad
def _slice_grad_grad(op, g):
    index_inputs = list(op.inputs[1:] if op.attrs["shape"] is not None else op.inputs[2:])
    return [apply(array_ops.STRIDED_SLICE, [g, *index_inputs], {"key": op.attrs["key"]})] + \
        [None] * (len(op.forward_inputs) - 1)


def like_input(op, index: int):
    """(attrs shape, extra inputs) for a gradient op that needs input `index`'s shape."""
    dims = static_dims(op.forward_inputs[index])
    return (dims, []) if dims is not None else (None, [op.inputs[index]])


