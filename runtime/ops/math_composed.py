"""`tf.math`, `tf.nn` and top-level functions composed from existing ops.

The inverse trigonometric and hyperbolic functions, safe divisions and logarithms
(`xlogy`, `divide_no_nan`, ...), variance and norm reductions, `count_nonzero`, `polyval`,
`cumulative_logsumexp`, truncating division, `confusion_matrix`, `l2_normalize`, `add_n`,
and the activations and losses of `tf.nn` that are formulas over other ops (`relu6`, `selu`,
`silu`, `softsign`, `weighted_cross_entropy_with_logits`, ...).

None of them defines an op: each builds its result from ops that every tier runs and
differentiates, so they stage, compile and have gradients like the ops they use.
"""

from __future__ import annotations

import builtins
import numbers
from typing import Any, Sequence

import numpy as np

from .. import distribute_context
from .. import dtypes as _dtypes
from ..errors import InvalidArgumentError
from ..exports import NAMESPACES, export
from ..graph import constant_value
from ..opdef import REGISTRY
from ..tensor import EagerTensor, Tensor
from . import array_composed as _composed
from . import array_math
from . import array_sort as _sort
from . import linalg as _linalg
from . import nn as _nn
from .core import apply, binary_operands, convert_to_tensor


def _known(value):
    """The value of `value` when it is known now (eager, or constant when traced), else None."""
    if isinstance(value, EagerTensor):
        return value.numpy()
    if isinstance(value, Tensor):
        return constant_value(value)
    return np.asarray(value)


def _alias(obj: Any, *names: str) -> None:
    """Publishes an existing function under more names without renaming it."""
    for name in names:
        space, _, attr = name.rpartition(".")
        NAMESPACES.setdefault(space, {})[attr] = obj


def _floating(x, fn_name: str, what: str = "x"):
    if not (x.dtype.is_floating or x.dtype.is_complex):
        raise TypeError(f"{fn_name} needs a floating-point `{what}`, got {x.dtype.name}; cast it "
                        "first with rt.cast(x, rt.float32).")
    return x


def _float_operands(x, y, fn_name):
    x, y = binary_operands(x, y)
    _floating(x, fn_name)
    return x, y


# -- elementwise functions over NumPy's primitives (defined by runtime.numpy_api) ---------------

def _primitive_unary(op_name: str, public: str, doc: str):
    def fn(x, name=None) -> Tensor:
        x = _floating(convert_to_tensor(x), public)
        return apply(REGISTRY[op_name], [x], name=name)
    fn.__name__ = fn.__qualname__ = public
    fn.__doc__ = f"{doc}, elementwise (op `{op_name}`); floating-point or complex `x`."
    return fn


acos = export("acos", "math.acos")(_primitive_unary("Acos", "acos", "The inverse cosine"))
asin = export("asin", "math.asin")(_primitive_unary("Asin", "asin", "The inverse sine"))
atan = export("atan", "math.atan")(_primitive_unary("Atan", "atan", "The inverse tangent"))
acosh = export("acosh", "math.acosh")(_primitive_unary("Acosh", "acosh", "The inverse hyperbolic cosine"))
asinh = export("asinh", "math.asinh")(_primitive_unary("Asinh", "asinh", "The inverse hyperbolic sine"))
atanh = export("atanh", "math.atanh")(_primitive_unary("Atanh", "atanh",
                                                       "The inverse hyperbolic tangent"))
cosh = export("cosh", "math.cosh")(_primitive_unary("Cosh", "cosh", "The hyperbolic cosine"))
sinh = export("sinh", "math.sinh")(_primitive_unary("Sinh", "sinh", "The hyperbolic sine"))
expm1 = export("math.expm1")(_primitive_unary("Expm1", "expm1", "exp(x) - 1, accurate near 0"))


@export("atan2", "math.atan2")
def atan2(y, x, name=None) -> Tensor:
    """The angle of the point (x, y) in (-pi, pi], elementwise with broadcasting (op `Atan2`)."""
    y, x = _float_operands(y, x, "atan2")
    return apply(REGISTRY["Atan2"], [y, x], name=name)


