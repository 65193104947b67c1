"""Core layers: Dense, Dropout, Activation, Flatten, Identity, Rescaling, and the activation
layers ReLU, LeakyReLU, ELU, Softmax and PReLU."""

from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np

from .. import tensor as _tensor
from ..ops import array_math, linalg, nn, random_extras, sparse
from ..ops.control_flow import cond
from ..ops.core import convert_to_tensor
from ..ops.sparse import SparseTensor
from ..shapes import TensorShape
from . import activations
from . import constraints as _constraints
from .base import Layer, positive_int
from .kernel_layer import KernelLayer, refuse_quantization
from .seed_generator import SeedGenerator, draw_seed


class _SameShape(Layer):
    """A layer whose output has its input's shape, passing masks on (as Keras's do)."""

    _passes_masks = True

    def compute_output_shape(self, input_shape) -> TensorShape:
        return TensorShape(input_shape)


class Dense(KernelLayer):
    """`activation(inputs @ kernel + bias)`: a fully connected layer of `units` outputs.

    `activation` is a callable or a name (`"relu"`, `"gelu"`, `"softmax"`, ...: every name of
    `keras.activations`); None is linear. Inputs of rank > 2 are contracted over their last
    axis. `kernel_regularizer`, `bias_regularizer` and `activity_regularizer` (regularizers,
    names such as "l2", or callables) put penalties into `losses`; `kernel_constraint` and
    `bias_constraint` are applied to the weights after each optimizer step.
    """

    _passes_masks = True
    _takes_sparse = True
    # left out of the config at these values, as Keras 3's Dense leaves them out
    _config_defaults_kept_out = {"activity_regularizer": None, "lora_rank": None,
                                 "lora_alpha": None}

    def __init__(self, units: int, activation: str | Callable | None = None,
                 use_bias: bool = True, kernel_initializer: str | Callable = "glorot_uniform",
                 bias_initializer: str | Callable = "zeros", kernel_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, lora_rank=None, lora_alpha=None,
                 quantization_config=None, **kwargs: Any) -> None:
        refuse_quantization("Dense", lora_rank, quantization_config)
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.lora_rank, self.lora_alpha = lora_rank, lora_alpha
        self.quantization_config = quantization_config
        self.units = positive_int(units, "units", "Dense", python_int=True)
        self._init_kernel_arguments(activation, use_bias, kernel_initializer, bias_initializer,
                                    kernel_regularizer, bias_regularizer, kernel_constraint,
                                    bias_constraint)

    def build(self, input_shape) -> None:
        shape = TensorShape(input_shape)
        if shape.rank is None or shape.rank < 2 or shape[-1] is None:
            raise ValueError(f"{self.name} needs inputs of rank >= 2 (a batch of vectors) with "
                             f"a known last dimension, got shape {shape}; give a [n] array a "
                             f"last axis with x[:, None] or declare keras.Input((1,)).")
        self._build_kernel([shape[-1], self.units], self.units)

    def compute_output_shape(self, input_shape) -> TensorShape:
        return TensorShape(TensorShape(input_shape).as_list()[:-1] + [self.units])

    def _transform(self, x):
        if isinstance(x, SparseTensor):  # as Keras 3 on TensorFlow: a sparse-dense product
            if x.shape.rank != 2:
                x = sparse.to_dense(x)
            else:
                return sparse.sparse_dense_matmul(x, self.kernel)
        if x.shape.rank == 2:
            return linalg.matmul(x, self.kernel)
        return linalg.tensordot(x, self.kernel, [[x.shape.rank - 1], [0]])


