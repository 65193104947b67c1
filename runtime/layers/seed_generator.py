"""Keras 3's seed state: `SeedGenerator`, the global generator of draws made without a seed,
and `draw_seed`, the int32 pair a stateless draw takes, as Keras's TensorFlow backend makes it.

A layer that draws (Dropout and its kin) owns a `SeedGenerator`: its state is a variable of
the layer (in `variables`, not in `weights`), and each draw takes the state and moves it on,
so a traced training step draws new values at every run.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np

from ..module import keras_unique_name
from ..ops import array_math
from ..ops.variables import Variable
from .initializers import keras_seed

_SEED_MODULUS = 2 ** 31 - 2  # Keras's TensorFlow backend: floormod(seed, int32 max - 1)

# the names of the layers whose build or call is running (set by .base, which imports this
# module): a generator made inside one (MultiHeadAttention's, made by its build) has its
# state's path under theirs, as Keras's name scopes give it
scope_names: Callable[[], list] = list


class SeedGenerator:
    """`SeedGenerator(seed)`: `next()` gives a fresh [2] int64 seed and advances the state (a
    variable, listed by the layer that owns the generator). Without a seed, one is taken from
    Python's `random` (so `keras.utils.set_random_seed` fixes it)."""

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
        self.name = name or keras_unique_name("seed_generator")
        self.state = Variable([seed, 0], dtype="int64", trainable=False,
                              name="seed_generator_state")
        self.state._path = "/".join([*scope_names(), self.name,
                                     "seed_generator_state"])  # Keras 3's path

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
        _global_generator = SeedGenerator()
    return _global_generator


def reset_global_seed_generator() -> None:
    """The next seed=None draw makes a new global generator (`keras.utils.set_random_seed`)."""
    global _global_generator
    _global_generator = None


def draw_seed(seed):
    """The int32 [2] seed of a stateless draw from `seed` (None, an int or a SeedGenerator),
    as Keras's TensorFlow backend makes it."""
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
