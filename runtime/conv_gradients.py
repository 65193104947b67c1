"""The depthwise convolution gradients TensorFlow exports as functions:
`tf.nn.depthwise_conv2d_backprop_filter` / `_input`, each the gradient of the forward
convolution taken with a tape (the convolution is linear in the operand differentiated, so
only its shape matters). Loaded on first use.
"""

from __future__ import annotations

from .gradients.tape import GradientTape
from .ops import array_math as _math
from .ops import nn_conv as _conv
from .ops.core import convert_to_tensor
from .tensor import Tensor


def _conv_gradient(forward, shape, x_or_filter: str, given, out_backprop):
    """The gradient of `forward(operand)` with respect to its operand of `shape`, weighted by
    `out_backprop` (the forward map is linear in it, so the operand's values do not matter)."""
    operand = _math.zeros(shape, convert_to_tensor(given).dtype)
    with GradientTape() as tape:
        tape.watch(operand)
        result = forward(operand)
    return tape.gradient(result, operand, output_gradients=convert_to_tensor(out_backprop))


def _rates(dilations):
    d = [int(v) for v in dilations]
    return d[1:3] if len(d) == 4 else d


def _strides4(strides):
    s = [int(v) for v in strides]
    return s if len(s) == 4 else [1] + s + [1]


def depthwise_conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding,  # noqa: A002
                                     data_format="NHWC", dilations=(1, 1, 1, 1),
                                     name=None) -> Tensor:
    """The gradient of `depthwise_conv2d(input, filter)` with respect to a filter of
    `filter_sizes`, for the output gradient `out_backprop`."""
    x = convert_to_tensor(input)
    return _conv_gradient(
        lambda f: _conv.depthwise_conv2d(x, f, _strides4(strides), padding, data_format,
                                         _rates(dilations)),
        [int(v) for v in _math.static_ints(filter_sizes, "filter_sizes")], "filter", x,
        out_backprop)


def depthwise_conv2d_backprop_input(input_sizes, filter, out_backprop, strides, padding,  # noqa: A002
                                    data_format="NHWC", dilations=(1, 1, 1, 1),
                                    name=None) -> Tensor:
    """The gradient of `depthwise_conv2d(input, filter)` with respect to an input of
    `input_sizes`, for the output gradient `out_backprop`."""
    w = convert_to_tensor(filter)
    return _conv_gradient(
        lambda x: _conv.depthwise_conv2d(x, w, _strides4(strides), padding, data_format,
                                         _rates(dilations)),
        [int(v) for v in _math.static_ints(input_sizes, "input_sizes")], "input", w,
        out_backprop)


__all__ = ["depthwise_conv2d_backprop_filter", "depthwise_conv2d_backprop_input"]
