"""JAX forms of elementwise functions whose jax.numpy twin gives other values than NumPy on
XLA's CPU, for the XLA tier's lowerings (lowering.py derives an op's rule from its ufunc and
takes the form here first).

What they fix, each found by tests/reliability/test_registry_tier_agreement.py against the
NumPy tier (the tiers agree within 8 ulp on transcendental functions, bit for bit otherwise,
with subnormals flushed to zero on this tier):
- `exp2` is exp(x log 2) in XLA: 36 ulp off at 2**100 in float32 (and 0 for 2**-126); here
  2**floor(x) (exact, `ldexp`) times exp2 of the fraction, within 2 ulp;
- `sinh` and `cosh` are up to 495 ulp off in float64 (24 in float32); here from `expm1` and
  `exp` of |x| (of |x| / 2, squared, where exp(|x|) overflows first), within 4 ulp;
- `arcsin` of the smallest normal numbers is 0 (an intermediate is flushed); here x itself
  where x**3 / 6 is below half an ulp of x;
- `arctan2` of subnormals is NaN or of the wrong sign (atan2(5e-324, -1) was -pi); here its
  operands are flushed first, as the tier's arithmetic treats them;
- `digamma` is 9 ulp off at 0.5 in float64: here the NumPy kernel's series;
- `power` of a subnormal base is neither x**y nor 0**y (its operands are flushed); integer powers wrap around as
  NumPy's repeated squaring does (JAX's gave 7**100 = 1729633 in int32, NumPy 1027218017).
"""

from __future__ import annotations

from typing import Any, Callable

import jax.numpy as jnp
import numpy as np
from jax import lax


def flushed(x: Any) -> Any:
    """Floats with subnormals replaced by a zero of their sign; other values unchanged. A
    value known while tracing stays a NumPy value (jnp.power(x, 2.0) keeps its fast path)."""
    xp = np if isinstance(x, (np.ndarray, np.generic, float, int)) else jnp
    x = xp.asarray(x)
    if x.dtype.kind != "f":
        return x
    return xp.where(xp.abs(x) < xp.finfo(x.dtype).tiny, x * 0, x)


def exp2(x: Any) -> Any:
    finite = jnp.isfinite(x)
    whole = jnp.floor(jnp.where(finite, x, 0))
    fraction = jnp.where(finite, x, 0) - whole  # exact: x and whole are close
    scale = jnp.clip(whole, -1100, 1100).astype(np.int32)  # beyond it the result is 0 or inf
    return jnp.where(finite, jnp.ldexp(jnp.exp2(fraction), scale), jnp.exp2(x))


_NEAR = 22.0  # below it exp(-|x|) still counts in sinh and cosh


def _far(a: Any) -> Any:
    """exp(a) / 2 for a >= _NEAR, finite while the result is (exp(a) overflows first)."""
    half = jnp.exp(a * 0.5)
    return (0.5 * half) * half


def sinh(x: Any) -> Any:
    a = jnp.abs(x)
    t = jnp.expm1(jnp.minimum(a, _NEAR))
    return jnp.copysign(jnp.where(a < _NEAR, 0.5 * (t + t / (t + 1)), _far(a)), x)


def cosh(x: Any) -> Any:
    a = jnp.abs(x)
    e = jnp.exp(jnp.minimum(a, _NEAR))
    return jnp.where(a < _NEAR, 0.5 * e + 0.5 / e, _far(a))


def arcsin(x: Any) -> Any:
    small = jnp.sqrt(jnp.finfo(jnp.asarray(x).dtype).eps)
    return jnp.where(jnp.abs(x) < small, x, jnp.arcsin(x))


def arctan2(y: Any, x: Any) -> Any:
    return jnp.arctan2(flushed(y), flushed(x))


def _wrapping_power(x: Any, y: Any) -> Any:
    """x ** y for integers y >= 0 by repeated squaring over every bit of y, wrapping around."""
    x, y = jnp.broadcast_arrays(x, y)

    def step(_, carried):
        result, base, exponent = carried
        result = jnp.where((exponent & 1) == 1, result * base, result)
        return result, base * base, exponent >> 1
    bits = jnp.iinfo(x.dtype).bits
    return lax.fori_loop(0, bits, step, (jnp.ones_like(x), x, y))[0]


def power(x: Any, y: Any) -> Any:
    """NumPy's x ** y: integers by repeated squaring, subnormal floats flushed."""
    if jnp.issubdtype(jnp.result_type(x), jnp.integer):
        return _wrapping_power(x, y)
    return jnp.power(flushed(x), flushed(y))


def digamma(x: Any) -> Any:
    """psi(x) as the NumPy kernel computes it (math_special): shifted up to 10, the asymptotic
    series to B_14, the reflection for x < 0 (JAX's is 9 ulp off at 0.5), in float64."""
    v = jnp.asarray(x, np.float64)
    pole = (v <= 0) & (v == jnp.floor(v))
    reflect = (v < 0) & ~pole & jnp.isfinite(v)
    y = jnp.where(reflect, 1.0 - v, jnp.where(pole, 1.0, v))
    acc = jnp.zeros_like(y)
    for _ in range(10):  # y > 0 reaches 10 in ten steps
        small = y < 10
        acc = acc - jnp.where(small, 1.0 / y, 0.0)
        y = jnp.where(small, y + 1.0, y)
    r = 1.0 / (y * y)
    series = r * (1 / 12 - r * (1 / 120 - r * (1 / 252 - r * (1 / 240 - r * (
        1 / 132 - r * (691 / 32760 - r / 12))))))
    psi = acc + jnp.log(y) - 0.5 / y - series
    fraction = v - jnp.floor(v)  # exact: tan has period pi, and pi x loses x's last bits
    psi = jnp.where(reflect, psi - np.pi / jnp.tan(np.pi * fraction), psi)
    psi = jnp.where(pole | jnp.isnan(v) | (v == -np.inf), np.nan, psi)
    return psi.astype(jnp.result_type(x))


def log2(x: Any) -> Any:
    """log2 with subnormals flushed first (-inf for them), as the tier's other functions see
    them: JAX 0.12's log2 gives -150 for every float32 subnormal."""
    x = jnp.asarray(x)
    if x.dtype.kind != "f":
        return jnp.log2(x)
    return jnp.where(jnp.abs(x) < jnp.finfo(x.dtype).tiny, -jnp.inf, jnp.log2(x))


# ufunc -> its form on this tier, where jax.numpy's twin is not it
FORMS: dict[np.ufunc, Callable[..., Any]] = {
    np.exp2: exp2, np.sinh: sinh, np.cosh: cosh, np.arcsin: arcsin, np.arctan2: arctan2,
    np.log2: log2,
}
