"""Transposed convolution layers: Conv1DTranspose, Conv2DTranspose and Conv3DTranspose
(channels last)."""

from __future__ import annotations

from typing import Any, Callable

from ..ops import array_math, math_composed, nn_conv
from ..shapes import TensorShape
from .base import positive_int
from .convolutional import check_data_format, check_padding, normalize_tuple
from .kernel_layer import KernelLayer


def transposed_size(size: int | None, kernel: int, stride: int, padding: str,
                    output_padding: int | None, dilation: int) -> int | None:
    """The output length of a transposed convolution along one axis, as Keras computes it."""
    if size is None:
        return None
    kernel = (kernel - 1) * dilation + 1
    if padding == "valid":
        extra = max(kernel, stride) - kernel if output_padding is None else output_padding
        return (size - 1) * stride + kernel + extra
    if output_padding is None:
        return size * stride
    return (size - 1) * stride + kernel % 2 + output_padding


def _output_padding(value, rank: int, strides: tuple, layer: str) -> tuple[int, ...] | None:
    if value is None:
        return None
    items = (value,) * rank if isinstance(value, int) else tuple(value)
    if len(items) != rank or not all(isinstance(v, int) and v >= 0 for v in items):
        raise ValueError(f"{layer}: `output_padding` must be None, a non-negative int or "
                         f"{rank} of them, got {value!r}.")
    for axis, (extra, stride) in enumerate(zip(items, strides)):
        if extra >= stride:
            raise ValueError(f"{layer}: `output_padding` must be less than `strides` along "
                             f"each axis; axis {axis} has output_padding {extra} and stride "
                             f"{stride}.")
    return items


class _ConvTranspose(KernelLayer):
    """A transposed convolution of `_rank` spatial axes with a kernel of shape
    `kernel_size + (filters, input_channels)` (Keras's layout)."""

    _rank = 2

    def __init__(self, filters: int, kernel_size, strides=1, padding: str = "valid",
                 output_padding=None, data_format: str | None = None, dilation_rate=1,
                 activation: str | Callable | None = None, use_bias: bool = True,
                 kernel_initializer: str | Callable = "glorot_uniform",
                 bias_initializer: str | Callable = "zeros", kernel_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, **kwargs: Any) -> None:
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        name = type(self).__name__
        self.filters = positive_int(filters, "filters", name)
        check_data_format(data_format, name)
        self.kernel_size = normalize_tuple(kernel_size, self._rank, "kernel_size", name)
        self.strides = normalize_tuple(strides, self._rank, "strides", name)
        self.dilation_rate = normalize_tuple(dilation_rate, self._rank, "dilation_rate", name)
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError(f"{name}: `strides` > 1 and `dilation_rate` > 1 cannot be "
                             f"combined, got strides={self.strides} and "
                             f"dilation_rate={self.dilation_rate}.")
        self.padding = check_padding(padding, name)
        self.output_padding = _output_padding(output_padding, self._rank, self.strides, name)
        self.data_format = "channels_last"
        self._init_kernel_arguments(activation, use_bias, kernel_initializer, bias_initializer,
                                    kernel_regularizer, bias_regularizer, kernel_constraint,
                                    bias_constraint)

    def build(self, input_shape) -> None:
        shape = TensorShape(input_shape)
        if shape.rank != self._rank + 2 or shape[-1] is None:
            raise ValueError(f"{self.name} needs inputs of rank {self._rank + 2} with a known "
                             f"channel dimension, got shape {shape}.")
        self._build_kernel([*self.kernel_size, self.filters, shape[-1]], self.filters)

    def _output_sizes(self, x) -> list:
        dims = x.shape.as_list()[1:-1]
        extra = self.output_padding or (None,) * self._rank
        sizes = [transposed_size(d, k, s, self.padding, e, r) for d, k, s, e, r in
                 zip(dims, self.kernel_size, self.strides, extra, self.dilation_rate)]
        if None in sizes:
            raise ValueError(f"{self.name} needs the inputs' spatial sizes known when tracing, "
                             f"got shape {x.shape}.")
        return sizes

    def compute_output_shape(self, input_shape) -> TensorShape:
        dims = TensorShape(input_shape).as_list()
        extra = self.output_padding or (None,) * self._rank
        sizes = [transposed_size(d, k, s, self.padding, e, r) for d, k, s, e, r in
                 zip(dims[1:-1], self.kernel_size, self.strides, extra, self.dilation_rate)]
        return TensorShape([dims[0], *sizes, self.filters])


