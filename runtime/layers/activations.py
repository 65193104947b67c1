"""Activation functions by name: one table for the layers' `activation=` argument and for
`keras.activations` (`get`, `serialize`, `deserialize`), with every name Keras 3 accepts.

Each function is Keras 3's formula composed from runtime ops, so it stages, compiles and has
gradients on every tier. `get("relu")` is `relu`; `get(None)` is `linear`.
"""

from __future__ import annotations

from typing import Callable

from ..ops import array_math, array_sort, math_composed, nn
from ..ops.core import convert_to_tensor
from ..ops.dispatch import undispatched


def _zeros(x):
    return array_math.zeros_like(x)


def linear(x):
    """The identity activation."""
    return x


def relu(x, negative_slope=0.0, max_value=None, threshold=0.0):
    """`max(x, 0)`; with `negative_slope` `negative_slope * (x - threshold)` below
    `threshold`, values at or under `threshold` set to 0, and outputs capped at `max_value`
    (Keras 3's `relu`)."""
    x = convert_to_tensor(x)
    if negative_slope == 0 and max_value is None and threshold == 0:
        return nn.relu(x)
    if negative_slope != 0 and max_value is None and threshold == 0:
        return leaky_relu(x, negative_slope)
    negative_part = None
    if negative_slope != 0:
        negative_part = nn.relu(array_math.add(array_math.negative(x), threshold))
    if threshold != 0:
        y = array_math.where(array_math.greater(x, threshold), x, _zeros(x))
    else:
        y = nn.relu(x)
    if max_value is not None:
        y = array_math.minimum(y, max_value)
    if negative_part is not None:
        y = array_math.subtract(y, array_math.multiply(negative_part, negative_slope))
    return y


def leaky_relu(x, negative_slope=0.2):
    """`x` where positive, else `negative_slope * x` (Keras 3's default slope 0.2)."""
    x = convert_to_tensor(x)
    return array_math.maximum(x, array_math.multiply(x, negative_slope))


def elu(x, alpha=1.0):
    """`x` where `x >= 0`, else `alpha * (exp(x) - 1)`."""
    x = convert_to_tensor(x)
    negative = array_math.multiply(math_composed.expm1(array_math.minimum(x, 0)), alpha)
    return array_math.where(array_math.greater_equal(x, 0), x, negative)


def celu(x, alpha=1.0):
    """`max(x, 0) + alpha * (exp(min(x, 0) / alpha) - 1)`."""
    x = convert_to_tensor(x)
    negative = math_composed.expm1(array_math.divide(array_math.minimum(x, 0), alpha))
    return array_math.add(array_math.maximum(x, 0), array_math.multiply(negative, alpha))


def hard_sigmoid(x):
    """`relu6(x + 3) / 6`: 0 below -3, 1 above 3, linear between."""
    x = convert_to_tensor(x)
    return array_math.divide(math_composed.relu6(array_math.add(x, 3.0)), 6.0)


def hard_silu(x):
    """`x * hard_sigmoid(x)` (also called hard_swish)."""
    x = convert_to_tensor(x)
    return array_math.multiply(x, hard_sigmoid(x))


def silu(x):
    """`x * sigmoid(x)` (also called swish)."""
    return math_composed.silu(x)


def mish(x):
    """`x * tanh(softplus(x))`."""
    x = convert_to_tensor(x)
    return array_math.multiply(x, array_math.tanh(nn.softplus(x)))


def glu(x, axis=-1):
    """The gated linear unit: `a * sigmoid(b)` for the halves `a, b` of `x` along `axis`."""
    x = convert_to_tensor(x)
    size = x.shape.as_list()[axis] if x.shape.rank is not None else None
    if size is not None and size % 2:
        raise ValueError(f"glu needs an even size along axis {axis}, got shape {x.shape}.")
    a, b = array_math.split(x, 2, axis=axis)
    return array_math.multiply(a, array_math.sigmoid(b))


def tanh_shrink(x):
    """`x - tanh(x)`."""
    x = convert_to_tensor(x)
    return array_math.subtract(x, array_math.tanh(x))


def hard_tanh(x):
    """`x` clipped to [-1, 1]."""
    return array_math.clip_by_value(convert_to_tensor(x), -1.0, 1.0)


def hard_shrink(x, threshold=0.5):
    """`x` where `|x| > threshold`, else 0."""
    x = convert_to_tensor(x)
    return array_math.where(array_math.greater(array_math.abs(x), threshold), x, _zeros(x))


def soft_shrink(x, threshold=0.5):
    """`x - threshold` above `threshold`, `x + threshold` below `-threshold`, else 0."""
    x = convert_to_tensor(x)
    shrunk = array_math.subtract(x, array_math.multiply(array_math.sign(x), threshold))
    return array_math.where(array_math.greater(array_math.abs(x), threshold), shrunk, _zeros(x))