class Dropout(_SameShape):
    """Zeroes a `rate` fraction of the inputs (scaling the rest) when training, else identity.

    `training` may be a Python bool (the graph holds only the branch taken) or a boolean
    tensor (the choice is staged).
    """

    _passes_masks = True
    _built_at_init = True  # as Keras: no weights

    def __init__(self, rate: float, noise_shape=None, seed=None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if isinstance(rate, bool) or not isinstance(rate, (int, float, np.integer, np.floating)) \
                or not 0 <= rate < 1:
            raise ValueError(f"Invalid value for argument `rate` of Dropout: expected a float "
                             f"in [0, 1), got rate={rate!r}.")
        self.rate = float(rate)
        self.noise_shape = noise_shape
        self.seed = seed
        if self.rate > 0:
            self.seed_generator = SeedGenerator(seed)  # its state: a variable, not a weight

    def call(self, inputs, training=None):
        if self.rate == 0 or training is None or training is False:
            return inputs
        if _tensor.is_tensor(training):
            return cond(training, lambda: self._drop(inputs),
                        lambda: array_math.identity(inputs))
        return self._drop(inputs) if training else inputs

    def _drop(self, inputs):
        return seeded_dropout(convert_to_tensor(inputs), self.rate, self.noise_shape,
                              self.seed_generator)


def seeded_dropout(x, rate: float, noise_shape, generator: SeedGenerator):
    """Keras's dropout: TensorFlow's stateless dropout of `x` at the generator's next seed,
    one draw per entry of `noise_shape` (None: all of `x`; a None entry: `x`'s size)."""
    noise = None if noise_shape is None else noise_dims(x, noise_shape)
    return random_extras.stateless_dropout(x, rate, draw_seed(generator), noise_shape=noise)


def noise_dims(x, noise_shape) -> list:
    """`noise_shape` with each None replaced by `x`'s size there (a scalar tensor when only
    known at run time)."""
    if len(noise_shape) != x.shape.rank:
        raise ValueError(f"`noise_shape` {tuple(noise_shape)} must have one entry per axis of "
                         f"the inputs, got inputs of shape {x.shape}.")
    known = x.shape.as_list()
    dynamic = None
    dims = []
    for i, d in enumerate(noise_shape):
        if d is None:
            d = known[i]
        if d is None:
            if dynamic is None:
                dynamic = array_math.shape(x)
            d = dynamic[i]
        dims.append(d)
    return dims


class Activation(_SameShape):
    """Applies an activation function (a callable or a name such as `"relu"`)."""

    _passes_masks = True
    _built_at_init = True  # as Keras: no weights

    def __init__(self, activation: str | Callable, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.activation = activations.get(activation)

    def call(self, inputs):
        return self.activation(inputs)


class Flatten(Layer):
    """Reshapes `[batch, d1, d2, ...]` to `[batch, d1 * d2 * ...]` (`[batch]` to `[batch, 1]`).

    With `data_format="channels_first"` the channels axis (axis 1) is moved last first, so
    the order of the values is that of channels-last inputs, as in Keras.
    """

    def __init__(self, data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if data_format not in (None, "channels_last", "channels_first"):
            raise ValueError(f"Flatten: `data_format` must be 'channels_last' or "
                             f"'channels_first', got data_format={data_format!r}.")
        self.data_format = data_format or "channels_last"

    def call(self, inputs):
        x = convert_to_tensor(inputs)
        rank = x.shape.rank
        if rank is None:
            raise ValueError(f"{self.name} needs inputs of known rank, got shape {x.shape}.")
        if self.data_format == "channels_first" and rank > 2:
            x = array_math.transpose(x, [0, *range(2, rank), 1])
        dims = x.shape.as_list()[1:]
        if any(d is None for d in dims):  # sizes known when the graph runs
            return array_math.reshape(x, [array_math.shape(x)[0], -1])
        size = 1
        for d in dims:
            size *= d
        return array_math.reshape(x, [-1, size])

    def compute_output_shape(self, input_shape) -> TensorShape:
        dims = TensorShape(input_shape).as_list()
        size = 1
        for d in dims[1:]:
            size = None if d is None or size is None else size * d
        return TensorShape([dims[0], size])


def _non_negative(layer: str, argument: str, value, allow_none: bool = False) -> None:
    """Keras's check of the activation layers' numbers: not None (unless allowed), >= 0."""
    if value is None and allow_none:
        return
    if value is None or isinstance(value, bool) or \
            not isinstance(value, (int, float, np.integer, np.floating)) or value < 0:
        raise ValueError(f"{layer}: `{argument}` must be a non-negative number, got "
                         f"{argument}={value!r}.")


class ReLU(_SameShape):
    """`keras.activations.relu(x, negative_slope, max_value, threshold)` as a layer."""

    _passes_masks = True
    _built_at_init = True  # as Keras: no weights

    def __init__(self, max_value=None, negative_slope=0.0, threshold=0.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        _non_negative("ReLU", "max_value", max_value, allow_none=True)
        _non_negative("ReLU", "negative_slope", negative_slope)
        _non_negative("ReLU", "threshold", threshold)
        self.max_value, self.negative_slope, self.threshold = max_value, negative_slope, threshold

    def call(self, inputs):
        return activations.relu(inputs, negative_slope=self.negative_slope,
                                max_value=self.max_value, threshold=self.threshold)


class LeakyReLU(_SameShape):
    """`x` where positive, else `negative_slope * x` (Keras 3's layer default: 0.3)."""

    _passes_masks = True
    _built_at_init = True  # as Keras: no weights

    def __init__(self, negative_slope=0.3, **kwargs: Any) -> None:
        if "alpha" in kwargs:  # Keras 2's name, still accepted by Keras 3
            negative_slope = kwargs.pop("alpha")
            warnings.warn("Argument `alpha` is deprecated. Use `negative_slope` instead.",
                          stacklevel=2)
        super().__init__(**kwargs)
        _non_negative("LeakyReLU", "negative_slope", negative_slope)
        self.negative_slope = negative_slope

    def call(self, inputs):
        return activations.leaky_relu(inputs, negative_slope=self.negative_slope)

    def get_config(self) -> dict:
        """Keras's config: `negative_slope` (also when given as `alpha`)."""
        config = super().get_config()
        config.pop("alpha", None)
        config["negative_slope"] = self.negative_slope
        return config


class ELU(_SameShape):
    """`x` where `x >= 0`, else `alpha * (exp(x) - 1)`."""

    _passes_masks = True
    _built_at_init = True  # as Keras: no weights

    def __init__(self, alpha=1.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.alpha = alpha

    def call(self, inputs):
        return activations.elu(inputs, alpha=self.alpha)


class Softmax(_SameShape):
    """Softmax over `axis`; `mask` (True or > 0.5 where kept) leaves masked entries out
    (their outputs are 0)."""

    _passes_masks = True
    _built_at_init = True  # as Keras: no weights

    def __init__(self, axis=-1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis = axis

    def call(self, inputs, mask=None):
        x = convert_to_tensor(inputs)
        if mask is not None:
            keep = convert_to_tensor(mask)
            if not keep.dtype.is_bool:
                keep = array_math.greater(array_math.cast(keep, x.dtype), 0.5)
            keep = array_math.logical_and(keep, array_math.ones_like(x, dtype="bool"))
            x = array_math.where(keep, x, array_math.add(array_math.zeros_like(x), -1e9))
        if isinstance(self.axis, (list, tuple)):
            shifted = array_math.subtract(x, array_math.reduce_logsumexp(x, axis=list(self.axis),
                                                                         keepdims=True))
            outputs = array_math.exp(shifted)
        else:
            outputs = nn.softmax(x, axis=self.axis)
        if mask is not None:  # an axis masked in full gives zeros, not a uniform spread
            outputs = array_math.where(keep, outputs, array_math.zeros_like(outputs))
        return outputs


class PReLU(_SameShape):
    """`x` where positive, else `alpha * x` with a learned `alpha` per feature (shared over
    `shared_axes`)."""

    _passes_masks = True

    def __init__(self, alpha_initializer="zeros", alpha_regularizer=None,
                 alpha_constraint=None, shared_axes=None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.alpha_initializer = alpha_initializer
        self.alpha_regularizer = alpha_regularizer
        self.alpha_constraint = _constraints.get(alpha_constraint, "alpha_constraint")
        self.shared_axes = None if shared_axes is None else \
            list(shared_axes) if isinstance(shared_axes, (list, tuple)) else [shared_axes]
        self.alpha = None

    def build(self, input_shape) -> None:
        shape = TensorShape(input_shape).as_list()[1:]
        for axis in self.shared_axes or ():
            shape[axis - 1] = 1
        if any(d is None for d in shape):
            raise ValueError(f"{self.name} needs the non-batch dimensions to be known (or "
                             f"shared), got shape {input_shape}.")
        self.alpha = self.add_weight(name="alpha", shape=shape, initializer=self.alpha_initializer,
                                     regularizer=self.alpha_regularizer,
                                     constraint=self.alpha_constraint)
        self.built = True

    def call(self, inputs):
        x = convert_to_tensor(inputs)
        negative = array_math.multiply(self.alpha, nn.relu(array_math.negative(x)))
        return array_math.subtract(nn.relu(x), negative)


class Identity(_SameShape):
    """Returns its inputs unchanged (any structure of tensors), masks included."""

    _built_at_init = True  # as Keras: no weights

    def call(self, inputs):
        return inputs

    def compute_output_shape(self, input_shape):
        return input_shape


class Rescaling(_SameShape):
    """`x * scale + offset`, the inputs cast to the layer's dtype (float32): `Rescaling(1 / 255)`
    maps 8-bit pixels to [0, 1]. `scale` and `offset` may be per-channel lists."""

    def __init__(self, scale, offset=0.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.scale, self.offset = scale, offset

    def call(self, inputs):
        x = array_math.cast(convert_to_tensor(inputs), self.dtype)
        scale = convert_to_tensor(np.asarray(self.scale, self._dtype.as_numpy_dtype))
        offset = convert_to_tensor(np.asarray(self.offset, self._dtype.as_numpy_dtype))
        return array_math.add(array_math.multiply(x, scale), offset)
