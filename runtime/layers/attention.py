"""Attention layers: MultiHeadAttention, GroupedQueryAttention, Attention (dot-product, Luong
style), AdditiveAttention (Bahdanau style), and EinsumDense, the projection the multi-head
layers use.

Masks follow Keras 3: a `False` entry of a query's mask zeroes (Attention) or masks (
MultiHeadAttention) that query step, a `False` entry of a value's (or key's) mask keeps
that step out of every softmax, and `use_causal_mask=True` keeps step `i` from attending
to steps after `i`. Weights are laid out as Keras's, so `set_weights(keras_layer.
get_weights())` moves a trained layer here.
"""

from __future__ import annotations

import re
import string
from typing import Any, Callable, Sequence, Tuple, Union

import numpy as np

from .. import tensor as _tensor
from ..module import keras_unique_name
from ..ops import array_math, array_sort, linalg, nn
from ..ops.control_flow import cond
from ..ops.core import convert_to_tensor
from ..ops.variables import Variable
from ..shapes import TensorShape
from . import activations
from . import constraints as _constraints
from . import initializers as _initializers
from . import regularizers as _regularizers
from .base import Layer, _as_tensors, _has_keras_tensors, positive_int
from .core import Dropout, seeded_dropout
from .kernel_layer import as_layer_dtype
from .seed_generator import SeedGenerator

_LARGE_NEGATIVE = -1e9
# an attention layer's result: the output, or (output, attention scores)
_Outputs = Union[_tensor.Tensor, Tuple[_tensor.Tensor, _tensor.Tensor]]


def _dropout(x, rate: float, training, generator: SeedGenerator | None):
    """`x` with dropout when `training` (a Python bool or a boolean tensor), drawn as Keras
    draws it: at the layer's SeedGenerator's next seed."""
    if rate <= 0 or training is None or training is False:
        return x
    if _tensor.is_tensor(training):
        return cond(training, lambda: seeded_dropout(x, rate, None, generator),
                    lambda: array_math.identity(x))
    return seeded_dropout(x, rate, None, generator) if training else x


def _as_bool(mask):
    mask = convert_to_tensor(mask)
    if mask.dtype.is_bool:
        return mask
    return array_math.greater(array_math.cast(mask, "float32"), 0.5)


def _causal_mask(query_steps, value_steps):
    """`[1, T, S]`: True where the key step is not after the query step."""
    rows = array_math.reshape(array_math.range(query_steps), [1, -1, 1])
    cols = array_math.reshape(array_math.range(value_steps), [1, 1, -1])
    return array_math.greater_equal(rows, cols)


def _window_mask(query_steps, value_steps, window: int):
    """`[1, T, S]`: True where the key step is less than `window` steps from the query's."""
    rows = array_math.reshape(array_math.range(query_steps), [1, -1, 1])
    cols = array_math.reshape(array_math.range(value_steps), [1, 1, -1])
    return array_math.less(array_math.abs(array_math.subtract(rows, cols)), window)


def _steps(x, axis: int = 1):
    """The size of `x`'s `axis`: a Python int when static, else a scalar tensor."""
    size = x.shape[axis] if x.shape.rank is not None else None
    return size if size is not None else array_math.shape(x)[axis]


def _is_dim(value) -> bool:
    return value is None or (isinstance(value, (int, np.integer)) and not isinstance(value, bool))


