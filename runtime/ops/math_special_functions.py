"""The rest of tf.math.special, and tf.math.zeta: Bessel functions of the first and second kind
(`bessel_j0`, `bessel_j1`, `bessel_y0`, `bessel_y1`), the modified ones of the second kind
(`bessel_k0`, `bessel_k1` and their exponentially scaled forms), Dawson's integral `dawsn`,
the exponential integral `expint`, the Fresnel integrals `fresnel_cos`/`fresnel_sin`, Spence's
function `spence`, the Hurwitz zeta function `zeta`, and the regularized incomplete gamma and beta
functions `igamma`, `igammac` and `betainc`.

Every kernel is NumPy on float64 (a float16 or float32 input is computed in float64 and
rounded once), so nothing beyond NumPy is needed. The methods, per function:

- J0, J1: the power series for |x| <= 4, Miller's backward recurrence (normalised by
  J0 + 2 (J2 + J4 + ...) = 1) below 25, Hankel's asymptotic expansion above;
- Y0, Y1: their logarithmic power series for x <= 4, Neumann's series over the recurrence's
  J_n below 25, Hankel's expansion above; -inf for x <= 0, as TensorFlow;
- K0, K1: their logarithmic power series for x <= 1, else the trapezoidal rule on
  exp(x) K_v(x) = integral over t >= 0 of exp(-x (cosh t - 1)) cosh(v t), whose error falls
  exponentially with the step;
- dawsn: the Maclaurin series near 0, Rybicki's exponentially convergent sum below 10, the
  asymptotic series above;
- expint (Ei, x > 0): its series below 40, the asymptotic series above;
- fresnel_cos/sin: the power series for |x| < 1.6, else C + iS = (1 + i)/2 erf(z) with erfc(z)
  from its continued fraction at z = sqrt(pi)/2 (1 - i) x;
- spence(x) = Li2(1 - x): the Bernoulli series in -log(1 - z) after the reflection and
  inversion formulas bring z into [-1, 1/2];
- zeta(x, q): Euler-Maclaurin summation;
- igamma, igammac: the series of P where x < a + 1, else the continued fraction of Q;
  betainc: its continued fraction, after I_x(a, b) = 1 - I_(1-x)(b, a) where x is past the
  mean. Their gradients are in x only (in a and b TensorFlow's betainc has none; igamma's
  gradient in a is refused with LookupError).
"""

from __future__ import annotations

import math as _pymath
from fractions import Fraction

import numpy as np

from ..exports import export
from ..opdef import define
from ..tensor import Tensor
from . import array_math as _math
from . import math_special as _special
from .core import apply, binary_operands, convert_to_tensor
from .math_special import _real_float_infer
from .shape_rules import broadcast, same_dtype

_EULER = 0.57721566490153286061
_TWO_OVER_PI = 2.0 / np.pi


def _elementwise(fn64):
    """A kernel applying `fn64` (float64 array -> float64 array) in the input's dtype."""
    def kernel(*xs):
        xs = np.broadcast_arrays(*[np.asarray(x) for x in xs])
        dtype = np.result_type(*xs)
        with np.errstate(all="ignore"):
            out = fn64(*[x.astype(np.float64) for x in xs])
            return np.asarray(out, dtype=np.float64).astype(dtype, copy=False)
    kernel.__name__ = fn64.__name__.lstrip("_")
    return kernel


def _bernoulli(count: int) -> list[Fraction]:
    """B_0 .. B_{count-1} (B_1 = -1/2), exactly."""
    b = [Fraction(1)]
    for m in range(1, count):
        b.append(-sum(Fraction(_pymath.comb(m + 1, k)) * b[k] for k in range(m)) / (m + 1))
    return b


_B = _bernoulli(40)


# -- Bessel functions of the first and second kind, orders 0 and 1 ------------------------------

_SERIES_MAX = 4.0
_ASYMPTOTIC_MIN = 25.0
_MILLER_START = 80  # even; J_80(25) is below 1e-30 of J_0


def _j_series(order: int, x):
    """J_order(x) by its power series (|x| <= 4)."""
    h = x / 2
    term = h ** order / _pymath.factorial(order)
    total = term.copy()
    q = -h * h
    for k in range(1, 40):
        term = term * q / (k * (k + order))
        total = total + term
    return total


