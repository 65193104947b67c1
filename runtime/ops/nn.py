"""Neural-network ops: activations, softmax, dropout, cross entropies."""

from __future__ import annotations

import numpy as np

from ..attr_kinds import AXIS, FLOAT, OPT_DIMS, OPT_INT
from ..errors import InvalidArgumentError
from ..exports import export
from ..opdef import Effect, define
from ..shapes import TensorShape
from ..tensor import Tensor
from . import array_math
from .core import apply, convert_to_tensor
from .random import generator


def _float_infer(name):
    def infer(x, **attrs):
        if not x.dtype.is_floating:
            raise TypeError(f"{name} needs a floating-point tensor, got {x.dtype.name}.")
        return x.shape, x.dtype
    return infer


def _relu_infer(x, **attrs):
    # TF's Relu takes real numbers: floating point and integers (the result keeps the dtype)
    if not (x.dtype.is_floating or x.dtype.is_integer):
        raise TypeError(f"Relu needs a floating-point or integer tensor, got {x.dtype.name}.")
    return x.shape, x.dtype


RELU = define("Relu", _relu_infer, lambda x: np.maximum(x, 0), template="np.maximum({0}, 0)",
              out_template="np.maximum({0}, 0, out={out})", scalar="_h.maximum({0}, {zero})")


@RELU.def_grad
def _relu_grad(op, g):
    return [apply(RELU_GRAD, [g, op.outputs[0]])]


def _relu_grad_infer(g, y):
    # the gradient of Relu, which takes real numbers only (a bool has no `{zero}` to compare)
    _relu_infer(y)
    return g.shape, g.dtype


# g where the relu output y is positive, else 0: multiplying by the mask keeps g's dtype and
# is several times faster than np.where
RELU_GRAD = define("ReluGrad", _relu_grad_infer, lambda g, y: g * (y > 0),
                   template="{0} * ({1} > 0)", out_template="np.multiply({0}, {1} > 0, out={out})",
                   scalar="{0} * ({1} > {zero})")


@RELU_GRAD.def_grad
def _relu_grad_grad(op, gg):
    return [apply(RELU_GRAD, [gg, op.inputs[1]]), None]


def _softmax_kernel(x, axis):
    shifted = x - np.max(x, axis=axis, keepdims=True)
    e = np.exp(shifted)
    return e / np.sum(e, axis=axis, keepdims=True)


