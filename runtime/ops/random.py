"""Stateful random ops: a fresh draw every time an op runs (eagerly or in a graph)."""

from __future__ import annotations

import threading

import numpy as np

from .. import context
from .. import dtypes as _dtypes
from ..attr_kinds import DIMS, DTYPE, NUMBER, OPT_INT
from ..errors import InvalidArgumentError
from ..exports import export
from ..opdef import Effect, define
from ..shapes import TensorShape
from ..tensor import SymbolicTensor, Tensor
from . import array_math, philox
from .array_math import cast, int_vector, static_or_later, where, zeros_like
from .core import apply, convert_to_tensor
from .shape_rules import shape_from_tensor

_MAXINT32 = 2 ** 31 - 1
_DEFAULT_GRAPH_SEED = 87654321  # TensorFlow's global seed for an op seed given alone


class _Seeds:
    """The global seed, the op seeds drawn from it, and the Philox streams of the stateful
    draws (TensorFlow's: a stream per (op, dtype, seed pair) keyed by the global seed and
    countered by the op seed, each draw reserving 256 blocks per value)."""

    def __init__(self):
        self.global_seed = None
        self._generator = None
        self._op_seeds = None
        self.streams: dict = {}
        self.op_generators: dict = {}
        self._entropy_key = None
        self.lock = threading.Lock()

    @property
    def generator(self):
        """NumPy's generator for the runtime's other draws (shuffles of fit and rt.data)."""
        if self._generator is None:
            self._generator = np.random.default_rng(self.global_seed)
        return self._generator

    def set_seed(self, seed):
        import random as _pyrandom  # with the first seed: `import runtime` does not import it

        self.global_seed = seed
        self._generator = np.random.default_rng(seed)
        self._op_seeds = None if seed is None else _pyrandom.Random(seed)
        self.streams.clear()
        self.op_generators.clear()

    def seed_pair(self, op_seed):
        """TensorFlow's (global seed, op seed) of a draw made now; None when neither is set
        (a nondeterministic draw)."""
        if self.global_seed is not None:
            if op_seed is None:
                graph = context.current_graph()
                # TensorFlow's: in a graph the op's id there (the same in two traces of one
                # function), eagerly the next of the global seed's sequence
                op_seed = len(graph.operations) if graph is not None \
                    else self._op_seeds.randint(0, _MAXINT32)
            pair = (self.global_seed % _MAXINT32, op_seed % _MAXINT32)
        elif op_seed is not None:
            pair = (_DEFAULT_GRAPH_SEED, op_seed % _MAXINT32)
        else:
            return None
        return (0, _MAXINT32) if pair == (0, 0) else pair

    def draw(self, kind: str, dtype, seed, seed2, outputs: int):
        """The Philox key and counter of the next draw of `outputs` values by an op of `kind`
        and `dtype` with the seed pair (seed, seed2) (None: nondeterministic); the op's
        stream moves past them (256 blocks a value, as TensorFlow's)."""
        pair = None if seed is None else (seed, seed2)
        stream = (kind, dtype.name)
        with self.lock:
            if pair is None:
                if self._entropy_key is None:
                    self._entropy_key = tuple(int(w) for w in np.random.SeedSequence()
                                              .generate_state(4, np.uint32))
                key, counter = self._entropy_key[:2], (0, 0) + self._entropy_key[2:]
            else:
                seed, seed2 = pair
                key = (seed & 0xFFFFFFFF, (seed >> 32) & 0xFFFFFFFF)
                counter = (0, 0, seed2 & 0xFFFFFFFF, (seed2 >> 32) & 0xFFFFFFFF)
            start = self.streams.get((stream, pair), 0)
            self.streams[(stream, pair)] = start + 256 * outputs
        return key, philox.advanced(counter, start)


SEEDS = _Seeds()


@export("random.set_seed")
def set_seed(seed) -> None:
    """Makes later random draws reproducible (resets every op-level stream); the numbers are
    TensorFlow's for the same seeds (eagerly; inside a function the op seeds are this
    runtime's)."""
    SEEDS.set_seed(None if seed is None else int(seed))


def generator(seed):
    """NumPy's generator for the draws this runtime makes its own way (shuffles, dropout
    masks, the XLA tier's per-call seeds): the global one, or one per (global, op) seed, which
    advances from call to call."""
    if seed is None:
        return SEEDS.generator
    key = (SEEDS.global_seed, seed)
    gen = SEEDS.op_generators.get(key)
    if gen is None:
        gen = SEEDS.op_generators[key] = np.random.default_rng(
            [int(seed) & 0xFFFFFFFF, 0 if SEEDS.global_seed is None
             else int(SEEDS.global_seed) & 0xFFFFFFFF])
    return gen


