"""Stateless random ops: the numbers are a function of a seed pair (and the shape).

Each op reads its seed as an input tensor and keys a counter-based generator (Philox) with
it, so the same seed gives the same numbers eagerly, staged, on every tier and whether the
seed is a constant or a traced argument. The ops have no effects: a graph may fold, merge or
drop them like any pure op. `rt.random.Generator` draws through the same ops, giving them
its state (a counter and a key, shape [3]) in place of a seed pair.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes as _dtypes
from ..attr_kinds import DTYPE, INT
from ..errors import InvalidArgumentError
from ..exports import export
from ..opdef import define
from ..shapes import TensorShape
from ..tensor import Tensor
from . import philox
from .array_math import as_int, cast, int_vector, stack, static_or_later
from .core import apply, convert_to_tensor
from .shape_rules import shape_from_tensor

# the second key word of a Generator's streams: keeps them apart from seed pairs' streams
GENERATOR_KEY_TAG = 0x6A09E667F3BCC908


def bit_generator(seed) -> np.random.Generator:
    """NumPy's generator for a seed pair ([2] ints: the Philox key, counter 0) or a
    Generator's state ([3] ints: counter low, counter high, key)."""
    words = np.ascontiguousarray(np.asarray(seed).astype(np.int64).ravel()).view(np.uint64)
    if words.size == 2:
        return np.random.Generator(np.random.Philox(key=words))
    counter = np.array([words[0], words[1], 0, 0], dtype=np.uint64)
    key = np.array([words[2], GENERATOR_KEY_TAG], dtype=np.uint64)
    return np.random.Generator(np.random.Philox(counter=counter, key=key))


def _dims(shape) -> tuple:
    dims = tuple(int(d) for d in np.ravel(shape))
    if any(d < 0 for d in dims):
        raise InvalidArgumentError(f"A random op's shape must not be negative, got {dims}.")
    return dims


# -- shape and dtype rules --------------------------------------------------------------------

def _check_shape_input(shape):
    if not shape.dtype.is_integer or shape.shape.rank not in (None, 1):
        raise TypeError(f"A random op's shape must be a 1-D int tensor, got {shape.dtype.name} "
                        f"of shape {shape.shape}.")
    return shape_from_tensor(shape)


def _check_seed_input(seed):
    if not seed.dtype.is_integer or not (seed.shape.is_compatible_with([2])
                                         or seed.shape.is_compatible_with([3])):
        raise ValueError(f"seed must be an int tensor of shape [2], got {seed.dtype.name} of "
                         f"shape {seed.shape}.")


def _draw_infer(shape, seed, *bounds, dtype):
    _check_seed_input(seed)
    return _check_shape_input(shape), dtype


# -- kernels ---------------------------------------------------------------------------------

def _stream(seed):
    """The Philox key and counter of a seed pair, or of a Generator's state [3]."""
    seed = np.asarray(seed)
    if seed.size == 3:
        return philox.key_counter_of_state(seed)
    return philox.key_counter_of_seed(seed)


def _floats(dtype) -> np.dtype:
    return np.dtype(dtype.as_numpy_dtype)


def _uniform_kernel(shape, seed, dtype):
    dims = _dims(shape)
    return philox.uniform(np, *_stream(seed), int(np.prod(dims)), _floats(dtype)).reshape(dims)


def _uniform_int_kernel(shape, seed, minval, maxval, dtype):
    lo, hi = int(minval), int(maxval)
    if not lo < hi:
        raise InvalidArgumentError(f"uniform needs minval < maxval, got minval={lo}, maxval={hi}.")
    dims = _dims(shape)
    return philox.integers(np, *_stream(seed), int(np.prod(dims)), lo, hi,
                           dtype.as_numpy_dtype).reshape(dims)


def _full_int_kernel(shape, seed, dtype):
    dims = _dims(shape)
    return philox.full_range(np, *_stream(seed), int(np.prod(dims)),
                             dtype.as_numpy_dtype).reshape(dims)



def _normal_kernel(shape, seed, dtype):
    dims = _dims(shape)
    values = philox.normal(np, *_stream(seed), int(np.prod(dims)), philox.normal_dtype(dtype.as_numpy_dtype))
    return values.astype(dtype.as_numpy_dtype, copy=False).reshape(dims)


def _truncated_normal_kernel(shape, seed, dtype):
    dims = _dims(shape)
    values = philox.truncated_normal(*_stream(seed), int(np.prod(dims)), philox.normal_dtype(dtype.as_numpy_dtype))
    return values.astype(dtype.as_numpy_dtype, copy=False).reshape(dims)


