"""Stateful random ops: a fresh draw every time an op runs (eagerly or in a graph)."""

from __future__ import annotations

import numpy as np

from .. import dtypes as _dtypes
from ..attr_kinds import DIMS, DTYPE, NUMBER, OPT_INT
from ..exports import export
from ..opdef import Effect, define
from ..shapes import TensorShape
from ..tensor import SymbolicTensor, Tensor
from . import array_math
from .array_math import cast, int_vector, static_or_later, where, zeros_like
from .core import apply, convert_to_tensor
from .shape_rules import shape_from_tensor


class _Seeds:
    """The global seed and the generators drawn from it (made on first use: importing
    numpy.random takes longer than the rest of the runtime's start-up needs)."""

    def __init__(self):
        self.global_seed = None
        self._generator = None
        self.op_generators: dict = {}

    @property
    def generator(self):
        if self._generator is None:
            self._generator = np.random.default_rng(self.global_seed)
        return self._generator

    def set_seed(self, seed):
        self.global_seed = seed
        self._generator = np.random.default_rng(seed)
        self.op_generators.clear()

    def for_op(self, seed):
        """The generator an op draws from: the global one, or one per (global, op) seed."""
        if seed is None:
            return None
        key = (self.global_seed, seed)
        gen = self.op_generators.get(key)
        if gen is None:
            gen = self.op_generators[key] = np.random.default_rng(
                [int(seed) & 0xFFFFFFFF, 0 if self.global_seed is None else int(self.global_seed) & 0xFFFFFFFF])
        return gen


SEEDS = _Seeds()


@export("random.set_seed")
def set_seed(seed) -> None:
    """Makes later random draws reproducible (resets every op-level generator)."""
    SEEDS.set_seed(None if seed is None else int(seed))


def generator(seed):
    return SEEDS.for_op(seed) or SEEDS.generator


def _uniform_kernel(shape, minval, maxval, dtype, seed):
    gen = generator(seed)
    if dtype.is_integer:
        return gen.integers(minval, maxval, size=shape, dtype=dtype.as_numpy_dtype)
    out = gen.uniform(minval, maxval, size=shape).astype(dtype.as_numpy_dtype)
    # rounding a float64 draw to a narrower dtype can reach maxval: keep the range [min, max)
    top = np.asarray(maxval, dtype.as_numpy_dtype)
    if top > np.asarray(minval, dtype.as_numpy_dtype):
        out = np.minimum(out, np.nextafter(top, np.asarray(-np.inf, dtype.as_numpy_dtype)))
    return out


def _normal_kernel(shape, mean, stddev, dtype, seed):
    return (generator(seed).standard_normal(size=shape) * stddev + mean).astype(dtype.as_numpy_dtype)


def _random_infer(shape, a, b, dtype, seed):
    return TensorShape(shape), dtype


def _random_dynamic_infer(shape, a, b, dtype, seed):
    if not shape.dtype.is_integer or shape.shape.rank not in (None, 1):
        raise TypeError(f"A random op's shape must be a 1-D int tensor, got {shape.dtype.name} "
                        f"of shape {shape.shape}.")
    return shape_from_tensor(shape), dtype


def _dims(shape):
    return tuple(int(d) for d in shape)


def _draw(shape_op, dynamic_op, shape, attrs, name):
    """The op with its shape as an attribute when trace time knows it, else as an input."""
    dims = static_or_later(shape, "shape")
    if dims is None:
        return apply(dynamic_op, [int_vector(shape)], attrs, name=name)
    return apply(shape_op, [], {"shape": dims, **attrs}, name=name)


# the shape is an attr, or (the *Dynamic ops) an input known when the graph runs
_DRAW = {"a": NUMBER, "b": NUMBER, "dtype": DTYPE, "seed": OPT_INT}
_STATIC_DRAW = {"shape": DIMS, **_DRAW}

UNIFORM = define("RandomUniform", _random_infer,
                 lambda shape, a, b, dtype, seed: _uniform_kernel(shape, a, b, dtype, seed),
                 effects=Effect.RANDOM, differentiable=False, attrs=_STATIC_DRAW)


NORMAL = define("RandomStandardNormal", _random_infer,
                lambda shape, a, b, dtype, seed: _normal_kernel(shape, a, b, dtype, seed),
                effects=Effect.RANDOM, differentiable=False, attrs=_STATIC_DRAW)


# the same draws with the shape an input tensor: shapes known only when the graph runs
UNIFORM_DYNAMIC = define(
    "RandomUniformDynamic", _random_dynamic_infer,
    lambda shape, a, b, dtype, seed: _uniform_kernel(_dims(shape), a, b, dtype, seed),
    effects=Effect.RANDOM, differentiable=False, attrs=_DRAW)


NORMAL_DYNAMIC = define(
    "RandomStandardNormalDynamic", _random_dynamic_infer,
    lambda shape, a, b, dtype, seed: _normal_kernel(_dims(shape), a, b, dtype, seed),
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
        "b": float(maxval) if dtype.is_floating else int(maxval), "dtype": dtype, "seed": seed},
        name)


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
                                                 "dtype": dtype, "seed": seed}, name)


def _truncated_normal_kernel(shape, a, b, dtype, seed):  # a: the mean, b: the stddev
    gen = generator(seed)
    values = gen.standard_normal(size=shape)
    outside = np.abs(values) > 2
    while outside.any():  # redraw values more than two standard deviations away
        values[outside] = gen.standard_normal(size=int(outside.sum()))
        outside = np.abs(values) > 2
    return (values * b + a).astype(dtype.as_numpy_dtype)


TRUNCATED_NORMAL = define("TruncatedNormal", _random_infer, _truncated_normal_kernel,
                          effects=Effect.RANDOM, differentiable=False, attrs=_STATIC_DRAW)


TRUNCATED_NORMAL_DYNAMIC = define(
    "TruncatedNormalDynamic", _random_dynamic_infer,
    lambda shape, a, b, dtype, seed: _truncated_normal_kernel(_dims(shape), a, b, dtype, seed),
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
        "a": float(mean), "b": float(stddev), "dtype": dtype, "seed": seed}, name)


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
