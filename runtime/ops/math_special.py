"""Special functions and complex parts: ops whose NumPy kernels are written here.

`lgamma`, `digamma`, `polygamma`, `erfc`, `erfinv`, `ndtri`, the exponentially scaled
modified Bessel functions `bessel_i0e`/`bessel_i1e`, `nextafter`; `real`, `imag`, `conj`,
`angle` and `complex`; `reverse_sequence`. The kernels are pure NumPy (plus the `math`
module's `lgamma`, `erf` and `erfc` per element), so nothing beyond NumPy is needed.
Functions that are formulas over these (`lbeta`, `erfcinv`, `bessel_i0`, `bessel_i1`) are
composed below them and differentiate through them.
"""

from __future__ import annotations

import math as _pymath

import numpy as np

from .. import dtypes as _dtypes
from ..attr_kinds import INT
from ..errors import InvalidArgumentError
from ..exports import export
from ..opdef import define
from ..tensor import Tensor
from . import array_math as _math
from .core import apply, binary_operands, convert_to_tensor
from .shape_rules import broadcast, same_dtype

_SQRT_PI = _pymath.sqrt(_pymath.pi)


def _real_float_infer(name):
    def infer(*xs):
        for x in xs:
            if not x.dtype.is_floating:
                raise TypeError(f"{name} needs a real floating-point tensor, got {x.dtype.name}; "
                                "cast it first with rt.cast(x, rt.float32).")
        if len(xs) == 1:
            return xs[0].shape, xs[0].dtype
        return broadcast(xs[0].shape, xs[1].shape, name), same_dtype(name, *xs)
    return infer


def _per_element(fn, x):
    """`fn` of Python floats applied to each element of `x`, in x's dtype."""
    x = np.asarray(x)
    flat = [fn(float(v)) for v in x.reshape(-1)]
    return np.asarray(flat, dtype=np.float64).reshape(x.shape).astype(x.dtype, copy=False)


# -- log-gamma, digamma and polygamma ------------------------------------------------------------

def _lgamma_scalar(v: float) -> float:
    try:
        return _pymath.lgamma(v)
    except ValueError:  # a pole (0, -1, -2, ...)
        return _pymath.inf
    except OverflowError:
        return _pymath.inf


def _lgamma_kernel(x):
    return _per_element(_lgamma_scalar, x)


LGAMMA = define("Lgamma", _real_float_infer("Lgamma"), _lgamma_kernel)


def _digamma_positive(x):
    """psi(x) for x > 0 (float64 arrays): shifted up to x >= 10, then the asymptotic series;
    summed in long double where the platform has one (the sum cancels: psi(1) = -0.577 is
    -2.829 + 2.303 + ...), rounded once at the end."""
    x = x.astype(np.longdouble)
    acc = np.zeros_like(x)
    small = x < 10
    while small.any():
        acc[small] -= 1.0 / x[small]
        x[small] += 1.0
        small = x < 10
    r = 1.0 / (x * x)
    series = r * (1 / 12 - r * (1 / 120 - r * (1 / 252 - r * (1 / 240 - r * (
        1 / 132 - r * (691 / 32760 - r / 12))))))  # to B_14: truncated below 1e-16 at x >= 10
    return acc + np.log(x) - 0.5 / x - series


_PI = np.longdouble("3.14159265358979323846264338327950288")


def _digamma_kernel(x):
    x = np.asarray(x)
    v = x.astype(np.float64)
    out = np.full(v.shape, np.nan)
    pos = v > 0
    out[pos] = _digamma_positive(v[pos])
    neg = (v <= 0) & (v != np.floor(v)) & np.isfinite(v)
    if neg.any():  # reflection: psi(1 - x) - psi(x) = pi / tan(pi x), tan of period pi taken
        w = v[neg]  # at the exact fraction of x (pi x loses the last bits of x for large x)
        fraction = (w - np.floor(w)).astype(np.longdouble)
        out[neg] = _digamma_positive(1.0 - w) - _PI / np.tan(_PI * fraction)
    out[np.isposinf(v)] = np.inf
    return out.astype(x.dtype, copy=False)


DIGAMMA = define("Digamma", _real_float_infer("Digamma"), _digamma_kernel)

# Bernoulli numbers B_2, B_4, ..., B_14: the asymptotic series of the polygamma functions
_BERNOULLI = [1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6]


