"""Gamma, Poisson and parameterized truncated-normal draws: `tf.random.gamma` / `poisson`
(stateful: a fresh draw every run), their stateless forms (`stateless_gamma`,
`stateless_poisson`, `stateless_parameterized_truncated_normal`: a function of a seed pair),
and the implicit reparameterization gradient of a gamma draw in its shape `alpha`.

The numbers are NumPy's samplers (Marsaglia-Tsang gamma, PTRS Poisson) over a Philox stream
keyed by the seed: the same seed gives the same numbers eagerly, staged and on every tier, and
`rt.random.set_seed` makes the stateful draws reproducible, but they are not TensorFlow's
numbers (its distributions are the same). The gradient of a gamma sample x in alpha is
TensorFlow's: -(dP(alpha, x)/dalpha) / p(x; alpha), with P the regularized lower incomplete
gamma function and p the density; a draw divided by `beta` differentiates through the
division as in TensorFlow.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes as _dtypes
from ..attr_kinds import DTYPE, OPT_INT
from ..errors import InvalidArgumentError
from ..exports import export
from ..opdef import Effect, define
from ..shapes import TensorShape
from ..tensor import Tensor
from . import array_composed as _composed
from . import array_math as _math
from . import math_extras as _math_extras
from . import math_special as _special
from . import random as _random
from . import random_stateless as _rs
from .core import apply, convert_to_tensor
from .shape_rules import broadcast, shape_from_tensor

_FLOATS = (_dtypes.float16, _dtypes.float32, _dtypes.float64)
_POISSON_DTYPES = _FLOATS + (_dtypes.int32, _dtypes.int64)


def _dims(shape) -> tuple:
    dims = tuple(int(d) for d in np.ravel(shape))
    if any(d < 0 for d in dims):
        raise InvalidArgumentError(f"A random op's shape must not be negative, got {list(dims)}.")
    return dims


def _philox_generator(key, counter) -> np.random.Generator:
    """NumPy's Philox generator at a (key, counter) of 32-bit words."""
    k = np.array([key[0] | key[1] << 32, 0], dtype=np.uint64)
    c = np.array([counter[0] | counter[1] << 32, counter[2] | counter[3] << 32, 0, 0],
                 dtype=np.uint64)
    return np.random.Generator(np.random.Philox(counter=c, key=k))


def _stateful_generator(kind, dtype, seed, seed2, n) -> np.random.Generator:
    key, counter = _random.SEEDS.draw(kind, dtype, seed, seed2, n)
    return _philox_generator(key, counter)


# -- samplers -------------------------------------------------------------------------------

def _gamma_values(gen, alpha, dims, np_dtype):
    """Gamma(alpha, 1) draws of shape `dims` (alpha broadcast to it): NaN for a negative or NaN
    alpha, never below the dtype's smallest normal number (TensorFlow's)."""
    alpha = np.broadcast_to(np.asarray(alpha, np.float64), dims)
    bad = ~(alpha >= 0)
    values = gen.standard_gamma(np.where(bad, 1.0, alpha), size=dims)
    values = np.maximum(values.astype(np_dtype), np.finfo(np_dtype).tiny)
    values[bad] = np.nan
    return values


def _poisson_values(gen, lam, dims, np_dtype):
    """Poisson(lam) draws of shape `dims` (lam broadcast to it): 0 for a rate of 0 or less."""
    lam = np.broadcast_to(np.asarray(lam, np.float64), dims)
    return gen.poisson(np.where(lam > 0, lam, 0.0), size=dims).astype(np_dtype)