@export("math.rint")
def rint(x, name=None) -> Tensor:
    """The nearest integer value, halves to even (as `np.rint`); floating-point `x`."""
    return array_math.round(_floating(convert_to_tensor(x), "rint"), name=name)


@export("math.log_sigmoid")
def log_sigmoid(x, name=None) -> Tensor:
    """log(sigmoid(x)) = -softplus(-x), without overflow for large |x|."""
    x = _floating(convert_to_tensor(x), "log_sigmoid")
    return array_math.negative(_nn.softplus(array_math.negative(x)), name=name)


@export("math.softsign", "nn.softsign")
def softsign(features, name=None) -> Tensor:
    """features / (1 + |features|)."""
    x = _floating(convert_to_tensor(features), "softsign", "features")
    return array_math.divide(x, array_math.add(array_math.abs(x), 1), name=name)


# -- safe divisions and logarithms ---------------------------------------------------------------

def _broadcast_like(a, b):
    """`a` broadcast against `b` (a + 0 * b keeps a's values and takes the common shape)."""
    if a.shape == b.shape and a.shape.is_fully_defined():
        return a
    return array_math.add(a, array_math.zeros_like(b))


@export("math.xlogy")
def xlogy(x, y, name=None) -> Tensor:
    """x * log(y), and 0 where x == 0 (even where y is 0)."""
    x, y = _float_operands(x, y, "xlogy")
    at_zero = array_math.equal(x, 0)
    yb = _broadcast_like(y, x)
    safe_y = array_math.where(at_zero, array_math.ones_like(yb), yb)
    return array_math.multiply(x, array_math.log(safe_y), name=name)


@export("math.xlog1py")
def xlog1py(x, y, name=None) -> Tensor:
    """x * log1p(y), and 0 where x == 0 (even where y is -1)."""
    x, y = _float_operands(x, y, "xlog1py")
    yb = _broadcast_like(y, x)
    safe_y = array_math.where(array_math.equal(x, 0), array_math.zeros_like(yb), yb)
    return array_math.multiply(x, array_math.log1p(safe_y), name=name)


@export("math.xdivy")
def xdivy(x, y, name=None) -> Tensor:
    """x / y, and 0 where x == 0 (even where y is 0)."""
    x, y = _float_operands(x, y, "xdivy")
    yb = _broadcast_like(y, x)
    safe_y = array_math.where(array_math.equal(x, 0), array_math.ones_like(yb), yb)
    return array_math.divide(x, safe_y, name=name)


@export("math.divide_no_nan")
def divide_no_nan(x, y, name=None) -> Tensor:
    """x / y, and 0 where y == 0 (even where x is 0, inf or nan)."""
    x, y = _float_operands(x, y, "divide_no_nan")
    yb = _broadcast_like(y, x)
    at_zero = array_math.equal(yb, 0)
    quotient = array_math.divide(x, array_math.where(at_zero, array_math.ones_like(yb), yb))
    return array_math.where(at_zero, array_math.zeros_like(quotient), quotient, name=name)


@export("math.multiply_no_nan")
def multiply_no_nan(x, y, name=None) -> Tensor:
    """x * y, and 0 where y == 0 (even where x is inf or nan)."""
    x, y = _float_operands(x, y, "multiply_no_nan")
    xb = _broadcast_like(x, y)
    safe_x = array_math.where(array_math.equal(_broadcast_like(y, x), 0), array_math.zeros_like(xb), xb)
    return array_math.multiply(safe_x, y, name=name)


@export("math.reciprocal_no_nan")
def reciprocal_no_nan(x, name=None) -> Tensor:
    """1 / x, and 0 where x == 0."""
    x = _floating(convert_to_tensor(x), "reciprocal_no_nan")
    return divide_no_nan(array_math.ones_like(x), x, name=name)


@export("math.squared_difference")
def squared_difference(x, y, name=None) -> Tensor:
    """(x - y) ** 2, elementwise with broadcasting."""
    x, y = binary_operands(x, y)
    return array_math.square(array_math.subtract(x, y), name=name)


# -- truncating division -------------------------------------------------------------------------