def _binomial_kernel(shape, seed, counts, probs, dtype):
    counts, probs = np.asarray(counts), np.asarray(probs)
    if (counts < 0).any() or ((probs < 0) | (probs > 1) | np.isnan(probs)).any():
        raise InvalidArgumentError("binomial needs counts >= 0 and probs in [0, 1].")
    dims = _dims(shape)
    try:
        drawn = bit_generator(seed).binomial(counts.astype(np.int64), probs.astype(np.float64),
                                             size=dims)
    except ValueError as exc:
        raise InvalidArgumentError(f"binomial: counts of shape {counts.shape} and probs of shape "
                                   f"{probs.shape} do not broadcast to shape {dims}.") from exc
    return drawn.astype(dtype.as_numpy_dtype)


def _categorical_kernel(logits, seed, num_samples, dtype):
    logits = np.asarray(logits)
    batch, classes = logits.shape
    if classes == 0 and num_samples > 0:
        raise InvalidArgumentError("categorical needs at least one class in logits.")
    w = philox.words(np, *_stream(seed), 2 * batch * num_samples)
    return categorical_of_units(logits, philox.unit_float64(np, w[0::2], w[1::2]).reshape(
        batch, num_samples)).astype(dtype.as_numpy_dtype)


def categorical_of_units(logits, units):
    """TensorFlow's multinomial sampler (run as one shard): sample j of row r is the first
    class whose running sum of exp(logit - the row's largest finite logit), over the finite
    logits in float64, exceeds units[r, j] times the row's total; a row without a finite
    logit gives the class count, as TensorFlow's. The units are the doubles of consecutive
    word pairs of the seed's stream, row after row (TensorFlow starts each shard of rows
    further on in the stream, so a batch it splits over threads differs)."""
    z = np.asarray(logits).astype(np.float64)
    if not z.size:
        return np.zeros(units.shape, np.int64)
    finite = np.isfinite(z)
    top = np.max(np.where(finite, z, -np.inf), axis=1, keepdims=True)
    weights = np.where(finite, np.exp(z - np.where(np.isfinite(top), top, 0.0)), 0.0)
    cdf = np.cumsum(weights, axis=1)
    targets = units * cdf[:, -1:]
    return np.stack([np.searchsorted(cdf[r], targets[r], side="right")
                     for r in range(z.shape[0])]).reshape(units.shape)


def _categorical_infer(logits, seed, num_samples, dtype):
    _check_seed_input(seed)
    if not logits.dtype.is_floating or logits.shape.rank not in (None, 2):
        raise ValueError(f"logits must be a 2-D float tensor [batch, classes], got "
                         f"{logits.dtype.name} of shape {logits.shape}.")
    batch = logits.shape.as_list()[0] if logits.shape.rank is not None else None
    return TensorShape([batch, num_samples]), dtype


_DRAW = {"dtype": DTYPE}
UNIFORM = define("StatelessRandomUniform", _draw_infer, _uniform_kernel, differentiable=False,
                 attrs=_DRAW)
UNIFORM_INT = define("StatelessRandomUniformInt", _draw_infer, _uniform_int_kernel,
                     differentiable=False, attrs=_DRAW)
UNIFORM_FULL_INT = define("StatelessRandomUniformFullInt", _draw_infer, _full_int_kernel,
                          differentiable=False, attrs=_DRAW)
NORMAL = define("StatelessRandomNormal", _draw_infer, _normal_kernel, differentiable=False,
                attrs=_DRAW)
TRUNCATED_NORMAL = define("StatelessTruncatedNormal", _draw_infer, _truncated_normal_kernel,
                          differentiable=False, attrs=_DRAW)
BINOMIAL = define("StatelessRandomBinomial", _draw_infer, _binomial_kernel, differentiable=False,
                  attrs=_DRAW)
CATEGORICAL = define("StatelessMultinomial", _categorical_infer, _categorical_kernel,
                     differentiable=False, attrs={"num_samples": INT, "dtype": DTYPE})


# -- argument handling -------------------------------------------------------------------------

def seed_tensor(seed, what: str = "seed") -> Tensor:
    """A seed pair as an int tensor of shape [2] (int32 and int64 tensors are kept)."""
    if isinstance(seed, Tensor):
        t = convert_to_tensor(seed)
    else:
        array = np.asarray(seed)
        if array.dtype.kind not in "iu":
            raise TypeError(f"{what} must be a pair of ints or an int tensor of shape [2], got "
                            f"{seed!r}.")
        t = convert_to_tensor(array.astype(np.int64))
    if not t.dtype.is_integer:
        raise TypeError(f"{what} must be an int32 or int64 tensor, got {t.dtype.name}.")
    if not t.shape.is_compatible_with([2]):
        raise ValueError(f"{what} must have shape [2], got shape {t.shape}.")
    return t


