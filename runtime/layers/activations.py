"""Activation functions by name: one table for the layers' `activation=` argument and for
`keras.activations` (`get`, `serialize`, `deserialize`), with every name Keras 3 accepts.

Each function is Keras 3's formula composed from runtime ops, so it stages, compiles and has
gradients on every tier. `get("relu")` is `relu`; `get(None)` is `linear`.
"""

from __future__ import annotations

from typing import Callable

from ..ops import array_ops, composed_math, math_ops, nn_ops, reduce_ops, sort_ops
from ..ops.core import convert_to_tensor


def _zeros(x):
    return array_ops.zeros_like(x)


def linear(x):
    """The identity activation."""
    return x


def relu(x, negative_slope=0.0, max_value=None, threshold=0.0):
    """`max(x, 0)`; with `negative_slope` `negative_slope * (x - threshold)` below
    `threshold`, values at or under `threshold` set to 0, and outputs capped at `max_value`
    (Keras 3's `relu`)."""
    x = convert_to_tensor(x)
    if negative_slope == 0 and max_value is None and threshold == 0:
        return nn_ops.relu(x)
    if negative_slope != 0 and max_value is None and threshold == 0:
        return leaky_relu(x, negative_slope)
    negative_part = None
    if negative_slope != 0:
        negative_part = nn_ops.relu(math_ops.add(math_ops.negative(x), threshold))
    if threshold != 0:
        y = array_ops.where(math_ops.greater(x, threshold), x, _zeros(x))
    else:
        y = nn_ops.relu(x)
    if max_value is not None:
        y = math_ops.minimum(y, max_value)
    if negative_part is not None:
        y = math_ops.subtract(y, math_ops.multiply(negative_part, negative_slope))
    return y


def leaky_relu(x, negative_slope=0.2):
    """`x` where positive, else `negative_slope * x` (Keras 3's default slope 0.2)."""
    x = convert_to_tensor(x)
    return math_ops.maximum(x, math_ops.multiply(x, negative_slope))


def elu(x, alpha=1.0):
    """`x` where `x >= 0`, else `alpha * (exp(x) - 1)`."""
    x = convert_to_tensor(x)
    negative = math_ops.multiply(composed_math.expm1(math_ops.minimum(x, 0)), alpha)
    return array_ops.where(math_ops.greater_equal(x, 0), x, negative)


def celu(x, alpha=1.0):
    """`max(x, 0) + alpha * (exp(min(x, 0) / alpha) - 1)`."""
    x = convert_to_tensor(x)
    negative = composed_math.expm1(math_ops.divide(math_ops.minimum(x, 0), alpha))
    return math_ops.add(math_ops.maximum(x, 0), math_ops.multiply(negative, alpha))


def hard_sigmoid(x):
    """`relu6(x + 3) / 6`: 0 below -3, 1 above 3, linear between."""
    x = convert_to_tensor(x)
    return math_ops.divide(composed_math.relu6(math_ops.add(x, 3.0)), 6.0)


def hard_silu(x):
    """`x * hard_sigmoid(x)` (also called hard_swish)."""
    x = convert_to_tensor(x)
    return math_ops.multiply(x, hard_sigmoid(x))


def silu(x):
    """`x * sigmoid(x)` (also called swish)."""
    return composed_math.silu(x)


def mish(x):
    """`x * tanh(softplus(x))`."""
    x = convert_to_tensor(x)
    return math_ops.multiply(x, math_ops.tanh(nn_ops.softplus(x)))


def glu(x, axis=-1):
    """The gated linear unit: `a * sigmoid(b)` for the halves `a, b` of `x` along `axis`."""
    x = convert_to_tensor(x)
    size = x.shape.as_list()[axis] if x.shape.rank is not None else None
    if size is not None and size % 2:
        raise ValueError(f"glu needs an even size along axis {axis}, got shape {x.shape}.")
    a, b = array_ops.split(x, 2, axis=axis)
    return math_ops.multiply(a, math_ops.sigmoid(b))


def tanh_shrink(x):
    """`x - tanh(x)`."""
    x = convert_to_tensor(x)
    return math_ops.subtract(x, math_ops.tanh(x))


def hard_tanh(x):
    """`x` clipped to [-1, 1]."""
    return math_ops.clip_by_value(convert_to_tensor(x), -1.0, 1.0)