@export("truncatediv", "math.truncatediv")
def truncatediv(x, y, name=None) -> Tensor:
    """x / y rounded toward zero (C's integer division; `trunc(x / y)` for floats)."""
    x, y = binary_operands(x, y)
    if x.dtype.is_floating:
        return apply(REGISTRY["Trunc"], [array_math.divide(x, y)], name=name)
    if not x.dtype.is_integer:
        raise TypeError(f"truncatediv needs integer or floating-point tensors, got {x.dtype.name}.")
    quotient = array_math.floordiv(x, y)
    inexact = array_math.not_equal(array_math.mod(x, y), 0)
    signs_differ = array_math.not_equal(array_math.less(x, 0), array_math.less(y, 0))
    bump = array_math.cast(array_math.logical_and(inexact, signs_differ), x.dtype)
    return array_math.add(quotient, bump, name=name)


@export("truncatemod", "math.truncatemod")
def truncatemod(x, y, name=None) -> Tensor:
    """The remainder of `truncatediv`: it has the sign of x (C's `%`, NumPy's `fmod`)."""
    x, y = binary_operands(x, y)
    return array_math.subtract(x, array_math.multiply(truncatediv(x, y), y), name=name)


# -- sums, products and reductions ---------------------------------------------------------------

@export("add_n", "math.add_n")
def add_n(inputs: Sequence, name=None) -> Tensor:
    """The elementwise sum of a list of tensors of one shape and dtype."""
    if isinstance(inputs, (Tensor, np.ndarray)) or not isinstance(inputs, (list, tuple)):
        raise TypeError("add_n needs `inputs` as a list of tensors, got "
                        f"{type(inputs).__name__}.")
    if not inputs:
        raise ValueError("add_n needs a non-empty list of tensors as `inputs`.")
    tensors = [convert_to_tensor(t) for t in inputs]
    first = tensors[0]
    for i, t in enumerate(tensors[1:], 1):
        if t.dtype is not first.dtype:
            raise TypeError(f"add_n: `inputs` must share a dtype; inputs[0] is {first.dtype.name} "
                            f"and inputs[{i}] is {t.dtype.name}.")
        if not t.shape.is_compatible_with(first.shape):
            raise ValueError(f"add_n: `inputs` must share a shape; inputs[0] has shape "
                             f"{first.shape} and inputs[{i}] has shape {t.shape}.")
    total = first
    for t in tensors[1:]:
        total = array_math.add(total, t)
    return array_math.identity(total, name=name)


@export("scalar_mul", "math.scalar_mul")
def scalar_mul(scalar, x, name=None) -> Tensor:
    """`scalar * x` for a scalar `scalar`."""
    s = scalar if isinstance(scalar, numbers.Number) else convert_to_tensor(scalar)
    if isinstance(s, Tensor) and s.shape.rank not in (None, 0):
        raise ValueError(f"scalar_mul needs a scalar `scalar`, got shape {s.shape}.")
    x = convert_to_tensor(x)
    return array_math.multiply(x, s, name=name)


def _float_input(input_tensor, fn_name):
    x = convert_to_tensor(input_tensor)
    if not x.dtype.is_floating:
        raise TypeError(f"{fn_name} needs a floating-point `input_tensor`, got {x.dtype.name}.")
    return x


@export("math.reduce_variance")
def reduce_variance(input_tensor, axis=None, keepdims=False, name=None) -> Tensor:
    """The population variance (mean squared deviation from the mean) over `axis`."""
    x = _float_input(input_tensor, "reduce_variance")
    mean = array_math.reduce_mean(x, axis=axis, keepdims=True)
    return array_math.reduce_mean(array_math.square(array_math.subtract(x, mean)), axis=axis,
                                  keepdims=keepdims, name=name)


@export("math.reduce_std")
def reduce_std(input_tensor, axis=None, keepdims=False, name=None) -> Tensor:
    """The population standard deviation over `axis` (the square root of `reduce_variance`)."""
    x = _float_input(input_tensor, "reduce_std")
    return array_math.sqrt(reduce_variance(x, axis=axis, keepdims=keepdims), name=name)