def _uniform_kernel(shape, minval, maxval, dtype, seed, seed2):
    np_dtype = np.dtype(dtype.as_numpy_dtype)
    n = int(np.prod(shape, dtype=np.int64))
    if dtype.is_integer:
        if not minval < maxval:
            raise InvalidArgumentError(f"uniform needs minval < maxval, got minval={minval}, "
                                       f"maxval={maxval}.")
        key, counter = SEEDS.draw("RandomUniformInt", dtype, seed, seed2, n)
        return philox.integers(np, key, counter, n, int(minval),
                               int(maxval), np_dtype).reshape(shape)
    key, counter = SEEDS.draw("RandomUniform", dtype, seed, seed2, n)
    unit = philox.uniform(np, key, counter, n, np_dtype).reshape(shape)
    lo, hi = np.asarray(minval, np_dtype), np.asarray(maxval, np_dtype)
    out = (unit * (hi - lo) + lo).astype(np_dtype, copy=False)
    if hi > lo:  # rounding the scaled draw can reach maxval: keep the range [minval, maxval)
        out = np.minimum(out, np.nextafter(hi, np.asarray(-np.inf, np_dtype)))
    return out


def _normal_kernel(shape, mean, stddev, dtype, seed, seed2):
    np_dtype = np.dtype(dtype.as_numpy_dtype)
    n = int(np.prod(shape, dtype=np.int64))
    key, counter = SEEDS.draw("RandomStandardNormal", dtype, seed, seed2, n)
    unit = philox.normal(np, key, counter, n, philox.normal_dtype(np_dtype))
    return (unit.astype(np_dtype) * np_dtype.type(stddev) + np_dtype.type(mean)).reshape(shape)


def _random_infer(shape, a, b, dtype, seed, seed2):
    return TensorShape(shape), dtype


def _random_dynamic_infer(shape, a, b, dtype, seed, seed2):
    if not shape.dtype.is_integer or shape.shape.rank not in (None, 1):
        raise TypeError(f"A random op's shape must be a 1-D int tensor, got {shape.dtype.name} "
                        f"of shape {shape.shape}.")
    return shape_from_tensor(shape), dtype


def _dims(shape):
    return tuple(int(d) for d in shape)


def _seed_attrs(seed) -> dict:
    """The seed attributes of a stateful draw made now (TensorFlow's get_seed)."""
    pair = SEEDS.seed_pair(None if seed is None else int(seed))
    return {"seed": None, "seed2": None} if pair is None else {"seed": pair[0], "seed2": pair[1]}


def _draw(shape_op, dynamic_op, shape, attrs, name):
    """The op with its shape as an attribute when trace time knows it, else as an input."""
    dims = static_or_later(shape, "shape")
    if dims is None:
        return apply(dynamic_op, [int_vector(shape)], attrs, name=name)
    return apply(shape_op, [], {"shape": dims, **attrs}, name=name)


# the shape is an attr, or (the *Dynamic ops) an input known when the graph runs
# seed, seed2: TensorFlow's seed pair (global, op), resolved when the op is made; None for
# a nondeterministic draw
_DRAW = {"a": NUMBER, "b": NUMBER, "dtype": DTYPE, "seed": OPT_INT, "seed2": OPT_INT}
_STATIC_DRAW = {"shape": DIMS, **_DRAW}

UNIFORM = define("RandomUniform", _random_infer,
                 lambda shape, a, b, dtype, seed, seed2: _uniform_kernel(shape, a, b, dtype, seed, seed2),
                 effects=Effect.RANDOM, differentiable=False, attrs=_STATIC_DRAW)


NORMAL = define("RandomStandardNormal", _random_infer,
                lambda shape, a, b, dtype, seed, seed2: _normal_kernel(shape, a, b, dtype, seed, seed2),
                effects=Effect.RANDOM, differentiable=False, attrs=_STATIC_DRAW)


# the same draws with the shape an input tensor: shapes known only when the graph runs
UNIFORM_DYNAMIC = define(
    "RandomUniformDynamic", _random_dynamic_infer,
    lambda shape, a, b, dtype, seed, seed2: _uniform_kernel(_dims(shape), a, b, dtype, seed,
                                                          seed2),
    effects=Effect.RANDOM, differentiable=False, attrs=_DRAW)


NORMAL_DYNAMIC = define(
    "RandomStandardNormalDynamic", _random_dynamic_infer,
    lambda shape, a, b, dtype, seed, seed2: _normal_kernel(_dims(shape), a, b, dtype, seed,
                                                         seed2),
    effects=Effect.RANDOM, differentiable=False, attrs=_DRAW)


