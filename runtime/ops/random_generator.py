"""`rt.random.Generator`: random numbers from an explicit state held in a variable.

A generator's state is an int64 variable of shape [3]: a 128-bit counter (low word, high
word) and a 64-bit Philox key, as TensorFlow's. Each draw reads the state, advances the
counter by 256 blocks per value drawn (a variable update, so every tier keeps the draws in
program order) and draws with the stateless ops from the counter it read, so the numbers are
TensorFlow's for the same state. A generator made from the same seed replays the same numbers
eagerly, staged and compiled; inside a compiled function the state is a lifted variable, so
each call continues the sequence.
"""

from __future__ import annotations

import enum
import threading

import numpy as np

from .. import dtypes as _dtypes
from ..arguments import strict_keywords
from ..exports import export
from ..tensor import SymbolicTensor, Tensor
from . import random_stateless as _sl
from .array_math import cast, greater_equal, less, logical_and, reduce_prod, stack, zeros_like
from .core import convert_to_tensor
from .random import SEEDS
from .variables import Variable

_MASK64 = (1 << 64) - 1


@export("random.Algorithm", "random.experimental.Algorithm")
class Algorithm(enum.Enum):
    """Random-number algorithms, numbered as TensorFlow numbers them. This runtime draws with
    Philox; AUTO_SELECT means Philox and THREEFRY is not implemented."""

    PHILOX = 1
    THREEFRY = 2
    AUTO_SELECT = 3


def _algorithm(alg) -> Algorithm:
    """`alg` (None, a name, a number or an Algorithm) as the algorithm the runtime uses."""
    if alg is None:
        return Algorithm.PHILOX
    if isinstance(alg, str):
        found = Algorithm.__members__.get(alg.upper())
    elif isinstance(alg, Algorithm):
        found = alg
    else:
        try:
            found = Algorithm(int(alg))
        except (TypeError, ValueError):
            found = None
    if found is None:
        raise ValueError(f"alg must be 'philox', 'auto_select' or an rt.random.Algorithm, "
                         f"got {alg!r}.")
    if found is Algorithm.THREEFRY:
        raise NotImplementedError("alg='threefry' is not implemented: this runtime draws with "
                                  "Philox ('philox' or 'auto_select').")
    return Algorithm.PHILOX


def _seed_words(seed) -> list[int]:
    """The non-negative 64-bit words of an int seed, a sequence of ints or an eager tensor."""
    if isinstance(seed, SymbolicTensor):
        raise TypeError("A Generator's seed must be known now (a Python int or an eager "
                        "tensor), not a tensor of a function being traced.")
    if isinstance(seed, Tensor):
        seed = np.asarray(seed)
    array = np.asarray(seed)
    if array.dtype.kind not in "iu" or array.ndim > 1:
        raise TypeError(f"seed must be an int or a sequence of ints, got {seed!r}.")
    return [int(v) & _MASK64 for v in np.ravel(array).tolist()]


@export("random.create_rng_state", "random.experimental.create_rng_state")
def create_rng_state(seed, alg=None) -> np.ndarray:
    """The state (int64, shape [3]: counter low, counter high, key) of a generator seeded
    with `seed` (an int or a sequence of ints)."""
    _algorithm(alg)
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
        value = int(seed)  # its 64-bit words, little end first, the sign extended
        words = [(value >> (64 * i)) & _MASK64 for i in range(3)]
    else:
        words = _seed_words(seed)[:3]
        words = [0] * (3 - len(words)) + words  # a short sequence fills the last words
    return np.array(words, dtype=np.uint64).view(np.int64)


def _state_array(state) -> np.ndarray | Tensor:
    """`state` as an int64 value of shape [3]; a traced tensor stays a tensor."""
    if isinstance(state, Variable):
        state = state.read_value()
    if isinstance(state, SymbolicTensor):
        if not state.dtype.is_integer or not state.shape.is_compatible_with([3]):
            raise ValueError(f"state must be an int tensor of shape [3], got {state.dtype.name} "
                             f"of shape {state.shape}.")
        return state if state.dtype is _dtypes.int64 else cast(state, _dtypes.int64)
    array = np.asarray(state)
    if array.dtype.kind not in "iu" or array.shape != (3,):
        raise ValueError(f"state must hold 3 ints (counter low, counter high, key), got "
                         f"{state!r}.")
    return array.astype(np.uint64).view(np.int64) if array.dtype.kind == "u" \
        else array.astype(np.int64)


