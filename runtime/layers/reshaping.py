"""Layers that rearrange or look up values: Reshape, Permute, RepeatVector, Lambda,
Masking, Embedding."""

from __future__ import annotations

import inspect
from typing import Any, Callable

import numpy as np

from ..ops import array_math, nn_conv
from ..ops.core import convert_to_tensor
from ..shapes import TensorShape
from . import constraints as _constraints
from . import regularizers as _regularizers
from .base import Layer, positive_int
from .kernel_layer import refuse_quantization


class Reshape(Layer):
    """Reshapes each example to `target_shape` (the batch axis is kept); one entry may be -1."""

    def __init__(self, target_shape, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        try:
            self.target_shape = tuple(int(d) for d in target_shape)
        except TypeError:
            raise TypeError(f"Reshape: `target_shape` must be a tuple of ints, got "
                            f"{target_shape!r}.") from None
        if sum(d == -1 for d in self.target_shape) > 1 or \
                any(d < -1 or d == 0 for d in self.target_shape):
            raise ValueError(f"Reshape: `target_shape` must hold positive ints and at most one "
                             f"-1, got {target_shape!r}.")

    def call(self, inputs):
        x = convert_to_tensor(inputs)
        batch = x.shape.as_list()[0] if x.shape.rank else None
        if batch is None and -1 not in self.target_shape:
            batch = -1
        if batch is None:  # both the batch and one target dimension unknown: the batch from x
            batch = array_math.shape(x)[0]
        return array_math.reshape(x, [batch, *self.target_shape])

    def compute_output_shape(self, input_shape) -> TensorShape:
        dims = TensorShape(input_shape).as_list()
        target = list(self.target_shape)
        if -1 in target:
            known = dims[1:]
            rest = 1
            for d in target:
                rest *= 1 if d == -1 else d
            total = None if None in known else int(np.prod(known, dtype=np.int64))
            target[target.index(-1)] = None if total is None else total // rest
        return TensorShape([dims[0], *target])


class Permute(Layer):
    """Permutes the non-batch axes: `dims` is a permutation of 1..rank-1 (Keras's indexing)."""

    def __init__(self, dims, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.dims = tuple(int(d) for d in dims)
        if sorted(self.dims) != list(range(1, len(self.dims) + 1)):
            raise ValueError(f"Permute: `dims` must be a permutation of 1..{len(self.dims)}, "
                             f"got {dims!r}.")

    def call(self, inputs):
        x = convert_to_tensor(inputs)
        if x.shape.rank is not None and x.shape.rank != len(self.dims) + 1:
            raise ValueError(f"{self.name}: dims {self.dims} need inputs of rank "
                             f"{len(self.dims) + 1}, got shape {x.shape}.")
        return array_math.transpose(x, [0, *self.dims])

    def compute_output_shape(self, input_shape) -> TensorShape:
        dims = TensorShape(input_shape).as_list()
        return TensorShape([dims[0], *(dims[d] for d in self.dims)])


class RepeatVector(Layer):
    """Repeats `[batch, features]` inputs `n` times: `[batch, n, features]`."""

    def __init__(self, n: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
            raise TypeError(f"RepeatVector: expected an integer value for `n`, got n={n!r}.")
        if int(n) < 1:
            raise ValueError(f"RepeatVector: `n` must be positive, got {n!r}.")
        self.n = int(n)

    def call(self, inputs):
        x = convert_to_tensor(inputs)
        if x.shape.rank is not None and x.shape.rank != 2:
            raise ValueError(f"{self.name} needs inputs of rank 2, got shape {x.shape}.")
        return array_math.tile(array_math.expand_dims(x, 1), [1, self.n, 1])

    def compute_output_shape(self, input_shape) -> TensorShape:
        dims = TensorShape(input_shape).as_list()
        return TensorShape([dims[0], self.n, *dims[1:]])


class Lambda(Layer):
    """Wraps a function of the inputs as a layer: `function(inputs, **arguments)` (also given
    `mask=` and `training=` when it takes them).

    `mask` is the output's mask: a callable `mask(inputs, previous_mask)` or a mask; None
    (the default) drops the inputs' mask, as Keras does.
    """

    def __init__(self, function: Callable, output_shape=None, mask=None,
                 arguments: dict | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not callable(function):
            raise TypeError(f"Lambda: `function` must be callable, got {function!r}.")
        self.function = function
        self.output_shape = output_shape
        self.mask = mask
        self.supports_masking = mask is not None
        self.arguments = dict(arguments or {})
        try:
            params = inspect.signature(function).parameters
        except (TypeError, ValueError):
            params = {}
        self._function_takes = {name for name in ("mask", "training") if name in params}

    def call(self, inputs, mask=None, training=None):
        extra = {}
        if "mask" in self._function_takes:
            extra["mask"] = mask
        if "training" in self._function_takes:
            extra["training"] = training
        return self.function(inputs, **self.arguments, **extra)

    def compute_mask(self, inputs, mask=None):
        if callable(self.mask):
            return self.mask(inputs, mask)
        return self.mask


class Masking(Layer):
    """Masks the steps whose features all equal `mask_value`: their outputs are zero and
    the output's mask (`_keras_mask`, `[batch, steps]`) is False there, so recurrent layers
    skip them and losses and metrics leave them out."""

    _passes_masks = True
    _built_at_init = True  # as Keras: no weights
    _mask_steps = 2  # Keras computes the mask in two operations (any of not_equal)

    def __init__(self, mask_value: float = 0.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.mask_value = mask_value

    def compute_mask(self, inputs, mask=None):
        x = convert_to_tensor(inputs)
        return array_math.reduce_any(array_math.not_equal(x, array_math.cast(self.mask_value,
                                                                             x.dtype)), axis=-1)

    def call(self, inputs):
        x = convert_to_tensor(inputs)
        keep = array_math.reduce_any(
            array_math.not_equal(x, array_math.cast(self.mask_value, x.dtype)), axis=-1,
            keepdims=True)
        outputs = array_math.where(keep, x, array_math.zeros_like(x))
        outputs._keras_mask = array_math.squeeze(keep, [-1])
        return outputs

    def compute_output_shape(self, input_shape) -> TensorShape:
        return TensorShape(input_shape)


class Embedding(Layer):
    """Maps integer ids in [0, input_dim) to rows of a trainable `[input_dim, output_dim]`
    table: `[batch, ...]` ids give `[batch, ..., output_dim]` values.

    With `mask_zero=True`, the output's mask (`compute_mask(ids)`, `_keras_mask`) is
    `ids != 0`: id 0 is padding (`input_dim` then counts it), and recurrent layers, pooling,
    losses and metrics leave those steps out.
    """

    # left out of the config at its default (Keras 3's Embedding has no input_length)
    _config_defaults_kept_out = {"input_length": None}

    def __init__(self, input_dim: int, output_dim: int,
                 embeddings_initializer: str | Callable = "uniform", embeddings_regularizer=None,
                 embeddings_constraint=None, mask_zero: bool = False,
                 input_length: int | None = None, activity_regularizer=None,
                 quantization_config=None, **kwargs: Any) -> None:
        refuse_quantization("Embedding", None, quantization_config)
        if input_length is not None and "input_shape" not in kwargs:
            kwargs["input_shape"] = (input_length,)
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.quantization_config = quantization_config
        self.input_dim = positive_int(input_dim, "input_dim", "Embedding", python_int=True)
        self.output_dim = positive_int(output_dim, "output_dim", "Embedding",
                                       python_int=True)
        self.embeddings_initializer = embeddings_initializer
        self.embeddings_regularizer = _regularizers.get(embeddings_regularizer,
                                                        "embeddings_regularizer")
        self.embeddings_constraint = _constraints.get(embeddings_constraint,
                                                      "embeddings_constraint")
        self.mask_zero = bool(mask_zero)
        self.input_length = input_length
        self.embeddings = None

    def build(self, input_shape) -> None:
        init = self.embeddings_initializer
        if isinstance(init, str) and init.lower() == "uniform":  # Keras's name
            init = "random_uniform"
        self.embeddings = self.add_weight(name="embeddings",
                                          shape=[self.input_dim, self.output_dim],
                                          initializer=init,
                                          regularizer=self.embeddings_regularizer,
                                          constraint=self.embeddings_constraint)
        self.built = True

    def call(self, inputs):
        ids = convert_to_tensor(inputs)
        if not ids.dtype.is_integer:
            ids = array_math.cast(ids, "int32")
        return nn_conv.embedding_lookup(self.embeddings, ids)

    def compute_mask(self, inputs, mask=None):
        """`inputs != 0` when `mask_zero`, else None."""
        if not self.mask_zero:
            return None
        return array_math.not_equal(convert_to_tensor(inputs), 0)

    def compute_output_shape(self, input_shape) -> TensorShape:
        return TensorShape(TensorShape(input_shape).as_list() + [self.output_dim])
