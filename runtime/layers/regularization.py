"""Regularization layers that act only when training: SpatialDropout1D/2D/3D, GaussianNoise,
GaussianDropout, AlphaDropout, and ActivityRegularization (a penalty on its inputs).

Each returns its inputs unchanged when `training` is False or None (Keras's default), and
passes masks on, as Keras's do. `training` may be a Python bool or a boolean tensor (the
choice is then staged).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import tensor as _tensor
from ..ops import array_math
from ..ops.control_flow import cond
from ..ops.core import convert_to_tensor
from ..ops.random_stateless import stateless_normal, stateless_uniform
from ..shapes import TensorShape
from . import regularizers as _regularizers
from . import serialization as _serialization
from .base import Layer
from .core import noise_dims, seeded_dropout
from .seed_generator import SeedGenerator, draw_seed


def _fraction(layer: str, argument: str, value, top_open: bool = False) -> float:
    """`value` as a float in [0, 1] (in [0, 1) when `top_open`), else Keras's ValueError."""
    ok = not isinstance(value, bool) and isinstance(value, (int, float, np.integer, np.floating))
    if ok:
        ok = 0 <= value < 1 if top_open else 0 <= value <= 1
    if not ok:
        span = "[0, 1)" if top_open else "[0, 1]"
        raise ValueError(f"Invalid value for argument `{argument}` of {layer}: expected a float "
                         f"in {span}, got {argument}={value!r}.")
    return float(value)


class _TrainingNoise(Layer):
    """A layer whose `_noisy(x)` applies when training; identity otherwise."""

    _passes_masks = True
    _built_at_init = True  # as Keras: no weights

    def _active(self) -> bool:
        return True

    def call(self, inputs, training=None):
        x = convert_to_tensor(inputs)
        if not self._active() or training is None or training is False:
            return x
        if _tensor.is_tensor(training):
            return cond(training, lambda: self._noisy(x), lambda: array_math.identity(x))
        return self._noisy(x) if training else x

    def _noisy(self, x):
        raise NotImplementedError

    def compute_output_shape(self, input_shape) -> TensorShape:
        return TensorShape(input_shape)


class _SpatialDropout(_TrainingNoise):
    """Dropout of whole channels: one draw per example and channel, kept values scaled by
    `1 / (1 - rate)`."""

    _rank = 0

    def __init__(self, rate: float, seed: int | None = None, name: str | None = None,
                 dtype=None) -> None:
        super().__init__(name=name, dtype=dtype)
        self.rate = _fraction(type(self).__name__, "rate", rate, top_open=True)
        self.seed = seed
        if self.rate > 0:
            self.seed_generator = SeedGenerator(seed)  # its state: a variable, not a weight

    def _active(self) -> bool:
        return self.rate > 0

    def get_config(self) -> dict:
        return _serialization.plain_dtype_config(self)  # Keras's keys: no `trainable`

    def _noise_shape(self) -> list:
        return [None] + [1] * (self._rank - 2) + [None]

    def _noisy(self, x):
        if x.shape.rank is not None and x.shape.rank != self._rank:
            raise ValueError(f"{self.name} expects inputs of rank {self._rank}, got shape "
                             f"{x.shape}.")
        if not x.dtype.is_floating:
            raise TypeError(f"{self.name} needs floating-point inputs, got {x.dtype.name}.")
        return seeded_dropout(x, self.rate, self._noise_shape(), self.seed_generator)


class SpatialDropout1D(_SpatialDropout):
    """Drops whole channels of `[batch, steps, channels]` inputs when training (each with
    probability `rate`, the same over every step), scaling the rest by `1 / (1 - rate)`."""

    _rank = 3


class SpatialDropout2D(_SpatialDropout):
    """Drops whole channels of `[batch, rows, cols, channels]` inputs when training (each with
    probability `rate`), scaling the rest by `1 / (1 - rate)`; with
    `data_format="channels_first"` the channels are axis 1."""

    _rank = 4

    def __init__(self, rate: float, data_format: str | None = None, seed: int | None = None,
                 name: str | None = None, dtype=None) -> None:
        if data_format not in (None, "channels_last", "channels_first"):
            raise ValueError(f"{type(self).__name__}: `data_format` must be 'channels_last' or "
                             f"'channels_first', got data_format={data_format!r}.")
        super().__init__(rate, seed=seed, name=name, dtype=dtype)
        self.data_format = data_format or "channels_last"

    def _noise_shape(self) -> list:
        if self.data_format == "channels_first":
            return [None, None] + [1] * (self._rank - 2)
        return super()._noise_shape()