def _y_series(order: int, x):
    """Y_order(x) by its logarithmic power series (0 < x <= 4)."""
    h = x / 2
    log = np.log(h)
    q = -h * h
    # sum_k (psi(k+1) + psi(k+order+1)) (-x^2/4)^k (x/2)^order / (k! (k+order)!)
    psi_a, psi_b = -_EULER, -_EULER + sum(1.0 / j for j in range(1, order + 1))
    term = h ** order / _pymath.factorial(order)
    total = (psi_a + psi_b) * term
    for k in range(1, 40):
        term = term * q / (k * (k + order))
        psi_a += 1.0 / k
        psi_b += 1.0 / (k + order)
        total = total + (psi_a + psi_b) * term
    out = _TWO_OVER_PI * log * _j_series(order, x) - total / np.pi
    if order == 1:
        out = out - _TWO_OVER_PI / x
    return out


def _j_all(x):
    """J_0 .. J_{_MILLER_START} at x (4 < x < 25), rows by order, by Miller's algorithm."""
    rows = np.zeros((_MILLER_START + 2,) + x.shape)
    rows[_MILLER_START] = 1e-300
    for k in range(_MILLER_START, 0, -1):
        rows[k - 1] = (2 * k / x) * rows[k] - rows[k + 1]
    norm = rows[0] + 2 * rows[2:_MILLER_START + 1:2].sum(axis=0)
    return rows[:_MILLER_START + 1] / norm