def _truncated_normal_values(gen, dims, means, stddevs, minvals, maxvals, np_dtype):
    """Normal(mean, stddev) draws within [minval, maxval]: the standardized bounds' side
    nearer zero by inverting the normal CDF there, a far tail (no mass in float64) by
    rejection from an exponential (Robert 1995)."""
    params = [np.broadcast_to(np.asarray(p, np.float64), dims)
              for p in (means, stddevs, minvals, maxvals)]
    mean, std, lo, hi = params
    if not np.all((std > 0) & (lo < hi) & np.isfinite(mean) & np.isfinite(std)
                  & ~(np.isneginf(lo) & np.isposinf(hi))):
        raise InvalidArgumentError(
            "stateless_parameterized_truncated_normal: invalid parameters: every stddev must be "
            "positive, every minval below its maxval, means and stddevs finite, and not both "
            "bounds infinite.")
    a, b = (lo - mean) / std, (hi - mean) / std
    flip = a > 0  # draw -x between -b and -a: the bounds then reach the lower tail
    a, b = np.where(flip, -b, a), np.where(flip, -a, b)
    u = gen.random(dims)
    cdf_a, cdf_b = _normal_cdf(a), _normal_cdf(b)
    z = _normal_quantile(cdf_a + u * (cdf_b - cdf_a))
    far = ~(cdf_b > cdf_a) | ~np.isfinite(z)
    if far.any():  # both bounds deep in the upper tail (after the flip: -b, -a low)
        z[far] = -_tail_draws(gen, -b[far], -a[far])
    z = np.clip(z, a, b)
    z = np.where(flip, -z, z)
    return (mean + std * z).astype(np_dtype)


def _normal_cdf(x):
    return 0.5 * _special._erfc64(-x / np.sqrt(2.0))


def _normal_quantile(p):
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.sqrt(2.0) * _special._erfcinv64(2.0 * p)


def _tail_draws(gen, a, b):
    """Normal draws within [a, b], a > 0 far in the tail: exponential proposals accepted with
    probability exp(-(x - a)^2 / 2)."""
    out = np.empty_like(a)
    todo = np.arange(a.size)
    while todo.size:
        lo, hi = a[todo], b[todo]
        rate = (lo + np.sqrt(lo * lo + 4.0)) / 2.0
        x = lo + gen.exponential(1.0, todo.size) / rate
        ok = (x <= hi) & (gen.random(todo.size) <= np.exp(-0.5 * (x - rate) ** 2))
        out[todo[ok]] = x[ok]
        todo = todo[~ok]
    return out


# -- the gradient of a gamma draw in alpha --------------------------------------------------

def _gamma_sample_grad(alpha, sample):
    """d sample / d alpha at fixed P(alpha, sample): -(dP/dalpha) / density, by the series
    P(a, x) = sum_n x^(a+n) e^-x / Gamma(a+n+1), whose terms differentiate to
    term_n (log x - psi(a+n+1)); each term is taken relative to the density."""
    a, x = np.broadcast_arrays(np.asarray(alpha, np.float64), np.asarray(sample, np.float64))
    out = np.full(a.shape, np.nan)
    ok = (a > 0) & (x > 0) & np.isfinite(a) & np.isfinite(x)
    a_ok, x_ok = a[ok], x[ok]
    log_x = np.log(x_ok)
    ratio = x_ok / a_ok                       # term_0 / density = x / a
    psi = _special._digamma_positive(a_ok + 1.0).astype(np.float64)
    total = ratio * (log_x - psi)
    n = 0
    active = np.ones(a_ok.shape, bool)
    while active.any() and n < 100000:
        n += 1
        psi = psi + 1.0 / (a_ok + n)          # psi(a + n + 1)
        ratio = ratio * x_ok / (a_ok + n)
        step = ratio * (log_x - psi)
        total = total + step
        # the terms shrink geometrically once a + n passes x
        active = (a_ok + n < x_ok + 1) | (np.abs(step) > 1e-17 * np.abs(total) + 1e-300)
    out[ok] = -total
    return out


def _gamma_grad_infer(alpha, sample):
    return broadcast(alpha.shape, sample.shape, "RandomGammaGrad"), alpha.dtype


RANDOM_GAMMA_GRAD = define(
    "RandomGammaGrad", _gamma_grad_infer,
    lambda alpha, sample: _gamma_sample_grad(alpha, sample).astype(np.asarray(alpha).dtype),
    differentiable=False)


