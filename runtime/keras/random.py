"""`keras.random`: random draws from a seed (an int, a `SeedGenerator`, or None), as Keras 3.

A `SeedGenerator` keeps its state in a variable: each draw takes the next seed from it, so a
traced training step draws new values at every run. An int seed gives the same values on
every call (a stateless draw); None takes the next seed of Keras's global `SeedGenerator`
(made on first use with a seed from Python's `random`, and made anew by
`keras.utils.set_random_seed`), so every draw is a stateless draw as in Keras's TensorFlow
backend: seeds reach the draw reduced modulo 2**31 - 2 into int32.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..layers.initializers import keras_seed
from ..ops import array_math
from ..ops import array_sort as _sort
from ..ops import random_stateless as _stateless
from ..ops.core import convert_to_tensor
from ..ops.variables import Variable


class SeedGenerator:
    """Keras 3's seed state: `SeedGenerator(seed)`; `next()` gives a fresh [2] int seed and
    advances the state (a variable, listed by the layer that owns the generator)."""

    def __init__(self, seed: Optional[int] = None, name: Optional[str] = None,
                 **kwargs: Any) -> None:
        if kwargs.keys() - {"backend", "dtype"}:
            raise TypeError(f"SeedGenerator got unexpected keyword arguments "
                            f"{sorted(kwargs.keys() - {'backend', 'dtype'})}; it takes seed "
                            f"and name.")
        self._initial_seed = seed
        seed = keras_seed(seed)
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ValueError(f"SeedGenerator(seed=...) takes an int, got {seed!r}.")
        self.name = name or "seed_generator"
        self.state = Variable([seed, 0], dtype="int64", trainable=False,
                              name=f"{self.name}_state")

    def next(self, ordered: bool = True):
        """The seed of this draw (the state before it). The state moves on: its counter by
        one, or (`ordered=False`, the global generator's draws) to (state + 1) * 5387 %
        933199, as Keras's."""
        seed = self.state.value()
        if ordered:
            self.state.assign_add(array_math.cast([0, 1], "int64"))
        else:
            self.state.assign((seed + 1) * 5387 % 933199)
        return seed

    def get_config(self) -> dict:
        return {"seed": self._initial_seed, "name": self.name}

    @classmethod
    def from_config(cls, config: dict) -> SeedGenerator:
        return cls(**config)


_global_generator: Optional[SeedGenerator] = None


def global_seed_generator() -> SeedGenerator:
    """The generator of draws made with seed=None (made on first use)."""
    global _global_generator
    if _global_generator is None:
        _global_generator = SeedGenerator(name="global_seed_generator")
    return _global_generator


def reset_global_seed_generator() -> None:
    """The next seed=None draw makes a new global generator (`keras.utils.set_random_seed`)."""
    global _global_generator
    _global_generator = None


_SEED_MODULUS = 2 ** 31 - 2  # Keras's TensorFlow backend: floormod(seed, int32 max - 1)


def _seed_pair(seed):
    """The int32 [2] seed of a stateless draw, as Keras's TensorFlow backend makes it."""
    if seed is None:
        seed = global_seed_generator().next(ordered=False)
    elif isinstance(seed, SeedGenerator):
        seed = seed.next()
    elif isinstance(seed, int) and not isinstance(seed, bool):
        return np.array([seed % _SEED_MODULUS, 0], np.int32)
    else:
        raise ValueError(f"seed must be None, an int or a keras.random.SeedGenerator, got "
                         f"{seed!r}.")
    return array_math.cast(array_math.floormod(seed, np.int64(_SEED_MODULUS)), "int32")


def normal(shape, mean: float = 0.0, stddev: float = 1.0, dtype=None, seed=None):
    """Values from the normal distribution (dtype float32 by default)."""
    dtype = dtype or "float32"
    pair = _seed_pair(seed)
    return _stateless.stateless_normal(shape, pair, mean=mean, stddev=stddev, dtype=dtype)


def uniform(shape, minval: float = 0.0, maxval: float = 1.0, dtype=None, seed=None):
    """Values drawn uniformly from [minval, maxval) (dtype float32 by default)."""
    dtype = dtype or "float32"
    return _stateless.stateless_uniform(shape, _seed_pair(seed), minval=minval,
                                        maxval=maxval, dtype=dtype)


def dropout(inputs, rate: float, noise_shape=None, seed=None):
    """`inputs` with each value zeroed with probability `rate`, the others scaled by
    1 / (1 - rate)."""
    if not 0 <= rate < 1:
        raise ValueError(f"dropout: rate must be in [0, 1), got {rate!r}.")
    shape = array_math.shape(inputs) if noise_shape is None else noise_shape
    keep = uniform(shape, seed=seed, dtype="float32") >= rate
    scale = array_math.cast(keep, inputs.dtype) / (1.0 - rate)
    return inputs * scale


def truncated_normal(shape, mean: float = 0.0, stddev: float = 1.0, dtype=None, seed=None):
    """Normal values more than two standard deviations from the mean redrawn."""
    dtype = dtype or "float32"
    return _stateless.stateless_truncated_normal(shape, _seed_pair(seed), mean=mean,
                                                 stddev=stddev,
                                                 dtype=dtype)


def randint(shape, minval: int, maxval: int, dtype="int32", seed=None):
    """Integers drawn uniformly from [minval, maxval)."""
    return _stateless.stateless_uniform(shape, _seed_pair(seed), minval=minval, maxval=maxval,
                                        dtype=dtype)


def categorical(logits, num_samples: int, dtype="int32", seed=None):
    """`num_samples` class indices per row of `logits` ([batch, classes])."""
    return _stateless.stateless_categorical(logits, num_samples, _seed_pair(seed), dtype=dtype)


def shuffle(x, axis: int = 0, seed=None):
    """`x` with its slices along `axis` in a random order: the order that sorts one uniform
    draw per slice, as Keras's TensorFlow backend."""
    x = convert_to_tensor(x)
    keys = _stateless.stateless_uniform(array_math.shape(x)[axis:][:1], _seed_pair(seed))
    return array_math.gather(x, _sort.argsort(keys), axis=axis)


def binomial(shape, counts, probabilities, dtype=None, seed=None):
    """The number of successes in `counts` trials of probability `probabilities` (both
    broadcast to `shape`), as floats of `dtype` (float32 by default), as Keras 3."""
    dtype = dtype or "float32"
    return array_math.cast(_stateless.stateless_binomial(
        shape, _seed_pair(seed), array_math.cast(counts, "float32"),
        array_math.cast(probabilities, "float32"), output_dtype="float32"), dtype)


__all__ = ["SeedGenerator", "binomial", "categorical", "dropout", "normal", "randint",
           "shuffle", "truncated_normal", "uniform"]