@export("random.uniform")
def uniform(shape, minval=0, maxval=None, dtype=_dtypes.float32, seed=None, name=None) -> Tensor:
    """Uniform values in [minval, maxval) (maxval defaults to 1 for floats)."""
    dtype = _dtypes.as_dtype(dtype)
    if maxval is None:
        if dtype.is_integer:
            raise ValueError("uniform with an integer dtype needs maxval.")
        maxval = 1
    if any(isinstance(v, SymbolicTensor) for v in (minval, maxval)):
        return _uniform_between(shape, minval, maxval, dtype, seed, name)
    return _draw(UNIFORM, UNIFORM_DYNAMIC, shape, {
        "a": float(minval) if dtype.is_floating else int(minval),
        "b": float(maxval) if dtype.is_floating else int(maxval), "dtype": dtype,
        **_seed_attrs(seed)}, name)


def _uniform_between(shape, minval, maxval, dtype, seed, name) -> Tensor:
    """A uniform draw whose bounds are tensors known when the graph runs: a [0, 1) draw
    scaled into [minval, maxval) (integers: floor of the scaled draw, in float64)."""
    minval = convert_to_tensor(minval, dtype=dtype)
    maxval = convert_to_tensor(maxval, dtype=dtype)
    if dtype.is_floating:
        value = minval + (maxval - minval) * uniform(shape, 0.0, 1.0, dtype, seed, name)
        # rounding can reach maxval; such a draw wraps round to minval: the range is [min, max)
        return where(array_math.less(value, maxval), value, array_math.add(zeros_like(value), minval))
    unit = uniform(shape, 0.0, 1.0, _dtypes.float64, seed, name)
    span = cast(maxval - minval, _dtypes.float64)
    return minval + cast(array_math.floor(unit * span), dtype)


@export("random.normal")
def normal(shape, mean=0.0, stddev=1.0, dtype=_dtypes.float32, seed=None, name=None) -> Tensor:
    """Normally distributed values (mean, stddev); a fresh draw every time the op runs."""
    dtype = _dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise TypeError(f"normal needs a floating dtype, got {dtype.name}.")
    if any(isinstance(v, SymbolicTensor) for v in (mean, stddev)):   # known when the graph runs
        draw = normal(shape, 0.0, 1.0, dtype, seed, name)
        return convert_to_tensor(mean, dtype=dtype) + convert_to_tensor(stddev, dtype=dtype) * draw
    return _draw(NORMAL, NORMAL_DYNAMIC, shape, {"a": float(mean), "b": float(stddev),
                                                 "dtype": dtype, **_seed_attrs(seed)}, name)


def _truncated_normal_kernel(shape, a, b, dtype, seed, seed2):  # a: the mean, b: the stddev
    np_dtype = np.dtype(dtype.as_numpy_dtype)
    n = int(np.prod(shape, dtype=np.int64))
    key, counter = SEEDS.draw("TruncatedNormal", dtype, seed, seed2, n)
    unit = philox.truncated_normal(key, counter, n, philox.normal_dtype(np_dtype))
    return (unit.astype(np_dtype) * np_dtype.type(b) + np_dtype.type(a)).reshape(shape)


TRUNCATED_NORMAL = define("TruncatedNormal", _random_infer, _truncated_normal_kernel,
                          effects=Effect.RANDOM, differentiable=False, attrs=_STATIC_DRAW)


TRUNCATED_NORMAL_DYNAMIC = define(
    "TruncatedNormalDynamic", _random_dynamic_infer,
    lambda shape, a, b, dtype, seed, seed2: _truncated_normal_kernel(_dims(shape), a, b, dtype,
                                                                   seed, seed2),
    effects=Effect.RANDOM, differentiable=False, attrs=_DRAW)


@export("random.truncated_normal")
def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=_dtypes.float32, seed=None, name=None) -> Tensor:
    """Normal values (mean, stddev), redrawn when more than two stddevs from the mean."""
    dtype = _dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise TypeError(f"truncated_normal needs a floating dtype, got {dtype.name}.")
    if any(isinstance(v, SymbolicTensor) for v in (mean, stddev)):   # known when the graph runs
        draw = truncated_normal(shape, 0.0, 1.0, dtype, seed, name)
        return convert_to_tensor(mean, dtype=dtype) + convert_to_tensor(stddev, dtype=dtype) * draw
    return _draw(TRUNCATED_NORMAL, TRUNCATED_NORMAL_DYNAMIC, shape, {
        "a": float(mean), "b": float(stddev), "dtype": dtype, **_seed_attrs(seed)}, name)


def _shuffle_kernel(value, seed):
    if value.ndim == 0:
        return value.copy()
    return generator(seed).permutation(value)


SHUFFLE = define("RandomShuffle", lambda value, seed: (value.shape, value.dtype), _shuffle_kernel,
                 effects=Effect.RANDOM, differentiable=False, attrs={"seed": OPT_INT})


@export("random.shuffle")
def shuffle(value, seed=None, name=None) -> Tensor:
    """`value` with its rows (first axis) in a random order; a fresh order every time the op
    runs. `seed` makes the sequence of orders reproducible, as in the other draws."""
    return apply(SHUFFLE, [convert_to_tensor(value)], {"seed": None if seed is None else int(seed)},
                 name=name)
