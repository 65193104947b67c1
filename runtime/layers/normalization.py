"""Normalization layers: BatchNormalization, LayerNormalization, GroupNormalization,
UnitNormalization, RMSNormalization, and the preprocessing layer Normalization (statistics
from `adapt`)."""

from __future__ import annotations

import itertools
from typing import Any, Callable

import numpy as np

from .. import tensor as _tensor
from ..ops import array_math, nn_conv
from ..ops.control_flow import cond
from ..ops.core import convert_to_tensor
from ..shapes import TensorShape
from . import constraints as _constraints
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
                 beta_initializer, gamma_initializer, beta_regularizer=None,
                 gamma_regularizer=None, beta_constraint=None, gamma_constraint=None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.beta_regularizer, self.gamma_regularizer = beta_regularizer, gamma_regularizer
        self.beta_constraint = _constraints.get(beta_constraint, "beta_constraint")
        self.gamma_constraint = _constraints.get(gamma_constraint, "gamma_constraint")
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
            self.gamma = self.add_weight(name="gamma", shape=params,
                                         initializer=self.gamma_initializer,
                                         regularizer=self.gamma_regularizer,
                                         constraint=self.gamma_constraint)
        if self.center:
            self.beta = self.add_weight(name="beta", shape=params,
                                        initializer=self.beta_initializer,
                                        regularizer=self.beta_regularizer,
                                        constraint=self.beta_constraint)
        return params

    def compute_output_shape(self, input_shape) -> TensorShape:
        return TensorShape(input_shape)

    def _shaped(self, value):
        if value is None or self._broadcast is None:
            return value
        return array_math.reshape(value, self._broadcast)