def _log_softmax_kernel(x, axis):
    shifted = x - np.max(x, axis=axis, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


SOFTMAX = define("Softmax", _float_infer("Softmax"), _softmax_kernel, attrs={"axis": AXIS})


@SOFTMAX.def_grad
def _softmax_grad(op, g):
    y = op.outputs[0]
    inner = array_math.reduce_sum(array_math.multiply(g, y), axis=op.attrs["axis"], keepdims=True)
    return [array_math.multiply(y, array_math.subtract(g, inner))]


LOG_SOFTMAX = define("LogSoftmax", _float_infer("LogSoftmax"), _log_softmax_kernel,
                     attrs={"axis": AXIS})


@LOG_SOFTMAX.def_grad
def _log_softmax_grad(op, g):
    total = array_math.reduce_sum(g, axis=op.attrs["axis"], keepdims=True)
    return [array_math.subtract(g, array_math.multiply(array_math.exp(op.outputs[0]), total))]


@export("nn.relu")
def relu(features, name=None) -> Tensor:
    """max(features, 0), elementwise."""
    return apply(RELU, [convert_to_tensor(features)], name=name)


@export("nn.softmax")
def softmax(logits, axis=-1, name=None) -> Tensor:
    """exp(logits) normalised to sum to 1 along `axis` (computed stably)."""
    return apply(SOFTMAX, [convert_to_tensor(logits)], {"axis": int(axis)}, name=name)


@export("nn.log_softmax")
def log_softmax(logits, axis=-1, name=None) -> Tensor:
    """log(softmax(logits)) along `axis`, computed stably."""
    return apply(LOG_SOFTMAX, [convert_to_tensor(logits)], {"axis": int(axis)}, name=name)


sigmoid = array_math.sigmoid
tanh = array_math.tanh


def _xent_infer(labels, logits, axis):
    if labels.dtype is not logits.dtype or not logits.dtype.is_floating:
        raise TypeError("softmax_cross_entropy_with_logits needs float labels and logits of one "
                        f"dtype, got {labels.dtype.name} and {logits.dtype.name}.")
    if not labels.shape.is_compatible_with(logits.shape):
        raise InvalidArgumentError(f"softmax_cross_entropy_with_logits: labels shape {labels.shape} and "
                         f"logits shape {logits.shape} differ.")
    dims = logits.shape.as_tuple()
    loss = TensorShape(None if dims is None else [d for i, d in enumerate(dims) if i != axis % len(dims)])
    return [(loss, logits.dtype), (logits.shape, logits.dtype)]


def _xent_kernel(labels, logits, axis):
    log_p = _log_softmax_kernel(logits, axis)
    loss = -np.sum(labels * log_p, axis=axis)
    return loss, np.exp(log_p) - labels


XENT = define("SoftmaxCrossEntropyWithLogits", _xent_infer, _xent_kernel, num_outputs=2,
              attrs={"axis": AXIS})


@XENT.def_grad
def _xent_grad(op, g_loss, g_backprop):
    axis = op.attrs["axis"]
    g_labels = g_logits = None
    if g_loss is not None:
        expanded = array_math.expand_dims(g_loss, axis)
        if op.needs[1]:
            g_logits = array_math.multiply(expanded, op.outputs[1])
        if op.needs[0]:
            log_p = log_softmax(op.inputs[1], axis=axis)
            g_labels = array_math.multiply(expanded, array_math.negative(log_p))
    if g_backprop is not None:
        if op.needs[1]:
            probs = array_math.add(op.outputs[1], op.inputs[0])
            inner = array_math.reduce_sum(array_math.multiply(g_backprop, probs), axis=axis, keepdims=True)
            part = array_math.multiply(probs, array_math.subtract(g_backprop, inner))
            g_logits = part if g_logits is None else array_math.add(g_logits, part)
        if op.needs[0]:
            part = array_math.negative(g_backprop)
            g_labels = part if g_labels is None else array_math.add(g_labels, part)
    return [g_labels, g_logits]


@export("nn.softmax_cross_entropy_with_logits")
def softmax_cross_entropy_with_logits(labels, logits, axis=-1, name=None) -> Tensor:
    """Per-example cross entropy between `labels` (probabilities) and softmax(`logits`)."""
    logits = convert_to_tensor(logits)
    labels = convert_to_tensor(labels, dtype=logits.dtype) if not hasattr(labels, "dtype") \
        else convert_to_tensor(labels)
    return apply(XENT, [labels, logits], {"axis": int(axis)}, name=name)[0]


@export("nn.sigmoid_cross_entropy_with_logits")
def sigmoid_cross_entropy_with_logits(labels=None, logits=None, name=None) -> Tensor:
    """Elementwise logistic loss, computed stably: max(x, 0) - x * z + log(1 + exp(-|x|))."""
    logits = convert_to_tensor(logits)
    labels = convert_to_tensor(labels, dtype=logits.dtype) if not hasattr(labels, "dtype") \
        else convert_to_tensor(labels)
    if not labels.shape.is_compatible_with(logits.shape):
        raise InvalidArgumentError(f"sigmoid_cross_entropy_with_logits: labels shape {labels.shape} and "
                         f"logits shape {logits.shape} differ.")
    return array_math.add(
        array_math.subtract(relu(logits), array_math.multiply(logits, labels)),
        array_math.log1p(array_math.exp(array_math.negative(array_math.abs(logits)))), name=name)


def _dropout_infer(x, rate, noise_shape, seed):
    if not x.dtype.is_floating:
        raise TypeError(f"dropout needs a floating-point tensor, got {x.dtype.name}.")
    return [(x.shape, x.dtype), (x.shape, x.dtype)]


def _dropout_kernel(x, rate, noise_shape, seed):
    x = np.asarray(x)
    shape = x.shape if noise_shape is None else noise_shape
    keep = generator(seed).random(size=shape) >= rate
    mask = np.broadcast_to(keep, x.shape).astype(x.dtype) / x.dtype.type(1 - rate)
    return x * mask, mask


DROPOUT = define("Dropout", _dropout_infer, _dropout_kernel, num_outputs=2, effects=Effect.RANDOM,
                 attrs={"rate": FLOAT, "noise_shape": OPT_DIMS, "seed": OPT_INT})


@DROPOUT.def_grad
def _dropout_grad(op, g, g_mask):
    if g is None:
        return [None]
    return [array_math.multiply(g, op.outputs[1])]


@export("nn.dropout")
def dropout(x, rate, noise_shape=None, seed=None, name=None) -> Tensor:
    """Zeroes each element with probability `rate` and scales the rest by 1 / (1 - rate)."""
    x = convert_to_tensor(x)
    if isinstance(rate, (int, float)) and not 0 <= rate < 1:
        raise ValueError(f"dropout rate must be in [0, 1), got {rate}.")
    rate = float(rate)
    if noise_shape is not None:
        noise_shape = tuple(int(d) for d in noise_shape)
    return apply(DROPOUT, [x], {"rate": rate, "noise_shape": noise_shape, "seed": seed},
                 name=name or "dropout")[0]


@export("nn.l2_loss")
def l2_loss(t, name=None) -> Tensor:
    """Half the sum of the squares of `t`: `sum(t ** 2) / 2`."""
    t = convert_to_tensor(t)
    return array_math.multiply(array_math.reduce_sum(array_math.square(t)), 0.5, name=name)


@export("nn.bias_add")
def bias_add(value, bias, name=None) -> Tensor:
    """`value + bias`, the bias broadcast along the last axis."""
    return array_math.add(value, bias, name=name)


# -- gradients -------------------------------------------------------------------------------------
# Rules: (op, *output_grads) -> one gradient per input (see the note in array_math).





# -- activations and losses composed from other ops (their gradients come with them) -------------

@export("nn.leaky_relu")
def leaky_relu(features, alpha=0.2, name=None) -> Tensor:
    """features where positive, else alpha * features."""
    x = convert_to_tensor(features)
    return array_math.where(array_math.greater(x, 0), x, array_math.multiply(x, alpha), name=name)


@export("nn.elu")
def elu(features, name=None) -> Tensor:
    """features where positive, else exp(features) - 1."""
    x = convert_to_tensor(features)
    negative_part = array_math.subtract(array_math.exp(array_math.minimum(x, 0)), 1)
    return array_math.where(array_math.greater(x, 0), x, negative_part, name=name)


@export("nn.softplus", "math.softplus")
def softplus(features, name=None) -> Tensor:
    """log(1 + exp(features)), computed without overflow."""
    x = convert_to_tensor(features)
    return array_math.add(array_math.log1p(array_math.exp(array_math.negative(array_math.abs(x)))),
                          array_math.maximum(x, 0), name=name)


@export("nn.gelu")
def gelu(features, approximate=False, name=None) -> Tensor:
    """x * P(X <= x) for a standard normal X; `approximate=True` uses the tanh formula."""
    x = convert_to_tensor(features)
    if approximate:
        inner = array_math.multiply(x, array_math.add(1.0, array_math.multiply(0.044715, array_math.square(x))))
        cdf = array_math.add(1.0, array_math.tanh(array_math.multiply(float(np.sqrt(2 / np.pi)), inner)))
    else:
        cdf = array_math.add(1.0, array_math.erf(array_math.multiply(x, float(1 / np.sqrt(2)))))
    return array_math.multiply(array_math.multiply(x, 0.5), cdf, name=name)


@export("nn.sparse_softmax_cross_entropy_with_logits")
def sparse_softmax_cross_entropy_with_logits(labels=None, logits=None, name=None) -> Tensor:
    """Cross entropy of softmax(logits) against integer class `labels` (one per row)."""
    logits = convert_to_tensor(logits)
    labels = convert_to_tensor(labels)
    if not labels.dtype.is_integer:
        raise TypeError(f"sparse_softmax_cross_entropy_with_logits needs integer labels, got "
                        f"{labels.dtype.name}.")
    depth = logits.shape.as_tuple()[-1] if logits.shape.rank else None
    if depth is None:
        raise ValueError("sparse_softmax_cross_entropy_with_logits needs logits whose last "
                         "dimension is known.")
    picked = array_math.multiply(array_math.one_hot(labels, depth, dtype=logits.dtype),
                                 log_softmax(logits))
    return array_math.negative(array_math.reduce_sum(picked, axis=-1), name=name)