def _and(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return array_math.logical_and(a, b)


# -- EinsumDense ---------------------------------------------------------------------------

_EQUATION = re.compile(r"^([a-zA-Z.]+),([a-zA-Z]+)->([a-zA-Z.]+)$")


def _parse_equation(equation: str) -> tuple[str, str, str]:
    found = _EQUATION.match(equation.replace(" ", "")) if isinstance(equation, str) else None
    if found is None:
        raise ValueError(f"EinsumDense: invalid `equation` {equation!r}: expected "
                         "'<input>,<kernel>-><output>' such as 'ab,bc->ac' or '...b,bc->...c'.")
    lhs, kernel, out = found.groups()
    for part in (lhs, out):
        if part.count("...") > 1 or part.replace("...", "").count(".") or \
                ("..." in part and not (part.startswith("...") or part.endswith("..."))):
            raise ValueError(f"EinsumDense: invalid `equation` {equation!r}: an ellipsis may "
                             "only open or close the input and output terms.")
    if ("..." in lhs) != ("..." in out):
        raise ValueError(f"EinsumDense: invalid `equation` {equation!r}: the input and the "
                         "output must both have the ellipsis or neither.")
    return lhs, kernel, out


class EinsumDense(Layer):
    """`activation(einsum(equation, inputs, kernel) + bias)`: a dense layer whose contraction
    is an einsum equation, as `keras.layers.EinsumDense`.

    `equation` is `"<input>,<kernel>-><output>"`, e.g. `"ab,bc->ac"` (a Dense layer) or
    `"...b,bc->...c"`; `output_shape` gives the output's dimensions after the batch one (after
    the ellipsis for a leading ellipsis), None where the input fixes them. The kernel's shape
    follows its letters; `bias_axes` (output letters) gives the bias's axes.
    """

    _passes_masks = False

    def __init__(self, equation: str, output_shape, activation: str | Callable | None = None,
                 bias_axes: str | None = None,
                 kernel_initializer: str | Callable = "glorot_uniform",
                 bias_initializer: str | Callable = "zeros", kernel_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, lora_rank=None, lora_alpha=None, **kwargs: Any) -> None:
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        if lora_rank is not None:
            raise NotImplementedError("EinsumDense(lora_rank=...) is not implemented: LoRA "
                                      "adapters are not supported.")
        self.equation = equation
        self._terms = _parse_equation(equation)
        if isinstance(output_shape, (int, np.integer)) and not isinstance(output_shape, bool):
            output_shape = (int(output_shape),)
        if not isinstance(output_shape, (list, tuple)):
            raise ValueError(f"EinsumDense: `output_shape` must be an int or a tuple of ints "
                             f"(None where the input fixes it), got {output_shape!r}.")
        self.partial_output_shape = tuple(output_shape)
        self.bias_axes = bias_axes
        if bias_axes is not None:
            missing = [c for c in bias_axes if c not in self._terms[2]]
            if missing:
                raise ValueError(f"EinsumDense: `bias_axes` {bias_axes!r} names {missing}, "
                                 f"which are not letters of the output {self._terms[2]!r}.")
        self.activation = activations.get(activation)
        self.kernel_initializer = kernel_initializer
        self.bias_initializer = bias_initializer
        self.kernel_regularizer = _regularizers.get(kernel_regularizer, "kernel_regularizer")
        self.bias_regularizer = _regularizers.get(bias_regularizer, "bias_regularizer")
        self.kernel_constraint = _constraints.get(kernel_constraint, "kernel_constraint")
        self.bias_constraint = _constraints.get(bias_constraint, "bias_constraint")
        self.kernel: Variable | None = None
        self.bias: Variable | None = None
        self._full_equation = ""

    def _expanded(self, rank: int) -> tuple[str, str, str, list[str]]:
        """The equation for inputs of `rank` with the ellipsis spelt out, and the output
        letters `output_shape` describes."""
        lhs, kernel, out = self._terms
        explicit = lhs.replace("...", "")
        elided = rank - len(explicit)
        if elided < 0 or (elided and "..." not in lhs):
            raise ValueError(f"{self.name}: the equation {self.equation!r} expects inputs of "
                             f"rank {len(explicit)}, got rank {rank}.")
        spare = [c for c in string.ascii_letters if c not in lhs + kernel + out][:elided]
        fill = "".join(spare)
        described = [c for c in out.replace("...", "")]
        if not out.startswith("..."):
            described = described[1:]  # the batch letter is not described
        return lhs.replace("...", fill), kernel, out.replace("...", fill), described

    def _kernel_initializer_for(self, lhs: str, kernel: str, out: str):
        """A variance-scaling initializer without `input_axes`/`output_axes` gets the
        kernel's (its letters in the output, and the others in the inputs), with the same
        seed, so its fans are Keras's."""
        initializer = self.kernel_initializer
        if not isinstance(initializer, _initializers.VarianceScaling) or (
                initializer.input_axes is not None and initializer.output_axes is not None):
            return initializer
        config = {**initializer.get_config(), "seed": initializer.seed,
                  "input_axes": [i for i, c in enumerate(kernel) if c not in out and c in lhs],
                  "output_axes": [i for i, c in enumerate(kernel) if c in out]}
        return type(initializer).from_config(config)

    def build(self, input_shape=None) -> None:
        dims = TensorShape(input_shape).as_list()
        lhs, kernel, out, described = self._expanded(len(dims))
        if len(described) != len(self.partial_output_shape):
            raise ValueError(f"{self.name}: `output_shape` {self.partial_output_shape} must "
                             f"give {len(described)} dimensions for the output letters "
                             f"{''.join(described)!r} of {self.equation!r}.")
        sizes = dict(zip(lhs, dims))
        for letter, size in zip(described, self.partial_output_shape):
            if letter in sizes and size is not None and sizes[letter] is not None \
                    and size != sizes[letter]:
                raise ValueError(f"{self.name}: `output_shape` gives {letter!r} size {size}, "
                                 f"but the input's {letter!r} axis has size {sizes[letter]}.")
            if letter not in sizes or sizes[letter] is None:
                sizes[letter] = size
        unknown = [c for c in kernel if sizes.get(c) is None]
        if unknown:
            raise ValueError(f"{self.name}: the kernel letters {unknown} of {self.equation!r} "
                             f"get no size from the input shape {dims} or `output_shape`.")
        self._full_equation = f"{lhs},{kernel}->{out}"
        self.kernel = self.add_weight(name="kernel", shape=[sizes[c] for c in kernel],
                                      initializer=self._kernel_initializer_for(lhs, kernel,
                                                                               out),
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        if self.bias_axes:
            first = min(out.index(c) for c in self.bias_axes)
            shape = [sizes[c] if c in self.bias_axes else 1 for c in out[first:]]
            self.bias = self.add_weight(name="bias", shape=shape, initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint)
        self.built = True

    def compute_output_shape(self, input_shape) -> TensorShape:
        """The output's shape for inputs of `input_shape`."""
        dims = TensorShape(input_shape).as_list()
        lhs, _, out, described = self._expanded(len(dims))
        sizes = dict(zip(lhs, dims))
        sizes.update({c: n for c, n in zip(described, self.partial_output_shape)
                      if n is not None or c not in sizes})
        return TensorShape([sizes.get(c) for c in out])

    def call(self, inputs) -> _tensor.Tensor:
        x = as_layer_dtype(self, inputs)
        y = linalg.einsum(self._full_equation, x, self.kernel)
        if self.bias is not None:
            y = array_math.add(y, self.bias)
        return self.activation(y)


# -- MultiHeadAttention --------------------------------------------------------------------

def masked_softmax(scores, mask, attended: int = 1, zero_masked: bool = True):
    """Softmax over the last `attended` axes of `scores`, entries where `mask` is False left
    out; with `zero_masked` those entries are zero (a fully masked row is zero, as Keras's
    Softmax layer with a mask gives), else a fully masked row is uniform. `mask` broadcasts
    against the scores after its missing head axes are added."""
    axes = list(range(scores.shape.rank - attended, scores.shape.rank))
    if mask is not None:
        while mask.shape.rank < scores.shape.rank:
            mask = array_math.expand_dims(mask, -attended * 2 - 1)
        mask = array_math.logical_and(mask, array_math.ones_like(scores, dtype="bool"))
        scores = array_math.where(mask, scores, array_math.fill(
            array_math.shape(scores), np.asarray(_LARGE_NEGATIVE, scores.dtype.as_numpy_dtype)))
    if attended == 1:
        weights = nn.softmax(scores, axis=-1)
    else:
        weights = array_math.exp(array_math.subtract(
            scores, array_math.reduce_logsumexp(scores, axis=axes, keepdims=True)))
    if mask is not None and zero_masked:
        weights = array_math.where(mask, weights, array_math.zeros_like(weights))
    return weights


def combined_mask(query, value, query_mask=None, value_mask=None, key_mask=None,
                  attention_mask=None, use_causal_mask: bool = False,
                  sliding_window: int | None = None):
    """The boolean `[batch, T, S]` (or broadcastable) mask of allowed attention: the and of
    the query's (`[B, T, 1]`), value's and key's (`[B, 1, S]`) masks, the causal and
    sliding-window masks (`[1, T, S]`) and `attention_mask`; None when there is none."""
    mask = None
    if query_mask is not None:
        mask = array_math.expand_dims(_as_bool(query_mask), -1)
    for step_mask in (value_mask, key_mask):
        if step_mask is not None:
            mask = _and(mask, array_math.expand_dims(_as_bool(step_mask), -2))
    if use_causal_mask:
        mask = _and(mask, _causal_mask(_steps(query), _steps(value)))
    if sliding_window is not None:
        mask = _and(mask, _window_mask(_steps(query), _steps(value), sliding_window))
    if attention_mask is not None:
        mask = _and(_as_bool(attention_mask), mask)
    return mask


def _projection(rank: int, bound: int, outputs: int) -> tuple[str, str]:
    """An einsum equation contracting the last `bound` axes of a rank-`rank` input with a
    kernel into `outputs` new axes, and the letters of those new axes (the bias's)."""
    letters = string.ascii_lowercase
    free = letters[:rank - bound]
    contracted = letters[rank - bound:rank]
    new = letters[rank:rank + outputs]
    return f"{free}{contracted},{contracted}{new}->{free}{new}", new


def _attention_equations(rank: int, axes: Sequence[int]) -> tuple[str, str]:
    """The (key, query -> scores) and (scores, value -> output) einsum equations for
    projected tensors of `rank` `[batch, ..., heads, channels]` attending over `axes`."""
    letters = string.ascii_lowercase
    target = letters[:rank]
    batch = [i for i in range(rank) if i not in axes and i != rank - 1]
    fresh = iter(letters[rank:])
    source = "".join(target[i] if i in batch or i == rank - 1 else next(fresh)
                     for i in range(rank))
    scores = "".join([target[i] for i in batch] + [target[i] for i in axes]
                     + [source[i] for i in axes])
    return f"{source},{target}->{scores}", f"{scores},{source}->{target}"


class _QueryValueLayer(Layer):
    """A layer called as `layer(query, value, key=None, ...)`, built from the shapes of all
    three inputs on the first call."""

    dropout: float
    seed: int | None
    _dropout_layer: Dropout | None = None  # made by build

    def _resolve_initializers(self) -> None:
        """The projections' initializers made now, as Keras's layer makes its own in its
        constructor (a random one without a seed takes one from Python's `random` here)."""
        kwargs = self._sublayer_kwargs
        for key in ("kernel_initializer", "bias_initializer"):
            if isinstance(kwargs[key], (str, dict)):
                kwargs[key] = _initializers.get(kwargs[key])

    def _projection_kwargs(self) -> dict:
        """The keywords of a projection: a fresh copy of each initializer (as Keras clones
        them from their configs, so an unseeded one draws a new seed per projection)."""
        kwargs = dict(self._sublayer_kwargs)
        for key in ("kernel_initializer", "bias_initializer"):
            made = kwargs[key]
            if hasattr(made, "get_config") and hasattr(type(made), "from_config"):
                kwargs[key] = type(made).from_config(made.get_config())
        return kwargs

    def _make_dropout_layer(self) -> None:
        """The Dropout of the attention weights, made where Keras's layer makes it (with
        `dropout` > 0 its SeedGenerator takes a seed there when not given one), after the
        name of Keras's Softmax sublayer, so later layers get Keras's names."""
        keras_unique_name("softmax")
        self._dropout_layer = Dropout(self.dropout, seed=self.seed, dtype=self.dtype)

    def _attention_dropout(self, weights, training):
        if self.dropout <= 0 or self._dropout_layer is None:
            return weights
        return self._dropout_layer(weights, training=training)

    def __call__(self, query=None, value=None, key=None, **kwargs: Any) -> _Outputs:
        """`call(query, value, key=None, ...)`; the first call builds the projections from
        the shapes of all three inputs (keywords `query=`, `value=` work too)."""
        if query is None or value is None:
            raise ValueError(f"{self.name} needs both `query` and `value`, as in "
                             "layer(query, value) or layer(query=..., value=...).")
        if not self.built and not _has_keras_tensors((query, value, key)):
            inputs = [_as_tensors(query), _as_tensors(value)]
            self._build_once(inputs if key is None else inputs + [_as_tensors(key)])
        return super().__call__(query, value, key=key, **kwargs)


class MultiHeadAttention(_QueryValueLayer):
    """Multi-head attention as in "Attention Is All You Need" (`keras.layers.
    MultiHeadAttention`): `query`, `key` and `value` are projected to `num_heads` heads of
    `key_dim` (`value_dim`) channels, each head attends with `softmax(q k^T / sqrt(key_dim))`,
    and the heads are projected back to the query's last dimension (or `output_shape`).

    `call(query, value, key=None, ..., return_attention_scores=False, use_causal_mask=False)`
    with inputs `[batch, steps..., features]`; attention runs over `attention_axes` (default:
    every axis but the batch and the features). Masks of the query, value and key (their
    Keras masks, or `query_mask=`, `value_mask=`, `key_mask=`), `attention_mask` `[batch, T,
    S]` (True where attending is allowed), the causal mask and the `sliding_window` band
    (steps less than `sliding_window` apart) are combined with a logical and. The output
    carries the query's mask. `use_gate=True` multiplies each head's output by a sigmoid gate
    projected from the query. Weights, in `get_weights` order: query, key (and gate) and
    value kernels `[features, num_heads, key_dim]` each with a bias `[num_heads, key_dim]`,
    then the output kernel `[num_heads, value_dim, features]` and its bias.
    """

    _passes_masks = True
    _query_dense: EinsumDense
    _key_dense: EinsumDense
    _value_dense: EinsumDense
    _output_dense: EinsumDense
    _gate_dense: EinsumDense

    _config_defaults_kept_out = {"flash_attention": None}  # as Keras 3's config

    def __init__(self, num_heads: int, key_dim: int, value_dim: int | None = None,
                 dropout: float = 0.0, use_bias: bool = True, output_shape=None,
                 attention_axes=None, sliding_window=None, flash_attention=None,
                 kernel_initializer: str | Callable = "glorot_uniform",
                 bias_initializer: str | Callable = "zeros", kernel_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, use_gate: bool = False, seed=None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.num_heads = positive_int(num_heads, "num_heads", "MultiHeadAttention",
                                      python_int=True)
        self.key_dim = positive_int(key_dim, "key_dim", "MultiHeadAttention", python_int=True)
        self.value_dim = self.key_dim if value_dim is None else \
            positive_int(value_dim, "value_dim", "MultiHeadAttention")
        if flash_attention:
            raise NotImplementedError("MultiHeadAttention(flash_attention=True) is not "
                                      "implemented: there is no fused attention kernel here; "
                                      "leave it None or False.")
        self.flash_attention = flash_attention
        self.sliding_window = None if sliding_window is None else \
            positive_int(sliding_window, "sliding_window", "MultiHeadAttention")
        self.use_gate = bool(use_gate)
        if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) \
                or not 0 <= dropout < 1:
            raise ValueError("MultiHeadAttention: `dropout` must be a float in [0, 1), got "
                             f"dropout={dropout!r}.")
        self.dropout = float(dropout)
        self.use_bias = bool(use_bias)
        if isinstance(output_shape, (int, np.integer)) and not isinstance(output_shape, bool):
            output_shape = (int(output_shape),)
        elif output_shape is not None and not isinstance(output_shape, (list, tuple)):
            raise ValueError(f"MultiHeadAttention: invalid `output_shape` {output_shape!r}: "
                             "give an int, a tuple or a list.")
        self.output_shape = tuple(output_shape) if output_shape else None
        if isinstance(attention_axes, int):
            attention_axes = (attention_axes,)
        elif attention_axes is not None and not isinstance(attention_axes, (list, tuple)):
            raise ValueError("MultiHeadAttention: `attention_axes` must be an int, list or "
                             f"tuple, got attention_axes={attention_axes!r}.")
        self.attention_axes = None if attention_axes is None else tuple(attention_axes)
        self.seed = seed
        self._sublayer_kwargs = dict(
            kernel_initializer=kernel_initializer, bias_initializer=bias_initializer,
            kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
            activity_regularizer=activity_regularizer, kernel_constraint=kernel_constraint,
            bias_constraint=bias_constraint)
        self._resolve_initializers()
        # the projections (query, key, value, attention_output) are made by build

    # Keras's read-only views of the projections (None before the layer is built)
    query_dense = property(lambda self: self.__dict__.get("_query_dense"))
    key_dense = property(lambda self: self.__dict__.get("_key_dense"))
    value_dense = property(lambda self: self.__dict__.get("_value_dense"))
    output_dense = property(lambda self: self.__dict__.get("_output_dense"))

    def _dense(self, rank: int, bound: int, shape: Sequence, name: str,
               activation: str | None = None) -> EinsumDense:
        equation, new = _projection(rank, bound, len(shape))
        described = [None] * (rank - bound - 1) + list(shape)
        return EinsumDense(equation, output_shape=described, activation=activation,
                           bias_axes=new if self.use_bias else None, name=name,
                           dtype=self.dtype, **self._projection_kwargs())

    def build(self, query_shape, value_shape=None, key_shape=None) -> None:
        """Creates the projections; `query_shape` may also be a list of the three shapes."""
        if value_shape is None and isinstance(query_shape, (list, tuple)) and query_shape \
                and not _is_dim(query_shape[0]):
            query_shape, value_shape, *rest = list(query_shape) + [None]
            key_shape = rest[0]
        query_shape = TensorShape(query_shape)
        value_shape = query_shape if value_shape is None else TensorShape(value_shape)
        key_shape = value_shape if key_shape is None else TensorShape(key_shape)
        if value_shape[1:-1].as_list() != key_shape[1:-1].as_list():
            raise ValueError("MultiHeadAttention: all dimensions of `value` and `key`, except "
                             f"the last one, must be equal; got value_shape={value_shape} "
                             f"and key_shape={key_shape}.")
        rank = query_shape.rank
        if rank is None or rank < 3:
            raise ValueError(f"{self.name} needs inputs of rank >= 3 [batch, steps, features], "
                             f"got query shape {query_shape}.")
        heads = [self.num_heads, self.key_dim]
        self._query_dense = self._dense(rank, 1, heads, "query")
        self._query_dense.build(query_shape)
        self._key_dense = self._dense(key_shape.rank, 1, heads, "key")
        self._key_dense.build(key_shape)
        if self.use_gate:  # Keras's order: query, key, gate, value, output
            self._gate_dense = self._dense(rank, 1, [self.num_heads, self.value_dim], "gate",
                                           activation="sigmoid")
            self._gate_dense.build(query_shape)
        self._value_dense = self._dense(value_shape.rank, 1, [self.num_heads, self.value_dim],
                                        "value")
        self._value_dense.build(value_shape)
        self._make_dropout_layer()
        projected = rank + 1
        axes = self.attention_axes if self.attention_axes is not None \
            else tuple(range(1, projected - 2))
        self._axes = tuple(a if a >= 0 else projected - 1 + a for a in axes)
        if any(not 0 < a < projected - 2 for a in self._axes):
            raise ValueError(f"{self.name}: `attention_axes` {axes} must be axes of the query "
                             f"between the batch and the features (1 to {rank - 2}).")
        self._dot_equation, self._combine_equation = _attention_equations(projected, self._axes)
        out = list(self.output_shape) if self.output_shape else [query_shape[-1]]
        self._output_dense = self._dense(projected, 2, out, "attention_output")
        self._output_dense.build(query_shape.as_list()[:-1] + [self.num_heads, self.value_dim])
        self.built = True

    def call(self, query, value, key=None, query_mask=None, value_mask=None, key_mask=None,
             attention_mask=None, return_attention_scores: bool = False, training=None,
             use_causal_mask: bool = False) -> _Outputs:
        query, value = convert_to_tensor(query), convert_to_tensor(value)
        key = value if key is None else convert_to_tensor(key)
        for tensor in (query, value, key):
            # Keras 3 takes the inputs' masks off them (the layer's own output keeps the
            # query's): a tensor attended to has no mask afterwards, in Keras as here
            if getattr(tensor, "_keras_mask", None) is not None:
                tensor._keras_mask = None
        mask = self._attention_mask(query, value, key is value, query_mask, value_mask,
                                    key_mask, attention_mask, use_causal_mask)
        q = self._query_dense(query)
        k = self._key_dense(key)
        v = self._value_dense(value)
        gate = self._gate_dense(query) if self.use_gate else None
        q = array_math.multiply(q, np.asarray(1.0 / np.sqrt(float(self.key_dim)),
                                              q.dtype.as_numpy_dtype))
        # Keras zeroes the weights of fully masked rows only on its explicit-scores path
        # (dropout, returned scores, or inputs of rank > 3); its fused path gives them
        # uniform weights
        zero_masked = self.dropout > 0 or return_attention_scores or query.shape.rank != 3
        scores = self._masked_softmax(linalg.einsum(self._dot_equation, k, q), mask,
                                      zero_masked)
        dropped = self._attention_dropout(scores, training)
        heads = linalg.einsum(self._combine_equation, dropped, v)
        output = self._output_dense(heads if gate is None else array_math.multiply(heads, gate))
        if return_attention_scores:
            return output, scores
        return output

    def get_config(self) -> dict:
        config = super().get_config()
        config["value_dim"] = self.value_dim  # resolved, as Keras's
        return config

    def compute_output_shape(self, query_shape, value_shape=None,
                             key_shape=None) -> TensorShape:
        """The query's shape with the last dimension `output_shape` (default: the query's)."""
        dims = TensorShape(query_shape).as_list()
        return TensorShape(dims[:-1] + list(self.output_shape or dims[-1:]))

    def _attention_mask(self, query, value, key_is_value: bool, query_mask, value_mask,
                        key_mask, attention_mask, use_causal_mask: bool):
        """The boolean `[batch, T, S]` (or broadcastable) mask of allowed attention (a key's
        mask counts only when the key is not the value, as in Keras)."""
        return combined_mask(query, value, query_mask, value_mask,
                             None if key_is_value else key_mask, attention_mask,
                             use_causal_mask, self.sliding_window)

    def _masked_softmax(self, scores, mask, zero_masked: bool):
        return masked_softmax(scores, mask, len(self._axes), zero_masked)


class GroupedQueryAttention(_QueryValueLayer):
    """Grouped-query attention (`keras.layers.GroupedQueryAttention`): `num_query_heads`
    query heads share `num_key_value_heads` key and value heads (each key/value head serves
    `num_query_heads // num_key_value_heads` query heads); heads have `head_dim` channels.

    Called as `MultiHeadAttention` on `[batch, steps, features]` inputs, with the same masks
    (`query_mask`, `value_mask`, `key_mask`, `attention_mask`, `use_causal_mask`,
    `sliding_window`), `use_gate` and `return_attention_scores` (`[batch, num_query_heads,
    T, S]`). Weights, in `get_weights` order: query kernel `[features, num_query_heads,
    head_dim]`, key and value kernels `[features, num_key_value_heads, head_dim]`, each with
    its bias, then the output kernel `[num_query_heads, head_dim, features]` and its bias.
    """

    _passes_masks = True
    _query_dense: EinsumDense
    _key_dense: EinsumDense
    _value_dense: EinsumDense
    _output_dense: EinsumDense
    _gate_dense: EinsumDense

    def __init__(self, head_dim: int, num_query_heads: int, num_key_value_heads: int,
                 dropout: float = 0.0, use_bias: bool = True, sliding_window=None,
                 flash_attention=None, kernel_initializer: str | Callable = "glorot_uniform",
                 bias_initializer: str | Callable = "zeros", kernel_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, use_gate: bool = False, seed=None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        name = "GroupedQueryAttention"
        self.head_dim = positive_int(head_dim, "head_dim", name)
        self.num_query_heads = positive_int(num_query_heads, "num_query_heads", name)
        self.num_key_value_heads = positive_int(num_key_value_heads, "num_key_value_heads",
                                                name)
        if self.num_query_heads % self.num_key_value_heads:
            raise ValueError(f"{name}: `num_query_heads` must be divisible by "
                             f"`num_key_value_heads`, got num_query_heads={num_query_heads} "
                             f"and num_key_value_heads={num_key_value_heads}.")
        self.num_repeats = self.num_query_heads // self.num_key_value_heads
        if flash_attention:
            raise NotImplementedError(f"{name}(flash_attention=True) is not implemented: there "
                                      "is no fused attention kernel here; leave it None or "
                                      "False.")
        self.flash_attention = flash_attention
        if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) \
                or not 0 <= dropout < 1:
            raise ValueError(f"{name}: `dropout` must be a float in [0, 1), got "
                             f"dropout={dropout!r}.")
        self.dropout = float(dropout)
        self.use_bias = bool(use_bias)
        self.use_gate = bool(use_gate)
        self.sliding_window = None if sliding_window is None else \
            positive_int(sliding_window, "sliding_window", name)
        self.seed = seed
        self._sublayer_kwargs = dict(
            kernel_initializer=kernel_initializer, bias_initializer=bias_initializer,
            kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
            activity_regularizer=activity_regularizer, kernel_constraint=kernel_constraint,
            bias_constraint=bias_constraint)
        self._resolve_initializers()

    def _dense(self, equation: str, shape: Sequence, bias: str, name: str,
               activation: str | None = None) -> EinsumDense:
        return EinsumDense(equation, output_shape=shape, activation=activation,
                           bias_axes=bias if self.use_bias else None, name=name,
                           dtype=self.dtype, **self._projection_kwargs())

    def build(self, query_shape, value_shape=None, key_shape=None) -> None:
        """Creates the projections; `query_shape` may also be a list of the three shapes."""
        if value_shape is None and isinstance(query_shape, (list, tuple)) and query_shape \
                and not _is_dim(query_shape[0]):
            query_shape, value_shape, *rest = list(query_shape) + [None]
            key_shape = rest[0]
        query_shape = TensorShape(query_shape)
        value_shape = query_shape if value_shape is None else TensorShape(value_shape)
        key_shape = value_shape if key_shape is None else TensorShape(key_shape)
        for label, shape in (("query", query_shape), ("value", value_shape),
                             ("key", key_shape)):
            if shape.rank != 3:
                raise ValueError(f"{self.name} needs {label} inputs of rank 3 [batch, steps, "
                                 f"features], got shape {shape}.")
        query_heads = (None, self.num_query_heads, self.head_dim)
        shared_heads = (None, self.num_key_value_heads, self.head_dim)
        self._query_dense = self._dense("bqm,muh->bquh", query_heads, "uh", "query")
        self._query_dense.build(query_shape)
        self._key_dense = self._dense("bkm,mvh->bkvh", shared_heads, "vh", "key")
        self._key_dense.build(key_shape)
        if self.use_gate:  # Keras's order: query, key, gate, value, output
            self._gate_dense = self._dense("bqm,muh->bquh", query_heads, "uh", "gate",
                                           activation="sigmoid")
            self._gate_dense.build(query_shape)
        self._value_dense = self._dense("bkm,mvh->bkvh", shared_heads, "vh", "value")
        self._value_dense.build(value_shape)
        self._make_dropout_layer()
        self._output_dense = self._dense("bquh,uhm->bqm", (None, query_shape[-1]), "m",
                                         "attention_output")
        self._output_dense.build([None, None, self.num_query_heads, self.head_dim])
        self.built = True

    def call(self, query, value, key=None, query_mask=None, value_mask=None, key_mask=None,
             attention_mask=None, return_attention_scores: bool = False, training=None,
             use_causal_mask: bool = False) -> _Outputs:
        query, value = convert_to_tensor(query), convert_to_tensor(value)
        key = value if key is None else convert_to_tensor(key)
        mask = combined_mask(query, value, query_mask, value_mask, key_mask, attention_mask,
                             use_causal_mask, self.sliding_window)
        gate = self._gate_dense(query) if self.use_gate else None
        q = self._query_dense(query)
        k = array_sort.repeat(self._key_dense(key), self.num_repeats, axis=2)
        v = array_sort.repeat(self._value_dense(value), self.num_repeats, axis=2)
        q = array_math.multiply(q, np.asarray(1.0 / np.sqrt(float(self.head_dim)),
                                              q.dtype.as_numpy_dtype))
        # as MultiHeadAttention: Keras's fused path gives fully masked rows uniform weights
        zero_masked = self.dropout > 0 or return_attention_scores
        scores = masked_softmax(linalg.einsum("bquh,bkuh->buqk", q, k), mask, 1,
                                zero_masked)
        dropped = self._attention_dropout(scores, training)
        heads = linalg.einsum("buqk,bkuh->bquh", dropped, v)
        output = self._output_dense(heads if gate is None else array_math.multiply(heads, gate))
        if return_attention_scores:
            return output, scores
        return output

    def compute_output_shape(self, query_shape, value_shape=None,
                             key_shape=None) -> TensorShape:
        """The query's shape."""
        return TensorShape(query_shape)


# -- Attention and AdditiveAttention ---------------------------------------------------------

class Attention(Layer):
    """Dot-product (Luong-style) attention, as `keras.layers.Attention`.

    Called on `[query, value]` or `[query, value, key]` (`[batch, Tq, dim]`, `[batch, Tv,
    dim]`): scores `query @ key^T` (times a learned scalar `scale` with `use_scale`), or for
    `score_mode="concat"` `concat_score_weight * sum(tanh(query + key))`; softmax over the
    value steps; the output `softmax(scores) @ value`. The inputs' masks (or `mask=[query_mask,
    value_mask]`): value steps whose mask is False get no weight, query steps whose mask is
    False give zeros, and the output keeps the query's mask. `return_attention_scores=True`
    also returns the weights (after masking, softmax and dropout).
    """

    seed_generator: SeedGenerator | None = None  # made with dropout > 0

    def __init__(self, use_scale: bool = False, score_mode: str = "dot",
                 dropout: float = 0.0, seed=None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if score_mode not in ("dot", "concat"):
            raise ValueError("Invalid value for argument score_mode. Expected one of "
                             f"{{'dot', 'concat'}}. Received: score_mode={score_mode!r}")
        if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) \
                or not 0 <= dropout < 1:
            raise ValueError(f"{type(self).__name__}: `dropout` must be a float in [0, 1), "
                             f"got dropout={dropout!r}.")
        self.use_scale = bool(use_scale)
        self.score_mode = score_mode
        self.dropout = float(dropout)
        self.seed = seed
        if self.dropout > 0:
            self.seed_generator = SeedGenerator(seed)
        self.scale: Variable | None = None
        self.concat_score_weight: Variable | None = None

    def _check(self, inputs, mask=None) -> None:
        name = type(self).__name__
        if not isinstance(inputs, (list, tuple)) or not 2 <= len(inputs) <= 3:
            raise ValueError(f"{name} layer must be called on a list of inputs, namely "
                             f"[query, value] or [query, value, key]; got {inputs!r:.100}.")
        if mask is not None and (not isinstance(mask, (list, tuple))
                                 or not 2 <= len(mask) <= 3):
            raise ValueError(f"{name} layer `mask` must be a list, namely [query_mask, "
                             f"value_mask]; got mask={mask!r:.100}.")

    def build(self, input_shape=None) -> None:
        self._check(input_shape)
        if self.use_scale:
            self.scale = self.add_weight(name="scale", shape=[], initializer="ones")
        if self.score_mode == "concat":
            self.concat_score_weight = self.add_weight(name="concat_score_weight", shape=[],
                                                       initializer="ones")
        self.built = True

    def _scores(self, query, key):
        if self.score_mode == "dot":
            scores = linalg.matmul(query, key, transpose_b=True)
            return scores if self.scale is None else array_math.multiply(scores, self.scale)
        summed = array_math.add(array_math.expand_dims(query, -2), array_math.expand_dims(key, -3))
        if self.scale is not None:
            summed = array_math.multiply(self.scale, summed)
        return array_math.multiply(self.concat_score_weight,
                                   array_math.reduce_sum(array_math.tanh(summed), axis=-1))

    def call(self, inputs, mask=None, training=None, return_attention_scores: bool = False,
             use_causal_mask: bool = False) -> _Outputs:
        self._check(inputs, mask)
        query, value = as_layer_dtype(self, inputs[0]), as_layer_dtype(self, inputs[1])
        key = as_layer_dtype(self, inputs[2]) if len(inputs) > 2 else value
        query_mask = mask[0] if mask else None
        value_mask = mask[1] if mask else None
        scores = self._scores(query, key)
        allowed = None if value_mask is None else \
            array_math.expand_dims(_as_bool(value_mask), -2)
        if use_causal_mask:
            allowed = _and(allowed, _causal_mask(_steps(scores, -2), _steps(scores, -1)))
        if allowed is not None:
            scores = array_math.where(allowed, scores, array_math.subtract(
                scores, np.asarray(-_LARGE_NEGATIVE, scores.dtype.as_numpy_dtype)))
        weights = _dropout(nn.softmax(scores, axis=-1), self.dropout, training,
                           self.seed_generator)
        output = linalg.matmul(weights, value)
        if query_mask is not None:
            keep = array_math.expand_dims(_as_bool(query_mask), -1)
            output = array_math.where(array_math.logical_and(
                keep, array_math.ones_like(output, dtype="bool")), output,
                array_math.zeros_like(output))
        if return_attention_scores:
            return output, weights
        return output

    def compute_output_shape(self, input_shape) -> TensorShape:
        """`[*query_shape[:-1], value_shape[-1]]`."""
        query, value = TensorShape(input_shape[0]), TensorShape(input_shape[1])
        return TensorShape(query.as_list()[:-1] + value.as_list()[-1:])

    def compute_mask(self, inputs, mask=None):
        """The query's mask (None when it has none)."""
        if not mask or not isinstance(mask, (list, tuple)) or mask[0] is None:
            return None
        return convert_to_tensor(mask[0])


class AdditiveAttention(Attention):
    """Additive (Bahdanau-style) attention, as `keras.layers.AdditiveAttention`: scores
    `sum(scale * tanh(query + key))` over the features, with a learned `scale` of the
    features' size when `use_scale` (the default); otherwise as `Attention`."""

    def __init__(self, use_scale: bool = True, dropout: float = 0.0, seed=None,
                 **kwargs: Any) -> None:
        super().__init__(use_scale=use_scale, dropout=dropout, seed=seed, **kwargs)

    def build(self, input_shape=None) -> None:
        self._check(input_shape)
        dim = TensorShape(input_shape[0])[-1]
        if self.use_scale:
            if dim is None:
                raise ValueError(f"{self.name} needs the query's last dimension known, got "
                                 f"shape {TensorShape(input_shape[0])}.")
            self.scale = self.add_weight(name="scale", shape=[dim], initializer="glorot_uniform")
        self.built = True

    def _scores(self, query, key):
        summed = array_math.tanh(array_math.add(array_math.expand_dims(query, -2),
                                                array_math.expand_dims(key, -3)))
        if self.scale is not None:
            summed = array_math.multiply(self.scale, summed)
        return array_math.reduce_sum(summed, axis=-1)
