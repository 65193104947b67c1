"""Convolution layers: Conv1D, Conv2D, and ZeroPadding2D (channels last)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..ops import composed, conv_ops
from ..ops.core import convert_to_tensor
from ..shapes import TensorShape
from .base import Layer, positive_int
from .kernel_layer import KernelLayer, as_layer_dtype  # noqa: F401 -- re-exported


def _is_int(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def normalize_tuple(value, n: int, what: str, layer: str) -> tuple[int, ...]:
    """An int or `n` ints as a tuple of `n` positive ints (Keras's kernel_size, strides...)."""
    if _is_int(value):
        items = (int(value),) * n
    else:
        try:
            raw = tuple(value)
        except TypeError:
            raise TypeError(f"{layer}: `{what}` must be an int or a tuple of {n} ints, got "
                            f"{value!r}.") from None
        if isinstance(value, str) or len(raw) != n or not all(_is_int(v) for v in raw):
            raise ValueError(f"{layer}: `{what}` must be an int or a tuple of {n} ints, got "
                             f"{value!r}.")
        items = tuple(int(v) for v in raw)
    if any(v < 1 for v in items):
        raise ValueError(f"{layer}: `{what}` must be positive, got {value!r}.")
    return items


def check_data_format(data_format, layer: str) -> None:
    """Only channels-last data is supported."""
    if data_format in (None, "channels_last"):
        return
    if data_format == "channels_first":
        raise NotImplementedError(f"{layer}(data_format='channels_first') is not supported; "
                                  "transpose the inputs to channels last.")
    raise ValueError(f"{layer}: `data_format` must be 'channels_last' or 'channels_first', got "
                     f"{data_format!r}.")


def check_padding(padding, layer: str, allowed=("valid", "same")) -> str:
    if not isinstance(padding, str) or padding.lower() not in allowed:
        raise ValueError(f"{layer}: `padding` must be one of {list(allowed)}, got {padding!r}.")
    return padding.lower()


class _Conv(KernelLayer):
    """A convolution of `_rank` spatial dimensions; subclasses state the public arguments."""

    _rank = 2

    def __init__(self, filters: int, kernel_size, strides, padding: str, data_format,
                 dilation_rate, activation, use_bias: bool, kernel_initializer,
                 bias_initializer, kernel_regularizer, bias_regularizer, activity_regularizer,
                 **kwargs: Any) -> None:
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        name = type(self).__name__
        self.filters = positive_int(filters, "filters", name)
        check_data_format(data_format, name)
        self.kernel_size = normalize_tuple(kernel_size, self._rank, "kernel_size", name)
        self.strides = normalize_tuple(strides, self._rank, "strides", name)
        self.dilation_rate = normalize_tuple(dilation_rate, self._rank, "dilation_rate", name)
        allowed = ("valid", "same", "causal") if self._rank == 1 else ("valid", "same")
        self.padding = check_padding(padding, name, allowed)
        self.data_format = "channels_last"
        self._init_kernel_arguments(activation, use_bias, kernel_initializer, bias_initializer,
                                    kernel_regularizer, bias_regularizer)

    def build(self, input_shape) -> None:
        shape = TensorShape(input_shape)
        if shape.rank != self._rank + 2 or shape[-1] is None:
            raise ValueError(f"{self.name} needs inputs of rank {self._rank + 2} with a known "
                             f"channel dimension, got shape {shape}.")
        self._build_kernel([*self.kernel_size, shape[-1], self.filters], self.filters)


class Conv2D(_Conv):
    """2-D convolution over `[batch, height, width, channels]` inputs with `filters` output
    channels: `activation(conv2d(inputs, kernel) + bias)`.

    `kernel_size`, `strides` and `dilation_rate` are an int or two ints; `padding` is
    'valid' or 'same'. Only channels-last data is supported.
    """

    _rank = 2

    def __init__(self, filters: int, kernel_size, strides=(1, 1), padding: str = "valid",
                 data_format: str | None = None, dilation_rate=(1, 1),
                 activation: str | Callable | None = None, use_bias: bool = True,
                 kernel_initializer: str | Callable = "glorot_uniform",
                 bias_initializer: str | Callable = "zeros", kernel_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, **kwargs: Any) -> None:
        super().__init__(filters, kernel_size, strides, padding, data_format, dilation_rate,
                         activation, use_bias, kernel_initializer, bias_initializer,
                         kernel_regularizer, bias_regularizer, activity_regularizer, **kwargs)

    def _transform(self, x):
        return conv_ops.conv2d(x, self.kernel, self.strides, self.padding.upper(),
                               dilations=self.dilation_rate)


class Conv1D(_Conv):
    """1-D convolution over `[batch, steps, channels]` inputs; `padding` is 'valid', 'same'
    or 'causal' (the output at step t sees inputs up to t only)."""

    _rank = 1

    def __init__(self, filters: int, kernel_size, strides=1, padding: str = "valid",
                 data_format: str | None = None, dilation_rate=1,
                 activation: str | Callable | None = None, use_bias: bool = True,
                 kernel_initializer: str | Callable = "glorot_uniform",
                 bias_initializer: str | Callable = "zeros", kernel_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, **kwargs: Any) -> None:
        super().__init__(filters, kernel_size, strides, padding, data_format, dilation_rate,
                         activation, use_bias, kernel_initializer, bias_initializer,
                         kernel_regularizer, bias_regularizer, activity_regularizer, **kwargs)

    def _transform(self, x):
        padding = self.padding.upper()
        if self.padding == "causal":
            left = self.dilation_rate[0] * (self.kernel_size[0] - 1)
            x = composed.pad(x, [[0, 0], [left, 0], [0, 0]])
            padding = "VALID"
        return conv_ops.conv1d(x, self.kernel, self.strides[0], padding,
                               dilations=self.dilation_rate[0])


class ZeroPadding2D(Layer):
    """Adds rows and columns of zeros around `[batch, height, width, channels]` inputs.

    `padding` is an int (all sides), (rows, columns), or ((top, bottom), (left, right)).
    """

    def __init__(self, padding=(1, 1), data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        check_data_format(data_format, "ZeroPadding2D")
        if isinstance(padding, int):
            pads = ((padding, padding), (padding, padding))
        else:
            items = tuple(padding)
            if len(items) != 2:
                raise ValueError("ZeroPadding2D: `padding` must be an int, 2 ints or 2 pairs of "
                                 f"ints, got {padding!r}.")
            pads = tuple((int(p), int(p)) if isinstance(p, int) else tuple(int(v) for v in p)
                         for p in items)
        if any(len(p) != 2 or min(p) < 0 for p in pads):
            raise ValueError(f"ZeroPadding2D: `padding` must be non-negative, got {padding!r}.")
        self.padding = pads

    def call(self, inputs):
        x = convert_to_tensor(inputs)
        if x.shape.rank is not None and x.shape.rank != 4:
            raise ValueError(f"{self.name} needs inputs of rank 4, got shape {x.shape}.")
        return composed.pad(x, [[0, 0], list(self.padding[0]), list(self.padding[1]), [0, 0]])