class BatchNormalization(_Normalization):
    """Normalizes each feature along `axis` to zero mean and unit variance, then scales by
    `gamma` and shifts by `beta`.

    With `training=True` the batch's statistics are used (over every axis but `axis`) and the
    non-trainable `moving_mean` / `moving_variance` move towards them:
    `moving = moving * momentum + batch * (1 - momentum)` (a variable assign when staged).
    With `training=False` or None the moving statistics are used. The batch variance is the
    biased one (divided by the number of elements), for the update too. `beta_regularizer` and
    `gamma_regularizer` put penalties into `losses`; `synchronized=True` computes what it
    computes on one device (there is one here); `renorm=True` is not implemented
    (NotImplementedError); `beta_constraint` / `gamma_constraint` are applied after each
    optimizer step.
    """

    _passes_masks = True

    def __init__(self, axis=-1, momentum: float = 0.99, epsilon: float = 1e-3,
                 center: bool = True, scale: bool = True,
                 beta_initializer: str | Callable = "zeros",
                 gamma_initializer: str | Callable = "ones",
                 moving_mean_initializer: str | Callable = "zeros",
                 moving_variance_initializer: str | Callable = "ones",
                 beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                 gamma_constraint=None, renorm: bool = False, renorm_clipping=None,
                 renorm_momentum: float = 0.99, synchronized: bool = False,
                 **kwargs: Any) -> None:
        if renorm:
            raise NotImplementedError("BatchNormalization(renorm=True) is not implemented; "
                                      "batch renormalization is not supported.")
        super().__init__(axis, epsilon, center, scale, beta_initializer, gamma_initializer,
                         beta_regularizer, gamma_regularizer, beta_constraint,
                         gamma_constraint, **kwargs)
        self.renorm, self.renorm_clipping = False, renorm_clipping
        self.renorm_momentum, self.synchronized = renorm_momentum, bool(synchronized)
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
        self.moving_mean = self.add_weight(name="moving_mean", shape=params,
                                           initializer=self.moving_mean_initializer,
                                           trainable=False)
        self.moving_variance = self.add_weight(name="moving_variance", shape=params,
                                               initializer=self.moving_variance_initializer,
                                               trainable=False)
        self.built = True

    def _normalize(self, x, mean, variance):
        return nn_conv.batch_normalization(
            x, self._shaped(mean), self._shaped(variance), self._shaped(self.beta),
            self._shaped(self.gamma), self.epsilon)

    def _train(self, x):
        reduce = [a for a in range(self._rank) if a not in self._axes]
        mean, variance = nn_conv.moments(x, reduce)
        keep = 1.0 - self.momentum
        self.moving_mean.assign_sub(array_math.multiply(
            array_math.subtract(self.moving_mean, mean), keep))
        self.moving_variance.assign_sub(array_math.multiply(
            array_math.subtract(self.moving_variance, variance), keep))
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
    variance, then scales by `gamma` and shifts by `beta` (of the normalized axes' shape).
    `beta_regularizer` and `gamma_regularizer` put penalties into `losses`."""

    _passes_masks = True

    def __init__(self, axis=-1, epsilon: float = 1e-3, center: bool = True,
                 scale: bool = True, rms_scaling: bool = False,
                 beta_initializer: str | Callable = "zeros",
                 gamma_initializer: str | Callable = "ones", beta_regularizer=None,
                 gamma_regularizer=None, beta_constraint=None, gamma_constraint=None,
                 **kwargs: Any) -> None:
        if rms_scaling:
            raise NotImplementedError("LayerNormalization(rms_scaling=True) is not implemented "
                                      "(Keras 3 deprecates it); use rms_scaling=False.")
        super().__init__(axis, epsilon, center, scale, beta_initializer, gamma_initializer,
                         beta_regularizer, gamma_regularizer, beta_constraint,
                         gamma_constraint, **kwargs)
        self.rms_scaling = False

    def build(self, input_shape) -> None:
        self._build_params(input_shape)
        self.built = True

    def call(self, inputs):
        x = as_layer_dtype(self, inputs)
        mean, variance = nn_conv.moments(x, self._axes, keepdims=True)
        return nn_conv.batch_normalization(x, mean, variance, self._shaped(self.beta),
                                           self._shaped(self.gamma), self.epsilon)


class GroupNormalization(Layer):
    """Normalizes each example over groups of channels: the `axis` channels are split into
    `groups` groups (-1: one per channel, instance normalization), each normalized over its
    channels and every other non-batch axis, then scaled by `gamma` and shifted by `beta`
    (one per channel)."""

    _passes_masks = True

    def __init__(self, groups: int = 32, axis: int = -1, epsilon: float = 1e-3,
                 center: bool = True, scale: bool = True,
                 beta_initializer: str | Callable = "zeros",
                 gamma_initializer: str | Callable = "ones", beta_regularizer=None,
                 gamma_regularizer=None, beta_constraint=None, gamma_constraint=None,
                 **kwargs: Any) -> None:
        if isinstance(groups, bool) or not isinstance(groups, int) or \
                (groups <= 0 and groups != -1):
            raise ValueError(f"GroupNormalization: invalid value for argument `groups`: "
                             f"expected a positive integer (or -1 for instance normalization), "
                             f"got groups={groups!r}.")
        super().__init__(**kwargs)
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise TypeError(f"GroupNormalization: `axis` must be an int, got {axis!r}.")
        self.groups, self.axis, self.epsilon = groups, axis, float(epsilon)
        self.center, self.scale = bool(center), bool(scale)
        self.beta_initializer, self.gamma_initializer = beta_initializer, gamma_initializer
        self.beta_regularizer, self.gamma_regularizer = beta_regularizer, gamma_regularizer
        self.beta_constraint = _constraints.get(beta_constraint, "beta_constraint")
        self.gamma_constraint = _constraints.get(gamma_constraint, "gamma_constraint")
        self.gamma = None
        self.beta = None

    def build(self, input_shape) -> None:
        shape = TensorShape(input_shape)
        if shape.rank is None or not -shape.rank < self.axis < shape.rank or \
                self.axis % shape.rank == 0:
            raise ValueError(f"{self.name}: axis {self.axis} is not a non-batch axis of inputs "
                             f"of shape {shape}.")
        dim = shape.as_list()[self.axis]
        if dim is None:
            raise ValueError(f"Axis {self.axis} of the inputs of {self.name} must have a known "
                             f"size, got shape {shape}.")
        groups = dim if self.groups == -1 else self.groups
        if dim < groups or dim % groups:
            raise ValueError(f"{self.name}: the number of groups ({groups}) must divide the "
                             f"number of channels ({dim}) and not exceed it.")
        self._groups, self._rank, self._dim = groups, shape.rank, dim
        if self.scale:
            self.gamma = self.add_weight(name="gamma", shape=[dim],
                                         initializer=self.gamma_initializer,
                                         regularizer=self.gamma_regularizer,
                                         constraint=self.gamma_constraint)
        if self.center:
            self.beta = self.add_weight(name="beta", shape=[dim], initializer=self.beta_initializer,
                                        regularizer=self.beta_regularizer,
                                        constraint=self.beta_constraint)
        self.built = True

    def call(self, inputs):
        x = as_layer_dtype(self, inputs)
        axis = self.axis % self._rank
        known = x.shape.as_list()
        dynamic = array_math.shape(x)
        dims = [d if d is not None else dynamic[i] for i, d in enumerate(known)]
        grouped_shape = [-1, *dims[1:axis], self._groups, self._dim // self._groups,
                         *dims[axis + 1:]]
        grouped = array_math.reshape(x, grouped_shape)
        reduce = [a for a in range(1, self._rank + 1) if a != axis]
        mean, variance = nn_conv.moments(grouped, reduce, keepdims=True)
        inv = array_math.rsqrt(array_math.add(variance, self.epsilon))
        params = [1] * (self._rank + 1)
        params[axis], params[axis + 1] = self._groups, self._dim // self._groups
        if self.gamma is not None:
            inv = array_math.multiply(inv, array_math.reshape(self.gamma, params))
        shift = array_math.negative(array_math.multiply(mean, inv))
        if self.beta is not None:
            shift = array_math.add(shift, array_math.reshape(self.beta, params))
        outputs = array_math.add(array_math.multiply(grouped, inv), shift)
        return array_math.reshape(outputs, dynamic if None in known else known)

    def compute_output_shape(self, input_shape) -> TensorShape:
        return TensorShape(input_shape)


class UnitNormalization(Layer):
    """Scales each example to unit L2 norm over `axis` (an int or a list of ints):
    `x / sqrt(max(sum(x**2), 1e-24))`."""

    _passes_masks = True
    _built_at_init = True  # as Keras: no weights

    def __init__(self, axis=-1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if isinstance(axis, (list, tuple)) and all(isinstance(a, int) for a in axis):
            self.axis = list(axis)
        elif isinstance(axis, int) and not isinstance(axis, bool):
            self.axis = axis
        else:
            raise TypeError(f"UnitNormalization: invalid value for `axis`: expected an int or "
                            f"a list/tuple of ints, got axis={axis!r}.")

    def call(self, inputs):
        x = as_layer_dtype(self, inputs)
        axes = _axes(self.axis, x.shape.rank, "UnitNormalization")
        total = array_math.reduce_sum(array_math.square(x), axis=axes, keepdims=True)
        return array_math.multiply(x, array_math.rsqrt(array_math.maximum(total, 1e-24)))

    def compute_output_shape(self, input_shape) -> TensorShape:
        return TensorShape(input_shape)


def _as_array(batch) -> np.ndarray:
    """A batch (an array, a tensor, a DataFrame, or the features of an `(x, y)` pair) as
    float32 NumPy values."""
    if isinstance(batch, tuple):
        batch = batch[0]
    if hasattr(batch, "to_numpy"):
        batch = batch.to_numpy()
    elif hasattr(batch, "numpy"):
        batch = batch.numpy()
    return np.asarray(batch, dtype=np.float32)


def _batches(data):
    """The batches `adapt` reads: one array, or the elements of a dataset (unbatched
    elements of rank <= 1 grouped by 128, as Keras does) or of an iterable."""
    if isinstance(data, np.ndarray) or _tensor.is_tensor(data) or hasattr(data, "to_numpy"):
        return [_as_array(data)]
    if hasattr(data, "element_spec") and hasattr(data, "batch"):
        spec = data.element_spec
        spec = spec[0] if isinstance(spec, tuple) else spec
        if spec.shape.rank is not None and spec.shape.rank <= 1:
            data = data.batch(128)
        return (_as_array(batch) for batch in data)
    if hasattr(data, "__iter__") and not isinstance(data, (str, bytes, dict)):
        return (_as_array(batch) for batch in data)
    raise TypeError(f"Normalization.adapt: unsupported data of type {type(data).__name__}; "
                    "pass a NumPy array, a tensor, an rt.data.Dataset or an iterable of "
                    "batches.")


class Normalization(Layer):
    """Standardizes features: `(x - mean) / max(sqrt(variance), 1e-7)` per index of `axis`
    (-1 by default; None for one mean and variance over everything), or the inverse with
    `invert=True`.

    `mean` and `variance` are given, or learned from data by `adapt(data)` (an array, a
    tensor, an `rt.data.Dataset` or an iterable of batches); the learned ones are the
    non-trainable weights `mean`, `variance` (and Keras's `count`), saved with the model.
    """

    _passes_masks = True

    def __init__(self, axis=-1, mean=None, variance=None, invert: bool = False,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if axis is None:
            axis = ()
        elif isinstance(axis, int) and not isinstance(axis, bool):
            axis = (axis,)
        elif isinstance(axis, (list, tuple)) and all(isinstance(a, int) for a in axis):
            axis = tuple(axis)
        else:
            raise TypeError(f"Normalization: `axis` must be an int, a tuple of ints or None, "
                            f"got axis={axis!r}.")
        if (mean is None) != (variance is None):
            raise ValueError(f"Normalization: when setting values directly, both `mean` and "
                             f"`variance` must be set, got mean={mean!r} and "
                             f"variance={variance!r}.")
        if mean is not None and np.shape(mean) != np.shape(variance):
            raise ValueError(f"Normalization: `mean` and `variance` must have the same shape, "
                             f"got {np.shape(mean)} and {np.shape(variance)}.")
        if mean is not None and np.ndim(mean) > len(axis):
            raise ValueError(f"Normalization: the rank of `mean` ({np.ndim(mean)}) must be at "
                             f"most the number of axes ({len(axis)}).")
        self.axis, self.input_mean, self.input_variance = axis, mean, variance
        self.invert = bool(invert)
        self.adapt_mean = self.adapt_variance = self.count = None
        self._broadcast_shape: list[int] | None = None

    def get_config(self) -> dict:
        return {**super().get_config(), "axis": self.axis}  # a tuple, as Keras's

    def build(self, input_shape) -> None:
        shape = TensorShape(input_shape)
        if shape.rank is None:
            raise ValueError(f"{self.name} needs inputs of known rank.")
        dims = shape.as_list()
        for a in self.axis:
            if not -len(dims) <= a < len(dims):
                raise ValueError(f"{self.name}: all `axis` values must be in [-ndim, ndim), got "
                                 f"axis={self.axis} for inputs of shape {shape}.")
        self._keep = sorted(a % len(dims) for a in self.axis)
        if any(dims[a] is None for a in self._keep):
            raise ValueError(f"{self.name}: the kept axes {self.axis} must have known sizes, "
                             f"got inputs of shape {shape}.")
        self._broadcast_shape = [dims[a] if a in self._keep else 1 for a in range(len(dims))]
        if self.input_mean is None:
            kept = [dims[a] for a in self._keep]
            self.adapt_mean = self.add_weight(name="mean", shape=kept, initializer="zeros",
                                              trainable=False)
            self.adapt_variance = self.add_weight(name="variance", shape=kept, initializer="ones",
                                                  trainable=False)
            self.count = self.add_weight(name="count", shape=[], dtype="int64", initializer="zeros",
                                         trainable=False)
        self.built = True

    @property
    def mean(self):
        """The mean, shaped to broadcast against the inputs (None before `build`)."""
        return self._statistic(self.adapt_mean, self.input_mean)

    @property
    def variance(self):
        """The variance, shaped to broadcast against the inputs (None before `build`)."""
        return self._statistic(self.adapt_variance, self.input_variance)

    def _statistic(self, learned, given):
        if self._broadcast_shape is None:
            return None
        if given is None:
            return array_math.reshape(learned, self._broadcast_shape)
        value = np.asarray(given, np.float32)
        expanded = [1] * len(self._broadcast_shape)
        for i in range(1, value.ndim + 1):
            expanded[self._keep[-i]] = value.shape[-i]
        value = np.broadcast_to(value.reshape(expanded), self._broadcast_shape)
        return convert_to_tensor(value.astype(self._dtype.as_numpy_dtype))

    def adapt(self, data) -> None:
        """Sets `mean` and `variance` to the data's, over every axis but `axis` (Keras's
        running combination when the data come in batches)."""
        batches = iter(_batches(data))
        first = next(batches, None)
        if first is None:
            raise ValueError("Normalization.adapt received no data (an empty iterable); pass "
                             "at least one batch.")
        if not self.built:  # for the declared input shape, else the data's (any batch)
            declared = self._batch_input_shape
            self._build_once(TensorShape(declared if declared is not None else
                                         (None, *first.shape[1:])))
        if self.input_mean is not None:
            raise ValueError(f"{self.name}: adapt() cannot change a `mean` and `variance` "
                             "given to the constructor.")
        mean = variance = None
        count = 0
        built = self._build_input_shape.as_list()
        for batch in itertools.chain([first], batches):
            if batch.ndim == len(built) - 1 and built[-1] == 1:  # [n] data for (None, 1)
                batch = batch[..., None]
            keep = [a % batch.ndim for a in self.axis]
            reduce = tuple(a for a in range(batch.ndim) if a not in keep)
            batch_mean, batch_var = batch.mean(axis=reduce), batch.var(axis=reduce)
            size = int(np.prod([batch.shape[a] for a in reduce])) if reduce else 1
            count += size
            if mean is None:
                mean, variance = batch_mean, batch_var
                continue
            weight = size / count
            new_mean = mean * (1 - weight) + batch_mean * weight
            variance = (variance + (mean - new_mean) ** 2) * (1 - weight) + \
                (batch_var + (batch_mean - new_mean) ** 2) * weight
            mean = new_mean
        shape = self.adapt_mean.shape.as_list()
        self.adapt_mean.assign(np.reshape(mean, shape).astype(np.float32))
        self.adapt_variance.assign(np.reshape(variance, shape).astype(np.float32))

    def call(self, inputs):
        x = convert_to_tensor(inputs)
        if not x.dtype.is_floating or x.dtype is not self.dtype:
            x = array_math.cast(x, self.dtype)
        scale = array_math.maximum(array_math.sqrt(self.variance), 1e-7)
        if self.invert:
            return array_math.add(self.mean, array_math.multiply(x, scale))
        return array_math.divide(array_math.subtract(x, self.mean), scale)

    def compute_output_shape(self, input_shape) -> TensorShape:
        return TensorShape(input_shape)


class RMSNormalization(Layer):
    """`x * rsqrt(mean(x**2 over axis) + epsilon) * scale`, with a learned `scale` (ones at
    first) of the normalized axes' shape: Keras's root-mean-square normalization."""

    def __init__(self, axis=-1, epsilon: float = 1e-6, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis = axis
        self.epsilon = float(epsilon)
        self.scale = None

    def build(self, input_shape) -> None:
        shape = TensorShape(input_shape)
        if shape.rank is None:
            raise ValueError(f"{self.name} needs inputs of known rank.")
        self._axes = _axes(self.axis, shape.rank, "RMSNormalization")
        params = _param_shape(shape, self._axes, "RMSNormalization")
        self._broadcast = [shape.as_list()[a] if a in self._axes else 1
                           for a in range(shape.rank)]
        self.scale = self.add_weight(name="scale", shape=params, initializer="ones")
        self.built = True

    def call(self, inputs):
        x = as_layer_dtype(self, inputs)
        mean_square = array_math.reduce_mean(array_math.square(x), axis=self._axes, keepdims=True)
        outputs = array_math.multiply(x, array_math.rsqrt(array_math.add(mean_square, self.epsilon)))
        return array_math.multiply(outputs, array_math.reshape(self.scale, self._broadcast))

    def compute_output_shape(self, input_shape) -> TensorShape:
        return TensorShape(input_shape)
