"""Layers that rearrange or look up values: Reshape, Permute, RepeatVector, Lambda,
Masking, Embedding."""

from __future__ import annotations

import inspect
from typing import Any, Callable

import numpy as np

from ..ops import array_math, linalg, nn_conv
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


def _keras_uniform(init):
    """Keras's initializer name "uniform" as this runtime names it."""
    return "random_uniform" if isinstance(init, str) and init.lower() == "uniform" else init


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
        self.embeddings = self.add_weight(name="embeddings",
                                          shape=[self.input_dim, self.output_dim],
                                          initializer=_keras_uniform(self.embeddings_initializer),
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


class ReversibleEmbedding(Embedding):
    """An Embedding that also maps vectors back to logits over its ids: `call(inputs,
    reverse=True)` gives `inputs @ embeddings.T` (`[..., output_dim]` -> `[..., input_dim]`),
    as a language model's output layer sharing its input table. `tie_weights=False` gives the
    reverse its own `reverse_embeddings` weight `[output_dim, input_dim]`; `reverse_dtype`
    the dtype that product runs in; `logit_soft_cap` c bounds the logits as
    `c * tanh(logits / c)`."""

    def __init__(self, input_dim: int, output_dim: int, tie_weights: bool = True,
                 embeddings_initializer: str | Callable = "uniform", embeddings_regularizer=None,
                 embeddings_constraint=None, mask_zero: bool = False, reverse_dtype=None,
                 logit_soft_cap: float | None = None, activity_regularizer=None,
                 quantization_config=None, **kwargs: Any) -> None:
        super().__init__(input_dim, output_dim, embeddings_initializer, embeddings_regularizer,
                         embeddings_constraint, mask_zero,
                         activity_regularizer=activity_regularizer,
                         quantization_config=quantization_config, **kwargs)
        self.tie_weights = bool(tie_weights)
        self.reverse_dtype = reverse_dtype
        self.logit_soft_cap = logit_soft_cap
        self.reverse_embeddings = None

    def build(self, input_shape=None) -> None:
        super().build(input_shape)
        if not self.tie_weights:
            self.reverse_embeddings = self.add_weight(
                name="reverse_embeddings", shape=[self.output_dim, self.input_dim],
                initializer=_keras_uniform(self.embeddings_initializer),
                regularizer=self.embeddings_regularizer, constraint=self.embeddings_constraint)

    def call(self, inputs, reverse: bool = False):
        if not reverse:
            return super().call(inputs)
        kernel = (array_math.transpose(self.embeddings) if self.tie_weights
                  else self.reverse_embeddings)
        dtype = self.reverse_dtype or self.dtype
        x = array_math.cast(convert_to_tensor(inputs), dtype)
        logits = linalg.matmul(x, array_math.cast(kernel, dtype))
        if self.logit_soft_cap is not None:
            cap = array_math.cast(self.logit_soft_cap, logits.dtype)
            logits = array_math.multiply(array_math.tanh(array_math.divide(logits, cap)), cap)
        return logits

    def compute_mask(self, inputs, mask=None):
        if not convert_to_tensor(inputs).dtype.is_integer:
            return None  # vectors to logits: no ids to mask
        return super().compute_mask(inputs, mask)

    def compute_output_shape(self, input_shape, reverse: bool = False) -> TensorShape:
        if reverse:
            return TensorShape(TensorShape(input_shape).as_list()[:-1] + [self.input_dim])
        return super().compute_output_shape(input_shape)
