"""Depthwise and separable convolution layers: DepthwiseConv1D, DepthwiseConv2D,
SeparableConv1D, SeparableConv2D (channels last, Keras's weight layouts)."""

from __future__ import annotations

from typing import Any, Callable

from ..ops import array_math, nn_conv
from ..shapes import TensorShape
from . import activations
from . import constraints as _constraints
from . import regularizers as _regularizers
from .base import Layer, positive_int
from .convolutional import check_data_format, check_padding, normalize_tuple
from .kernel_layer import as_layer_dtype


class _DepthwiseBase(Layer):
    """The arguments the depthwise layers share: kernel_size, strides, padding, dilation,
    depth_multiplier, activation, bias."""

    _rank = 2

    def _init_common(self, kernel_size, strides, padding, data_format, dilation_rate,
                     depth_multiplier, activation, use_bias: bool, bias_initializer,
                     bias_regularizer, bias_constraint) -> None:
        name = type(self).__name__
        check_data_format(data_format, name)
        self.kernel_size = normalize_tuple(kernel_size, self._rank, "kernel_size", name)
        self.strides = normalize_tuple(strides, self._rank, "strides", name)
        self.dilation_rate = normalize_tuple(dilation_rate, self._rank, "dilation_rate", name)
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError(f"{name}: `strides` > 1 and `dilation_rate` > 1 cannot be "
                             f"combined, got strides={self.strides} and "
                             f"dilation_rate={self.dilation_rate}.")
        self.padding = check_padding(padding, name)
        self.data_format = "channels_last"
        self.depth_multiplier = positive_int(depth_multiplier, "depth_multiplier", name)
        self.activation = activations.get(activation)
        self.use_bias = bool(use_bias)
        self.bias_initializer = bias_initializer
        self.bias_regularizer = _regularizers.get(bias_regularizer, "bias_regularizer")
        self.bias_constraint = _constraints.get(bias_constraint, "bias_constraint")
        self.bias = None

    def _channels(self, input_shape) -> int:
        shape = TensorShape(input_shape)
        if shape.rank != self._rank + 2 or shape[-1] is None:
            raise ValueError(f"{self.name} needs inputs of rank {self._rank + 2} with a known "
                             f"channel dimension, got shape {shape}.")
        return shape[-1]

    def _add_bias(self, size: int) -> None:
        if self.use_bias:
            self.bias = self.add_weight(name="bias", shape=[size],
                                        initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint)

    def _depthwise(self, x, kernel):
        """The depthwise convolution of `x` (rank 1 runs as rank 2 over a height of 1)."""
        padding = self.padding.upper()
        if self._rank == 2:
            return nn_conv.depthwise_conv2d(x, kernel, self.strides, padding,
                                            dilations=self.dilation_rate)
        y = nn_conv.depthwise_conv2d(array_math.expand_dims(x, 1),
                                     array_math.expand_dims(kernel, 0),
                                     (1, self.strides[0]), padding,
                                     dilations=(1, self.dilation_rate[0]))
        return array_math.squeeze(y, [1])

    def _finish(self, y):
        if self.use_bias:
            y = array_math.add(y, self.bias)
        return self.activation(y)