def _alpha_grad(op, g, alpha, sample):
    """The gradient of draws `sample` (shape [...shape, ...alpha]) reaching alpha."""
    partial = apply(RANDOM_GAMMA_GRAD, [alpha, sample])
    return apply(_math.SUM_TO_SHAPE, [g * partial, alpha])


# -- the ops ----------------------------------------------------------------------------------

def _check_shape(shape, fn):
    if not shape.dtype.is_integer or shape.shape.rank not in (None, 1):
        raise TypeError(f"{fn}: `shape` must be a 1-D int tensor, got {shape.dtype.name} of "
                        f"shape {shape.shape}.")
    return shape_from_tensor(shape)


def _stateful_infer(shape, param, dtype=None, seed=None, seed2=None):
    out = _check_shape(shape, "random op")
    if out.rank is not None and param.shape.rank is not None:
        out = TensorShape(out.as_list() + param.shape.as_list())
    else:
        out = TensorShape(None)
    return out, param.dtype if dtype is None else dtype


def _gamma_kernel(shape, alpha, seed, seed2):
    alpha = np.asarray(alpha)
    dims = _dims(shape) + alpha.shape
    gen = _stateful_generator("RandomGamma", _dtypes.from_numpy(alpha.dtype), seed, seed2,
                              int(np.prod(dims)))
    return _gamma_values(gen, alpha, dims, alpha.dtype)


RANDOM_GAMMA = define("RandomGamma", _stateful_infer, _gamma_kernel, effects=Effect.RANDOM,
                      attrs={"seed": OPT_INT, "seed2": OPT_INT})


@RANDOM_GAMMA.def_grad
def _random_gamma_grad(op, g):
    alpha = op.inputs[1]
    return [None, _alpha_grad(op, g, alpha, op.outputs[0])]


def _poisson_kernel(shape, lam, dtype, seed, seed2):
    lam = np.asarray(lam)
    dims = _dims(shape) + lam.shape
    gen = _stateful_generator("RandomPoissonV2", dtype, seed, seed2, int(np.prod(dims)))
    return _poisson_values(gen, lam, dims, dtype.as_numpy_dtype)


RANDOM_POISSON = define("RandomPoissonV2", _stateful_infer, _poisson_kernel,
                        effects=Effect.RANDOM, differentiable=False,
                        attrs={"dtype": DTYPE, "seed": OPT_INT, "seed2": OPT_INT})


def _stateless_infer(fn):
    def infer(shape, seed, *params, dtype=None):
        _rs._check_seed_input(seed)
        out = _check_shape(shape, fn)
        params_shape = TensorShape([])
        for p in params:
            params_shape = broadcast(params_shape, p.shape, fn)
        if out.rank is not None and params_shape.rank is not None and \
                not _ends_with(out, params_shape):
            raise InvalidArgumentError(
                f"{fn}: `shape` {out} must end with the broadcast shape of the parameters, "
                f"{params_shape}.")
        return out, params[0].dtype if dtype is None else dtype
    return infer


def _ends_with(out: TensorShape, tail: TensorShape) -> bool:
    if tail.rank > out.rank:
        return False
    lead = out.rank - tail.rank
    return all(a is None or b is None or a == b
               for a, b in zip(out.as_list()[lead:], tail.as_list()))


def _check_tail(fn, dims, *params):
    tail = np.broadcast_shapes(*(np.shape(p) for p in params))
    if len(tail) > len(dims) or tuple(dims[len(dims) - len(tail):]) != tail:
        raise InvalidArgumentError(f"{fn}: `shape` {list(dims)} must end with the broadcast "
                                   f"shape of the parameters, {list(tail)}.")


def _stateless_gamma_kernel(shape, seed, alpha):
    dims = _dims(shape)
    alpha = np.asarray(alpha)
    _check_tail("stateless_gamma", dims, alpha)
    return _gamma_values(_rs.bit_generator(seed), alpha, dims, alpha.dtype)


STATELESS_GAMMA = define("StatelessRandomGammaV2", _stateless_infer("stateless_gamma"),
                         _stateless_gamma_kernel)