def _polygamma_positive(n: int, x):
    """psi^(n)(x) for an integer n >= 1 and x > 0 (float64 arrays)."""
    x = x.copy()
    acc = np.zeros_like(x)
    small = x < 20
    while small.any():  # psi^(n)(x) = psi^(n)(x + 1) + (-1)^(n+1) n! / x^(n+1)
        acc[small] += 1.0 / x[small] ** (n + 1)
        x[small] += 1.0
        small = x < 20
    fact = _pymath.factorial
    total = fact(n - 1) / x ** n + fact(n) / (2 * x ** (n + 1))
    for k, b in enumerate(_BERNOULLI, 1):
        total = total + b * fact(2 * k + n - 1) / (fact(2 * k) * x ** (2 * k + n))
    return (-1) ** (n + 1) * (total + fact(n) * acc)


def _polygamma_kernel(a, x):
    a, x = np.broadcast_arrays(np.asarray(a), np.asarray(x))
    dtype = np.result_type(a, x)
    av, xv = a.astype(np.float64), x.astype(np.float64)
    out = np.full(av.shape, np.nan)
    zero = av == 0
    if zero.any():
        out[zero] = _digamma_kernel(xv[zero])
    valid = (av >= 1) & (av == np.floor(av)) & (xv > 0)
    for n in np.unique(av[valid]):
        where = valid & (av == n)
        out[where] = _polygamma_positive(int(n), xv[where])
    return out.astype(dtype, copy=False)


POLYGAMMA = define("Polygamma", _real_float_infer("Polygamma"), _polygamma_kernel)


@LGAMMA.def_grad
def _lgamma_grad(op, g):
    return [_math.multiply(g, digamma(op.inputs[0]))]


@DIGAMMA.def_grad
def _digamma_grad(op, g):
    x = op.inputs[0]
    return [_math.multiply(g, polygamma(_math.ones_like(x), x))]


@POLYGAMMA.def_grad
def _polygamma_grad(op, g):
    a, x = op.inputs
    if not op.needs[1]:
        return [None, None]
    step = polygamma(_math.add(a, _math.ones_like(a)), x)
    return [None, _math.sum_grad(_math.multiply(g, step), op, 1)]


@export("math.lgamma", "math.special.lgamma")
def lgamma(x, name=None) -> Tensor:
    """log |Gamma(x)|, elementwise (op `Lgamma`); +inf at the poles 0, -1, -2, ..."""
    return apply(LGAMMA, [convert_to_tensor(x)], name=name)


@export("math.digamma", "math.special.digamma")
def digamma(x, name=None) -> Tensor:
    """psi(x) = d/dx log Gamma(x), elementwise (op `Digamma`); nan at the poles 0, -1, ..."""
    return apply(DIGAMMA, [convert_to_tensor(x)], name=name)


@export("math.polygamma", "math.special.polygamma")
def polygamma(a, x, name=None) -> Tensor:
    """psi^(a)(x), the a-th derivative of digamma, for integer-valued `a` >= 0 and x > 0 (nan
    elsewhere, except a == 0 which is digamma); `a` and `x` broadcast (op `Polygamma`)."""
    a, x = binary_operands(a, x)
    return apply(POLYGAMMA, [a, x], name=name)


@export("math.lbeta", "math.special.lbeta")
def lbeta(x, name=None) -> Tensor:
    """log |B(x)| over the last axis: sum(lgamma(x)) - lgamma(sum(x))."""
    x = convert_to_tensor(x)
    return _math.subtract(_math.reduce_sum(lgamma(x), axis=-1),
                          lgamma(_math.reduce_sum(x, axis=-1)), name=name)


# -- erfc, erfinv, ndtri -------------------------------------------------------------------------

def _erfc_kernel(x):
    return _per_element(_pymath.erfc, x)


ERFC = define("Erfc", _real_float_infer("Erfc"), _erfc_kernel)


@ERFC.def_grad
def _erfc_grad(op, g):
    x = op.inputs[0]
    return [_math.multiply(g, _math.multiply(_math.exp(_math.negative(_math.square(x))),
                                             -2 / _SQRT_PI))]


_erf_v = np.frompyfunc(_pymath.erf, 1, 1)
_erfc_v = np.frompyfunc(_pymath.erfc, 1, 1)


def _erf64(z):
    return np.asarray(_erf_v(z), dtype=np.float64)