class Conv2DTranspose(_ConvTranspose):
    """Transposed 2-D convolution (the gradient of a Conv2D with respect to its input) of
    `[batch, height, width, channels]` inputs; the kernel has shape
    `(kernel_height, kernel_width, filters, input_channels)`.

    Output size along an axis with `padding='same'`: `size * stride`; with 'valid':
    `(size - 1) * stride + max(kernel, stride)`; an `output_padding` p gives
    `(size - 1) * stride + kernel % 2 + p` ('same') or `(size - 1) * stride + kernel + p`.
    """

    _rank = 2

    def _transform(self, x):
        height, width = self._output_sizes(x)
        return nn_conv.conv2d_transpose(x, self.kernel, [None, height, width, self.filters],
                                        self.strides, self.padding.upper(),
                                        dilations=self.dilation_rate)


class Conv1DTranspose(_ConvTranspose):
    """Transposed 1-D convolution of `[batch, steps, channels]` inputs; the kernel has shape
    `(kernel_size, filters, input_channels)`. Output sizes as Conv2DTranspose's."""

    _rank = 1

    def _transform(self, x):
        (steps,) = self._output_sizes(x)
        return nn_conv.conv1d_transpose(x, self.kernel, [None, steps, self.filters],
                                        self.strides[0], self.padding.upper(),
                                        dilations=self.dilation_rate[0])


def transposed_placements(size: int, out_size: int, kernel: int, stride: int, padding: str,
                          dilation: int) -> list[list[tuple[int, int]]]:
    """For each output index along one axis of a transposed convolution, the (kernel index,
    input index) pairs that add into it: input i and kernel tap k land on
    `i * stride + k * dilation - before`, where `before` is the leading padding of the
    convolution this one transposes (TensorFlow's 'same' split: the smaller half first)."""
    span = (kernel - 1) * dilation + 1
    before = 0 if padding == "valid" else max((size - 1) * stride + span - out_size, 0) // 2
    placed: list[list[tuple[int, int]]] = [[] for _ in range(out_size)]
    for i in range(size):
        for k in range(kernel):
            o = i * stride + k * dilation - before
            if 0 <= o < out_size:
                placed[o].append((k, i))
    return placed


class Conv3DTranspose(_ConvTranspose):
    """Transposed 3-D convolution of `[batch, depth, height, width, channels]` inputs; the
    kernel has shape `kernel_size + (filters, input_channels)`. Output sizes as
    Conv2DTranspose's along each axis.

    Computed per kernel depth slice: one 2-D transposed convolution of every input depth
    (batch and depth folded together), each result added at the output depth its input
    depth and tap reach, so the inputs' depth must be known when tracing.
    """

    _rank = 3  # Keras's constructor (strides and dilation_rate an int or three)

    def _transform(self, x):
        depth_out, height, width = self._output_sizes(x)
        depth, rows, cols, channels = x.shape.as_list()[1:]
        folded = array_math.reshape(x, [-1, rows, cols, channels])
        planes = []  # per kernel depth tap: [batch, depth, height, width, filters]
        for k in range(self.kernel_size[0]):
            y = nn_conv.conv2d_transpose(folded, self.kernel[k],
                                         [None, height, width, self.filters],
                                         self.strides[1:], self.padding.upper(),
                                         dilations=self.dilation_rate[1:])
            planes.append(array_math.reshape(y, [-1, depth, height, width, self.filters]))
        placed = transposed_placements(depth, depth_out, self.kernel_size[0], self.strides[0],
                                       self.padding, self.dilation_rate[0])
        zero = array_math.zeros_like(planes[0][:, 0])
        outputs = [math_composed.add_n([planes[k][:, i] for k, i in pairs]) if pairs else zero
                   for pairs in placed]
        return array_math.stack(outputs, axis=1)
