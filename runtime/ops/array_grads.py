"""Gradient rules of array ops that need the gradient helpers (runtime.ops.gradient_ops) or
reductions, which sit above runtime.ops.array_ops; array_ops keeps the rules that need only its
own ops. Imported by runtime.ops after every op module, so the rules are registered before any
gradient runs.
"""

from __future__ import annotations

import builtins

from . import gradient_ops, reduce_ops
from .array_ops import (
    BOOLEAN_MASK,
    CONCAT,
    EXPAND_DIMS,
    FILL,
    GATHER,
    GATHER_ND,
    RESHAPE,
    RESHAPE_DYNAMIC,
    SELECT,
    SPLIT,
    SQUEEZE,
    STRIDED_SLICE,
    TILE,
    UNSTACK,
    concat,
    reshape,
    split,
    stack,
    where,
)
from .core import apply


@RESHAPE.def_grad
def _reshape_grad(op, g):
    return [gradient_ops.reshape_grad(g, op)]


@RESHAPE_DYNAMIC.def_grad
def _reshape_dynamic_grad(op, g):
    return [gradient_ops.reshape_grad(g, op), None]


@CONCAT.def_grad
def _concat_grad(op, g):
    xs = op.forward_inputs
    rank = xs[0].shape.rank
    axis = op.attrs["axis"] % rank if rank is not None else op.attrs["axis"]
    sizes = [None if x.shape.rank is None else x.shape.as_tuple()[axis] for x in xs]
    if None in sizes:
        return list(apply(gradient_ops.SPLIT_LIKE, [g, *op.inputs], {"axis": axis}))
    return list(split(g, sizes, axis=axis))


@UNSTACK.def_grad
def _unpack_grad(op, *grads):
    parts = [g if g is not None else gradient_ops.zeros_for(op, i, output=True) for i, g in enumerate(grads)]
    return [stack(parts, axis=op.attrs["axis"])]


@SPLIT.def_grad
def _split_grad(op, *grads):
    parts = [g if g is not None else gradient_ops.zeros_for(op, i, output=True) for i, g in enumerate(grads)]
    return [concat(parts, op.attrs["axis"])]


@SQUEEZE.def_grad
def _squeeze_grad(op, g):
    return [gradient_ops.reshape_grad(g, op)]


@EXPAND_DIMS.def_grad
def _expand_dims_grad(op, g):
    return [gradient_ops.reshape_grad(g, op)]


@TILE.def_grad
def _tile_grad(op, g):
    dims = gradient_ops.static_dims(op.forward_inputs[0])
    if dims is None:
        raise NotImplementedError("The gradient of tile needs the input's shape to be known "
                                  "when the function is traced.")
    multiples = op.attrs["multiples"]
    split_dims = [d for pair in zip(multiples, dims) for d in pair]
    summed = reduce_ops.reduce_sum(reshape(g, split_dims), axis=list(builtins.range(0, 2 * len(dims), 2)))
    return [gradient_ops.reshape_grad(summed, op)]


@GATHER.def_grad
def _gather_grad(op, g):
    params = op.forward_inputs[0]
    axis = op.attrs["axis"] % params.shape.rank if params.shape.rank else op.attrs["axis"]
    shape_attr, like = gradient_ops.like_input(op, 0)
    grad = apply(gradient_ops.SCATTER_AXIS, [g, op.inputs[1], *like], {"axis": axis, "shape": shape_attr})
    return [grad, None]


@GATHER_ND.def_grad
def _gather_nd_grad(op, g):
    shape_attr, like = gradient_ops.like_input(op, 0)
    return [apply(gradient_ops.SCATTER_ND, [g, op.inputs[1], *like], {"shape": shape_attr}), None]


@SELECT.def_grad
def _select_grad(op, g):
    cond = op.inputs[0]
    gx = gradient_ops.sum_grad(where(cond, g, 0), op, 1) if op.needs[1] else None
    gy = gradient_ops.sum_grad(where(cond, 0, g), op, 2) if op.needs[2] else None
    return [None, gx, gy]


@BOOLEAN_MASK.def_grad
def _boolean_mask_grad(op, g):
    shape_attr, like = gradient_ops.like_input(op, 0)
    return [apply(gradient_ops.MASK_SCATTER, [g, op.inputs[1], *like], {"shape": shape_attr}), None]


@FILL.def_grad
def _fill_grad(op, g):
    return [None, reduce_ops.reduce_sum(g)]


@STRIDED_SLICE.def_grad
def _strided_slice_grad(op, g):
    shape_attr, like = gradient_ops.like_input(op, 0)
    index_inputs = list(op.inputs[1:])
    grad = apply(gradient_ops.SLICE_GRAD, [g, *like, *index_inputs], {"key": op.attrs["key"], "shape": shape_attr})
    return [grad] + [None] * len(index_inputs)