def _erfc64(z):
    return np.asarray(_erfc_v(z), dtype=np.float64)


def _erfcinv_small(q):
    """z >= 0 with erfc(z) = q, for float64 q in (0, 1]: Newton's method on log erfc."""
    lq = np.log(q)
    # start: erfc(z) ~ exp(-z^2) / (z sqrt(pi)) in the tail, a small value near q = 1
    t = np.sqrt(np.maximum(-lq, 0.0))
    z = np.where(q > 0.3, _SQRT_PI / 2 * (1 - q), np.sqrt(np.maximum(t * t - np.log(np.maximum(t, 1) * _SQRT_PI), 0.0)))
    with np.errstate(all="ignore"):
        for _ in range(40):
            e = _erfc64(z)
            step = (np.log(e) - lq) * e * _SQRT_PI / 2 * np.exp(z * z)
            z_next = z + step
            z_next = np.where(np.isfinite(z_next), z_next, z)
            if np.all(np.abs(z_next - z) <= 1e-15 * np.maximum(np.abs(z), 1e-300)):
                z = z_next
                break
            z = z_next
    return z


def _erfcinv64(q):
    """z with erfc(z) = q for float64 q in [0, 2]; +inf at 0, -inf at 2, nan outside."""
    q = np.asarray(q, dtype=np.float64)
    out = np.full(q.shape, np.nan)
    low = (q > 0) & (q <= 1)
    high = (q > 1) & (q < 2)
    out[low] = _erfcinv_small(q[low])
    out[high] = -_erfcinv_small(2.0 - q[high])
    out[q == 0] = np.inf
    out[q == 2] = -np.inf
    return out


def _erfinv_kernel(x):
    x = np.asarray(x)
    v = x.astype(np.float64)
    out = np.full(v.shape, np.nan)
    middle = np.abs(v) <= 0.5
    if middle.any():  # Newton on erf from the Maclaurin start, where 1 - |x| would lose digits
        y = v[middle] * _SQRT_PI / 2
        for _ in range(6):
            y = y - (_erf64(y) - v[middle]) * _SQRT_PI / 2 * np.exp(y * y)
        out[middle] = y
    outer = (np.abs(v) > 0.5) & (np.abs(v) <= 1)
    out[outer] = np.sign(v[outer]) * _erfcinv64(1.0 - np.abs(v[outer]))
    return out.astype(x.dtype, copy=False)


ERFINV = define("Erfinv", _real_float_infer("Erfinv"), _erfinv_kernel)


@ERFINV.def_grad
def _erfinv_grad(op, g):
    y = op.outputs[0]
    return [_math.multiply(g, _math.multiply(_math.exp(_math.square(y)), _SQRT_PI / 2))]


def _ndtri_kernel(p):
    p = np.asarray(p)
    out = -np.sqrt(2.0) * _erfcinv64(2.0 * p.astype(np.float64))
    return out.astype(p.dtype, copy=False)


NDTRI = define("Ndtri", _real_float_infer("Ndtri"), _ndtri_kernel)


@NDTRI.def_grad
def _ndtri_grad(op, g):
    y = op.outputs[0]
    return [_math.multiply(g, _math.multiply(_math.exp(_math.multiply(_math.square(y), 0.5)),
                                             _pymath.sqrt(2 * _pymath.pi)))]


@export("math.erfc", "math.special.erfc")
def erfc(x, name=None) -> Tensor:
    """1 - erf(x), accurate where erf(x) is near 1 (op `Erfc`)."""
    return apply(ERFC, [convert_to_tensor(x)], name=name)


@export("math.erfinv", "math.special.erfinv")
def erfinv(x, name=None) -> Tensor:
    """The inverse of erf on [-1, 1] (±inf at ±1, nan outside), op `Erfinv`."""
    return apply(ERFINV, [convert_to_tensor(x)], name=name)


@export("math.ndtri", "math.special.ndtri")
def ndtri(x, name=None) -> Tensor:
    """The inverse of the standard normal CDF on [0, 1] (±inf at the ends), op `Ndtri`."""
    return apply(NDTRI, [convert_to_tensor(x)], name=name)


@export("math.erfcinv", "math.special.erfcinv")
def erfcinv(x, name=None) -> Tensor:
    """The inverse of erfc on [0, 2]: -ndtri(x / 2) / sqrt(2)."""
    x = convert_to_tensor(x)
    return _math.multiply(ndtri(_math.multiply(x, 0.5)), -1 / _pymath.sqrt(2), name=name)