def hard_shrink(x, threshold=0.5):
    """`x` where `|x| > threshold`, else 0."""
    x = convert_to_tensor(x)
    return array_ops.where(math_ops.greater(math_ops.abs(x), threshold), x, _zeros(x))


def soft_shrink(x, threshold=0.5):
    """`x - threshold` above `threshold`, `x + threshold` below `-threshold`, else 0."""
    x = convert_to_tensor(x)
    shrunk = math_ops.subtract(x, math_ops.multiply(math_ops.sign(x), threshold))
    return array_ops.where(math_ops.greater(math_ops.abs(x), threshold), shrunk, _zeros(x))


def threshold(x, threshold, default_value):  # noqa: A002 - Keras's argument name
    """`x` where `x > threshold`, else `default_value`."""
    x = convert_to_tensor(x)
    fill = math_ops.add(_zeros(x), default_value)
    return array_ops.where(math_ops.greater(x, threshold), x, fill)


def sparse_plus(x):
    """0 for `x <= -1`, `(x + 1)**2 / 4` for `-1 < x < 1`, `x` from 1 on."""
    x = convert_to_tensor(x)
    middle = math_ops.multiply(math_ops.square(math_ops.add(x, 1.0)), 0.25)
    upper = array_ops.where(math_ops.less(x, 1.0), middle, x)
    return array_ops.where(math_ops.less_equal(x, -1.0), _zeros(x), upper)


def sparse_sigmoid(x):
    """0 for `x <= -1`, `(x + 1) / 2` for `-1 < x < 1`, 1 from 1 on."""
    x = convert_to_tensor(x)
    return math_ops.clip_by_value(math_ops.multiply(math_ops.add(x, 1.0), 0.5), 0.0, 1.0)


def squareplus(x, b=4):
    """`(x + sqrt(x**2 + b)) / 2`."""
    x = convert_to_tensor(x)
    return math_ops.multiply(math_ops.add(x, math_ops.sqrt(math_ops.add(math_ops.square(x), b))),
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
    position = array_ops.reshape(array_ops.cast(array_ops.range(1, size + 1), x.dtype), ranks)
    ordered = sort_ops.sort(x, axis=axis, direction="DESCENDING")
    totals = array_ops.cumsum(ordered, axis=axis)
    support = math_ops.greater(math_ops.add(math_ops.multiply(ordered, position), 1.0), totals)
    count = reduce_ops.reduce_sum(array_ops.cast(support, x.dtype), axis=axis, keepdims=True)
    top = reduce_ops.reduce_sum(array_ops.where(support, ordered, _zeros(ordered)), axis=axis,
                                keepdims=True)
    tau = math_ops.divide(math_ops.subtract(top, 1.0), count)
    return math_ops.maximum(math_ops.subtract(x, tau), 0.0)


def exponential(x):
    """`exp(x)`."""
    return math_ops.exp(x)


# one table for layers and keras.activations: canonical names first (serialize uses them)
_BY_NAME: dict[str, Callable] = {
    "relu": relu,
    "leaky_relu": leaky_relu,
    "relu6": composed_math.relu6,
    "softmax": nn_ops.softmax,
    "log_softmax": nn_ops.log_softmax,
    "sigmoid": math_ops.sigmoid,
    "tanh": math_ops.tanh,
    "exponential": exponential,
    "linear": linear,
    "elu": elu,
    "selu": composed_math.selu,
    "celu": celu,
    "gelu": nn_ops.gelu,
    "silu": silu,
    "hard_sigmoid": hard_sigmoid,
    "hard_silu": hard_silu,
    "softplus": nn_ops.softplus,
    "softsign": composed_math.softsign,
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
    "log_sigmoid": composed_math.log_sigmoid,
    # aliases
    "swish": silu,
    "hard_swish": hard_silu,
}

# rt.nn / rt.math functions that compute a named activation, for `name_of`
_SAME_AS: dict[int, str] = {id(nn_ops.relu): "relu", id(nn_ops.elu): "elu",
                            id(nn_ops.leaky_relu): "leaky_relu", id(math_ops.exp): "exponential",
                            id(composed_math.silu): "silu"}


def names() -> list[str]:
    """Every activation name `get` knows."""
    return sorted(_BY_NAME)


def name_of(fn) -> str | None:
    """The name `get` maps to `fn` (the first, canonical one), or None."""
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

