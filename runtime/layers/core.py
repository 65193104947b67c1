"""Core layers: Dense, Dropout, Activation, Flatten."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .. import tensor as _tensor
from ..ops import array_ops, linalg_ops, nn_ops
from ..ops.control_flow import cond
from ..ops.core import convert_to_tensor
from ..shapes import TensorShape
from . import activations
from .base import Layer, positive_int
from .kernel_layer import KernelLayer


class Dense(KernelLayer):
    """`activation(inputs @ kernel + bias)`: a fully connected layer of `units` outputs.

    `activation` is a callable or a name (`"relu"`, `"gelu"`, `"softmax"`, ...: every name of
    `keras.activations`); None is linear. Inputs of rank > 2 are contracted over their last
    axis. `kernel_regularizer`, `bias_regularizer` and `activity_regularizer` (regularizers,
    names such as "l2", or callables) put penalties into `losses`.
    """

    def __init__(self, units: int, activation: str | Callable | None = None,
                 use_bias: bool = True, kernel_initializer: str | Callable = "glorot_uniform",
                 bias_initializer: str | Callable = "zeros", kernel_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, **kwargs: Any) -> None:
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.units = positive_int(units, "units", "Dense")
        self._init_kernel_arguments(activation, use_bias, kernel_initializer, bias_initializer,
                                    kernel_regularizer, bias_regularizer)

    def build(self, input_shape) -> None:
        shape = TensorShape(input_shape)
        if shape.rank is None or shape.rank < 1 or shape[-1] is None:
            raise ValueError(f"{self.name} needs inputs with a known last dimension, got shape "
                             f"{shape}.")
        self._build_kernel([shape[-1], self.units], self.units)

    def _transform(self, x):
        if x.shape.rank == 2:
            return linalg_ops.matmul(x, self.kernel)
        return linalg_ops.tensordot(x, self.kernel, [[x.shape.rank - 1], [0]])


class Dropout(Layer):
    """Zeroes a `rate` fraction of the inputs (scaling the rest) when training, else identity.

    `training` may be a Python bool (the graph holds only the branch taken) or a boolean
    tensor (the choice is staged).
    """

    def __init__(self, rate: float, noise_shape=None, seed=None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if isinstance(rate, bool) or not isinstance(rate, (int, float, np.integer, np.floating)) \
                or not 0 <= rate < 1:
            raise ValueError(f"Invalid value for argument `rate` of Dropout: expected a float "
                             f"in [0, 1), got rate={rate!r}.")
        self.rate = float(rate)
        self.noise_shape = noise_shape
        self.seed = seed

    def call(self, inputs, training=None):
        if self.rate == 0 or training is None or training is False:
            return inputs
        if _tensor.is_tensor(training):
            return cond(training, lambda: self._drop(inputs),
                        lambda: array_ops.identity(inputs))
        return self._drop(inputs) if training else inputs

    def _drop(self, inputs):
        return nn_ops.dropout(inputs, self.rate, noise_shape=self.noise_shape, seed=self.seed)


class Activation(Layer):
    """Applies an activation function (a callable or a name such as `"relu"`)."""

    def __init__(self, activation: str | Callable, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.activation = activations.get(activation)

    def call(self, inputs):
        return self.activation(inputs)


class Flatten(Layer):
    """Reshapes `[batch, d1, d2, ...]` to `[batch, d1 * d2 * ...]`."""

    def call(self, inputs):
        x = convert_to_tensor(inputs)
        dims = x.shape.as_list() if x.shape.rank is not None else None
        if dims is None or any(d is None for d in dims[1:]):
            raise ValueError(f"{self.name} needs the non-batch dimensions to be known, got "
                             f"shape {x.shape}.")
        size = 1
        for d in dims[1:]:
            size *= d
        return array_ops.reshape(x, [-1, size])