# -- exponentially scaled modified Bessel functions of order 0 and 1 -----------------------------

_SERIES_LIMIT = 30.0


def _bessel_scaled(order: int, x):
    """exp(-|x|) I_order(x) for order 0 or 1 (float64 arrays)."""
    ax = np.abs(x)
    out = np.empty_like(ax)
    near = ax <= _SERIES_LIMIT
    if near.any():  # the power series: sum (x/2)^(2k+order) / (k! (k+order)!)
        h = ax[near] / 2
        term = h ** order / _pymath.factorial(order)
        total = term.copy()
        q = h * h
        for k in range(1, 90):
            term = term * q / (k * (k + order))
            total = total + term
        out[near] = total * np.exp(-ax[near])
    far = ~near
    if far.any():  # the asymptotic series: sum_k (-1)^k a_k / x^k / sqrt(2 pi x)
        z = ax[far]
        mu = 4.0 * order * order
        term = np.ones_like(z)
        total = term.copy()
        for k in range(1, 26):
            term = -term * (mu - (2 * k - 1) ** 2) / (k * 8.0 * z)
            total = total + term
        out[far] = total / (np.sqrt(2 * np.pi) * np.sqrt(z))  # 2 pi z overflows near the max
    if order == 1:
        out = np.where(x < 0, -out, out)
    return out


def _bessel_kernel(order):
    def kernel(x):
        x = np.asarray(x)
        return _bessel_scaled(order, x.astype(np.float64)).astype(x.dtype, copy=False)
    kernel.__name__ = f"bessel_i{order}e"
    return kernel


BESSEL_I0E = define("BesselI0e", _real_float_infer("BesselI0e"), _bessel_kernel(0))
BESSEL_I1E = define("BesselI1e", _real_float_infer("BesselI1e"), _bessel_kernel(1))


@BESSEL_I0E.def_grad
def _i0e_grad(op, g):
    x, y = op.inputs[0], op.outputs[0]
    return [_math.multiply(g, _math.subtract(bessel_i1e(x), _math.multiply(_math.sign(x), y)))]


@BESSEL_I1E.def_grad
def _i1e_grad(op, g):
    x, y = op.inputs[0], op.outputs[0]
    at_zero = _math.equal(x, 0)
    safe_x = _math.where(at_zero, _math.ones_like(x), x)
    slope = _math.subtract(bessel_i0e(x),
                           _math.multiply(y, _math.add(_math.sign(x), _math.reciprocal(safe_x))))
    slope = _math.where(at_zero, _math.fill(_math.shape(x), np.asarray(0.5, x.dtype.as_numpy_dtype)), slope)
    return [_math.multiply(g, slope)]


@export("math.bessel_i0e", "math.special.bessel_i0e")
def bessel_i0e(x, name=None) -> Tensor:
    """exp(-|x|) I0(x), the scaled modified Bessel function of order 0 (op `BesselI0e`)."""
    return apply(BESSEL_I0E, [convert_to_tensor(x)], name=name)


@export("math.bessel_i1e", "math.special.bessel_i1e")
def bessel_i1e(x, name=None) -> Tensor:
    """exp(-|x|) I1(x), the scaled modified Bessel function of order 1 (op `BesselI1e`)."""
    return apply(BESSEL_I1E, [convert_to_tensor(x)], name=name)


@export("math.bessel_i0", "math.special.bessel_i0")
def bessel_i0(x, name=None) -> Tensor:
    """I0(x), the modified Bessel function of order 0: bessel_i0e(x) * exp(|x|)."""
    x = convert_to_tensor(x)
    return _math.multiply(bessel_i0e(x), _math.exp(_math.abs(x)), name=name)


@export("math.bessel_i1", "math.special.bessel_i1")
def bessel_i1(x, name=None) -> Tensor:
    """I1(x), the modified Bessel function of order 1: bessel_i1e(x) * exp(|x|)."""
    x = convert_to_tensor(x)
    return _math.multiply(bessel_i1e(x), _math.exp(_math.abs(x)), name=name)


# -- nextafter -----------------------------------------------------------------------------------

NEXTAFTER = define("NextAfter", _real_float_infer("NextAfter"), np.nextafter,
                   template="np.nextafter({0}, {1})", differentiable=False)


