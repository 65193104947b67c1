"""`keras.random`: random draws from a seed (an int, a `SeedGenerator`, or None), as Keras 3.

A `SeedGenerator` keeps its state in a variable: each draw takes the next seed from it, so a
traced training step draws new values at every run. An int seed gives the same values on
every call (a stateless draw); None draws from the global generator (`rt.random`).
"""

from __future__ import annotations

from typing import Any, Optional

from ..ops import array_math
from ..ops import random as _random
from ..ops import random_extras as _random_extras
from ..ops import random_stateless as _stateless
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
        if seed is None:
            seed = int(_random.uniform((), 0, 2 ** 30, dtype="int64"))
        if not isinstance(seed, int):
            raise ValueError(f"SeedGenerator(seed=...) takes an int, got {seed!r}.")
        self.name = name or "seed_generator"
        self._initial_seed = seed
        self.state = Variable([seed, 0], dtype="int64", trainable=False,
                              name=f"{self.name}_state")

    def next(self, ordered: bool = True):
        """The seed of this draw (the state before it); the state's counter moves on."""
        seed = self.state.value()
        self.state.assign_add(array_math.cast([0, 1], "int64"))
        return seed

    def get_config(self) -> dict:
        return {"seed": self._initial_seed}


def _seed_pair(seed):
    """A [2] seed for a stateless draw, or None for the global generator."""
    if seed is None:
        return None
    if isinstance(seed, SeedGenerator):
        return seed.next()
    if isinstance(seed, int):
        return [seed, 0]
    raise ValueError(f"seed must be None, an int or a keras.random.SeedGenerator, got "
                     f"{seed!r}.")


def normal(shape, mean: float = 0.0, stddev: float = 1.0, dtype=None, seed=None):
    """Values from the normal distribution (dtype float32 by default)."""
    dtype = dtype or "float32"
    pair = _seed_pair(seed)
    if pair is None:
        return _random.normal(shape, mean=mean, stddev=stddev, dtype=dtype)
    return _stateless.stateless_normal(shape, pair, mean=mean, stddev=stddev, dtype=dtype)


def uniform(shape, minval: float = 0.0, maxval: float = 1.0, dtype=None, seed=None):
    """Values drawn uniformly from [minval, maxval) (dtype float32 by default)."""
    dtype = dtype or "float32"
    pair = _seed_pair(seed)
    if pair is None:
        return _random.uniform(shape, minval=minval, maxval=maxval, dtype=dtype)
    return _stateless.stateless_uniform(shape, pair, minval=minval, maxval=maxval,
                                        dtype=dtype)


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
    pair = _seed_pair(seed)
    if pair is None:
        return _random.truncated_normal(shape, mean=mean, stddev=stddev, dtype=dtype)
    return _stateless.stateless_truncated_normal(shape, pair, mean=mean, stddev=stddev,
                                                 dtype=dtype)


def randint(shape, minval: int, maxval: int, dtype="int32", seed=None):
    """Integers drawn uniformly from [minval, maxval)."""
    pair = _seed_pair(seed)
    if pair is None:
        return _random.uniform(shape, minval=minval, maxval=maxval, dtype=dtype)
    return _stateless.stateless_uniform(shape, pair, minval=minval, maxval=maxval, dtype=dtype)


def categorical(logits, num_samples: int, dtype="int32", seed=None):
    """`num_samples` class indices per row of `logits` ([batch, classes])."""
    pair = _seed_pair(seed)
    if pair is None:
        return _random_extras.categorical(logits, num_samples, dtype=dtype)
    return _stateless.stateless_categorical(logits, num_samples, pair, dtype=dtype)


def shuffle(x, axis: int = 0, seed=None):
    """`x` with its slices along `axis` (0 only here) in a random order."""
    if axis != 0:
        raise NotImplementedError(f"keras.random.shuffle shuffles axis 0 only here, got "
                                  f"axis={axis!r}: transpose the axis to the front first.")
    pair = _seed_pair(seed)
    if pair is None:
        return _random.shuffle(x)
    return _random_extras.stateless_shuffle(x, pair)


def binomial(shape, counts, probabilities, dtype=None, seed=None):
    """The number of successes in `counts` trials of probability `probabilities` (both
    broadcast to `shape`), as floats of `dtype` (float32 by default), as Keras 3."""
    pair = _seed_pair(seed)
    if pair is None:  # a fresh stateless draw from the global generator's next seed
        pair = _random.uniform([2], 0, 2 ** 31 - 1, dtype="int64")
    dtype = dtype or "float32"
    return array_math.cast(_stateless.stateless_binomial(
        shape, pair, array_math.cast(counts, "float32"),
        array_math.cast(probabilities, "float32"), output_dtype="float32"), dtype)


__all__ = ["SeedGenerator", "binomial", "categorical", "dropout", "normal", "randint",
           "shuffle", "truncated_normal", "uniform"]