@export("math.reduce_euclidean_norm")
def reduce_euclidean_norm(input_tensor, axis=None, keepdims=False, name=None) -> Tensor:
    """sqrt(sum(x ** 2)) over `axis`; integer tensors give the truncated norm in their dtype."""
    x = convert_to_tensor(input_tensor)
    if x.dtype.is_integer:
        wide = array_math.cast(x, _dtypes.float64)
        norm = array_math.sqrt(array_math.reduce_sum(array_math.square(wide), axis=axis, keepdims=keepdims))
        return array_math.cast(norm, x.dtype, name=name)
    if not x.dtype.is_floating:
        raise TypeError(f"reduce_euclidean_norm needs a numeric `input_tensor`, got {x.dtype.name}.")
    return array_math.sqrt(array_math.reduce_sum(array_math.square(x), axis=axis, keepdims=keepdims), name=name)


@export("math.count_nonzero")
def count_nonzero(input, axis=None, keepdims=None, dtype=_dtypes.int64, name=None) -> Tensor:  # noqa: A002
    """The number of nonzero elements (True for bools) over `axis`, as `dtype`."""
    x = convert_to_tensor(input)
    dtype = _dtypes.as_dtype(dtype)
    if x.dtype is _dtypes.string:
        nonzero = array_math.not_equal(x, b"")
    else:
        nonzero = array_math.not_equal(x, array_math.zeros_like(x))
    return array_math.reduce_sum(array_math.cast(nonzero, dtype), axis=axis, keepdims=bool(keepdims),
                                 name=name)


@export("math.polyval")
def polyval(coeffs: Sequence, x, name=None) -> Tensor:
    """coeffs[0] * x**(n-1) + ... + coeffs[n-1], by Horner's rule; `coeffs` a list."""
    if isinstance(coeffs, Tensor) or not isinstance(coeffs, (list, tuple)):
        raise ValueError("polyval needs `coeffs` as a list of tensors or numbers, got "
                         f"{type(coeffs).__name__}.")
    x = convert_to_tensor(x)
    if not coeffs:
        return array_math.zeros_like(x, name=name)
    total = array_math.add(array_math.zeros_like(x), coeffs[0])
    for c in coeffs[1:]:
        total = array_math.add(array_math.multiply(total, x), c)
    return array_math.identity(total, name=name)


@export("math.cumulative_logsumexp")
def cumulative_logsumexp(x, axis=0, exclusive=False, reverse=False, name=None) -> Tensor:
    """log(cumsum(exp(x))) along `axis`, computed without overflow (`exclusive` and `reverse`
    as in `rt.cumsum`; an empty exclusive sum is -inf)."""
    x = _floating(convert_to_tensor(x), "cumulative_logsumexp")
    top = array_math.reduce_max(x, axis=axis, keepdims=True)
    top = array_math.where(_composed.is_finite(top), top, array_math.zeros_like(top))
    sums = array_math.cumsum(array_math.exp(array_math.subtract(x, top)), axis=axis, exclusive=exclusive,
                             reverse=reverse)
    return array_math.add(array_math.log(sums), top, name=name)


# -- order and counting --------------------------------------------------------------------------

def _flat_pairs(x, fn_name):
    x = convert_to_tensor(x)
    if not x.dtype.is_numeric or x.dtype.is_bool:
        raise TypeError(f"{fn_name} needs a numeric tensor `x`, got {x.dtype.name}.")
    flat = array_math.reshape(x, [-1])
    return flat[1:], flat[:-1]


@export("math.is_non_decreasing", "debugging.is_non_decreasing")
def is_non_decreasing(x, name=None) -> Tensor:
    """True when x[i] <= x[i+1] for consecutive elements of x flattened (True for < 2 elements)."""
    later, earlier = _flat_pairs(x, "is_non_decreasing")
    return array_math.reduce_all(array_math.greater_equal(later, earlier), name=name)


@export("math.is_strictly_increasing", "debugging.is_strictly_increasing")
def is_strictly_increasing(x, name=None) -> Tensor:
    """True when x[i] < x[i+1] for consecutive elements of x flattened (True for < 2 elements)."""
    later, earlier = _flat_pairs(x, "is_strictly_increasing")
    return array_math.reduce_all(array_math.greater(later, earlier), name=name)


