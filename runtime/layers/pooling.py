"""Pooling layers (channels last): MaxPooling1D/2D/3D, AveragePooling1D/2D/3D and the global
poolings."""

from __future__ import annotations

from typing import Any

from ..ops import array_math, nn_conv
from ..ops.core import convert_to_tensor
from .base import Layer
from .convolutional import check_data_format, check_padding, depth_windows, normalize_tuple


class _Pooling(Layer):
    _built_at_init = True  # as Keras: no weights
    _rank = 2
    _fn: Any = None

    def __init__(self, pool_size, strides=None, padding: str = "valid",
                 data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        name = type(self).__name__
        check_data_format(data_format, name)
        self.pool_size = normalize_tuple(pool_size, self._rank, "pool_size", name)
        self.strides = self.pool_size if strides is None else \
            normalize_tuple(strides, self._rank, "strides", name)
        self.padding = check_padding(padding, name)
        self.data_format = "channels_last"

    def call(self, inputs):
        x = convert_to_tensor(inputs)
        if x.shape.rank is not None and x.shape.rank != self._rank + 2:
            raise ValueError(f"{self.name} needs inputs of rank {self._rank + 2}, got shape "
                             f"{x.shape}.")
        fn = type(self)._fn
        return fn(x, self.pool_size, self.strides, self.padding.upper())


class MaxPooling2D(_Pooling):
    """The maximum over `pool_size` windows, `strides` apart (default: `pool_size`)."""

    _rank = 2
    _fn = staticmethod(nn_conv.max_pool2d)

    def __init__(self, pool_size=(2, 2), strides=None, padding: str = "valid",
                 data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


class AveragePooling2D(_Pooling):
    """The mean over `pool_size` windows, `strides` apart (default: `pool_size`); with 'same'
    padding, over the window's elements inside the input."""

    _rank = 2
    _fn = staticmethod(nn_conv.avg_pool2d)

    def __init__(self, pool_size, strides=None, padding: str = "valid",
                 data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


class MaxPooling1D(_Pooling):
    """The maximum over windows of `pool_size` steps of `[batch, steps, channels]` inputs."""

    _rank = 1
    _fn = staticmethod(nn_conv.max_pool1d)

    def __init__(self, pool_size=2, strides=None, padding: str = "valid",
                 data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


class AveragePooling1D(_Pooling):
    """The mean over windows of `pool_size` steps of `[batch, steps, channels]` inputs."""

    _rank = 1
    _fn = staticmethod(nn_conv.avg_pool1d)

    def __init__(self, pool_size, strides=None, padding: str = "valid",
                 data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


class _GlobalPooling(Layer):
    _built_at_init = True  # as Keras: no weights
    _rank = 2
    _reduce: Any = None

    def __init__(self, data_format: str | None = None, keepdims: bool = False,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        check_data_format(data_format, type(self).__name__)
        self.data_format = "channels_last"
        self.keepdims = bool(keepdims)

    def call(self, inputs):
        x = convert_to_tensor(inputs)
        if x.shape.rank is not None and x.shape.rank != self._rank + 2:
            raise ValueError(f"{self.name} needs inputs of rank {self._rank + 2}, got shape "
                             f"{x.shape}.")
        axes = list(range(1, self._rank + 1))
        return type(self)._reduce(x, axis=axes, keepdims=self.keepdims)


class GlobalAveragePooling2D(_GlobalPooling):
    """The mean over height and width: `[batch, h, w, c]` -> `[batch, c]`."""

    _rank = 2
    _reduce = staticmethod(array_math.reduce_mean)


class GlobalMaxPooling2D(_GlobalPooling):
    """The maximum over height and width: `[batch, h, w, c]` -> `[batch, c]`."""

    _rank = 2
    _reduce = staticmethod(array_math.reduce_max)


class GlobalAveragePooling1D(_GlobalPooling):
    """The mean over steps: `[batch, steps, c]` -> `[batch, c]`; with a mask (from
    `Embedding(mask_zero=True)` or `Masking`), the mean over the unmasked steps."""

    _rank = 1
    _reduce = staticmethod(array_math.reduce_mean)
    _passes_masks = True

    def call(self, inputs, mask=None):
        if mask is None:
            return super().call(inputs)
        x = convert_to_tensor(inputs)
        keep = array_math.expand_dims(array_math.cast(mask, "bool"), 2)
        x = array_math.where(keep, x, array_math.zeros_like(x))
        weights = array_math.cast(keep, x.dtype)
        return array_math.divide(array_math.reduce_sum(x, axis=1, keepdims=self.keepdims),
                                 array_math.reduce_sum(weights, axis=1, keepdims=self.keepdims))

    def compute_mask(self, inputs, mask=None):
        """None: the steps are pooled away."""
        return None


class GlobalMaxPooling1D(_GlobalPooling):
    """The maximum over steps: `[batch, steps, c]` -> `[batch, c]`."""

    _rank = 1
    _reduce = staticmethod(array_math.reduce_max)


class _Pooling3D(_Pooling):
    """A 3-D pooling: the 2-D pooling of each depth slice, then the maximum or mean over each
    window of slices (exactly TensorFlow's 3-D pooling, 'same' windows leaving the padding
    out of maxima and means)."""

    _rank = 3
    _combine: Any = None

    def call(self, inputs):
        x = convert_to_tensor(inputs)
        if x.shape.rank is not None and x.shape.rank != 5:
            raise ValueError(f"{self.name} needs inputs of rank 5, got shape {x.shape}.")
        windows = depth_windows(x.shape.as_list()[1], self.pool_size[0], self.strides[0],
                                self.padding, layer=self.name)
        slices = {}

        def pooled(d):
            if d not in slices:
                slices[d] = type(self)._fn(x[:, d], self.pool_size[1:], self.strides[1:],
                                           self.padding.upper())
            return slices[d]
        outputs = [type(self)._combine(array_math.stack([pooled(d) for _, d in window]), axis=0)
                   for window in windows]
        return array_math.stack(outputs, axis=1)


class MaxPooling3D(_Pooling3D):
    """The maximum over `pool_size` windows of `[batch, depth, height, width, channels]`
    inputs, `strides` apart (default: `pool_size`)."""

    _fn = staticmethod(nn_conv.max_pool2d)
    _combine = staticmethod(array_math.reduce_max)

    def __init__(self, pool_size=(2, 2, 2), strides=None, padding: str = "valid",
                 data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


class AveragePooling3D(_Pooling3D):
    """The mean over `pool_size` windows of `[batch, depth, height, width, channels]` inputs
    (with 'same' padding, over the window's elements inside the input)."""

    _fn = staticmethod(nn_conv.avg_pool2d)
    _combine = staticmethod(array_math.reduce_mean)

    def __init__(self, pool_size, strides=None, padding: str = "valid",
                 data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


class GlobalAveragePooling3D(_GlobalPooling):
    """The mean over depth, height and width: `[batch, d, h, w, c]` -> `[batch, c]`."""

    _rank = 3
    _reduce = staticmethod(array_math.reduce_mean)


class GlobalMaxPooling3D(_GlobalPooling):
    """The maximum over depth, height and width: `[batch, d, h, w, c]` -> `[batch, c]`."""

    _rank = 3
    _reduce = staticmethod(array_math.reduce_max)
