"""Adaptive pooling layers: AdaptiveAveragePooling1D/2D/3D and AdaptiveMaxPooling1D/2D/3D,
which pool each spatial axis into `output_size` bins whatever the input's size.

Bin i of an axis of length n into m bins covers `[floor(i * n / m), ceil((i + 1) * n / m))`
(bins overlap when m does not divide n), as Keras's. A bin is a product of ranges, so the
pooling runs one axis at a time: slices reduced by mean or max and stacked, which the
gradient follows.
"""

from __future__ import annotations

from typing import Any

from ..ops import array_math
from ..ops.core import convert_to_tensor
from ..shapes import TensorShape
from .base import Layer
from .convolutional import normalize_tuple


def adaptive_bins(size: int, bins: int) -> list[tuple[int, int]]:
    """The (start, end) of each of `bins` bins over an axis of `size`."""
    return [(i * size // bins, -(-(i + 1) * size // bins)) for i in range(bins)]


class _AdaptivePooling(Layer):
    _rank = 2
    _built_at_init = True  # as Keras: no weights
    _reduce: Any = None
    _what = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "_rank" in cls.__dict__:  # a public layer: its docstring from its rank
            cls.__doc__ = (
                f"{cls._what} over adaptive bins: each of the {cls._rank} spatial axes of the "
                "inputs is pooled into `output_size` bins (an int, or one per axis), bin i of "
                "an axis of length n covering [floor(i n / m), ceil((i + 1) n / m)). "
                "`data_format` 'channels_last' (default) or 'channels_first'.")

    def __init__(self, output_size, data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        name = type(self).__name__
        self.output_size = normalize_tuple(output_size, self._rank, "output_size", name)
        if data_format not in (None, "channels_last", "channels_first"):
            raise ValueError(f"{name}: `data_format` must be 'channels_last' or "
                             f"'channels_first', got data_format={data_format!r}.")
        self.data_format = data_format or "channels_last"

    def get_config(self) -> dict:
        return {**super().get_config(), "output_size": self.output_size}  # Keras's tuple

    def _axes(self) -> range:
        first = 2 if self.data_format == "channels_first" else 1
        return range(first, first + self._rank)

    def call(self, inputs):
        x = convert_to_tensor(inputs)
        if x.shape.rank != self._rank + 2:
            raise ValueError(f"{self.name} needs inputs of rank {self._rank + 2}, got shape "
                             f"{x.shape}.")
        for axis, bins in zip(self._axes(), self.output_size):
            size = x.shape.as_list()[axis]
            if size is None:
                raise ValueError(f"{self.name} needs the inputs' spatial sizes known when "
                                 f"tracing, got shape {x.shape}.")
            index = [slice(None)] * x.shape.rank
            pieces = []
            for start, end in adaptive_bins(size, bins):
                index[axis] = slice(start, end)
                pieces.append(type(self)._reduce(x[tuple(index)], axis=axis))
            x = array_math.stack(pieces, axis=axis)
        return x

    def compute_output_shape(self, input_shape) -> TensorShape:
        dims = TensorShape(input_shape).as_list()
        for axis, bins in zip(self._axes(), self.output_size):
            dims[axis] = bins
        return TensorShape(dims)


class _AdaptiveAverage(_AdaptivePooling):
    _reduce = staticmethod(array_math.reduce_mean)
    _what = "The mean"


class _AdaptiveMax(_AdaptivePooling):
    _reduce = staticmethod(array_math.reduce_max)
    _what = "The maximum"


class AdaptiveAveragePooling1D(_AdaptiveAverage):
    _rank = 1


class AdaptiveAveragePooling2D(_AdaptiveAverage):
    _rank = 2


class AdaptiveAveragePooling3D(_AdaptiveAverage):
    _rank = 3


class AdaptiveMaxPooling1D(_AdaptiveMax):
    _rank = 1


class AdaptiveMaxPooling2D(_AdaptiveMax):
    _rank = 2


class AdaptiveMaxPooling3D(_AdaptiveMax):
    _rank = 3