def shape_tensor(shape) -> Tensor:
    """A shape argument as a 1-D int tensor, checked now when its values are known."""
    dims = static_or_later(shape, "shape")
    if dims is not None and any(d < 0 for d in dims):
        raise ValueError(f"shape must not hold negative dimensions, got {list(dims)}.")
    return int_vector(shape)


def _dtype(dtype, allowed, fn: str) -> _dtypes.DType:
    dtype = _dtypes.as_dtype(dtype)
    if dtype not in allowed:
        raise TypeError(f"{fn}: dtype must be one of {', '.join(d.name for d in allowed)}; got "
                        f"{dtype.name}.")
    return dtype


FLOATS = (_dtypes.float16, _dtypes.float32, _dtypes.float64)
INTS = (_dtypes.int32, _dtypes.int64)
FULL_INTS = (_dtypes.int32, _dtypes.int64, _dtypes.uint32, _dtypes.uint64)


def _is_zero(v) -> bool:
    return not isinstance(v, Tensor) and np.ndim(v) == 0 and float(v) == 0.0


def _is_one(v) -> bool:
    return not isinstance(v, Tensor) and np.ndim(v) == 0 and float(v) == 1.0


def _affine(unit: Tensor, scale, shift, dtype) -> Tensor:
    """`unit * scale + shift` in `dtype`, skipping a multiply by one and an add of zero."""
    out = unit
    if not _is_one(scale):
        out = out * convert_to_tensor(scale, dtype=dtype)
    if not _is_zero(shift):
        out = out + convert_to_tensor(shift, dtype=dtype)
    return out


# -- draws shared by the stateless functions and rt.random.Generator ---------------------------

def draw_uniform(shape, seed: Tensor, minval, maxval, dtype, name, fn: str) -> Tensor:
    dtype = _dtypes.as_dtype(dtype)
    if dtype.is_integer:
        if minval is None and maxval is None:
            return draw_full_int(shape, seed, dtype, name, fn)
        if minval is None or maxval is None:
            raise ValueError(f"{fn}: an integer dtype needs both minval and maxval (or neither, "
                             "for the full range of the dtype).")
        dtype = _dtype(dtype, INTS, fn)
        lo, hi = (convert_to_tensor(v, dtype=dtype) for v in (minval, maxval))
        for what, t in (("minval", lo), ("maxval", hi)):
            if t.shape.rank not in (None, 0):
                raise ValueError(f"{fn}: {what} must be a scalar for an integer dtype, got "
                                 f"shape {t.shape}.")
        return apply(UNIFORM_INT, [shape_tensor(shape), seed, lo, hi], {"dtype": dtype}, name=name)
    dtype = _dtype(dtype, FLOATS, fn)
    minval = 0 if minval is None else minval
    maxval = 1 if maxval is None else maxval
    unit = apply(UNIFORM, [shape_tensor(shape), seed], {"dtype": dtype}, name=name)
    if _is_zero(minval) and _is_one(maxval):
        return unit
    lo = convert_to_tensor(minval, dtype=dtype)
    return unit * (convert_to_tensor(maxval, dtype=dtype) - lo) + lo


def draw_full_int(shape, seed: Tensor, dtype, name, fn: str) -> Tensor:
    dtype = _dtype(dtype, FULL_INTS, fn)
    return apply(UNIFORM_FULL_INT, [shape_tensor(shape), seed], {"dtype": dtype}, name=name)


def draw_normal(op, shape, seed: Tensor, mean, stddev, dtype, name, fn: str) -> Tensor:
    dtype = _dtype(dtype, FLOATS, fn)
    unit = apply(op, [shape_tensor(shape), seed], {"dtype": dtype}, name=name)
    return _affine(unit, stddev, mean, dtype)


def draw_binomial(shape, seed: Tensor, counts, probs, dtype, name, fn: str) -> Tensor:
    dtype = _dtype(dtype, INTS + FLOATS, fn)
    counts = convert_to_tensor(counts)
    probs = convert_to_tensor(probs)
    if not (counts.dtype.is_integer or counts.dtype.is_floating):
        raise TypeError(f"{fn}: counts must be numbers, got {counts.dtype.name}.")
    if not probs.dtype.is_floating:
        raise TypeError(f"{fn}: probs must be floating-point, got {probs.dtype.name}.")
    return apply(BINOMIAL, [shape_tensor(shape), seed, counts, probs], {"dtype": dtype}, name=name)


# -- public stateless functions ------------------------------------------------------------------

