"""Convolution layers Conv1D, Conv2D and Conv3D, and the spatial reshaping layers
ZeroPadding1D/2D/3D, Cropping1D/2D/3D, UpSampling1D/2D/3D (channels last)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..ops import array_composed, array_math, array_sort, image, math_composed, nn_conv
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
                 dilation_rate, groups, activation, use_bias: bool, kernel_initializer,
                 bias_initializer, kernel_regularizer, bias_regularizer, activity_regularizer,
                 kernel_constraint, bias_constraint, **kwargs: Any) -> None:
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        name = type(self).__name__
        self.filters = positive_int(filters, "filters", name)
        self.groups = positive_int(groups, "groups", name)
        if self.filters % self.groups:
            raise ValueError(f"{name}: `filters` ({self.filters}) must be a multiple of "
                             f"`groups` ({self.groups}).")
        check_data_format(data_format, name)
        self.kernel_size = normalize_tuple(kernel_size, self._rank, "kernel_size", name)
        self.strides = normalize_tuple(strides, self._rank, "strides", name)
        self.dilation_rate = normalize_tuple(dilation_rate, self._rank, "dilation_rate", name)
        allowed = ("valid", "same", "causal") if self._rank == 1 else ("valid", "same")
        self.padding = check_padding(padding, name, allowed)
        self.data_format = "channels_last"
        self._init_kernel_arguments(activation, use_bias, kernel_initializer, bias_initializer,
                                    kernel_regularizer, bias_regularizer, kernel_constraint,
                                    bias_constraint)

    def build(self, input_shape) -> None:
        shape = TensorShape(input_shape)
        if shape.rank != self._rank + 2 or shape[-1] is None:
            raise ValueError(f"{self.name} needs inputs of rank {self._rank + 2} with a known "
                             f"channel dimension, got shape {shape}.")
        if shape[-1] % self.groups:
            raise ValueError(f"{self.name}: the inputs' {shape[-1]} channels must be a multiple "
                             f"of `groups` ({self.groups}).")
        self._build_kernel([*self.kernel_size, shape[-1] // self.groups, self.filters],
                           self.filters)

    def _grouped(self, x, conv):
        """`conv(x, kernel)`, or with `groups` > 1 one `conv` per group of input channels and
        of filters, concatenated (Keras's grouped convolution)."""
        if self.groups == 1:
            return conv(x, self.kernel)
        xs = array_math.split(x, self.groups, axis=-1)
        ks = array_math.split(self.kernel, self.groups, axis=-1)
        return array_math.concat([conv(a, k) for a, k in zip(xs, ks)], -1)


class Conv2D(_Conv):
    """2-D convolution over `[batch, height, width, channels]` inputs with `filters` output
    channels: `activation(conv2d(inputs, kernel) + bias)`.

    `kernel_size`, `strides` and `dilation_rate` are an int or two ints; `padding` is
    'valid' or 'same'. `groups` > 1 splits the channels into that many convolutions, each of
    `channels / groups` inputs to `filters / groups` outputs (kernel `[kh, kw, channels /
    groups, filters]`). Only channels-last data is supported.
    """

    _rank = 2

    def __init__(self, filters: int, kernel_size, strides=(1, 1), padding: str = "valid",
                 data_format: str | None = None, dilation_rate=(1, 1), groups: int = 1,
                 activation: str | Callable | None = None, use_bias: bool = True,
                 kernel_initializer: str | Callable = "glorot_uniform",
                 bias_initializer: str | Callable = "zeros", kernel_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, **kwargs: Any) -> None:
        super().__init__(filters, kernel_size, strides, padding, data_format, dilation_rate,
                         groups, activation, use_bias, kernel_initializer, bias_initializer,
                         kernel_regularizer, bias_regularizer, activity_regularizer,
                         kernel_constraint, bias_constraint, **kwargs)

    def _transform(self, x):
        return self._grouped(x, lambda a, k: nn_conv.conv2d(
            a, k, self.strides, self.padding.upper(), dilations=self.dilation_rate))


class Conv1D(_Conv):
    """1-D convolution over `[batch, steps, channels]` inputs; `padding` is 'valid', 'same'
    or 'causal' (the output at step t sees inputs up to t only)."""

    _rank = 1

    def __init__(self, filters: int, kernel_size, strides=1, padding: str = "valid",
                 data_format: str | None = None, dilation_rate=1, groups: int = 1,
                 activation: str | Callable | None = None, use_bias: bool = True,
                 kernel_initializer: str | Callable = "glorot_uniform",
                 bias_initializer: str | Callable = "zeros", kernel_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, **kwargs: Any) -> None:
        super().__init__(filters, kernel_size, strides, padding, data_format, dilation_rate,
                         groups, activation, use_bias, kernel_initializer, bias_initializer,
                         kernel_regularizer, bias_regularizer, activity_regularizer,
                         kernel_constraint, bias_constraint, **kwargs)

    def _transform(self, x):
        padding = self.padding.upper()
        if self.padding == "causal":
            left = self.dilation_rate[0] * (self.kernel_size[0] - 1)
            x = array_composed.pad(x, [[0, 0], [left, 0], [0, 0]])
            padding = "VALID"
        return self._grouped(x, lambda a, k: nn_conv.conv1d(
            a, k, self.strides[0], padding, dilations=self.dilation_rate[0]))


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
        return array_composed.pad(x, [[0, 0], list(self.padding[0]), list(self.padding[1]), [0, 0]])


def _pair_of_ints(value, layer: str, what: str) -> tuple[int, int]:
    """An int (both sides) or two non-negative ints (before, after)."""
    if _is_int(value):
        pair = (int(value), int(value))
    else:
        try:
            pair = tuple(value)
        except TypeError:
            pair = ()
        if len(pair) != 2 or not all(_is_int(v) for v in pair):
            raise ValueError(f"{layer}: `{what}` must be an int or a pair of ints, got "
                             f"{value!r}.")
        pair = (int(pair[0]), int(pair[1]))
    if min(pair) < 0:
        raise ValueError(f"{layer}: `{what}` must be non-negative, got {value!r}.")
    return pair


def _pairs_2d(value, layer: str, what: str) -> tuple[tuple[int, int], tuple[int, int]]:
    """An int, (rows, columns) or ((top, bottom), (left, right))."""
    if _is_int(value):
        return (_pair_of_ints(value, layer, what),) * 2
    items = tuple(value) if isinstance(value, (tuple, list)) else ()
    if len(items) != 2:
        raise ValueError(f"{layer}: `{what}` must be an int, 2 ints or 2 pairs of ints, got "
                         f"{value!r}.")
    return (_pair_of_ints(items[0], layer, what), _pair_of_ints(items[1], layer, what))


def _check_rank(layer: Layer, x, rank: int) -> None:
    if x.shape.rank is not None and x.shape.rank != rank:
        raise ValueError(f"{layer.name} needs inputs of rank {rank}, got shape {x.shape}.")


class ZeroPadding1D(Layer):
    """Adds zeros before and after the steps of `[batch, steps, channels]` inputs:
    `padding` is an int (both ends) or (before, after)."""

    def __init__(self, padding=1, data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        check_data_format(data_format, "ZeroPadding1D")
        self.padding = _pair_of_ints(padding, "ZeroPadding1D", "padding")
        self.data_format = "channels_last"

    def call(self, inputs):
        x = convert_to_tensor(inputs)
        _check_rank(self, x, 3)
        return array_composed.pad(x, [[0, 0], list(self.padding), [0, 0]])


def _crop(layer: Layer, x, crops) -> Any:
    """`x` without `crops[i] = (before, after)` entries along spatial axis i + 1."""
    dims = x.shape.as_list()
    key = [slice(None)]
    for axis, (before, after) in enumerate(crops, start=1):
        size = dims[axis]
        if size is not None and before + after >= size:
            raise ValueError(f"{layer.name}: cropping {(before, after)} removes all {size} "
                             f"entries of axis {axis} (input shape {x.shape}).")
        key.append(slice(before, -after if after else None))
    return array_math.getitem(x, tuple(key))


class Cropping1D(Layer):
    """Removes steps from the start and end of `[batch, steps, channels]` inputs:
    `cropping` is an int (both ends) or (start, end)."""

    def __init__(self, cropping=(1, 1), **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.cropping = _pair_of_ints(cropping, "Cropping1D", "cropping")

    def call(self, inputs):
        x = convert_to_tensor(inputs)
        _check_rank(self, x, 3)
        return _crop(self, x, [self.cropping])


class Cropping2D(Layer):
    """Removes rows and columns from the edges of `[batch, height, width, channels]` inputs:
    `cropping` is an int, (rows, columns) cut from both sides, or ((top, bottom),
    (left, right))."""

    def __init__(self, cropping=((0, 0), (0, 0)), data_format: str | None = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        check_data_format(data_format, "Cropping2D")
        self.cropping = _pairs_2d(cropping, "Cropping2D", "cropping")
        self.data_format = "channels_last"

    def call(self, inputs):
        x = convert_to_tensor(inputs)
        _check_rank(self, x, 4)
        return _crop(self, x, self.cropping)


class UpSampling1D(Layer):
    """Repeats each step of `[batch, steps, channels]` inputs `size` times."""

    def __init__(self, size: int = 2, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.size = positive_int(size, "size", "UpSampling1D")

    def call(self, inputs):
        x = convert_to_tensor(inputs)
        _check_rank(self, x, 3)
        return array_sort.repeat(x, self.size, axis=1)


_RESIZE_METHODS = ("bicubic", "bilinear", "lanczos3", "lanczos5", "nearest", "area")


class UpSampling2D(Layer):
    """Scales `[batch, height, width, channels]` inputs up by `size` = (rows, columns):
    `interpolation='nearest'` repeats each pixel, 'bilinear' interpolates as
    `rt.image.resize` does (pixel centers, no antialiasing)."""

    def __init__(self, size=(2, 2), data_format: str | None = None,
                 interpolation: str = "nearest", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        check_data_format(data_format, "UpSampling2D")
        self.size = normalize_tuple(size, 2, "size", "UpSampling2D")
        self.data_format = "channels_last"
        if interpolation not in _RESIZE_METHODS:
            raise ValueError(f"UpSampling2D: `interpolation` must be one of "
                             f"{list(_RESIZE_METHODS)}, got {interpolation!r}.")
        if interpolation not in ("nearest", "bilinear"):
            raise NotImplementedError(f"UpSampling2D(interpolation={interpolation!r}) is not "
                                      "implemented; use 'nearest' or 'bilinear'.")
        self.interpolation = interpolation

    def call(self, inputs):
        x = convert_to_tensor(inputs)
        _check_rank(self, x, 4)
        if self.interpolation == "nearest":
            x = array_sort.repeat(x, self.size[0], axis=1)
            return array_sort.repeat(x, self.size[1], axis=2)
        height, width = x.shape.as_list()[1:3]
        if height is None or width is None:
            raise ValueError(f"{self.name}(interpolation='bilinear') needs the height and "
                             f"width known when tracing, got shape {x.shape}.")
        y = image.resize(x, [height * self.size[0], width * self.size[1]], "bilinear")
        return y if y.dtype is x.dtype else array_math.cast(y, x.dtype)


def depth_windows(depth: int | None, size: int, stride: int, padding: str, dilation: int = 1,
                  layer: str = "") -> list[list[tuple[int, int]]]:
    """For each output depth, the (kernel index, input depth) pairs its window reads along a
    3-D layer's first spatial axis (Keras and TensorFlow's 'valid' / 'same' windows; 'same'
    drops the padding, which the 3-D layers here compose from 2-D ones slice by slice)."""
    if depth is None:
        raise ValueError(f"{layer} needs the inputs' depth (axis 1) known when tracing.")
    span = (size - 1) * dilation + 1
    if padding == "valid":
        count, before = max((depth - span) // stride + 1, 0), 0
    else:
        count = -(-depth // stride)
        before = max((count - 1) * stride + span - depth, 0) // 2
    return [[(k, d) for k, d in ((k, o * stride - before + k * dilation) for k in range(size))
             if 0 <= d < depth] for o in range(count)]


class Conv3D(_Conv):
    """3-D convolution over `[batch, depth, height, width, channels]` inputs with `filters`
    output channels; the kernel has shape `kernel_size + (channels / groups, filters)`.

    Computed as TensorFlow's conv3d: each output depth is the sum of the 2-D convolutions of
    the input depths its window reads with the kernel's slices (`padding` 'same' pads each
    axis as TensorFlow does), so the inputs' depth must be known when tracing.
    """

    _rank = 3

    def __init__(self, filters: int, kernel_size, strides=(1, 1, 1), padding: str = "valid",
                 data_format: str | None = None, dilation_rate=(1, 1, 1), groups: int = 1,
                 activation: str | Callable | None = None, use_bias: bool = True,
                 kernel_initializer: str | Callable = "glorot_uniform",
                 bias_initializer: str | Callable = "zeros", kernel_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, **kwargs: Any) -> None:
        super().__init__(filters, kernel_size, strides, padding, data_format, dilation_rate,
                         groups, activation, use_bias, kernel_initializer, bias_initializer,
                         kernel_regularizer, bias_regularizer, activity_regularizer,
                         kernel_constraint, bias_constraint, **kwargs)

    def _transform(self, x):
        windows = depth_windows(x.shape.as_list()[1], self.kernel_size[0], self.strides[0],
                                self.padding, self.dilation_rate[0], self.name)

        def conv(a, kernel):
            outputs = [math_composed.add_n([
                nn_conv.conv2d(a[:, d], kernel[k], self.strides[1:], self.padding.upper(),
                               dilations=self.dilation_rate[1:]) for k, d in window])
                for window in windows]
            return array_math.stack(outputs, axis=1)
        return self._grouped(x, conv)


def _pairs(value, n: int, layer: str, what: str) -> tuple:
    """An int, `n` ints (each both sides) or `n` pairs (before, after)."""
    if _is_int(value):
        return (_pair_of_ints(value, layer, what),) * n
    items = tuple(value) if isinstance(value, (tuple, list)) else ()
    if len(items) != n:
        raise ValueError(f"{layer}: `{what}` must be an int, {n} ints or {n} pairs of ints, "
                         f"got {value!r}.")
    return tuple(_pair_of_ints(item, layer, what) for item in items)


class ZeroPadding3D(Layer):
    """Adds zeros around the depth, height and width of `[batch, d, h, w, channels]` inputs:
    `padding` is an int, 3 ints, or 3 pairs (before, after)."""

    def __init__(self, padding=((1, 1), (1, 1), (1, 1)), data_format: str | None = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        check_data_format(data_format, "ZeroPadding3D")
        self.padding = _pairs(padding, 3, "ZeroPadding3D", "padding")
        self.data_format = "channels_last"

    def call(self, inputs):
        x = convert_to_tensor(inputs)
        _check_rank(self, x, 5)
        return array_composed.pad(x, [[0, 0], *map(list, self.padding), [0, 0]])


class Cropping3D(Layer):
    """Removes entries from the edges of the depth, height and width of `[batch, d, h, w,
    channels]` inputs: `cropping` is an int, 3 ints, or 3 pairs (before, after)."""

    def __init__(self, cropping=((1, 1), (1, 1), (1, 1)), data_format: str | None = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        check_data_format(data_format, "Cropping3D")
        self.cropping = _pairs(cropping, 3, "Cropping3D", "cropping")
        self.data_format = "channels_last"

    def call(self, inputs):
        x = convert_to_tensor(inputs)
        _check_rank(self, x, 5)
        return _crop(self, x, self.cropping)


class UpSampling3D(Layer):
    """Repeats each entry of `[batch, d, h, w, channels]` inputs `size` = (d, h, w) times
    along the three axes."""

    def __init__(self, size=(2, 2, 2), data_format: str | None = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        check_data_format(data_format, "UpSampling3D")
        self.size = normalize_tuple(size, 3, "size", "UpSampling3D")
        self.data_format = "channels_last"

    def call(self, inputs):
        x = convert_to_tensor(inputs)
        _check_rank(self, x, 5)
        for axis, times in enumerate(self.size, start=1):
            x = array_sort.repeat(x, times, axis=axis)
        return x