def threshold(x, threshold, default_value):  # noqa: A002 - Keras's argument name
    """`x` where `x > threshold`, else `default_value`."""
    x = convert_to_tensor(x)
    fill = array_math.add(_zeros(x), default_value)
    return array_math.where(array_math.greater(x, threshold), x, fill)


def sparse_plus(x):
    """0 for `x <= -1`, `(x + 1)**2 / 4` for `-1 < x < 1`, `x` from 1 on."""
    x = convert_to_tensor(x)
    middle = array_math.multiply(array_math.square(array_math.add(x, 1.0)), 0.25)
    upper = array_math.where(array_math.less(x, 1.0), middle, x)
    return array_math.where(array_math.less_equal(x, -1.0), _zeros(x), upper)


def sparse_sigmoid(x):
    """0 for `x <= -1`, `(x + 1) / 2` for `-1 < x < 1`, 1 from 1 on."""
    x = convert_to_tensor(x)
    return array_math.clip_by_value(array_math.multiply(array_math.add(x, 1.0), 0.5), 0.0, 1.0)


def squareplus(x, b=4):
    """`(x + sqrt(x**2 + b)) / 2`."""
    x = convert_to_tensor(x)
    return array_math.multiply(array_math.add(x, array_math.sqrt(array_math.add(array_math.square(x), b))),
                               0.5)


def sparsemax(x, axis=-1):
    """The Euclidean projection of `x` onto the probability simplex along `axis`: like
    softmax, but small entries become exactly 0."""
    x = convert_to_tensor(x)
    rank = x.shape.rank
    size = x.shape.as_list()[axis] if rank is not None else None
    if size is None:
        raise ValueError(f"sparsemax needs a known size along axis {axis}, got shape {x.shape}.")
    ranks = [1] * rank
    ranks[axis] = size
    position = array_math.reshape(array_math.cast(array_math.range(1, size + 1), x.dtype), ranks)
    ordered = array_sort.sort(x, axis=axis, direction="DESCENDING")
    totals = array_math.cumsum(ordered, axis=axis)
    support = array_math.greater(array_math.add(array_math.multiply(ordered, position), 1.0), totals)
    count = array_math.reduce_sum(array_math.cast(support, x.dtype), axis=axis, keepdims=True)
    top = array_math.reduce_sum(array_math.where(support, ordered, _zeros(ordered)), axis=axis,
                                keepdims=True)
    tau = array_math.divide(array_math.subtract(top, 1.0), count)
    return array_math.maximum(array_math.subtract(x, tau), 0.0)


def exponential(x):
    """`exp(x)`."""
    return array_math.exp(x)


# one table for layers and keras.activations: canonical names first (serialize uses them)
_BY_NAME: dict[str, Callable] = {
    "relu": relu,
    "leaky_relu": leaky_relu,
    "relu6": math_composed.relu6,
    "softmax": nn.softmax,
    "log_softmax": nn.log_softmax,
    "sigmoid": array_math.sigmoid,
    "tanh": array_math.tanh,
    "exponential": exponential,
    "linear": linear,
    "elu": elu,
    "selu": math_composed.selu,
    "celu": celu,
    "gelu": nn.gelu,
    "silu": silu,
    "hard_sigmoid": hard_sigmoid,
    "hard_silu": hard_silu,
    "softplus": nn.softplus,
    "softsign": math_composed.softsign,
    "mish": mish,
    "glu": glu,
    "tanh_shrink": tanh_shrink,
    "hard_tanh": hard_tanh,
    "hard_shrink": hard_shrink,
    "soft_shrink": soft_shrink,
    "threshold": threshold,
    "sparse_plus": sparse_plus,
    "sparse_sigmoid": sparse_sigmoid,
    "squareplus": squareplus,
    "sparsemax": sparsemax,
    "log_sigmoid": math_composed.log_sigmoid,
    # aliases
    "swish": silu,
    "hard_swish": hard_silu,
}

# rt.nn / rt.math functions that compute a named activation, for `name_of`
_SAME_AS: dict[int, str] = {id(nn.relu): "relu", id(nn.elu): "elu",
                            id(nn.leaky_relu): "leaky_relu", id(array_math.exp): "exponential",
                            id(math_composed.silu): "silu"}


def names() -> list[str]:
    """Every activation name `get` knows."""
    return sorted(_BY_NAME)


def name_of(fn) -> str | None:
    """The name `get` maps to `fn` (the first, canonical one), or None."""
    fn = undispatched(fn)  # rt.nn.relu after a dispatch for it is registered
    for key, value in _BY_NAME.items():
        if value is fn:
            return key
    return _SAME_AS.get(id(fn))


def get(identifier) -> Callable:
    """The activation function for a name, a callable, or None (linear)."""
    if identifier is None:
        return linear
    if isinstance(identifier, str):
        try:
            return _BY_NAME[identifier.lower()]
        except KeyError:
            raise ValueError(f"Unknown activation {identifier!r}; known names are "
                             f"{names()}, or pass a callable.") from None
    if callable(identifier):
        return identifier
    raise TypeError(f"An activation must be a name, a callable or None, got {identifier!r}.")