@export("math.invert_permutation")
def invert_permutation(x, name=None) -> Tensor:
    """y with y[x[i]] = i for a permutation vector x of 0..n-1."""
    x = convert_to_tensor(x)
    if not x.dtype.is_integer:
        raise TypeError(f"invert_permutation needs an integer `x`, got {x.dtype.name}.")
    if x.shape.rank not in (None, 1):
        raise ValueError(f"invert_permutation needs a vector `x`, got shape {x.shape}.")
    known = _known(x)
    if known is not None and not np.array_equal(np.sort(known), np.arange(known.size)):
        raise InvalidArgumentError(f"invert_permutation: `x` must be a permutation of "
                                   f"0..{known.size - 1}, got {known.tolist()}.")
    return array_math.cast(_sort.argsort(x, stable=True), x.dtype, name=name)


def _static_int(value):
    value = _known(value)
    return None if value is None else int(value)


@export("math.confusion_matrix")
def confusion_matrix(labels, predictions, num_classes=None, weights=None, dtype=_dtypes.int32,
                     name=None) -> Tensor:
    """The [num_classes, num_classes] matrix whose (i, j) entry counts (or sums the `weights`
    of) the examples labelled i and predicted j. Without `num_classes`, it is one more than the
    largest label or prediction (which must then be known: eagerly, or constant when traced)."""
    labels = convert_to_tensor(labels)
    predictions = convert_to_tensor(predictions)
    for what, t in (("labels", labels), ("predictions", predictions)):
        if not t.dtype.is_integer:
            raise TypeError(f"confusion_matrix needs integer `{what}`, got {t.dtype.name}.")
        if t.shape.rank not in (None, 1):
            raise ValueError(f"confusion_matrix needs `{what}` as a vector, got shape {t.shape}.")
    dtype = _dtypes.as_dtype(dtype)
    known = [_known(t) for t in (labels, predictions)]
    for what, values in zip(("labels", "predictions"), known):
        if values is not None and values.size and values.min() < 0:
            raise InvalidArgumentError(f"confusion_matrix: `{what}` must be non-negative, got "
                                       f"{values.min()}.")
    if num_classes is None:
        if any(values is None for values in known):
            raise ValueError("confusion_matrix needs `num_classes` when `labels` or `predictions` "
                             "are not known when tracing.")
        n = builtins.max([int(v.max()) + 1 if v.size else 0 for v in known])
    else:
        n = _static_int(num_classes)
        if n is None:
            raise ValueError("confusion_matrix needs `num_classes` known when tracing.")
        for what, values in zip(("labels", "predictions"), known):
            if values is not None and values.size and values.max() >= n:
                raise InvalidArgumentError(f"confusion_matrix: `{what}` must be < num_classes "
                                           f"({n}), got {values.max()}.")
    work = _dtypes.float64
    rows = array_math.one_hot(labels, n, dtype=work)
    if weights is not None:
        w = array_math.cast(convert_to_tensor(weights), work)
        rows = array_math.multiply(rows, array_math.expand_dims(w, 1))
    columns = array_math.one_hot(predictions, n, dtype=work)
    counts = _linalg.matmul(rows, columns, transpose_a=True)
    return array_math.cast(counts, dtype, name=name)


@export("math.l2_normalize", "nn.l2_normalize")
def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None) -> Tensor:
    """x / sqrt(max(sum(x ** 2, axis), epsilon)); `dim` is the older name of `axis`."""
    if dim is not None:
        if axis is not None:
            raise ValueError("l2_normalize: give `axis` or its older name `dim`, not both.")
        axis = dim
    x = _floating(convert_to_tensor(x), "l2_normalize")
    squares = array_math.reduce_sum(array_math.square(x), axis=axis, keepdims=True)
    return array_math.multiply(x, array_math.rsqrt(array_math.maximum(squares, epsilon)), name=name)


@export("math.zero_fraction", "nn.zero_fraction")
def zero_fraction(value, name=None) -> Tensor:
    """The fraction of elements of `value` that are zero, as a float32 scalar."""
    x = convert_to_tensor(value)
    zeros = array_math.equal(x, array_math.zeros_like(x))
    return array_math.reduce_mean(array_math.cast(zeros, _dtypes.float32), name=name)


# -- top-level helpers ---------------------------------------------------------------------------