def _jy_recurrence(x):
    """(J0, J1, Y0, Y1) at x (4 < x < 25): the recurrence's J_n and Neumann's series for Y."""
    j = _j_all(x)
    log = np.log(x / 2) + _EULER
    k = np.arange(1, _MILLER_START // 2)
    sign = (-1.0) ** k
    even = j[2 * k]                       # J_{2k}
    y0 = _TWO_OVER_PI * (log * j[0] - 2 * np.tensordot(sign / k, even, axes=1))
    # Y1 = -Y0': differentiate the series term by term (J_{2k}' = (J_{2k-1} - J_{2k+1}) / 2)
    diff = j[2 * k - 1] - j[2 * k + 1]
    y1 = _TWO_OVER_PI * (log * j[1] - j[0] / x + np.tensordot(sign / k, diff, axes=1))
    return j[0], j[1], y0, y1


def _hankel(order: int, x):
    """(J_order, Y_order) at x >= 25 by Hankel's asymptotic expansion."""
    mu = 4.0 * order * order
    p = np.ones_like(x)
    q = np.zeros_like(x)
    term = np.ones_like(x)
    for k in range(1, 40):
        term = term * (mu - (2 * k - 1) ** 2) / (k * 8.0 * x)
        if k % 2:
            q = q + (term if k % 4 == 1 else -term)
        else:
            p = p + (term if k % 4 == 0 else -term)
    c, s = np.cos(x), np.sin(x)
    root = np.sqrt(_TWO_OVER_PI / x)
    if order == 0:  # chi = x - pi/4
        cos_chi, sin_chi = (c + s) / np.sqrt(2), (s - c) / np.sqrt(2)
    else:           # chi = x - 3 pi/4
        cos_chi, sin_chi = (s - c) / np.sqrt(2), -(s + c) / np.sqrt(2)
    return root * (p * cos_chi - q * sin_chi), root * (p * sin_chi + q * cos_chi)


def _bessel_jy(x, order: int, kind: str):
    out = np.full(x.shape, np.nan)
    ax = np.abs(x)
    small = ax <= _SERIES_MAX
    middle = (ax > _SERIES_MAX) & (ax < _ASYMPTOTIC_MIN)
    large = (ax >= _ASYMPTOTIC_MIN) & np.isfinite(ax)
    if kind == "j":
        out[small] = _j_series(order, ax[small])
        if middle.any():
            out[middle] = _jy_recurrence(ax[middle])[order]
        out[large] = _hankel(order, ax[large])[0]
        if order == 1:
            out = np.where(x < 0, -out, out)
        out[np.isnan(x)] = np.nan
        return out
    small = small & (x > 0)
    out[small] = _y_series(order, x[small])
    if middle.any():
        out[middle] = _jy_recurrence(ax[middle])[2 + order]
    out[large] = _hankel(order, ax[large])[1]
    out[x <= 0] = -np.inf
    return out


def _bessel_j0(x):
    return _bessel_jy(x, 0, "j")


def _bessel_j1(x):
    return _bessel_jy(x, 1, "j")


def _bessel_y0(x):
    return _bessel_jy(x, 0, "y")


def _bessel_y1(x):
    return _bessel_jy(x, 1, "y")


# -- modified Bessel functions of the second kind ------------------------------------------------

def _k_series(order: int, x):
    """K_order(x) by its logarithmic power series (0 < x <= 1)."""
    h = x / 2
    q = h * h
    log = np.log(h)
    psi_a, psi_b = -_EULER, -_EULER + sum(1.0 / j for j in range(1, order + 1))
    term = h ** order / _pymath.factorial(order)
    i_total = term.copy()
    total = (psi_a + psi_b) * term
    for k in range(1, 30):
        term = term * q / (k * (k + order))
        psi_a += 1.0 / k
        psi_b += 1.0 / (k + order)
        i_total = i_total + term
        total = total + (psi_a + psi_b) * term
    if order == 0:
        return -log * i_total + total / 2
    return 1.0 / x + log * i_total - total / 2


def _k_scaled_quadrature(order: int, x):
    """exp(x) K_order(x) for x > 1, by the trapezoidal rule on the integral over t >= 0."""
    step = np.minimum(0.2, 0.5 / np.sqrt(x))
    # the integrand is below exp(-45) beyond x (cosh t - 1) = 45 + order t
    t_end = np.arccosh(1.0 + (45.0 + 2 * order * np.log1p(45.0 / x)) / x)
    count = int(np.max(np.ceil(t_end / step))) + 1
    t = np.arange(count)[:, None] * step[None, :]
    t = np.where(t <= t_end, t, 0.0)
    f = np.where(t > 0, np.exp(-x * (np.cosh(t) - 1.0)), 0.0)
    f[0] = 1.0
    if order:
        f = f * np.cosh(t)
    return step * (f.sum(axis=0) - f[0] / 2)


def _bessel_k(x, order: int, scaled: bool):
    out = np.full(x.shape, np.nan)
    small = (x > 0) & (x <= 1)
    large = (x > 1) & np.isfinite(x)
    k = _k_series(order, x[small])
    out[small] = k * np.exp(x[small]) if scaled else k
    if large.any():
        k = _k_scaled_quadrature(order, x[large])
        out[large] = k if scaled else k * np.exp(-x[large])
    out[x <= 0] = np.inf
    out[np.isposinf(x)] = 0.0
    return out


def _bessel_k0(x):
    return _bessel_k(x, 0, False)


def _bessel_k0e(x):
    return _bessel_k(x, 0, True)


def _bessel_k1(x):
    return _bessel_k(x, 1, False)


def _bessel_k1e(x):
    return _bessel_k(x, 1, True)


# -- Dawson's integral ---------------------------------------------------------------------------

_RYBICKI_H = 0.2
_RYBICKI_TERMS = np.arange(-39, 40, 2)  # the odd offsets around the nearest even n0


def _dawsn(x):
    out = np.full(x.shape, np.nan)
    ax = np.abs(x)
    small = ax < 0.2
    if small.any():  # D(x) = sum_k (-1)^k 2^k x^(2k+1) / (1 * 3 * ... * (2k+1))
        v = ax[small]
        term = v.copy()
        total = v.copy()
        for k in range(1, 12):
            term = term * (-2.0 * v * v) / (2 * k + 1)
            total = total + term
        out[small] = total
    middle = (ax >= 0.2) & (ax < 10)
    if middle.any():  # Rybicki: D(x) ~ 1/sqrt(pi) sum over odd n of exp(-(x - n h)^2) / n
        v = ax[middle]
        n0 = 2 * np.round(v / (2 * _RYBICKI_H))
        offset = v - n0 * _RYBICKI_H
        m = _RYBICKI_TERMS[:, None]
        terms = np.exp(-(offset[None, :] - m * _RYBICKI_H) ** 2) / (n0[None, :] + m)
        out[middle] = terms.sum(axis=0) / np.sqrt(np.pi)
    large = (ax >= 10) & np.isfinite(ax)
    if large.any():  # D(x) ~ 1/(2x) sum_k (2k-1)!! / (2 x^2)^k
        v = ax[large]
        r = 1.0 / (2 * v * v)
        term = np.ones_like(v)
        total = term.copy()
        for k in range(1, 40):
            term = term * (2 * k - 1) * r
            total = total + term
        out[large] = total / (2 * v)
    out[np.isinf(x)] = 0.0
    return np.where(x < 0, -out, out)


# -- the exponential integral Ei -----------------------------------------------------------------

def _expint(x):
    out = np.full(x.shape, np.nan)
    small = (x > 0) & (x <= 40)
    if small.any():  # Ei(x) = gamma + log x + sum_k x^k / (k k!)
        v = x[small]
        term = np.ones_like(v)
        total = np.zeros_like(v)
        for k in range(1, 200):
            term = term * v / k
            total = total + term / k
        out[small] = _EULER + np.log(v) + total
    large = (x > 40) & np.isfinite(x)
    if large.any():  # Ei(x) ~ exp(x) / x sum_k k! / x^k
        v = x[large]
        term = np.ones_like(v)
        total = term.copy()
        for k in range(1, 40):
            term = term * k / v
            total = total + term
        out[large] = np.exp(v) / v * total
    out[x == 0] = -np.inf
    return out


# -- Fresnel integrals ---------------------------------------------------------------------------

_HALF_PI = np.pi / 2
_FRESNEL_SERIES_MAX = 1.6


def _erfc_continued_fraction(z):
    """erfc(z) for complex z with Re z > 0 and |z| >= 2, by its continued fraction evaluated
    backwards: erfc(z) = exp(-z^2)/sqrt(pi) / (z + (1/2)/(z + 1/(z + (3/2)/(z + ...))))."""
    tail = z.copy()
    for k in range(400, 0, -1):
        tail = z + (k / 2) / tail
    return np.exp(-z * z) / np.sqrt(np.pi) / tail


def _fresnel(x, part: str):
    out = np.full(x.shape, np.nan)
    ax = np.abs(x)
    small = ax < _FRESNEL_SERIES_MAX
    if small.any():
        v = ax[small]
        a = _HALF_PI * v * v
        q = -a * a
        if part == "cos":  # C(x) = sum_k (-1)^k a^(2k) x / ((2k)! (4k+1))
            term = v.copy()
            total = v.copy()
            for k in range(1, 30):
                term = term * q / ((2 * k - 1) * (2 * k))
                total = total + term / (4 * k + 1)
        else:              # S(x) = sum_k (-1)^k a^(2k+1) x / ((2k+1)! (4k+3))
            term = a * v
            total = term / 3
            for k in range(1, 30):
                term = term * q / ((2 * k) * (2 * k + 1))
                total = total + term / (4 * k + 3)
        out[small] = total
    large = (ax >= _FRESNEL_SERIES_MAX) & np.isfinite(ax)
    if large.any():
        v = ax[large]
        z = (np.sqrt(np.pi) / 2) * (1 - 1j) * v
        value = (1 + 1j) / 2 * (1 - _erfc_continued_fraction(z))
        out[large] = value.real if part == "cos" else value.imag
    out[np.isinf(x)] = 0.5
    return np.where(x < 0, -out, out)


def _fresnel_cos(x):
    return _fresnel(x, "cos")


def _fresnel_sin(x):
    return _fresnel(x, "sin")


# -- Spence's function ---------------------------------------------------------------------------

_LI2_COEFFICIENTS = [float(_B[n] / _pymath.factorial(n + 1)) for n in range(30)]
_PI2_6 = np.pi * np.pi / 6


def _li2_series(u):
    """Li2(z) for z in [-1, 1/2] given u = -log(1 - z): sum_n B_n u^(n+1) / (n+1)!."""
    total = np.zeros_like(u)
    for c in reversed(_LI2_COEFFICIENTS):
        total = total * u + c
    return total * u


def _spence(x):
    """Li2(1 - x), with every argument of a logarithm taken from x itself (1 - x loses the low
    bits of a small x)."""
    out = np.full(x.shape, np.nan)
    core = (x >= 0.5) & (x <= 2)          # z = 1 - x in [-1, 1/2], u = -log x
    out[core] = _li2_series(-np.log(x[core]))
    upper = (x > 0) & (x < 0.5)           # reflection: Li2(1 - x) = pi^2/6 - log(1-x) log x - Li2(x)
    w = x[upper]
    out[upper] = _PI2_6 - np.log1p(-w) * np.log(w) - _li2_series(-np.log1p(-w))
    lower = (x > 2) & np.isfinite(x)      # inversion: Li2(z) = -pi^2/6 - log(-z)^2/2 - Li2(1/z)
    w = x[lower]                          # with -z = x - 1 and 1 - 1/z = x / (x - 1)
    out[lower] = -_PI2_6 - np.log(w - 1) ** 2 / 2 - _li2_series(-np.log(w / (w - 1)))
    out[x == 0] = _PI2_6
    return out


# -- the Hurwitz zeta function -------------------------------------------------------------------

_ZETA_SHIFT = 10.0
_ZETA_TERMS = 12


def _zeta(s, q):
    out = np.full(s.shape, np.nan)
    pole = (q <= 0) & (q == np.floor(q))
    valid = (s > 1) & ~pole & ~((q < 0) & (s != np.floor(s))) & np.isfinite(q) & ~np.isnan(s)
    if valid.any():
        sv, qv = s[valid], q[valid]
        shift = np.maximum(np.ceil(_ZETA_SHIFT - qv), 0.0)
        total = np.zeros_like(sv)
        for k in range(int(shift.max())):
            inside = k < shift
            total = total + np.where(inside, np.power(np.where(inside, qv + k, 1.0), -sv), 0.0)
        a = qv + shift
        total = total + a ** (1 - sv) / (sv - 1) + a ** (-sv) / 2
        rising = sv.copy()              # s (s+1) ... (s+2j-2)
        power = a ** (-sv - 1)          # a^(-s-2j+1)
        for j in range(1, _ZETA_TERMS + 1):
            total = total + float(_B[2 * j] / _pymath.factorial(2 * j)) * rising * power
            rising = rising * (sv + 2 * j - 1) * (sv + 2 * j)
            power = power / (a * a)
        out[valid] = total
    out[(s == 1) & ~np.isnan(q)] = np.inf
    out[pole & (s > 1)] = np.inf
    out[np.isposinf(s) & (q > 1)] = 0.0
    out[np.isposinf(s) & (q == 1)] = 1.0
    return out


# -- the ops -------------------------------------------------------------------------------------

def _unary(op_name, fn64):
    return define(op_name, _real_float_infer(op_name), _elementwise(fn64))


BESSEL_J0 = _unary("BesselJ0", _bessel_j0)
BESSEL_J1 = _unary("BesselJ1", _bessel_j1)
BESSEL_Y0 = _unary("BesselY0", _bessel_y0)
BESSEL_Y1 = _unary("BesselY1", _bessel_y1)
BESSEL_K0 = _unary("BesselK0", _bessel_k0)
BESSEL_K0E = _unary("BesselK0e", _bessel_k0e)
BESSEL_K1 = _unary("BesselK1", _bessel_k1)
BESSEL_K1E = _unary("BesselK1e", _bessel_k1e)
DAWSN = _unary("Dawsn", _dawsn)
EXPINT = _unary("Expint", _expint)
FRESNEL_COS = _unary("FresnelCos", _fresnel_cos)
FRESNEL_SIN = _unary("FresnelSin", _fresnel_sin)
SPENCE = _unary("Spence", _spence)
ZETA = define("Zeta", _real_float_infer("Zeta"), _elementwise(_zeta))


def _safe_reciprocal(x):
    """1 / x where x != 0, else 0 (for slopes whose x == 0 value is a limit or a pole)."""
    zero = _math.equal(x, 0)
    return _math.where(zero, _math.zeros_like(x),
                       _math.reciprocal(_math.where(zero, _math.ones_like(x), x)))


@BESSEL_J0.def_grad
def _j0_grad(op, g):  # J0' = -J1
    return [_math.multiply(g, _math.negative(bessel_j1(op.inputs[0])))]


@BESSEL_J1.def_grad
def _j1_grad(op, g):  # J1' = J0 - J1 / x (1/2 at 0)
    x, y = op.inputs[0], op.outputs[0]
    slope = _math.subtract(bessel_j0(x), _math.multiply(y, _safe_reciprocal(x)))
    half = _math.fill(_math.shape(x), np.asarray(0.5, x.dtype.as_numpy_dtype))
    return [_math.multiply(g, _math.where(_math.equal(x, 0), half, slope))]


@BESSEL_Y0.def_grad
def _y0_grad(op, g):  # Y0' = -Y1
    return [_math.multiply(g, _math.negative(bessel_y1(op.inputs[0])))]


@BESSEL_Y1.def_grad
def _y1_grad(op, g):  # Y1' = Y0 - Y1 / x
    x, y = op.inputs[0], op.outputs[0]
    return [_math.multiply(g, _math.subtract(bessel_y0(x), _math.divide(y, x)))]


@BESSEL_K0.def_grad
def _k0_grad(op, g):  # K0' = -K1
    return [_math.multiply(g, _math.negative(bessel_k1(op.inputs[0])))]


@BESSEL_K0E.def_grad
def _k0e_grad(op, g):  # (e^x K0)' = K0e - K1e
    x, y = op.inputs[0], op.outputs[0]
    return [_math.multiply(g, _math.subtract(y, bessel_k1e(x)))]


@BESSEL_K1.def_grad
def _k1_grad(op, g):  # K1' = -K0 - K1 / x
    x, y = op.inputs[0], op.outputs[0]
    return [_math.multiply(g, _math.negative(_math.add(bessel_k0(x), _math.divide(y, x))))]


@BESSEL_K1E.def_grad
def _k1e_grad(op, g):  # (e^x K1)' = K1e - K0e - K1e / x
    x, y = op.inputs[0], op.outputs[0]
    slope = _math.subtract(_math.subtract(y, bessel_k0e(x)), _math.divide(y, x))
    return [_math.multiply(g, slope)]


@DAWSN.def_grad
def _dawsn_grad(op, g):  # D' = 1 - 2 x D
    x, y = op.inputs[0], op.outputs[0]
    return [_math.multiply(g, _math.subtract(_math.ones_like(x),
                                             _math.multiply(_math.multiply(x, y), 2.0)))]


@EXPINT.def_grad
def _expint_grad(op, g):  # Ei' = exp(x) / x
    x = op.inputs[0]
    return [_math.multiply(g, _math.divide(_math.exp(x), x))]


@FRESNEL_COS.def_grad
def _fresnel_cos_grad(op, g):  # C' = cos(pi x^2 / 2)
    x = op.inputs[0]
    return [_math.multiply(g, _math.cos(_math.multiply(_math.square(x), _HALF_PI)))]


@FRESNEL_SIN.def_grad
def _fresnel_sin_grad(op, g):  # S' = sin(pi x^2 / 2)
    x = op.inputs[0]
    return [_math.multiply(g, _math.sin(_math.multiply(_math.square(x), _HALF_PI)))]


@SPENCE.def_grad
def _spence_grad(op, g):  # spence'(x) = log(x) / (1 - x), -1 at x = 1
    x = op.inputs[0]
    one = _math.ones_like(x)
    at_one = _math.equal(x, one)
    safe = _math.where(at_one, _math.fill(_math.shape(x), np.asarray(2.0, x.dtype.as_numpy_dtype)), x)
    slope = _math.divide(_math.log(safe), _math.subtract(one, safe))
    return [_math.multiply(g, _math.where(at_one, _math.negative(one), slope))]


@ZETA.def_grad
def _zeta_grad(op, g):  # d/dq zeta(x, q) = -x zeta(x + 1, q); none for x, as TensorFlow
    x, q = op.inputs
    if not op.needs[1]:
        return [None, None]
    slope = _math.negative(_math.multiply(x, zeta(_math.add(x, _math.ones_like(x)), q)))
    return [None, _math.sum_grad(_math.multiply(g, slope), op, 1)]


# -- the public functions ------------------------------------------------------------------------

@export("math.special.bessel_j0")
def bessel_j0(x, name=None) -> Tensor:
    """J0(x), the Bessel function of the first kind of order 0 (op `BesselJ0`)."""
    return apply(BESSEL_J0, [convert_to_tensor(x)], name=name)


@export("math.special.bessel_j1")
def bessel_j1(x, name=None) -> Tensor:
    """J1(x), the Bessel function of the first kind of order 1 (op `BesselJ1`)."""
    return apply(BESSEL_J1, [convert_to_tensor(x)], name=name)


@export("math.special.bessel_y0")
def bessel_y0(x, name=None) -> Tensor:
    """Y0(x), the Bessel function of the second kind of order 0; -inf for x <= 0 (op
    `BesselY0`)."""
    return apply(BESSEL_Y0, [convert_to_tensor(x)], name=name)


@export("math.special.bessel_y1")
def bessel_y1(x, name=None) -> Tensor:
    """Y1(x), the Bessel function of the second kind of order 1; -inf for x <= 0 (op
    `BesselY1`)."""
    return apply(BESSEL_Y1, [convert_to_tensor(x)], name=name)


@export("math.special.bessel_k0")
def bessel_k0(x, name=None) -> Tensor:
    """K0(x), the modified Bessel function of the second kind of order 0; inf for x <= 0 (op
    `BesselK0`)."""
    return apply(BESSEL_K0, [convert_to_tensor(x)], name=name)


@export("math.special.bessel_k0e")
def bessel_k0e(x, name=None) -> Tensor:
    """exp(x) K0(x), the exponentially scaled K0 (op `BesselK0e`)."""
    return apply(BESSEL_K0E, [convert_to_tensor(x)], name=name)


@export("math.special.bessel_k1")
def bessel_k1(x, name=None) -> Tensor:
    """K1(x), the modified Bessel function of the second kind of order 1; inf for x <= 0 (op
    `BesselK1`)."""
    return apply(BESSEL_K1, [convert_to_tensor(x)], name=name)


@export("math.special.bessel_k1e")
def bessel_k1e(x, name=None) -> Tensor:
    """exp(x) K1(x), the exponentially scaled K1 (op `BesselK1e`)."""
    return apply(BESSEL_K1E, [convert_to_tensor(x)], name=name)


@export("math.special.dawsn")
def dawsn(x, name=None) -> Tensor:
    """Dawson's integral exp(-x^2) * integral from 0 to x of exp(t^2) dt (op `Dawsn`)."""
    return apply(DAWSN, [convert_to_tensor(x)], name=name)


@export("math.special.expint")
def expint(x, name=None) -> Tensor:
    """Ei(x), the exponential integral, for x > 0 (-inf at 0, nan below) (op `Expint`)."""
    return apply(EXPINT, [convert_to_tensor(x)], name=name)


@export("math.special.fresnel_cos")
def fresnel_cos(x, name=None) -> Tensor:
    """C(x), the integral from 0 to x of cos(pi t^2 / 2) dt (op `FresnelCos`)."""
    return apply(FRESNEL_COS, [convert_to_tensor(x)], name=name)


@export("math.special.fresnel_sin")
def fresnel_sin(x, name=None) -> Tensor:
    """S(x), the integral from 0 to x of sin(pi t^2 / 2) dt (op `FresnelSin`)."""
    return apply(FRESNEL_SIN, [convert_to_tensor(x)], name=name)


@export("math.special.spence")
def spence(x, name=None) -> Tensor:
    """Spence's function: the integral from 1 to x of log(t) / (1 - t) dt, for x >= 0 (nan
    below) (op `Spence`)."""
    return apply(SPENCE, [convert_to_tensor(x)], name=name)


@export("math.zeta")
def zeta(x, q, name=None) -> Tensor:
    """The Hurwitz zeta function sum over n >= 0 of (n + q)^(-x), for x > 1 (inf at x == 1,
    nan below); `x` and `q` broadcast (op `Zeta`)."""
    x, q = binary_operands(x, q)
    return apply(ZETA, [x, q], name=name)


# -- regularized incomplete gamma and beta functions ---------------------------------------------

_lgamma_v = np.frompyfunc(lambda v: _pymath.lgamma(v) if v > 0 else np.nan, 1, 1)
_TINY = 1e-300


def _lgamma64(v):
    return np.asarray(_lgamma_v(v), dtype=np.float64)


def _igamma_parts(a, x):
    """(P(a, x), Q(a, x)) for float64 arrays: the series where x < a + 1, else the continued
    fraction of Q (modified Lentz), both times exp(a log x - x - lgamma(a))."""
    a, x = np.broadcast_arrays(a, x)
    p = np.full(a.shape, np.nan)
    q = np.full(a.shape, np.nan)
    valid = (a > 0) & (x >= 0) & ~np.isnan(a) & ~np.isnan(x)
    zero = valid & (x == 0)
    p[zero], q[zero] = 0.0, 1.0
    top = valid & np.isposinf(x)
    p[top], q[top] = 1.0, 0.0
    inside = valid & (x > 0) & np.isfinite(x)
    series = inside & (x < a + 1)
    if series.any():
        av, xv = a[series], x[series]
        term = 1.0 / av
        total = term.copy()
        n = av.copy()
        for _ in range(3000):
            n = n + 1
            term = term * xv / n
            total = total + term
            if np.all(np.abs(term) <= np.abs(total) * 1e-17):
                break
        value = total * np.exp(av * np.log(xv) - xv - _lgamma64(av))
        p[series], q[series] = value, 1.0 - value
    fraction = inside & ~series
    if fraction.any():
        av, xv = a[fraction], x[fraction]
        b = xv + 1.0 - av
        c = np.full(av.shape, 1.0 / _TINY)
        d = 1.0 / b
        h = d.copy()
        for i in range(1, 3000):
            an = -i * (i - av)
            b = b + 2.0
            d = an * d + b
            d = np.where(np.abs(d) < _TINY, _TINY, d)
            c = b + an / c
            c = np.where(np.abs(c) < _TINY, _TINY, c)
            d = 1.0 / d
            step = d * c
            h = h * step
            if np.all(np.abs(step - 1.0) <= 1e-16):
                break
        value = np.exp(av * np.log(xv) - xv - _lgamma64(av)) * h
        q[fraction], p[fraction] = value, 1.0 - value
    return p, q


def _igamma(a, x):
    return _igamma_parts(a, x)[0]


def _igammac(a, x):
    return _igamma_parts(a, x)[1]


def _beta_fraction(a, b, x):
    """The continued fraction of I_x(a, b) (modified Lentz), for x < (a + 1) / (a + b + 2)."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = np.ones_like(x)
    d = 1.0 - qab * x / qap
    d = 1.0 / np.where(np.abs(d) < _TINY, _TINY, d)
    h = d.copy()
    for m in range(1, 3000):
        m2 = 2 * m
        for an in (m * (b - m) * x / ((qam + m2) * (a + m2)),
                   -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):
            d = 1.0 + an * d
            d = 1.0 / np.where(np.abs(d) < _TINY, _TINY, d)
            c = 1.0 + an / c
            c = np.where(np.abs(c) < _TINY, _TINY, c)
            step = d * c
            h = h * step
        if np.all(np.abs(step - 1.0) <= 1e-16):
            break
    return h


def _betainc(a, b, x):
    a, b, x = np.broadcast_arrays(a, b, x)
    out = np.full(a.shape, np.nan)
    valid = (a > 0) & (b > 0) & (x >= 0) & (x <= 1)
    out[valid & (x == 0)] = 0.0
    out[valid & (x == 1)] = 1.0
    inside = valid & (x > 0) & (x < 1)
    if inside.any():
        av, bv, xv = a[inside], b[inside], x[inside]
        front = np.exp(_lgamma64(av + bv) - _lgamma64(av) - _lgamma64(bv) + av * np.log(xv) +
                       bv * np.log1p(-xv))
        direct = xv < (av + 1.0) / (av + bv + 2.0)
        value = np.empty_like(xv)
        value[direct] = front[direct] * _beta_fraction(av[direct], bv[direct], xv[direct]) / \
            av[direct]
        flip = ~direct  # I_x(a, b) = 1 - I_(1-x)(b, a)
        value[flip] = 1.0 - front[flip] * _beta_fraction(bv[flip], av[flip], 1.0 - xv[flip]) / \
            bv[flip]
        out[inside] = value
    return out


def _ternary_infer(a, b, x):
    _real_float_infer("Betainc")(a, b)
    shape = broadcast(broadcast(a.shape, b.shape, "Betainc"), x.shape, "Betainc")
    return shape, same_dtype("Betainc", a, b, x)


IGAMMA = define("Igamma", _real_float_infer("Igamma"), _elementwise(_igamma))
IGAMMAC = define("Igammac", _real_float_infer("Igammac"), _elementwise(_igammac))
BETAINC = define("Betainc", _ternary_infer, _elementwise(_betainc))


def _igamma_slope(a, x):
    """d/dx P(a, x) = exp(-x) x^(a-1) / Gamma(a)."""
    return _math.exp(_math.subtract(_math.subtract(
        _math.multiply(_math.subtract(a, _math.ones_like(a)), _math.log(x)), x),
        _special.lgamma(a)))


def _no_parameter_gradient(op, name):
    if op.needs[0]:
        raise LookupError(f"{name}: the gradient with respect to `a` is not implemented here "
                          "(only with respect to `x`); stop it with rt.stop_gradient(a).")


@IGAMMA.def_grad
def _igamma_grad(op, g):
    _no_parameter_gradient(op, "igamma")
    a, x = op.inputs
    return [None, _math.sum_grad(_math.multiply(g, _igamma_slope(a, x)), op, 1)
            if op.needs[1] else None]


@IGAMMAC.def_grad
def _igammac_grad(op, g):
    _no_parameter_gradient(op, "igammac")
    a, x = op.inputs
    return [None, _math.sum_grad(_math.negative(_math.multiply(g, _igamma_slope(a, x))), op, 1)
            if op.needs[1] else None]


@BETAINC.def_grad
def _betainc_grad(op, g):  # none for a and b, as TensorFlow's
    a, b, x = op.inputs
    if not op.needs[2]:
        return [None, None, None]
    log_slope = _math.subtract(_math.add(
        _math.multiply(_math.subtract(a, _math.ones_like(a)), _math.log(x)),
        _math.multiply(_math.subtract(b, _math.ones_like(b)), _math.log1p(_math.negative(x)))),
        _math.subtract(_math.add(_special.lgamma(a), _special.lgamma(b)),
                       _special.lgamma(_math.add(a, b))))
    return [None, None, _math.sum_grad(_math.multiply(g, _math.exp(log_slope)), op, 2)]


@export("math.igamma")
def igamma(a, x, name=None) -> Tensor:
    """P(a, x), the regularized lower incomplete gamma function, for a > 0 and x >= 0 (nan
    elsewhere); `a` and `x` broadcast (op `Igamma`). Differentiable in `x` only."""
    a, x = binary_operands(a, x)
    return apply(IGAMMA, [a, x], name=name)


@export("math.igammac")
def igammac(a, x, name=None) -> Tensor:
    """Q(a, x) = 1 - P(a, x), the regularized upper incomplete gamma function (op `Igammac`).
    Differentiable in `x` only."""
    a, x = binary_operands(a, x)
    return apply(IGAMMAC, [a, x], name=name)


@export("math.betainc")
def betainc(a, b, x, name=None) -> Tensor:
    """I_x(a, b), the regularized incomplete beta function, for a, b > 0 and x in [0, 1] (nan
    elsewhere); the three broadcast (op `Betainc`). Differentiable in `x` only, as in
    TensorFlow."""
    a = convert_to_tensor(a)
    b = convert_to_tensor(b, dtype_hint=a.dtype)
    x = convert_to_tensor(x, dtype_hint=a.dtype)
    return apply(BETAINC, [a, b, x], name=name)