@STATELESS_GAMMA.def_grad
def _stateless_gamma_grad(op, g):
    alpha = op.inputs[2]
    return [None, None, _alpha_grad(op, g, alpha, op.outputs[0])]


def _stateless_poisson_kernel(shape, seed, lam, dtype):
    dims = _dims(shape)
    _check_tail("stateless_poisson", dims, lam)
    return _poisson_values(_rs.bit_generator(seed), lam, dims, dtype.as_numpy_dtype)


STATELESS_POISSON = define("StatelessRandomPoisson", _stateless_infer("stateless_poisson"),
                           _stateless_poisson_kernel, differentiable=False,
                           attrs={"dtype": DTYPE})


def _ptn_infer(shape, seed, means, stddevs, minvals, maxvals):
    _rs._check_seed_input(seed)
    out = _check_shape(shape, "stateless_parameterized_truncated_normal")
    for p in (stddevs, minvals, maxvals):
        if p.dtype != means.dtype:
            raise InvalidArgumentError(
                "stateless_parameterized_truncated_normal: means, stddevs, minvals and maxvals "
                f"must have one dtype, got {means.dtype.name} and {p.dtype.name}.")
    shape_all = out
    for p in (means, stddevs, minvals, maxvals):
        shape_all = broadcast(shape_all, p.shape, "stateless_parameterized_truncated_normal")
    return shape_all, means.dtype


def _ptn_kernel(shape, seed, means, stddevs, minvals, maxvals):
    params = [np.asarray(p) for p in (means, stddevs, minvals, maxvals)]
    dims = np.broadcast_shapes(_dims(shape), *(p.shape for p in params))
    return _truncated_normal_values(_rs.bit_generator(seed), dims, *params, params[0].dtype)


STATELESS_PARAMETERIZED_TRUNCATED_NORMAL = define(
    "StatelessParameterizedTruncatedNormal", _ptn_infer, _ptn_kernel, differentiable=False)


# -- public functions -------------------------------------------------------------------------

def _float_dtype(dtype, fn):
    dtype = _dtypes.as_dtype(dtype)
    if dtype not in _FLOATS:
        raise TypeError(f"{fn}: dtype must be float16, float32 or float64, got {dtype.name}.")
    return dtype


def _broadcast_params(fn, *params):
    """The parameters broadcast against each other (static shapes)."""
    shape = TensorShape([])
    for p in params:
        shape = broadcast(shape, p.shape, fn)
    if shape.is_fully_defined():
        return [p if p.shape == shape else _composed.broadcast_to(p, shape.as_list())
                for p in params]
    dynamic = _math.shape(params[0])
    for p in params[1:]:
        dynamic = _math_extras.broadcast_dynamic_shape(dynamic, _math.shape(p))
    return [_composed.broadcast_to(p, dynamic) for p in params]


def _gamma_draw(fn, op, inputs, alpha, beta, dtype, attrs, name) -> Tensor:
    """A gamma draw of `op` (rate 1) over `inputs` + [alpha], divided by `beta` when given
    (never below the dtype's smallest normal number), alpha and beta broadcast together."""
    dtype = _float_dtype(dtype, fn)
    alpha = convert_to_tensor(alpha, dtype=dtype)
    if beta is not None:
        beta = convert_to_tensor(beta, dtype=dtype)
        alpha = _broadcast_params(fn, alpha, beta)[0]
    draw = apply(op, [*inputs, alpha], attrs, name=name if beta is None else None)
    if beta is None:
        return draw
    tiny = convert_to_tensor(np.finfo(dtype.as_numpy_dtype).tiny, dtype=dtype)
    return _math.maximum(tiny, _math.divide(draw, beta), name=name)


def _poisson_args(fn, dtype, lam):
    dtype = _dtypes.as_dtype(dtype)
    if dtype not in _POISSON_DTYPES:
        raise TypeError(f"{fn}: dtype must be one of float16, float32, float64, int32, int64, "
                        f"got {dtype.name}.")
    lam = convert_to_tensor(lam, dtype_hint=_dtypes.float32)
    if lam.dtype not in _POISSON_DTYPES:
        raise TypeError(f"{fn}: `lam` must be floats or ints, got {lam.dtype.name}.")
    return dtype, lam