@export("guarantee_const")
def guarantee_const(input, name=None) -> Tensor:  # noqa: A002 - TensorFlow's name
    """`input` unchanged (a promise, to TensorFlow's optimiser, that it is constant)."""
    return array_math.identity(convert_to_tensor(input), name=name)


@export("shape_n")
def shape_n(input: Sequence, out_type=_dtypes.int32, name=None) -> list[Tensor]:  # noqa: A002
    """The shapes of a list of tensors, one int vector each."""
    if isinstance(input, Tensor) or not isinstance(input, (list, tuple)):
        raise TypeError(f"shape_n needs `input` as a list of tensors, got {type(input).__name__}.")
    return [array_math.shape(t, out_type=out_type) for t in input]


@export("saturate_cast", "dtypes.saturate_cast")
def saturate_cast(value, dtype, name=None) -> Tensor:
    """`value` cast to `dtype`, clamped first to the range `dtype` holds (no wrap-around)."""
    x = convert_to_tensor(value)
    target = _dtypes.as_dtype(dtype)
    if (target.is_integer or target.is_floating) and (x.dtype.is_integer or x.dtype.is_floating):
        info = np.iinfo(target.as_numpy_dtype) if target.is_integer else np.finfo(target.as_numpy_dtype)
        source = np.iinfo(x.dtype.as_numpy_dtype) if x.dtype.is_integer else np.finfo(x.dtype.as_numpy_dtype)
        low, high = builtins.max(info.min, source.min), builtins.min(info.max, source.max)
        if x.dtype.is_floating:
            # the bounds in x's dtype, rounded inward so that the cast cannot overflow
            fl = x.dtype._np.type
            lo, hi = fl(low), fl(high)
            if float(hi) > float(high):
                hi = np.nextafter(hi, fl(0))
            if float(lo) < float(low):
                lo = np.nextafter(lo, fl(0))
            x = array_math.clip_by_value(x, lo, hi)
        elif low > source.min or high < source.max:
            x = array_math.clip_by_value(x, x.dtype._np.type(low), x.dtype._np.type(high))
    return array_math.cast(x, target, name=name)


@export("unravel_index")
def unravel_index(indices, dims, name=None) -> Tensor:
    """The coordinates of flat `indices` in an array of shape `dims`: shape
    [len(dims)] + indices.shape (as `np.unravel_index`, stacked on a first axis)."""
    idx = convert_to_tensor(indices)
    if not idx.dtype.is_integer:
        raise TypeError(f"unravel_index needs integer `indices`, got {idx.dtype.name}.")
    known = _known(dims)
    if known is None:
        raise ValueError("unravel_index needs `dims` known when tracing.")
    shape = [int(d) for d in np.asarray(known).reshape(-1)]
    if builtins.any(d <= 0 for d in shape):
        raise InvalidArgumentError(f"unravel_index: `dims` must be positive, got {shape}.")
    values = _known(idx)
    total = int(np.prod(shape))
    if values is not None and values.size and (values.min() < 0 or values.max() >= total):
        raise InvalidArgumentError(f"unravel_index: `indices` must be in [0, {total}) for dims "
                                   f"{shape}, got values from {values.min()} to {values.max()}.")
    coords = []
    rest = idx
    for d in reversed(shape):
        coords.append(array_math.mod(rest, d))
        rest = array_math.floordiv(rest, d)
    return array_math.stack(coords[::-1], axis=0, name=name)


# -- tf.nn activations and losses ----------------------------------------------------------------

def _features(features, fn_name):
    x = convert_to_tensor(features)
    if not x.dtype.is_floating:
        raise TypeError(f"{fn_name} needs floating-point `features`, got {x.dtype.name}.")
    return x


@export("nn.relu6")
def relu6(features, name=None) -> Tensor:
    """min(max(features, 0), 6)."""
    x = convert_to_tensor(features)
    return array_math.minimum(_nn.relu(x), 6, name=name)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


@export("nn.selu")
def selu(features, name=None) -> Tensor:
    """The scaled ELU: scale * (x if x > 0 else alpha * (exp(x) - 1)), with the constants of
    self-normalising networks (alpha ~ 1.6733, scale ~ 1.0507)."""
    x = _features(features, "selu")
    negative_part = array_math.multiply(array_math.subtract(array_math.exp(array_math.minimum(x, 0)), 1), _SELU_ALPHA)
    return array_math.multiply(array_math.where(array_math.greater(x, 0), x, negative_part), _SELU_SCALE,
                               name=name)


