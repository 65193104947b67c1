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


def _depthwise_gradient(given, sizes, what: str, out_backprop, strides, padding, data_format,
                        dilations) -> Tensor:
    """The gradient of depthwise_conv2d with respect to its `what` ('filter' or 'input') of
    `sizes`, the other operand being `given`."""
    given = convert_to_tensor(given)

    def forward(operand):
        x, w = (given, operand) if what == "filter" else (operand, given)
        return _conv.depthwise_conv2d(x, w, _strides4(strides), padding, data_format,
                                      _rates(dilations))
    shape = [int(v) for v in _math.static_ints(sizes, f"{what}_sizes")]
    return _conv_gradient(forward, shape, what, given, out_backprop)


def depthwise_conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding,  # noqa: A002
                                     data_format="NHWC", dilations=(1, 1, 1, 1),
                                     name=None) -> Tensor:
    """The gradient of `depthwise_conv2d(input, filter)` with respect to a filter of
    `filter_sizes`, for the output gradient `out_backprop`."""
    return _depthwise_gradient(input, filter_sizes, "filter", out_backprop, strides, padding,
                               data_format, dilations)


def depthwise_conv2d_backprop_input(input_sizes, filter, out_backprop, strides, padding,  # noqa: A002
                                    data_format="NHWC", dilations=(1, 1, 1, 1),
                                    name=None) -> Tensor:
    """The gradient of `depthwise_conv2d(input, filter)` with respect to an input of
    `input_sizes`, for the output gradient `out_backprop`."""
    return _depthwise_gradient(filter, input_sizes, "input", out_backprop, strides, padding,
                               data_format, dilations)


__all__ = ["depthwise_conv2d_backprop_filter", "depthwise_conv2d_backprop_input"]