@export("random.Generator", "random.experimental.Generator")
class Generator:
    """A random-number generator whose state (`state`, an int64 variable) advances at every
    draw: `Generator.from_seed(42).normal([3])`.

    Build one with `from_seed`, `from_non_deterministic_state`, `from_state`, or
    `Generator(copy_from=other)` / `Generator(state=..., alg=...)`.
    """

    @strict_keywords("rt.random.Generator")
    def __init__(self, copy_from: "Generator | None" = None, state=None, alg=None):
        if copy_from is not None:
            if state is not None or alg is not None:
                raise ValueError("Generator: give either copy_from or state and alg, not both.")
            if not isinstance(copy_from, Generator):
                raise TypeError(f"copy_from must be an rt.random.Generator, got {copy_from!r}.")
            state, alg = copy_from.state.read_value(), copy_from.algorithm
        elif state is None:
            raise ValueError("Generator needs copy_from or state (see Generator.from_seed).")
        self._alg = _algorithm(alg)
        self._state_var = Variable(_state_array(state), trainable=False, name="rng_state",
                                   dtype=_dtypes.int64)

    # -- constructors ----------------------------------------------------------------------
    @classmethod
    def from_seed(cls, seed, alg=None) -> "Generator":
        """A generator whose sequence is a function of `seed` (an int or ints)."""
        return cls(state=create_rng_state(seed, alg), alg=alg)

    @classmethod
    def from_non_deterministic_state(cls, alg=None) -> "Generator":
        """A generator seeded from the operating system's entropy."""
        key = np.random.SeedSequence().generate_state(1, np.uint64)[0]
        return cls(state=np.array([0, 0, key], dtype=np.uint64).view(np.int64), alg=alg)

    @classmethod
    def from_state(cls, state, alg) -> "Generator":
        """A generator starting from `state` (3 ints: counter low, counter high, key)."""
        return cls(state=state, alg=alg)

    @classmethod
    def from_key_counter(cls, key, counter, alg) -> "Generator":
        """A generator from a key (an int) and a counter (two ints: low, high)."""
        return cls(state=_key_counter_state(key, counter), alg=alg)

    # -- state -----------------------------------------------------------------------------
    def _trackable_children(self) -> list:
        """What a checkpoint saves of a generator: its state variable."""
        return [("_state_var", self._state_var)]

    @property
    def state(self) -> Variable:
        """The int64 variable [counter low, counter high, key] the draws advance."""
        return self._state_var

    @property
    def algorithm(self) -> int:
        """The algorithm's number (1: Philox)."""
        return self._alg.value

    @property
    def key(self) -> Tensor:
        """The generator's Philox key, an int64 scalar."""
        return self._state_var.read_value()[2]

    def reset(self, state) -> None:
        """Sets the state to `state` (3 ints)."""
        self._state_var.assign(convert_to_tensor(_state_array(state), dtype=_dtypes.int64))

    def reset_from_seed(self, seed) -> None:
        """Sets the state to the one `from_seed(seed)` starts with."""
        self._state_var.assign(create_rng_state(seed, self._alg))

    def reset_from_key_counter(self, key, counter) -> None:
        """Sets the state from a key and a counter (two ints: low, high)."""
        self._state_var.assign(_key_counter_state(key, counter))

    def skip(self, delta) -> None:
        """Advances the state as drawing `delta` values would."""
        self._state_var.assign(_advanced(self._state_var.read_value(), delta))

    def _next(self, shape) -> Tensor:
        """The state to draw `shape` values with, advancing the variable past them."""
        state = self._state_var.read_value()
        dims = _sl.static_or_later(shape, "shape")
        count = int(np.prod(dims, dtype=np.int64)) if dims is not None else \
            reduce_prod(cast(_sl.int_vector(shape), _dtypes.int64))
        self._state_var.assign(_advanced(state, count))
        return state

    # -- draws -------------------------------------------------------------------------------
    def normal(self, shape, mean=0.0, stddev=1.0, dtype=_dtypes.float32,
               name: str | None = None) -> Tensor:
        """Normally distributed values (mean, stddev)."""
        return _sl.draw_normal(_sl.NORMAL, shape, self._next(shape), mean, stddev, dtype, name,
                               "Generator.normal")

    def truncated_normal(self, shape, mean=0.0, stddev=1.0, dtype=_dtypes.float32,
                         name: str | None = None) -> Tensor:
        """Normal values (mean, stddev) within two stddevs of the mean."""
        return _sl.draw_normal(_sl.TRUNCATED_NORMAL, shape, self._next(shape), mean, stddev, dtype,
                               name, "Generator.truncated_normal")

    def uniform(self, shape, minval=0, maxval=None, dtype=_dtypes.float32,
                name: str | None = None) -> Tensor:
        """Uniform values in [minval, maxval): floats default to [0, 1); integer dtypes need
        both bounds, or both None for the full range."""
        dtype = _dtypes.as_dtype(dtype)
        if dtype.is_integer and (minval is None) != (maxval is None):
            raise ValueError("Generator.uniform: an integer dtype needs both minval and maxval "
                             "(or neither, for the full range of the dtype).")
        return _sl.draw_uniform(shape, self._next(shape), minval, maxval, dtype, name,
                                "Generator.uniform")

    def uniform_full_int(self, shape, dtype=_dtypes.uint64, name: str | None = None) -> Tensor:
        """Integers over the whole range of `dtype` (int32, int64, uint32, uint64)."""
        return _sl.draw_full_int(shape, self._next(shape), dtype, name,
                                 "Generator.uniform_full_int")

    def binomial(self, shape, counts, probs, dtype=_dtypes.int32,
                 name: str | None = None) -> Tensor:
        """Numbers of successes in `counts` trials of probability `probs` (both broadcast to
        `shape`)."""
        return _sl.draw_binomial(shape, self._next(shape), counts, probs, dtype, name,
                                 "Generator.binomial")

    def make_seeds(self, count: int = 1) -> Tensor:
        """`count` seed pairs for the stateless functions: an int64 tensor [2, count] (column
        i is a seed: a drawn key and 0, as TensorFlow's)."""
        count = _sl.as_int(count, "count")
        if count < 0:
            raise ValueError(f"count must not be negative, got {count}.")
        keys = self.uniform_full_int([count], dtype=_dtypes.int64)
        return stack([keys, zeros_like(keys)])

    def split(self, count: int = 1) -> list["Generator"]:
        """`count` new generators, independent of this one and of each other (this one
        advances)."""
        count = _sl.as_int(count, "count")
        if count < 0:
            raise ValueError(f"count must not be negative, got {count}.")
        keys = self.uniform_full_int([count], dtype=_dtypes.int64)
        zero = convert_to_tensor(np.int64(0))
        return [Generator(state=stack([zero, zero, keys[i]]), alg=self._alg)
                for i in range(count)]

    def __repr__(self) -> str:
        return f"<rt.random.Generator alg={self._alg.name.lower()} state={self._state_var!r}>"