@export("random.stateless_uniform", "random.experimental.stateless_uniform")
def stateless_uniform(shape, seed, minval=0, maxval=None, dtype=_dtypes.float32,
                      name: str | None = None, alg: str = "auto_select") -> Tensor:
    """Uniform values in [minval, maxval), a function of `seed` (a pair of ints).

    Floats default to [0, 1). Integer dtypes need both `minval` and `maxval`, or both None for
    the dtype's full range (uint32/uint64 too)."""
    _check_alg(alg)
    return draw_uniform(shape, seed_tensor(seed), minval, maxval, dtype, name,
                        "stateless_uniform")


@export("random.stateless_normal", "random.experimental.stateless_normal")
def stateless_normal(shape, seed, mean=0.0, stddev=1.0, dtype=_dtypes.float32,
                     name: str | None = None, alg: str = "auto_select") -> Tensor:
    """Normally distributed values (mean, stddev), a function of `seed` (a pair of ints)."""
    _check_alg(alg)
    return draw_normal(NORMAL, shape, seed_tensor(seed), mean, stddev, dtype, name,
                       "stateless_normal")


@export("random.stateless_truncated_normal", "random.experimental.stateless_truncated_normal")
def stateless_truncated_normal(shape, seed, mean=0.0, stddev=1.0, dtype=_dtypes.float32,
                               name: str | None = None, alg: str = "auto_select") -> Tensor:
    """Normal values (mean, stddev) within two stddevs of the mean, a function of `seed`."""
    _check_alg(alg)
    return draw_normal(TRUNCATED_NORMAL, shape, seed_tensor(seed), mean, stddev, dtype, name,
                       "stateless_truncated_normal")


@export("random.stateless_binomial", "random.experimental.stateless_binomial")
def stateless_binomial(shape, seed, counts, probs, output_dtype=_dtypes.int32,
                       name: str | None = None) -> Tensor:
    """Binomial counts of successes in `counts` trials of probability `probs` (both broadcast
    to `shape`), a function of `seed`."""
    return draw_binomial(shape, seed_tensor(seed), counts, probs, output_dtype, name,
                         "stateless_binomial")


@export("random.stateless_categorical", "random.experimental.stateless_categorical")
def stateless_categorical(logits, num_samples, seed, dtype=_dtypes.int64,
                          name: str | None = None) -> Tensor:
    """`num_samples` class indices per row of `logits` [batch, classes], drawn with the
    probabilities softmax(logits), a function of `seed`."""
    seed = seed_tensor(seed)
    dtype = _dtype(dtype, INTS, "stateless_categorical")
    logits = convert_to_tensor(logits)
    n = as_int(num_samples, "num_samples")
    if n < 0:
        raise ValueError(f"num_samples must not be negative, got {n}.")
    return apply(CATEGORICAL, [logits, seed], {"num_samples": n, "dtype": dtype}, name=name)


@export("random.split", "random.experimental.stateless_split")
def split(seed, num: int = 2, alg: str = "auto_select") -> Tensor:
    """`num` new seed pairs ([num, 2], the dtype of `seed`) derived from `seed`."""
    _check_alg(alg)
    seed = seed_tensor(seed)
    n = as_int(num, "num")
    if n < 0:
        raise ValueError(f"num must not be negative, got {n}.")
    return apply(UNIFORM_FULL_INT, [int_vector([n, 2]), seed], {"dtype": seed.dtype})


@export("random.fold_in", "random.experimental.stateless_fold_in")
def fold_in(seed, data, alg: str = "auto_select") -> Tensor:
    """A new seed pair (the dtype of `seed`) derived from `seed` and the integer `data`."""
    _check_alg(alg)
    seed = seed_tensor(seed)
    data = convert_to_tensor(data)
    if not data.dtype.is_integer or data.shape.rank not in (None, 0):
        raise TypeError(f"data must be an int scalar, got {data.dtype.name} of shape "
                        f"{data.shape}.")
    key = apply(UNIFORM_FULL_INT, [int_vector([1]), seed], {"dtype": _dtypes.int64})
    pair = stack([key[0], cast(data, _dtypes.int64)])
    out = apply(UNIFORM_FULL_INT, [int_vector([2]), pair], {"dtype": _dtypes.int64})
    return out if seed.dtype is _dtypes.int64 else cast(out, seed.dtype)


def _check_alg(alg) -> None:
    name = getattr(alg, "name", alg)
    if isinstance(name, str) and name.lower() in ("auto_select", "philox"):
        return
    if alg in (1, 3):
        return
    raise ValueError(f"alg must be 'philox' or 'auto_select' (this runtime draws with Philox), "
                     f"got {alg!r}.")