class _Depthwise(_DepthwiseBase):
    """A depthwise convolution: kernel `kernel_size + (input_channels, depth_multiplier)`;
    output channel `c * depth_multiplier + m` is input channel c convolved with
    kernel[..., c, m]."""

    def __init__(self, kernel_size, strides, padding, depth_multiplier, data_format,
                 dilation_rate, activation, use_bias, depthwise_initializer, bias_initializer,
                 depthwise_regularizer, bias_regularizer, activity_regularizer,
                 depthwise_constraint, bias_constraint, **kwargs: Any) -> None:
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self._init_common(kernel_size, strides, padding, data_format, dilation_rate,
                          depth_multiplier, activation, use_bias, bias_initializer,
                          bias_regularizer, bias_constraint)
        self.depthwise_initializer = depthwise_initializer
        self.depthwise_regularizer = _regularizers.get(depthwise_regularizer,
                                                       "depthwise_regularizer")
        self.depthwise_constraint = _constraints.get(depthwise_constraint,
                                                     "depthwise_constraint")
        self.kernel = None

    def build(self, input_shape) -> None:
        channels = self._channels(input_shape)
        self.kernel = self.add_weight(
            name="kernel", shape=[*self.kernel_size, channels, self.depth_multiplier],
            initializer=self.depthwise_initializer, regularizer=self.depthwise_regularizer,
            constraint=self.depthwise_constraint)
        self._add_bias(channels * self.depth_multiplier)
        self.built = True

    def call(self, inputs):
        return self._finish(self._depthwise(as_layer_dtype(self, inputs), self.kernel))


class DepthwiseConv2D(_Depthwise):
    """Depthwise 2-D convolution of `[batch, height, width, channels]` inputs: each channel
    convolved with its own `depth_multiplier` filters; kernel of shape
    `(kernel_height, kernel_width, channels, depth_multiplier)`."""

    _rank = 2

    def __init__(self, kernel_size, strides=(1, 1), padding: str = "valid",
                 depth_multiplier: int = 1, data_format: str | None = None,
                 dilation_rate=(1, 1), activation: str | Callable | None = None,
                 use_bias: bool = True, depthwise_initializer: str | Callable = "glorot_uniform",
                 bias_initializer: str | Callable = "zeros", depthwise_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, depthwise_constraint=None,
                 bias_constraint=None, **kwargs: Any) -> None:
        super().__init__(kernel_size, strides, padding, depth_multiplier, data_format,
                         dilation_rate, activation, use_bias, depthwise_initializer,
                         bias_initializer, depthwise_regularizer, bias_regularizer,
                         activity_regularizer, depthwise_constraint, bias_constraint, **kwargs)


class DepthwiseConv1D(_Depthwise):
    """Depthwise 1-D convolution of `[batch, steps, channels]` inputs; kernel of shape
    `(kernel_size, channels, depth_multiplier)`."""

    _rank = 1

    def __init__(self, kernel_size, strides=1, padding: str = "valid", depth_multiplier: int = 1,
                 data_format: str | None = None, dilation_rate=1,
                 activation: str | Callable | None = None, use_bias: bool = True,
                 depthwise_initializer: str | Callable = "glorot_uniform",
                 bias_initializer: str | Callable = "zeros", depthwise_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, depthwise_constraint=None,
                 bias_constraint=None, **kwargs: Any) -> None:
        super().__init__(kernel_size, strides, padding, depth_multiplier, data_format,
                         dilation_rate, activation, use_bias, depthwise_initializer,
                         bias_initializer, depthwise_regularizer, bias_regularizer,
                         activity_regularizer, depthwise_constraint, bias_constraint, **kwargs)


