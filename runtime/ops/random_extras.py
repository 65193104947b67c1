"""`tf.nn.experimental.stateless_dropout` / `general_dropout` and the stateless shuffles of
`tf.random.experimental` (`index_shuffle`, `stateless_shuffle`), composed of the stateless
random ops (Philox keyed by the seed: the same seed gives the same result on every tier, but
not TensorFlow's numbers)."""

from __future__ import annotations

import numbers
from typing import Callable

import numpy as np

from .. import dtypes as _dtypes
from ..exports import export
from ..tensor import Tensor
from . import array_math as _a
from . import array_sort as _sort
from . import random as _random
from . import random_stateless as _rs
from .core import convert_to_tensor


def _rate(rate, fn):
    if isinstance(rate, numbers.Real) and not 0 <= rate < 1:
        raise ValueError(f"{fn}: `rate` must be a scalar in [0, 1), got {rate}.")
    return rate


def _apply_mask(x, rate, uniform, name):
    rate_t = _a.cast(rate, x.dtype)
    keep = _a.greater_equal(uniform, rate_t)
    scaled = _a.divide(x, _a.subtract(_a.cast(1, x.dtype), rate_t))
    return _a.where(keep, scaled, _a.zeros_like(scaled), name=name)


@export("nn.experimental.stateless_dropout")
def stateless_dropout(x, rate, seed, rng_alg=None, noise_shape=None, name=None) -> Tensor:
    """Zeroes each element with probability `rate` and scales the rest by 1 / (1 - rate);
    which elements is a function of `seed` (a pair of ints)."""
    x = convert_to_tensor(x)
    if not x.dtype.is_floating:
        raise ValueError(f"stateless_dropout needs a floating-point `x`, got {x.dtype.name}.")
    _rate(rate, "stateless_dropout")
    if rng_alg not in (None, "philox", "auto_select"):
        raise NotImplementedError(f"stateless_dropout: rng_alg={rng_alg!r} is not implemented; "
                                  "Philox ('philox' or None) is the only algorithm.")
    shape = _a.shape(x) if noise_shape is None else noise_shape
    uniform = _rs.stateless_uniform(shape, seed, dtype=x.dtype)
    return _apply_mask(x, rate, uniform, name)


@export("nn.experimental.general_dropout")
def general_dropout(x, rate, uniform_sampler: Callable, noise_shape=None, name=None) -> Tensor:
    """Dropout whose uniform numbers come from `uniform_sampler(shape=, dtype=)`."""
    x = convert_to_tensor(x)
    if not x.dtype.is_floating:
        raise ValueError(f"general_dropout needs a floating-point `x`, got {x.dtype.name}.")
    _rate(rate, "general_dropout")
    shape = _a.shape(x) if noise_shape is None else noise_shape
    uniform = convert_to_tensor(uniform_sampler(shape=shape, dtype=x.dtype))
    return _apply_mask(x, rate, uniform, name)


def _seed_pair(seed, fn):
    s = np.asarray(seed) if not isinstance(seed, Tensor) else None
    if s is not None and s.shape == (3,):
        if s.dtype.kind not in "iu":
            raise TypeError(f"{fn}: `seed` must be ints, got {seed!r}.")
        return _rs.fold_in(s[:2].astype(np.int64), int(s[2]))
    return _rs.seed_tensor(seed, f"{fn}: seed")


@export("random.experimental.index_shuffle")
def index_shuffle(index, seed, max_index) -> Tensor:
    """The position of `index` in a random permutation of [0, max_index] fixed by `seed` (a
    pair or triple of ints): a bijection of [0, max_index] for each seed."""
    known = _a.static_ints(max_index, "index_shuffle: max_index")
    if known is None or len(known) != 1:
        raise ValueError("index_shuffle needs `max_index` as one int known when tracing.")
    top = known[0]
    if top < 0 or top >= 1 << 24:
        raise ValueError(f"index_shuffle: `max_index` must be in [0, 2**24), got {top}.")
    index = convert_to_tensor(index)
    if not index.dtype.is_integer:
        raise TypeError(f"index_shuffle needs integer `index`, got {index.dtype.name}.")
    keys = _rs.stateless_uniform([top + 1], _seed_pair(seed, "index_shuffle"),
                                 dtype=_dtypes.float64)
    permutation = _a.cast(_sort.argsort(keys, stable=True), index.dtype)
    return _a.gather(permutation, index)


@export("random.experimental.stateless_shuffle")
def stateless_shuffle(value, seed, alg="auto_select", name=None) -> Tensor:
    """`value` with its first axis shuffled by a permutation fixed by `seed` (a pair of ints)."""
    if alg not in ("auto_select", "philox", None):
        raise NotImplementedError(f"stateless_shuffle: alg={alg!r} is not implemented; Philox "
                                  "('philox' or 'auto_select') is the only algorithm.")
    x = convert_to_tensor(value)
    if x.shape.rank == 0:
        raise ValueError("stateless_shuffle needs a tensor of rank >= 1.")
    keys = _rs.stateless_uniform(_a.shape(x)[:1], _rs.seed_tensor(seed), dtype=_dtypes.float64)
    return _a.gather(x, _sort.argsort(keys, stable=True), name=name)


@export("random.categorical")
def categorical(logits, num_samples, dtype=None, seed=None, name=None) -> Tensor:
    """`num_samples` class indices per row of `logits` ([batch, classes], unnormalized log
    probabilities), drawn by the Gumbel-max trick from `rt.random.uniform` (op-level `seed`)."""
    logits = convert_to_tensor(logits)
    if logits.shape.rank not in (None, 2):
        raise ValueError(f"categorical needs `logits` of shape [batch, classes], got "
                         f"{logits.shape}.")
    if not logits.dtype.is_floating:
        raise ValueError(f"categorical needs floating-point `logits`, got {logits.dtype.name}.")
    out_dtype = _dtypes.int64 if dtype is None else _dtypes.as_dtype(dtype)
    if out_dtype not in (_dtypes.int32, _dtypes.int64):
        raise ValueError(f"categorical: `dtype` must be int32 or int64, got {out_dtype.name}.")
    shape = _a.shape(logits)
    draw_shape = _a.stack([shape[0], _a.cast(num_samples, shape.dtype), shape[1]])
    tiny = float(np.finfo(np.float64).tiny)
    u = _random.uniform(draw_shape, minval=tiny, maxval=1.0, dtype=_dtypes.float64, seed=seed)
    gumbel = _a.negative(_a.log(_a.negative(_a.log(u))))
    scores = _a.add(_a.expand_dims(_a.cast(logits, _dtypes.float64), 1), gumbel)
    return _a.argmax(scores, axis=-1, output_type=out_dtype, name=name)