@export("math.nextafter")
def nextafter(x1, x2, name=None) -> Tensor:
    """The next representable value after x1 in the direction of x2 (op `NextAfter`)."""
    x1, x2 = binary_operands(x1, x2)
    return apply(NEXTAFTER, [x1, x2], name=name)


# -- complex numbers -----------------------------------------------------------------------------

_PART = {"complex64": _dtypes.float32, "complex128": _dtypes.float64}
_WHOLE = {"float32": _dtypes.complex64, "float64": _dtypes.complex128}


def _complex_infer(name, out=None):
    def infer(x):
        if not x.dtype.is_complex:
            raise TypeError(f"{name} needs a complex tensor, got {x.dtype.name}.")
        return x.shape, (_PART[x.dtype.name] if out is None else x.dtype)
    return infer


REAL = define("Real", _complex_infer("Real"), np.real, template="np.real({0})")
IMAG = define("Imag", _complex_infer("Imag"), np.imag, template="np.imag({0})")
CONJ = define("Conj", _complex_infer("Conj", out="same"), np.conjugate, template="np.conjugate({0})")
ANGLE = define("Angle", _complex_infer("Angle"), np.angle, template="np.angle({0})")


def _complex_pair_infer(real, imag):
    dtype = same_dtype("Complex", real, imag)
    if dtype.name not in _WHOLE:
        raise TypeError(f"complex needs float32 or float64 `real` and `imag`, got {dtype.name}.")
    return broadcast(real.shape, imag.shape, "Complex"), _WHOLE[dtype.name]


def _complex_kernel(real, imag):
    out = np.result_type(real, imag, np.complex64)
    return np.asarray(real + 1j * np.asarray(imag, dtype=out), dtype=out)


COMPLEX = define("Complex", _complex_pair_infer, _complex_kernel)


@REAL.def_grad
def _real_grad(op, g):
    return [complex(g, _math.zeros_like(g))]


@IMAG.def_grad
def _imag_grad(op, g):
    return [complex(_math.zeros_like(g), g)]


@CONJ.def_grad
def _conj_grad(op, g):
    return [conj(g)]


@ANGLE.def_grad
def _angle_grad(op, g):
    z = op.inputs[0]
    a, b = real(z), imag(z)
    size = _math.add(_math.square(a), _math.square(b))
    return [complex(_math.divide(_math.negative(_math.multiply(g, b)), size),
                    _math.divide(_math.multiply(g, a), size))]


@COMPLEX.def_grad
def _complex_grad(op, g):
    return [_math.sum_grad(real(g), op, 0) if op.needs[0] else None,
            _math.sum_grad(imag(g), op, 1) if op.needs[1] else None]


def _numeric(input, fn_name):  # noqa: A002
    x = convert_to_tensor(input)
    if not x.dtype.is_numeric:
        raise TypeError(f"{fn_name} needs a numeric `input`, got {x.dtype.name}.")
    return x


@export("math.real")
def real(input, name=None) -> Tensor:  # noqa: A002 - TensorFlow's name
    """The real part of a complex tensor; a real tensor comes back unchanged (op `Real`)."""
    x = _numeric(input, "real")
    if not x.dtype.is_complex:
        return _math.identity(x, name=name)
    return apply(REAL, [x], name=name)


@export("math.imag")
def imag(input, name=None) -> Tensor:  # noqa: A002
    """The imaginary part of a complex tensor; zeros for a real tensor (op `Imag`)."""
    x = _numeric(input, "imag")
    if not x.dtype.is_complex:
        return _math.zeros_like(x, name=name)
    return apply(IMAG, [x], name=name)


@export("math.conj")
def conj(x, name=None) -> Tensor:
    """The complex conjugate; a real tensor comes back unchanged (op `Conj`)."""
    x = _numeric(x, "conj")
    if not x.dtype.is_complex:
        return _math.identity(x, name=name)
    return apply(CONJ, [x], name=name)


@export("math.angle")
def angle(input, name=None) -> Tensor:  # noqa: A002
    """The argument of a complex tensor in (-pi, pi]; for a real tensor pi where it is
    negative, else 0 (op `Angle`)."""
    x = _numeric(input, "angle")
    if not x.dtype.is_complex:
        if not x.dtype.is_floating:
            raise TypeError(f"angle needs a floating-point or complex `input`, got {x.dtype.name}.")
        return _math.where(_math.less(x, 0), _math.fill(_math.shape(x), np.asarray(
            np.pi, x.dtype.as_numpy_dtype)), _math.zeros_like(x), name=name)
    return apply(ANGLE, [x], name=name)


