"""`keras.random`: random draws from a seed (an int, a `SeedGenerator`, or None), as Keras 3.

A `SeedGenerator` keeps its state in a variable: each draw takes the next seed from it, so a
traced training step draws new values at every run. An int seed gives the same values on
every call (a stateless draw); None takes the next seed of Keras's global `SeedGenerator`
(made on first use with a seed from Python's `random`, and made anew by
`keras.utils.set_random_seed`), so every draw is a stateless draw as in Keras's TensorFlow
backend: seeds reach the draw reduced modulo 2**31 - 2 into int32.
"""

from __future__ import annotations

from ..layers.core import noise_dims
from ..layers.seed_generator import (  # noqa: F401  (keras.random's names)
    SeedGenerator,
    draw_seed,
    global_seed_generator,
    reset_global_seed_generator,
)
from ..ops import array_math
from ..ops import array_sort as _sort
from ..ops import random_extras as _random_extras
from ..ops import random_stateless as _stateless
from ..ops.array_composed import broadcast_to as _broadcast_to
from ..ops.core import convert_to_tensor


def normal(shape, mean: float = 0.0, stddev: float = 1.0, dtype=None, seed=None):
    """Values from the normal distribution (dtype float32 by default)."""
    dtype = dtype or "float32"
    pair = draw_seed(seed)
    return _stateless.stateless_normal(shape, pair, mean=mean, stddev=stddev, dtype=dtype)


def uniform(shape, minval: float = 0.0, maxval: float = 1.0, dtype=None, seed=None):
    """Values drawn uniformly from [minval, maxval) (dtype float32 by default)."""
    dtype = dtype or "float32"
    return _stateless.stateless_uniform(shape, draw_seed(seed), minval=minval,
                                        maxval=maxval, dtype=dtype)


def dropout(inputs, rate: float, noise_shape=None, seed=None):
    """`inputs` with each value zeroed with probability `rate`, the others scaled by
    1 / (1 - rate): TensorFlow's stateless dropout (None entries of `noise_shape` take the
    input's size)."""
    if not 0 <= rate < 1:
        raise ValueError(f"dropout: rate must be in [0, 1), got {rate!r}.")
    x = convert_to_tensor(inputs)
    noise = None if noise_shape is None else noise_dims(x, noise_shape)
    return _random_extras.stateless_dropout(x, rate, draw_seed(seed), noise_shape=noise)


def truncated_normal(shape, mean: float = 0.0, stddev: float = 1.0, dtype=None, seed=None):
    """Normal values more than two standard deviations from the mean redrawn."""
    dtype = dtype or "float32"
    return _stateless.stateless_truncated_normal(shape, draw_seed(seed), mean=mean,
                                                 stddev=stddev,
                                                 dtype=dtype)


def randint(shape, minval: int, maxval: int, dtype="int32", seed=None):
    """Integers drawn uniformly from [minval, maxval)."""
    return _stateless.stateless_uniform(shape, draw_seed(seed), minval=minval, maxval=maxval,
                                        dtype=dtype)


def categorical(logits, num_samples: int, dtype="int32", seed=None):
    """`num_samples` class indices per row of `logits` ([batch, classes])."""
    return _stateless.stateless_categorical(logits, num_samples, draw_seed(seed), dtype=dtype)


def shuffle(x, axis: int = 0, seed=None):
    """`x` with its slices along `axis` in a random order: the order that sorts one uniform
    draw per slice, as Keras's TensorFlow backend."""
    x = convert_to_tensor(x)
    keys = _stateless.stateless_uniform(array_math.shape(x)[axis:][:1], draw_seed(seed))
    return array_math.gather(x, _sort.argsort(keys), axis=axis)


def binomial(shape, counts, probabilities, dtype=None, seed=None):
    """The number of successes in `counts` trials of probability `probabilities` (both
    broadcast to `shape`), as floats of `dtype` (float32 by default), as Keras 3."""
    dtype = dtype or "float32"
    return array_math.cast(_stateless.stateless_binomial(
        shape, draw_seed(seed), array_math.cast(counts, "float32"),
        array_math.cast(probabilities, "float32"), output_dtype="float32"), dtype)


def gamma(shape, alpha, dtype=None, seed=None):
    """Gamma draws of concentration `alpha` (rate 1; `alpha` broadcast to the end of
    `shape`), float32 by default: TensorFlow's stateless gamma at the drawn seed, as Keras's
    TensorFlow backend."""
    from ..ops import random_distributions  # loads on first use

    dtype = dtype or "float32"
    return random_distributions.stateless_gamma(shape, draw_seed(seed), alpha, dtype=dtype)


def beta(shape, alpha, beta, dtype=None, seed=None):  # noqa: A002 - Keras's name
    """Beta(alpha, beta) draws as Keras 3: X / (X + Y) for gamma draws X of `alpha` at the
    drawn seed and Y of `beta` at that seed plus 12, both parameters broadcast to `shape`."""
    from ..ops import random_distributions  # loads on first use

    dtype = dtype or "float32"
    first = draw_seed(seed)
    second = array_math.add(convert_to_tensor(first), 12)
    alpha = _broadcast_to(convert_to_tensor(alpha, dtype=dtype), shape)
    beta = _broadcast_to(convert_to_tensor(beta, dtype=dtype), shape)
    x = random_distributions.stateless_gamma(shape, first, alpha, dtype=dtype)
    y = random_distributions.stateless_gamma(shape, second, beta, dtype=dtype)
    return x / (x + y)


__all__ = ["SeedGenerator", "beta", "binomial", "categorical", "dropout", "gamma", "normal",
           "randint", "shuffle", "truncated_normal", "uniform"]