class _Separable(_DepthwiseBase):
    """A depthwise convolution then a pointwise (1x1) one to `filters` channels; weights
    `depthwise_kernel` `kernel_size + (channels, depth_multiplier)`, `pointwise_kernel`
    `(1,) * rank + (channels * depth_multiplier, filters)`, `bias` `(filters,)`."""

    def __init__(self, filters, kernel_size, strides, padding, data_format, dilation_rate,
                 depth_multiplier, activation, use_bias, depthwise_initializer,
                 pointwise_initializer, bias_initializer, depthwise_regularizer,
                 pointwise_regularizer, bias_regularizer, activity_regularizer,
                 depthwise_constraint, pointwise_constraint, bias_constraint,
                 **kwargs: Any) -> None:
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.filters = positive_int(filters, "filters", type(self).__name__)
        self._init_common(kernel_size, strides, padding, data_format, dilation_rate,
                          depth_multiplier, activation, use_bias, bias_initializer,
                          bias_regularizer, bias_constraint)
        self.depthwise_initializer = depthwise_initializer
        self.pointwise_initializer = pointwise_initializer
        self.depthwise_regularizer = _regularizers.get(depthwise_regularizer,
                                                       "depthwise_regularizer")
        self.pointwise_regularizer = _regularizers.get(pointwise_regularizer,
                                                       "pointwise_regularizer")
        self.depthwise_constraint = _constraints.get(depthwise_constraint,
                                                     "depthwise_constraint")
        self.pointwise_constraint = _constraints.get(pointwise_constraint,
                                                     "pointwise_constraint")
        self.depthwise_kernel = self.pointwise_kernel = None

    def build(self, input_shape) -> None:
        channels = self._channels(input_shape)
        self.depthwise_kernel = self.add_weight(
            name="depthwise_kernel",
            shape=[*self.kernel_size, channels, self.depth_multiplier],
            initializer=self.depthwise_initializer, regularizer=self.depthwise_regularizer,
            constraint=self.depthwise_constraint)
        self.pointwise_kernel = self.add_weight(
            name="pointwise_kernel",
            shape=[1] * self._rank + [channels * self.depth_multiplier, self.filters],
            initializer=self.pointwise_initializer, regularizer=self.pointwise_regularizer,
            constraint=self.pointwise_constraint)
        self._add_bias(self.filters)
        self.built = True

    def call(self, inputs):
        y = self._depthwise(as_layer_dtype(self, inputs), self.depthwise_kernel)
        if self._rank == 2:
            y = nn_conv.conv2d(y, self.pointwise_kernel, 1, "VALID")
        else:
            y = nn_conv.conv1d(y, self.pointwise_kernel, 1, "VALID")
        return self._finish(y)


class SeparableConv2D(_Separable):
    """Depthwise separable 2-D convolution of `[batch, height, width, channels]` inputs."""

    _rank = 2

    def __init__(self, filters: int, kernel_size, strides=(1, 1), padding: str = "valid",
                 data_format: str | None = None, dilation_rate=(1, 1),
                 depth_multiplier: int = 1, activation: str | Callable | None = None,
                 use_bias: bool = True, depthwise_initializer: str | Callable = "glorot_uniform",
                 pointwise_initializer: str | Callable = "glorot_uniform",
                 bias_initializer: str | Callable = "zeros", depthwise_regularizer=None,
                 pointwise_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 depthwise_constraint=None, pointwise_constraint=None, bias_constraint=None,
                 **kwargs: Any) -> None:
        super().__init__(filters, kernel_size, strides, padding, data_format, dilation_rate,
                         depth_multiplier, activation, use_bias, depthwise_initializer,
                         pointwise_initializer, bias_initializer, depthwise_regularizer,
                         pointwise_regularizer, bias_regularizer, activity_regularizer,
                         depthwise_constraint, pointwise_constraint, bias_constraint, **kwargs)


class SeparableConv1D(_Separable):
    """Depthwise separable 1-D convolution of `[batch, steps, channels]` inputs."""

    _rank = 1

    def __init__(self, filters: int, kernel_size, strides=1, padding: str = "valid",
                 data_format: str | None = None, dilation_rate=1, depth_multiplier: int = 1,
                 activation: str | Callable | None = None, use_bias: bool = True,
                 depthwise_initializer: str | Callable = "glorot_uniform",
                 pointwise_initializer: str | Callable = "glorot_uniform",
                 bias_initializer: str | Callable = "zeros", depthwise_regularizer=None,
                 pointwise_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 depthwise_constraint=None, pointwise_constraint=None, bias_constraint=None,
                 **kwargs: Any) -> None:
        super().__init__(filters, kernel_size, strides, padding, data_format, dilation_rate,
                         depth_multiplier, activation, use_bias, depthwise_initializer,
                         pointwise_initializer, bias_initializer, depthwise_regularizer,
                         pointwise_regularizer, bias_regularizer, activity_regularizer,
                         depthwise_constraint, pointwise_constraint, bias_constraint, **kwargs)