@export("complex", "dtypes.complex")
def complex(real, imag, name=None) -> Tensor:  # noqa: A001 - TensorFlow's name
    """real + 1j * imag: float32 parts give complex64, float64 parts complex128 (op `Complex`)."""
    real, imag = binary_operands(real, imag)
    return apply(COMPLEX, [real, imag], name=name)


# -- reverse_sequence ----------------------------------------------------------------------------

def _reverse_sequence_infer(x, lengths, seq_axis, batch_axis):
    if not lengths.dtype.is_integer:
        raise TypeError(f"reverse_sequence needs integer `seq_lengths`, got {lengths.dtype.name}.")
    if lengths.shape.rank not in (None, 1):
        raise ValueError(f"reverse_sequence needs `seq_lengths` as a vector, got shape "
                         f"{lengths.shape}.")
    dims = x.shape.as_tuple()
    if dims is not None:
        n = lengths.shape.as_tuple()
        if n is not None and n[0] is not None and dims[batch_axis] is not None and \
                n[0] != dims[batch_axis]:
            raise ValueError(f"reverse_sequence: `seq_lengths` has {n[0]} entries but the batch "
                             f"axis {batch_axis} of `input` has size {dims[batch_axis]}.")
    return x.shape, x.dtype


def _reverse_sequence_kernel(x, lengths, seq_axis, batch_axis):
    x = np.asarray(x)
    lengths = np.asarray(lengths).astype(np.int64)
    steps = x.shape[seq_axis]
    if lengths.size and (lengths.min() < 0 or lengths.max() > steps):
        raise InvalidArgumentError(f"reverse_sequence: `seq_lengths` must be in [0, {steps}], "
                                   f"got {lengths.tolist()}.")
    t = np.arange(steps)
    index = np.where(t[None, :] < lengths[:, None], lengths[:, None] - 1 - t[None, :], t[None, :])
    # index[b, t]: the source step of step t in batch row b; broadcast it over the other axes
    shape = [1] * x.ndim
    shape[batch_axis], shape[seq_axis] = lengths.size, steps
    if batch_axis > seq_axis:
        index = index.T
    index = np.broadcast_to(index.reshape(shape), x.shape)
    return np.take_along_axis(x, index, axis=seq_axis)


REVERSE_SEQUENCE = define("ReverseSequence", _reverse_sequence_infer, _reverse_sequence_kernel,
                          attrs={"seq_axis": INT, "batch_axis": INT})


@REVERSE_SEQUENCE.def_grad
def _reverse_sequence_grad(op, g):
    return [apply(REVERSE_SEQUENCE, [g, op.inputs[1]], dict(op.attrs)), None]


@export("reverse_sequence")
def reverse_sequence(input, seq_lengths, seq_axis=None, batch_axis=None, name=None) -> Tensor:  # noqa: A002
    """Reverses the first seq_lengths[b] steps along `seq_axis` of each slice b along
    `batch_axis` (default 0); the later steps stay (op `ReverseSequence`)."""
    x = convert_to_tensor(input)
    lengths = convert_to_tensor(seq_lengths)
    if seq_axis is None:
        raise ValueError("reverse_sequence needs `seq_axis`.")
    batch_axis = 0 if batch_axis is None else int(batch_axis)
    rank = x.shape.rank
    if rank is None:
        raise ValueError("reverse_sequence needs `input` of known rank.")
    seq_axis = int(seq_axis)
    for what, axis in (("seq_axis", seq_axis), ("batch_axis", batch_axis)):
        if not -rank <= axis < rank:
            raise ValueError(f"reverse_sequence: `{what}` {axis} is out of range for `input` of "
                             f"rank {rank}.")
    seq_axis, batch_axis = seq_axis % rank, batch_axis % rank
    if seq_axis == batch_axis:
        raise ValueError(f"reverse_sequence: `seq_axis` and `batch_axis` must differ, both are "
                         f"{seq_axis}.")
    return apply(REVERSE_SEQUENCE, [x, lengths], {"seq_axis": seq_axis, "batch_axis": batch_axis},
                 name=name)