@export("nn.silu", "nn.swish")
def silu(features, beta=1.0, name=None) -> Tensor:
    """features * sigmoid(beta * features) (also called swish)."""
    x = _features(features, "silu")
    return array_math.multiply(x, array_math.sigmoid(array_math.multiply(x, beta)), name=name)


@export("nn.crelu")
def crelu(features, name=None, axis=-1) -> Tensor:
    """relu(features) and relu(-features) concatenated along `axis` (twice as many channels)."""
    x = convert_to_tensor(features)
    return array_math.concat([_nn.relu(x), _nn.relu(array_math.negative(x))], axis=axis, name=name)


@export("nn.weighted_cross_entropy_with_logits")
def weighted_cross_entropy_with_logits(labels, logits, pos_weight, name=None) -> Tensor:
    """Sigmoid cross entropy whose positive term is weighted by `pos_weight`:
    -(pos_weight * labels * log(sigmoid(logits)) + (1 - labels) * log(1 - sigmoid(logits)))."""
    x = _features(logits, "weighted_cross_entropy_with_logits")
    z = convert_to_tensor(labels, dtype=x.dtype)
    if not z.shape.is_compatible_with(x.shape):
        raise ValueError(f"weighted_cross_entropy_with_logits: `labels` and `logits` must have "
                         f"the same shape, got {z.shape} and {x.shape}.")
    # -log(sigmoid(x)) = log1p(exp(-|x|)) + max(-x, 0), stable for any x
    neg_log_sig = array_math.add(array_math.log1p(array_math.exp(array_math.negative(array_math.abs(x)))),
                                 array_math.maximum(array_math.negative(x), 0))
    q = convert_to_tensor(pos_weight, dtype=x.dtype)
    positive_weight = array_math.add(array_math.multiply(array_math.subtract(q, 1), z), 1)
    return array_math.add(array_math.multiply(array_math.subtract(1, z), x),
                          array_math.multiply(positive_weight, neg_log_sig), name=name)


@export("nn.log_poisson_loss")
def log_poisson_loss(targets, log_input, compute_full_loss=False, name=None) -> Tensor:
    """exp(log_input) - targets * log_input: the Poisson negative log likelihood of `targets`
    given the log rate; `compute_full_loss` adds Stirling's approximation of log(targets!)
    (where targets > 1)."""
    c = _features(log_input, "log_poisson_loss")
    z = convert_to_tensor(targets, dtype=c.dtype)
    if not z.shape.is_compatible_with(c.shape):
        raise ValueError(f"log_poisson_loss: `targets` and `log_input` must have the same shape, "
                         f"got {z.shape} and {c.shape}.")
    loss = array_math.subtract(array_math.exp(c), array_math.multiply(z, c))
    if compute_full_loss:
        big = array_math.greater(z, 1)
        safe = array_math.where(big, z, array_math.ones_like(z))
        stirling = array_math.add(array_math.subtract(array_math.multiply(safe, array_math.log(safe)), safe),
                                  array_math.multiply(array_math.log(array_math.multiply(safe, 2 * np.pi)), 0.5))
        loss = array_math.add(loss, array_math.where(big, stirling, array_math.zeros_like(z)))
    return array_math.identity(loss, name=name)


def _replicas(what: str) -> int:
    """The replicas in sync, for a loss computed in a replica (RuntimeError in a strategy's
    cross-replica context, as TensorFlow)."""
    if distribute_context.in_cross_replica_context():
        raise RuntimeError(f"You are calling `{what}` in cross replica context, while it was "
                           f"expected to be called in replica context.")
    return distribute_context.num_replicas_in_sync()


