"""Normalization layers: BatchNormalization and LayerNormalization."""

from __future__ import annotations

from typing import Any, Callable

from .. import tensor as _tensor
from ..ops import array_ops, conv_ops, math_ops
from ..ops.control_flow import cond
from ..shapes import TensorShape
from .base import Layer
from .convolutional import as_layer_dtype


def _axes(axis, rank: int, layer: str) -> list[int]:
    items = [axis] if isinstance(axis, int) else list(axis)
    try:
        items = [int(a) for a in items]
    except TypeError:
        raise TypeError(f"{layer}: `axis` must be an int or a list of ints, got {axis!r}.") \
            from None
    for a in items:
        if not -rank <= a < rank:
            raise ValueError(f"{layer}: axis {a} is out of range for inputs of rank {rank}.")
    return sorted(a % rank for a in items)


def _param_shape(shape: TensorShape, axes: list[int], layer: str) -> list[int]:
    dims = shape.as_list()
    if any(dims[a] is None for a in axes):
        raise ValueError(f"{layer} needs the normalized axes {axes} of its inputs known, got "
                         f"shape {shape}.")
    return [dims[a] for a in axes]


class _Normalization(Layer):
    def __init__(self, axis, epsilon: float, center: bool, scale: bool,
                 beta_initializer, gamma_initializer, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis = axis
        self.epsilon = float(epsilon)
        if self.epsilon < 0:
            raise ValueError(f"{type(self).__name__}: `epsilon` must be >= 0, got {epsilon!r}.")
        self.center = bool(center)
        self.scale = bool(scale)
        self.beta_initializer = beta_initializer
        self.gamma_initializer = gamma_initializer
        self.gamma = None
        self.beta = None
        self._axes: list[int] = []
        self._broadcast: list[int] | None = None

    def _build_params(self, input_shape) -> list[int]:
        shape = TensorShape(input_shape)
        if shape.rank is None:
            raise ValueError(f"{self.name} needs inputs of known rank.")
        self._rank = shape.rank
        self._axes = _axes(self.axis, shape.rank, type(self).__name__)
        params = _param_shape(shape, self._axes, type(self).__name__)
        # parameters broadcast against the inputs: their axes kept, the others of size 1
        if self._axes == list(range(shape.rank - len(self._axes), shape.rank)):
            self._broadcast = None  # trailing axes broadcast as they are
        else:
            self._broadcast = [shape.as_list()[a] if a in self._axes else 1
                               for a in range(shape.rank)]
        if self.scale:
            self.gamma = self.add_weight("gamma", params, initializer=self.gamma_initializer)
        if self.center:
            self.beta = self.add_weight("beta", params, initializer=self.beta_initializer)
        return params

    def _shaped(self, value):
        if value is None or self._broadcast is None:
            return value
        return array_ops.reshape(value, self._broadcast)


class BatchNormalization(_Normalization):
    """Normalizes each feature along `axis` to zero mean and unit variance, then scales by
    `gamma` and shifts by `beta`.

    With `training=True` the batch's statistics are used (over every axis but `axis`) and the
    non-trainable `moving_mean` / `moving_variance` move towards them:
    `moving = moving * momentum + batch * (1 - momentum)` (a variable assign when staged).
    With `training=False` or None the moving statistics are used. The batch variance is the
    biased one (divided by the number of elements), for the update too.
    """

    _passes_masks = True

    def __init__(self, axis=-1, momentum: float = 0.99, epsilon: float = 1e-3,
                 center: bool = True, scale: bool = True,
                 beta_initializer: str | Callable = "zeros",
                 gamma_initializer: str | Callable = "ones",
                 moving_mean_initializer: str | Callable = "zeros",
                 moving_variance_initializer: str | Callable = "ones",
                 **kwargs: Any) -> None:
        super().__init__(axis, epsilon, center, scale, beta_initializer, gamma_initializer,
                         **kwargs)
        if not 0 <= float(momentum) <= 1:
            raise ValueError(f"BatchNormalization: `momentum` must be in [0, 1], got "
                             f"{momentum!r}.")
        self.momentum = float(momentum)
        self.moving_mean_initializer = moving_mean_initializer
        self.moving_variance_initializer = moving_variance_initializer
        self.moving_mean = None
        self.moving_variance = None

    def build(self, input_shape) -> None:
        params = self._build_params(input_shape)
        self.moving_mean = self.add_weight("moving_mean", params,
                                           initializer=self.moving_mean_initializer,
                                           trainable=False)
        self.moving_variance = self.add_weight("moving_variance", params,
                                               initializer=self.moving_variance_initializer,
                                               trainable=False)
        self.built = True

    def _normalize(self, x, mean, variance):
        return conv_ops.batch_normalization(
            x, self._shaped(mean), self._shaped(variance), self._shaped(self.beta),
            self._shaped(self.gamma), self.epsilon)

    def _train(self, x):
        reduce = [a for a in range(self._rank) if a not in self._axes]
        mean, variance = conv_ops.moments(x, reduce)
        keep = 1.0 - self.momentum
        self.moving_mean.assign_sub(math_ops.multiply(
            math_ops.subtract(self.moving_mean, mean), keep))
        self.moving_variance.assign_sub(math_ops.multiply(
            math_ops.subtract(self.moving_variance, variance), keep))
        return self._normalize(x, mean, variance)

    def _infer(self, x):
        return self._normalize(x, self.moving_mean, self.moving_variance)

    def call(self, inputs, training=None):
        x = as_layer_dtype(self, inputs)
        if x.shape.rank != self._rank:
            raise ValueError(f"{self.name} was built for inputs of rank {self._rank}, got shape "
                             f"{x.shape}.")
        if _tensor.is_tensor(training):
            return cond(training, lambda: self._train(x), lambda: self._infer(x))
        return self._train(x) if training else self._infer(x)


class LayerNormalization(_Normalization):
    """Normalizes each example over `axis` (the last by default) to zero mean and unit
    variance, then scales by `gamma` and shifts by `beta` (of the normalized axes' shape)."""

    _passes_masks = True

    def __init__(self, axis=-1, epsilon: float = 1e-3, center: bool = True,
                 scale: bool = True, beta_initializer: str | Callable = "zeros",
                 gamma_initializer: str | Callable = "ones", **kwargs: Any) -> None:
        super().__init__(axis, epsilon, center, scale, beta_initializer, gamma_initializer,
                         **kwargs)

    def build(self, input_shape) -> None:
        self._build_params(input_shape)
        self.built = True

    def call(self, inputs):
        x = as_layer_dtype(self, inputs)
        mean, variance = conv_ops.moments(x, self._axes, keepdims=True)
        return conv_ops.batch_normalization(x, mean, variance, self._shaped(self.beta),
                                            self._shaped(self.gamma), self.epsilon)