@export("random.gamma")
def gamma(shape, alpha, beta=None, dtype=_dtypes.float32, seed=None, name=None) -> Tensor:
    """Gamma draws of shape `shape + broadcast(alpha, beta).shape`: concentration `alpha`,
    inverse scale (rate) `beta` (1 when None); a fresh draw every time the op runs, never
    below the dtype's smallest normal number. Differentiable in alpha (implicit
    reparameterization) and beta."""
    return _gamma_draw("gamma", RANDOM_GAMMA, [_rs.shape_tensor(shape)], alpha, beta, dtype,
                       _random._seed_attrs(seed), name)


@export("random.poisson")
def poisson(shape, lam, dtype=_dtypes.float32, seed=None, name=None) -> Tensor:
    """Poisson draws of shape `shape + lam.shape` with rates `lam` (0 for a rate of 0 or
    less), as floats or ints of `dtype`; a fresh draw every time the op runs."""
    dtype, lam = _poisson_args("poisson", dtype, lam)
    return apply(RANDOM_POISSON, [_rs.shape_tensor(shape), lam],
                 {"dtype": dtype, **_random._seed_attrs(seed)}, name=name)


@export("random.stateless_gamma")
def stateless_gamma(shape, seed, alpha, beta=None, dtype=_dtypes.float32,
                    name=None) -> Tensor:
    """Gamma draws of shape `shape` (which must end with the broadcast shape of alpha and
    beta), a function of `seed` (a pair of ints): concentration `alpha`, rate `beta` (1 when
    None). Differentiable in alpha (implicit reparameterization) and beta."""
    return _gamma_draw("stateless_gamma", STATELESS_GAMMA,
                       [_rs.shape_tensor(shape), _rs.seed_tensor(seed)], alpha, beta, dtype, {},
                       name)


@export("random.stateless_poisson")
def stateless_poisson(shape, seed, lam, dtype=_dtypes.int32, name=None) -> Tensor:
    """Poisson draws of shape `shape` (which must end with `lam`'s shape) with rates `lam`
    (0 for a rate of 0 or less), a function of `seed` (a pair of ints)."""
    dtype, lam = _poisson_args("stateless_poisson", dtype, lam)
    return apply(STATELESS_POISSON, [_rs.shape_tensor(shape), _rs.seed_tensor(seed), lam],
                 {"dtype": dtype}, name=name)


@export("random.stateless_parameterized_truncated_normal")
def stateless_parameterized_truncated_normal(shape, seed, means=0.0, stddevs=1.0,
                                             minvals=-2.0, maxvals=2.0, name=None) -> Tensor:
    """Normal draws of mean `means` and standard deviation `stddevs` within [minvals,
    maxvals], a function of `seed`; the parameters broadcast with `shape` and share the
    dtype of `means` (float32 for Python numbers). Invalid parameters (a stddev of 0 or less,
    minval >= maxval, both bounds infinite) raise InvalidArgumentError."""
    means = convert_to_tensor(means, dtype_hint=_dtypes.float32)
    if means.dtype not in _FLOATS:
        raise TypeError(f"stateless_parameterized_truncated_normal: `means` must be float16, "
                        f"float32 or float64, got {means.dtype.name}.")
    others = [p if isinstance(p, Tensor) else convert_to_tensor(p, dtype=means.dtype)
              for p in (stddevs, minvals, maxvals)]
    return apply(STATELESS_PARAMETERIZED_TRUNCATED_NORMAL,
                 [_rs.shape_tensor(shape), _rs.seed_tensor(seed), means, *others], name=name)


def numpy_poisson(lam=1.0, size=None) -> Tensor:
    """`tnp.random.poisson`: int64 Poisson draws of shape `size` (an int or a tuple) per rate
    `lam`, as NumPy's `random.poisson`."""
    size = () if size is None else (size,) if np.ndim(size) == 0 else tuple(size)
    return poisson(list(size), lam, dtype=_dtypes.int64)