def _advanced(state: Tensor, values) -> Tensor:
    """`state` with its 128-bit counter moved on by 256 blocks per value (TensorFlow's
    reservation for a draw of `values` values)."""
    blocks = cast(convert_to_tensor(values), _dtypes.int64) * 256
    low = state[0] + blocks
    # the low word wrapped past 2**64 (as unsigned) when it went from negative to non-negative
    carry = cast(logical_and(less(state[0], 0), greater_equal(low, 0)), _dtypes.int64)
    return stack([low, state[1] + carry, state[2]])


def _key_counter_state(key, counter) -> np.ndarray:
    words = _seed_words(counter)
    if len(words) != 2:
        raise ValueError(f"counter must hold two ints (low, high), got {counter!r}.")
    (key_word,) = _seed_words([key] if np.ndim(np.asarray(key)) == 0 else key)
    return np.array(words + [key_word], dtype=np.uint64).view(np.int64)


class _Global:
    generator: Generator | None = None
    lock = threading.Lock()


@export("random.get_global_generator", "random.experimental.get_global_generator")
def get_global_generator() -> Generator:
    """The process's generator, made on first use: from the global seed when
    `rt.random.set_seed` gave one, else from the operating system's entropy."""
    with _Global.lock:
        if _Global.generator is None:
            seed = SEEDS.global_seed
            _Global.generator = (Generator.from_non_deterministic_state() if seed is None
                                 else Generator.from_seed(seed))
        return _Global.generator


@export("random.set_global_generator", "random.experimental.set_global_generator")
def set_global_generator(generator: Generator) -> None:
    """Makes `generator` the one `get_global_generator` returns. Functions traced earlier
    keep the generator they captured."""
    if not isinstance(generator, Generator):
        raise TypeError(f"generator must be an rt.random.Generator, got {generator!r}.")
    with _Global.lock:
        _Global.generator = generator