@export("nn.compute_average_loss")
def compute_average_loss(per_example_loss, sample_weight=None, global_batch_size=None) -> Tensor:
    """sum(per_example_loss * sample_weight) / global_batch_size; the global batch size
    defaults to this replica's examples (the first dimension) times the replicas in sync."""
    loss = _floating(convert_to_tensor(per_example_loss), "compute_average_loss",
                     "per_example_loss")
    if sample_weight is not None:
        loss = array_math.multiply(loss, array_math.cast(convert_to_tensor(sample_weight), loss.dtype))
    if global_batch_size is None:
        replicas = _replicas("compute_average_loss")
        if loss.shape.rank == 0:
            count = 1
        else:
            count = array_math.shape(loss)[0] if loss.shape.rank is not None else array_math.size(loss)
        batch = array_math.cast(count, loss.dtype) if isinstance(count, Tensor) else count
        if replicas != 1:
            batch = array_math.multiply(batch, replicas) if isinstance(batch, Tensor) \
                else batch * replicas
    else:
        if isinstance(global_batch_size, numbers.Number) and global_batch_size <= 0:
            raise ValueError(f"compute_average_loss: `global_batch_size` must be positive, got "
                             f"{global_batch_size}.")
        batch = array_math.cast(convert_to_tensor(global_batch_size), loss.dtype)
    return divide_no_nan(array_math.reduce_sum(loss), batch)


@export("nn.scale_regularization_loss")
def scale_regularization_loss(regularization_loss) -> Tensor:
    """The sum of `regularization_loss` (a tensor or a list), divided by the number of
    replicas in sync."""
    if isinstance(regularization_loss, (list, tuple)):
        if not regularization_loss:
            raise ValueError("scale_regularization_loss needs at least one loss.")
        total = add_n([array_math.reduce_sum(convert_to_tensor(t)) for t in regularization_loss])
    else:
        total = array_math.reduce_sum(convert_to_tensor(regularization_loss))
    replicas = _replicas("scale_regularization_loss")
    return total if replicas == 1 else array_math.divide(total, array_math.cast(replicas,
                                                                                 total.dtype))


@export("nn.sufficient_statistics")
def sufficient_statistics(x, axes, shift=None, keepdims=False,
                          name=None) -> tuple[Tensor, Tensor, Tensor, Tensor | None]:
    """(count, sum of x - shift, sum of (x - shift) ** 2, shift) over `axes`: what
    `normalize_moments` turns into a mean and a variance."""
    x = _floating(convert_to_tensor(x), "sufficient_statistics")
    axes_list = [axes] if isinstance(axes, numbers.Integral) else list(axes)
    if x.shape.rank is not None:
        rank = x.shape.rank
        for a in axes_list:
            if not -rank <= a < rank:
                raise InvalidArgumentError(f"sufficient_statistics: axis {a} is out of range for "
                                           f"a tensor of rank {rank}.")
    dims = array_math.shape(x)
    count = array_math.reduce_prod(array_math.cast(array_math.stack([dims[a] for a in axes_list]), x.dtype)) \
        if axes_list else array_math.ones([], x.dtype)
    centred = x if shift is None else array_math.subtract(x, shift)
    m_ss = array_math.reduce_sum(centred, axis=axes_list, keepdims=keepdims)
    v_ss = array_math.reduce_sum(array_math.square(centred), axis=axes_list, keepdims=keepdims)
    shift_t = None if shift is None else convert_to_tensor(shift, dtype=x.dtype)
    return count, m_ss, v_ss, shift_t


@export("nn.normalize_moments")
def normalize_moments(counts, mean_ss, variance_ss, shift,
                      name=None) -> tuple[Tensor, Tensor]:
    """(mean, variance) from the sufficient statistics: mean_ss / counts (+ shift) and
    variance_ss / counts - (mean_ss / counts) ** 2."""
    mean_ss = _floating(convert_to_tensor(mean_ss), "normalize_moments", "mean_ss")
    divisor = array_math.reciprocal(convert_to_tensor(counts, dtype=mean_ss.dtype))
    shifted_mean = array_math.multiply(mean_ss, divisor)
    mean = shifted_mean if shift is None else array_math.add(shifted_mean, shift)
    variance = array_math.subtract(array_math.multiply(variance_ss, divisor), array_math.square(shifted_mean))
    return mean, variance


_alias(_nn.softmax, "math.softmax")
_alias(_nn.log_softmax, "math.log_softmax")
_alias(array_math.divide, "realdiv")