class SpatialDropout3D(SpatialDropout2D):
    """Drops whole channels of `[batch, d1, d2, d3, channels]` inputs when training."""

    _rank = 5


class GaussianNoise(_TrainingNoise):
    """Adds zero-mean normal noise of standard deviation `stddev` when training."""

    def __init__(self, stddev: float, seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.stddev = _fraction("GaussianNoise", "stddev", stddev)
        self.seed = seed
        if self.stddev > 0:
            self.seed_generator = SeedGenerator(seed)  # its state: a variable, not a weight

    def _active(self) -> bool:
        return self.stddev > 0

    def _noisy(self, x):
        noise = stateless_normal(array_math.shape(x), draw_seed(self.seed_generator), 0.0,
                                 self.stddev, dtype=x.dtype)
        return array_math.add(x, noise)


class GaussianDropout(_TrainingNoise):
    """Multiplies the inputs by normal noise of mean 1 and standard deviation
    `sqrt(rate / (1 - rate))` when training."""

    def __init__(self, rate: float, seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.rate = _fraction("GaussianDropout", "rate", rate, top_open=True)
        self.seed = seed
        if self.rate > 0:
            self.seed_generator = SeedGenerator(seed)  # its state: a variable, not a weight

    def _active(self) -> bool:
        return self.rate > 0

    def _noisy(self, x):
        stddev = math.sqrt(self.rate / (1.0 - self.rate))
        noise = stateless_normal(array_math.shape(x), draw_seed(self.seed_generator), 1.0,
                                 stddev, dtype=x.dtype)
        return array_math.multiply(x, noise)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


class AlphaDropout(_TrainingNoise):
    """Dropout that keeps the mean and variance of SELU activations: a dropped value becomes
    `-alpha * scale` of SELU, then everything is moved by the affine map `a * x + b` that
    restores them (Keras's formula). `noise_shape` (None entries take the input's size)
    shares draws along axes of size 1."""

    def __init__(self, rate: float, noise_shape=None, seed: int | None = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.rate = _fraction("AlphaDropout", "rate", rate, top_open=True)
        self.noise_shape = None if noise_shape is None else tuple(noise_shape)
        self.seed = seed
        if self.rate > 0:
            self.seed_generator = SeedGenerator(seed)  # its state: a variable, not a weight

    def _active(self) -> bool:
        return self.rate > 0

    def _noisy(self, x):
        shape = self.noise_shape if self.noise_shape is not None else [None] * x.shape.rank
        if len(shape) != x.shape.rank:
            raise ValueError(f"{self.name}: `noise_shape` {self.noise_shape} must have one entry "
                             f"per input axis, got inputs of shape {x.shape}.")
        draw = stateless_uniform(noise_dims(x, shape), draw_seed(self.seed_generator))
        kept = array_math.cast(array_math.greater_equal(draw, self.rate), x.dtype)
        alpha_p = -_SELU_ALPHA * _SELU_SCALE
        a = ((1 - self.rate) * (1 + self.rate * alpha_p ** 2)) ** -0.5
        b = -a * alpha_p * self.rate
        dropped = array_math.add(array_math.multiply(x, kept),
                                 array_math.multiply(array_math.subtract(1.0, kept), alpha_p))
        return array_math.add(array_math.multiply(dropped, a), b)


class ActivityRegularization(Layer):
    """Returns its inputs and adds `l1 * sum(|x|) + l2 * sum(x**2)`, divided by the batch
    size, to `losses` (Keras's activity regularizer)."""

    _passes_masks = True
    _built_at_init = True  # as Keras: no weights

    def __init__(self, l1: float = 0.0, l2: float = 0.0, **kwargs: Any) -> None:
        if "activity_regularizer" in kwargs:
            raise TypeError("ActivityRegularization takes `l1` and `l2`, not "
                            "`activity_regularizer`.")
        super().__init__(activity_regularizer=_regularizers.L1L2(l1=l1, l2=l2), **kwargs)
        self.l1 = l1
        self.l2 = l2

    def call(self, inputs):
        return inputs

    def compute_output_shape(self, input_shape) -> TensorShape:
        return TensorShape(input_shape)
