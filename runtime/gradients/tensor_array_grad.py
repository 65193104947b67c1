"""Gradients through staged `TensorArray` ops.

The gradient of a TensorArray handle is a dict {index: gradient of that element} (missing
entries are zero). Reads and stacks create such dicts; a write takes its element's
gradient out of the dict it receives and passes the rest on, the way the value it wrote
replaced the old one.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes as _dtypes
from ..ops import array_ops
from ..ops.core import apply, define, register_gradient
from ..shapes import TensorShape

_SCALAR = TensorShape([])


def _handle_infer(*_args, **_attrs):
    return _SCALAR, _dtypes.variant


def _add_kernel(*grads):
    total: dict = {}
    for grad in grads:
        for i, g in (grad or {}).items():
            total[i] = total[i] + g if i in total else g
    return total


def _from_gather_kernel(g, indices):
    out: dict = {}
    for row, i in enumerate(np.ravel(indices)):
        i = int(i)
        out[i] = out[i] + g[row] if i in out else g[row]
    return out


def _from_concat_kernel(g, handle):
    out, start = {}, 0
    for i, value in enumerate(handle):
        n = np.shape(value)[0]
        out[i] = g[start:start + n]
        start += n
    return out


def _element_zeros(shape, dtype, like):
    return np.zeros(np.shape(like[0]) if shape is None else shape, dtype._np)


def _write_grad_kernel(grad, index, *like, shape, dtype):
    grad = grad if grad is not None else {}
    g = grad.pop(int(index), None)
    return grad, (_element_zeros(shape, dtype, like) if g is None else g)


def _scatter_grad_kernel(grad, *like, count, shape, dtype):
    grad = grad if grad is not None else {}
    count = np.shape(like[0])[0] if count is None else count
    rows = []
    for i in range(count):
        g = grad.pop(i, None)
        rows.append(np.zeros(np.shape(like[0])[1:] if shape is None else shape, dtype._np)
                    if g is None else g)
    return grad, np.stack(rows) if rows else np.zeros((0,) + tuple(shape or ()), dtype._np)


TA_GRAD_ADD = define("TensorArrayGradAdd", _handle_infer, _add_kernel)
TA_GRAD_STACK = define("TensorArrayGradFromStack", _handle_infer, lambda g: dict(enumerate(g)),
                       template="dict(enumerate({0}))")
TA_GRAD_READ = define("TensorArrayGradFromRead", _handle_infer, lambda g, i: {int(i): g},
                      template="{{int({1}): {0}}}")
TA_GRAD_GATHER = define("TensorArrayGradFromGather", _handle_infer, _from_gather_kernel)
TA_GRAD_CONCAT = define("TensorArrayGradFromConcat", _handle_infer, _from_concat_kernel)


def _write_grad_infer(grad, index, *like, shape, dtype):
    element = TensorShape(shape) if shape is not None else like[0].shape
    return [(_SCALAR, _dtypes.variant), (element, dtype)]


def _scatter_grad_infer(grad, *like, count, shape, dtype):
    value = TensorShape([count]).concatenate(shape) if shape is not None else like[0].shape
    return [(_SCALAR, _dtypes.variant), (value, dtype)]


TA_GRAD_WRITE = define("TensorArrayWriteGrad", _write_grad_infer, _write_grad_kernel,
                       num_outputs=2)
TA_GRAD_SCATTER = define("TensorArrayScatterGrad", _scatter_grad_infer, _scatter_grad_kernel,
                         num_outputs=2)


_GRAD_OPS = ("TensorArrayGradAdd", "TensorArrayGradFromStack", "TensorArrayGradFromRead",
             "TensorArrayGradFromGather", "TensorArrayGradFromConcat", "TensorArrayWriteGrad",
             "TensorArrayScatterGrad")


def _no_higher_order(op, *grads):
    raise NotImplementedError(
        "Differentiating the gradient of staged TensorArray ops again (a higher-order gradient "
        "through a TensorArray inside a compiled function) is not supported. Compute it "
        "eagerly, or with rt.run_functions_eagerly(True).")


for _name in _GRAD_OPS:
    register_gradient(_name)(_no_higher_order)


def add_grads(parts: list):
    """The sum of several TensorArray gradients."""
    return apply(TA_GRAD_ADD, list(parts))


def _static(tensor):
    return array_ops.static_dims(tensor)


@register_gradient("TensorArrayStack")
def _stack_grad(op, g):
    return [apply(TA_GRAD_STACK, [g])]


@register_gradient("TensorArrayReadV3")
def _read_grad(op, g):
    return [apply(TA_GRAD_READ, [g, op.inputs[1]]), None]


@register_gradient("TensorArrayGatherV3")
def _gather_grad(op, g):
    return [apply(TA_GRAD_GATHER, [g, op.inputs[1]]), None]


@register_gradient("TensorArrayConcatV3")
def _concat_grad(op, g):
    return [apply(TA_GRAD_CONCAT, [g, op.inputs[0]])]


@register_gradient("TensorArrayWriteV3")
def _write_grad(op, grad):
    value = op.forward_inputs[2]
    dims = _static(value)
    like = [] if dims is not None else [op.inputs[2]]
    rest, g = apply(TA_GRAD_WRITE, [grad, op.inputs[1], *like],
                    {"shape": dims, "dtype": value.dtype})
    return [rest, None, g]


@register_gradient("TensorArrayScatterV3")
def _scatter_grad(op, grad):
    value = op.forward_inputs[1]
    dims = _static(value)
    attrs = {"count": dims[0] if dims else None, "shape": dims[1:] if dims else None,
             "dtype": value.dtype}
    rest, g = apply(TA_GRAD_SCATTER, [grad, *([] if dims else [op.inputs[1]])], attrs)
    return [rest, g]
