"""The functions of `tf.keras.backend` that TensorFlow 2.21's Keras 3 keeps from Keras 2 (its
legacy backend: `K.sum`, `K.batch_dot`, `K.variable`, `K.rnn`, ...), with their signatures,
over the runtime's ops and `keras.ops`. `ones`, `zeros`, `eye` and `variable` make variables,
as Keras 2's did; the rest return tensors.
"""

from __future__ import annotations

import builtins as _builtins
import itertools
import threading

import numpy as np

from .. import context as _context
from .. import dtypes as _dtypes
from ..layers import losses as _losses
from ..layers.functional import KerasTensor
from ..ops import array_math as _am
from ..ops.sparse import SparseTensor
from ..ops.variables import Variable
from . import activations as _act
from . import ops_core as _core
from . import ops_nn as _opsnn
from . import random as _krandom
from .ops_numpy import _float, _math, _rt, _Space, _t

_nn, _linalg = _Space("nn"), _Space("linalg")
_STATE = {"epsilon": 1e-7}


def _floatx() -> str:
    return "float32"


# -- settings and introspection ------------------------------------------------------------

def backend() -> str:
    """"tensorflow": the backend this runtime stands in for."""
    return "tensorflow"


def epsilon() -> float:
    """The fuzz factor of losses and metrics (1e-7 unless set_epsilon changed it)."""
    return _STATE["epsilon"]


def set_epsilon(value) -> None:
    """Sets the fuzz factor `epsilon()` returns and the losses clip with."""
    value = float(value)
    _STATE["epsilon"] = value
    _losses._EPSILON = value


def set_floatx(value) -> None:
    """Accepts "float32", the only float type of layer weights here."""
    if value not in ("float16", "bfloat16", "float32", "float64"):
        raise ValueError(f"Unknown `floatx` value: {value!r}. Expected one of 'float16', "
                         "'bfloat16', 'float32', 'float64'.")
    if value != "float32":
        raise NotImplementedError(f"set_floatx({value!r}): layer weights are float32 in this "
                                  "runtime; cast inputs and outputs instead.")


def set_image_data_format(data_format) -> None:
    """Accepts "channels_last", the only image layout here."""
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(f"Unknown `data_format`: {data_format!r}. Expected 'channels_last' or "
                         "'channels_first'.")
    if data_format != "channels_last":
        raise NotImplementedError("set_image_data_format('channels_first'): images are "
                                  "channels-last in this runtime; transpose them first.")


_UIDS: dict = {}
_UID_LOCK = threading.Lock()


def get_uid(prefix="") -> int:
    """1, 2, 3, ... for successive calls with the same `prefix`."""
    with _UID_LOCK:
        counter = _UIDS.setdefault(prefix, itertools.count(1))
        return next(counter)


def standardize_dtype(dtype) -> str:
    """The name of a dtype given as a string, a NumPy or runtime dtype or a Python type
    (Python's float is floatx, int is int32)."""
    if dtype is None:
        return _floatx()
    if dtype is float:
        return _floatx()
    if dtype is int:
        return "int32"
    if dtype is bool:
        return "bool"
    if isinstance(dtype, _dtypes.DType):
        return dtype.name
    if hasattr(dtype, "name") and not isinstance(dtype, str):
        return str(dtype.name)
    return np.dtype(dtype).name if str(dtype) != "bfloat16" else "bfloat16"


def is_float_dtype(dtype) -> bool:
    """Whether `dtype` is a floating type."""
    return standardize_dtype(dtype).startswith(("float", "bfloat"))


def is_int_dtype(dtype) -> bool:
    """Whether `dtype` is a (signed or unsigned) integer type."""
    return standardize_dtype(dtype).startswith(("int", "uint"))


_FLOAT_ORDER = ("float16", "bfloat16", "float32", "float64")


def result_type(*dtypes) -> str:
    """The dtype Keras's promotion gives these dtypes: floats win over integers without
    widening (int32 with float32 is float32); Python's float alone is floatx."""
    if not dtypes:
        return _floatx()
    names = [standardize_dtype(d) for d in dtypes]
    weak_float = _builtins.any(d is float for d in dtypes)
    complexes = [n for n in names if n.startswith("complex")]
    if complexes:
        return _builtins.max(complexes)
    floats = [n for d, n in zip(dtypes, names) if is_float_dtype(n) and d is not float]
    if floats:
        return _builtins.max(floats, key=_FLOAT_ORDER.index)
    if weak_float:
        return _floatx()
    return np.result_type(*[np.dtype(n) for n in names]).name


def is_keras_tensor(x) -> bool:
    """Whether `x` is a symbolic Keras tensor (made by `keras.Input` and layers on it)."""
    return isinstance(x, KerasTensor)


def is_sparse(tensor) -> bool:
    """Whether `tensor` is a SparseTensor."""
    return isinstance(tensor, SparseTensor)


def to_dense(tensor):
    """A SparseTensor as a dense tensor (a dense one as is)."""
    return _Space("sparse").to_dense(tensor) if isinstance(tensor, SparseTensor) else _t(tensor)


def int_shape(x) -> tuple:
    """The static shape of `x` as a tuple (None for an unknown dimension)."""
    shape = getattr(x, "shape", None)
    if shape is None:
        return tuple(np.shape(x))
    return tuple(shape.as_list()) if hasattr(shape, "as_list") else tuple(shape)


def ndim(x) -> int:
    """The rank of `x`."""
    return len(int_shape(x))


def dtype(x) -> str:
    """The name of `x`'s dtype."""
    return x.dtype.name if hasattr(x.dtype, "name") else str(x.dtype)


def count_params(x) -> int:
    """The number of elements of the variable or tensor `x`."""
    return int(np.prod(int_shape(x)))


def shape(x):
    """The dynamic shape of `x`, an int32 tensor."""
    return _am.shape(_t(x))


def eval(x) -> np.ndarray:  # noqa: A001 - Keras's name
    """The value of `x` as a NumPy array."""
    return x.numpy() if hasattr(x, "numpy") else np.asarray(x)


def batch_get_value(tensors) -> list:
    """The values of `tensors` as NumPy arrays."""
    return [eval(t) for t in tensors]


def batch_set_value(tuples) -> None:
    """Assigns each `(variable, value)` pair."""
    for variable_, value in tuples:
        variable_.assign(np.asarray(value))


def name_scope(name):
    """A name scope for the ops made inside it."""
    return _context.name_scope(name)


# -- variables -----------------------------------------------------------------------------

def variable(value, dtype=None, name=None, constraint=None):
    """A variable holding `value` (floatx unless `dtype`)."""
    array = np.asarray(value, dtype=standardize_dtype(dtype))
    return Variable(array, name=name, constraint=constraint)


def _filled(make, shape, dtype, name):
    dims = tuple(int(d) for d in np.atleast_1d(shape))
    return variable(make(dims, dtype=standardize_dtype(dtype)), dtype=dtype, name=name)


def zeros(shape, dtype=None, name=None):
    """A variable of zeros (floatx unless `dtype`)."""
    return _filled(np.zeros, shape, dtype, name)


def ones(shape, dtype=None, name=None):
    """A variable of ones (floatx unless `dtype`)."""
    return _filled(np.ones, shape, dtype, name)


def eye(size, dtype=None, name=None):
    """A variable holding the identity matrix of `size` (an int or (rows, cols))."""
    rows, cols = (size, size) if np.ndim(size) == 0 else size
    return variable(np.eye(int(rows), int(cols)), dtype=dtype, name=name)


def zeros_like(x, dtype=None, name=None):
    """Zeros shaped as `x`."""
    return _am.zeros_like(_t(x), dtype=None if dtype is None else standardize_dtype(dtype))


def ones_like(x, dtype=None, name=None):
    """Ones shaped as `x`."""
    return _am.ones_like(_t(x), dtype=None if dtype is None else standardize_dtype(dtype))


def constant(value, dtype=None, shape=None, name=None):
    """A constant tensor (floatx unless `dtype`)."""
    return _rt.constant(value, dtype=standardize_dtype(dtype), shape=shape, name=name)


def cast_to_floatx(x) -> np.ndarray:
    """`x` as a NumPy array of floatx."""
    return np.asarray(x, dtype=_floatx())


def random_normal_variable(shape, mean, scale, dtype=None, name=None, seed=None):
    """A variable drawn from the normal distribution."""
    values = _krandom.normal(shape, mean=mean, stddev=scale, dtype=standardize_dtype(dtype),
                             seed=seed)
    return Variable(values, name=name)


def random_uniform_variable(shape, low, high, dtype=None, name=None, seed=None):
    """A variable drawn uniformly from [low, high)."""
    values = _krandom.uniform(shape, minval=low, maxval=high, dtype=standardize_dtype(dtype),
                              seed=seed)
    return Variable(values, name=name)


def random_bernoulli(shape, p=0.0, dtype=None, seed=None):
    """1 with probability `p`, else 0 (floatx unless `dtype`)."""
    draws = _krandom.uniform(shape, dtype="float32", seed=seed)
    return _am.cast(_am.less(draws, float(p)), standardize_dtype(dtype))


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    """Normal draws redrawn beyond two standard deviations."""
    return _krandom.truncated_normal(shape, mean=mean, stddev=stddev,
                                     dtype=standardize_dtype(dtype), seed=seed)


def update(x, new_x):
    """Assigns `new_x` to the variable `x`."""
    return x.assign(new_x)


def update_add(x, increment):
    """Adds `increment` to the variable `x`."""
    return x.assign_add(increment)


def update_sub(x, decrement):
    """Subtracts `decrement` from the variable `x`."""
    return x.assign_sub(decrement)


def moving_average_update(x, value, momentum):
    """`x = x * momentum + value * (1 - momentum)` for the variable `x`."""
    return x.assign(_am.add(_am.multiply(x.value(), momentum),
                            _am.multiply(_am.cast(_t(value), x.dtype), 1.0 - momentum)))


# -- elementwise and reductions --------------------------------------------------------------

def _unary(name: str, op):
    def unary(x):
        return op(_t(x))
    unary.__name__ = unary.__qualname__ = name
    unary.__doc__ = f"Elementwise {name} of `x`."
    return unary


abs = _unary("abs", _am.abs)  # noqa: A001 - Keras's names
cos, sin, exp, log = (_unary("cos", _am.cos), _unary("sin", _am.sin), _unary("exp", _am.exp),
                      _unary("log", _am.log))
sqrt, square, sign = _unary("sqrt", _am.sqrt), _unary("square", _am.square), \
    _unary("sign", _am.sign)
round = _unary("round", _am.round)  # noqa: A001 - banker's rounding, as Keras 2's
tanh, sigmoid = _unary("tanh", _am.tanh), _unary("sigmoid", _am.sigmoid)
softplus = _unary("softplus", _math.softplus)
softsign = _unary("softsign", _math.softsign)


def _binary(name: str, op):
    def binary(x, y):
        return op(_t(x), _t(y))
    binary.__name__ = binary.__qualname__ = name
    binary.__doc__ = f"Elementwise {name} of `x` and `y`."
    return binary


equal, not_equal = _binary("equal", _am.equal), _binary("not_equal", _am.not_equal)
greater, greater_equal = _binary("greater", _am.greater), \
    _binary("greater_equal", _am.greater_equal)
less, less_equal = _binary("less", _am.less), _binary("less_equal", _am.less_equal)
maximum, minimum = _binary("maximum", _am.maximum), _binary("minimum", _am.minimum)


def pow(x, a):  # noqa: A001 - Keras's name
    """`x ** a`."""
    t = _t(x)
    return _am.pow(t, _am.cast(a, t.dtype))


def clip(x, min_value, max_value):
    """`x` clipped to [min_value, max_value]."""
    t = _t(x)
    return _am.clip_by_value(t, _am.cast(min_value, t.dtype), _am.cast(max_value, t.dtype))


def _reduction(name: str, op, floating: bool = False):
    def reduce(x, axis=None, keepdims=False):
        t = _float(x) if floating else _t(x)
        return op(t, axis=axis, keepdims=keepdims)
    reduce.__name__ = reduce.__qualname__ = name
    reduce.__doc__ = f"The {name} of `x` along `axis` (all axes when None)."
    return reduce


sum = _reduction("sum", _am.reduce_sum)  # noqa: A001 - Keras's names
prod = _reduction("prod", _am.reduce_prod)
max = _reduction("max", _am.reduce_max)  # noqa: A001
min = _reduction("min", _am.reduce_min)  # noqa: A001
mean = _reduction("mean", _am.reduce_mean, floating=True)
std = _reduction("std", _math.reduce_std, floating=True)
var = _reduction("var", _math.reduce_variance, floating=True)


def all(x, axis=None, keepdims=False):  # noqa: A001
    """Whether every element along `axis` is nonzero."""
    return _am.reduce_all(_am.cast(_t(x), _dtypes.bool_), axis=axis, keepdims=keepdims)


def any(x, axis=None, keepdims=False):  # noqa: A001
    """Whether some element along `axis` is nonzero."""
    return _am.reduce_any(_am.cast(_t(x), _dtypes.bool_), axis=axis, keepdims=keepdims)


def argmax(x, axis=-1):
    """The index of the maximum along `axis`."""
    return _am.argmax(_t(x), axis=axis)


def argmin(x, axis=-1):
    """The index of the minimum along `axis`."""
    return _am.argmin(_t(x), axis=axis)


def cumsum(x, axis=0):
    """Cumulative sums along `axis`."""
    return _am.cumsum(_t(x), axis=axis)


def cumprod(x, axis=0):
    """Cumulative products along `axis`."""
    return _math.cumprod(_t(x), axis=axis)


def arange(start, stop=None, step=1, dtype="int32"):
    """`start, start + step, ...` below `stop` (from 0 to `start` when stop is None)."""
    if stop is None:
        start, stop = 0, start
    return _am.cast(_rt.range(start, stop, step), dtype)


def cast(x, dtype):  # noqa: F811 - Keras's name
    """`x` as `dtype`."""
    return _am.cast(_t(x), dtype)


# -- shapes --------------------------------------------------------------------------------

def reshape(x, shape):  # noqa: F811
    """`x` with `shape`."""
    return _am.reshape(_t(x), shape)


def flatten(x):
    """`x` as a vector."""
    return _am.reshape(_t(x), [-1])


def batch_flatten(x):
    """`x` as [batch, everything else]."""
    t = _t(x)
    return _am.reshape(t, _rt.stack([_am.shape(t)[0], -1]))


def expand_dims(x, axis=-1):
    """`x` with a new axis of length 1 at `axis`."""
    return _am.expand_dims(_t(x), axis)


def squeeze(x, axis):
    """`x` without the length-1 `axis`."""
    return _rt.squeeze(_t(x), axis=[axis] if np.ndim(axis) == 0 else list(axis))


def stack(x, axis=0):
    """The tensors `x` stacked along a new `axis`."""
    return _rt.stack([_t(v) for v in x], axis=axis)


def concatenate(tensors, axis=-1):
    """The tensors joined along `axis`."""
    return _rt.concat([_t(v) for v in tensors], axis=axis)


def permute_dimensions(x, pattern):
    """`x` with its axes in the order `pattern`."""
    return _rt.transpose(_t(x), list(pattern))


def transpose(x):
    """`x` with its axes reversed."""
    return _rt.transpose(_t(x))


def tile(x, n):
    """`x` repeated `n` times along each axis (an int tiles the first)."""
    t = _t(x)
    reps = [int(n)] if np.ndim(n) == 0 else list(n)
    return _rt.tile(t, reps)


def repeat(x, n):
    """[batch, dim] `x` as [batch, n, dim], each row repeated `n` times."""
    t = _t(x)
    if t.shape.rank != 2:
        raise ValueError(f"keras.backend.repeat takes a 2-D tensor, got shape {t.shape}.")
    return _rt.tile(_am.expand_dims(t, 1), [1, int(n), 1])


def repeat_elements(x, rep, axis):
    """Each slice of `x` along `axis` repeated `rep` times."""
    return _rt.repeat(_t(x), int(rep), axis=axis)


def reverse(x, axes):
    """`x` with `axes` reversed."""
    return _am.reverse(_t(x), [axes] if np.ndim(axes) == 0 else list(axes))


def gather(reference, indices):
    """The rows `indices` of `reference`."""
    return _rt.gather(_t(reference), _t(indices))


def one_hot(indices, num_classes):
    """float32 one-hot vectors of length `num_classes`."""
    return _rt.one_hot(_t(indices), int(num_classes), dtype=_dtypes.float32)


def switch(condition, then_expression, else_expression):
    """`then_expression` where `condition`, else `else_expression` (callables are called;
    a scalar condition picks one whole expression)."""
    then_value = then_expression() if callable(then_expression) else then_expression
    else_value = else_expression() if callable(else_expression) else else_expression
    cond = _am.cast(_t(condition), _dtypes.bool_)
    a, b = _t(then_value), _t(else_value)
    if cond.shape.rank == 0:
        return _rt.cond(cond, lambda: a, lambda: b)
    while cond.shape.rank < a.shape.rank:
        cond = _am.expand_dims(cond, -1)
    return _am.where(_am.logical_or(cond, _am.zeros_like(a, dtype=_dtypes.bool_)), a, b)


def stop_gradient(variables):
    """`variables` (a tensor or a list of them) as values no gradient flows through."""
    if isinstance(variables, (list, tuple)):
        return [_core.stop_gradient(v) for v in variables]
    return _core.stop_gradient(variables)


def map_fn(fn, elems, name=None, dtype=None):
    """`fn` applied to each element of `elems` along the leading axis."""
    return _rt.map_fn(fn, elems, fn_output_signature=dtype, name=name)


def foldl(fn, elems, initializer=None, name=None):
    """`fn(acc, x)` folded over `elems` from the left."""
    return _rt.foldl(fn, elems, initializer=initializer, name=name)


def foldr(fn, elems, initializer=None, name=None):
    """`fn(acc, x)` folded over `elems` from the right."""
    return _rt.foldr(fn, elems, initializer=initializer, name=name)


# -- linear algebra --------------------------------------------------------------------------

def dot(x, y):
    """The matrix product; for N-D tensors, the sum over `x`'s last axis and `y`'s
    second-to-last (Theano's / Keras 2's dot)."""
    a, b = _t(x), _t(y)
    if a.shape.rank is not None and b.shape.rank is not None and \
            (a.shape.rank > 2 or b.shape.rank > 2):
        return _rt.tensordot(a, b, [[a.shape.rank - 1], [b.shape.rank - 2 if b.shape.rank > 1
                                                          else 0]])
    return _rt.matmul(a, b)


def batch_dot(x, y, axes=None):
    """For each batch row, the dot product of `x[i]` and `y[i]` summed over `axes` (default:
    `x`'s last axis and `y`'s second-to-last, or last when `y` is 2-D); a 1-D result per row
    becomes [batch, 1]."""
    a, b = _t(x), _t(y)
    ra, rb = a.shape.rank, b.shape.rank
    if axes is None:
        axes = [ra - 1, rb - 1 if rb == 2 else rb - 2]
    elif np.ndim(axes) == 0:
        axes = [int(axes), int(axes)]
    ax, ay = (int(v) % r for v, r in zip(axes, (ra, rb)))
    if ax == 0 or ay == 0:
        raise ValueError("keras.backend.batch_dot cannot sum over the batch axis (0).")
    rest_a = [i for i in range(1, ra) if i != ax]
    rest_b = [i for i in range(1, rb) if i != ay]
    left = _rt.transpose(a, [0] + rest_a + [ax])
    right = _rt.transpose(b, [0, ay] + rest_b)
    dims_a = [a.shape[i] for i in rest_a]
    dims_b = [b.shape[i] for i in rest_b]
    left = _am.reshape(left, [-1, int(np.prod(dims_a)) if dims_a else 1, a.shape[ax]])
    right = _am.reshape(right, [-1, b.shape[ay], int(np.prod(dims_b)) if dims_b else 1])
    out = _rt.matmul(left, right)
    out = _am.reshape(out, [-1] + dims_a + dims_b)
    return _am.expand_dims(out, 1) if not dims_a and not dims_b else out


def l2_normalize(x, axis=None):
    """`x` divided by its L2 norm over `axis`."""
    return _nn.l2_normalize(_float(x), axis=axis)


# -- nn --------------------------------------------------------------------------------------

def relu(x, alpha=0.0, max_value=None, threshold=0.0):
    """The rectifier: x above `threshold`, `alpha * (x - threshold)` below, at most
    `max_value`."""
    return _act.relu(_float(x), negative_slope=alpha, max_value=max_value, threshold=threshold)


def elu(x, alpha=1.0):
    """x above 0, alpha * (exp(x) - 1) below."""
    t = _float(x)
    return _am.where(_am.greater(t, 0.0), t, _am.multiply(_am.subtract(_am.exp(t), 1.0), alpha))


def hard_sigmoid(x):
    """Keras 2's piecewise-linear sigmoid: clip(0.2 x + 0.5, 0, 1)."""
    t = _float(x)
    return _am.clip_by_value(_am.add(_am.multiply(t, 0.2), 0.5), 0.0, 1.0)


def softmax(x, axis=-1):
    """The softmax along `axis`."""
    return _math.softmax(_float(x), axis=axis)


def bias_add(x, bias, data_format=None):
    """`x` plus `bias` along its channels (last) axis."""
    _opsnn._channels_last(data_format, "bias_add")
    return _nn.bias_add(_t(x), _t(bias))


def dropout(x, level, noise_shape=None, seed=None):
    """`x` with a fraction `level` of its elements zeroed, the rest scaled by 1 / (1 - level)."""
    return _nn.dropout(_t(x), rate=level, noise_shape=noise_shape, seed=seed)


def in_top_k(predictions, targets, k):
    """Whether each target is among the `k` largest predictions of its row."""
    return _math.in_top_k(_t(targets), _t(predictions), k)


def batch_normalization(x, mean, var, beta, gamma, axis=-1, epsilon=1e-3):  # noqa: F811
    """(x - mean) / sqrt(var + epsilon) * gamma + beta (the statistics broadcast against x)."""
    t = _float(x)

    def cast(v):
        return _am.cast(_t(v), t.dtype)
    out = _am.multiply(_am.subtract(t, cast(mean)), _math.rsqrt(_am.add(cast(var), epsilon)))
    if gamma is not None:
        out = _am.multiply(out, cast(gamma))
    return out if beta is None else _am.add(out, cast(beta))


def binary_crossentropy(target, output, from_logits=False):
    """The elementwise binary cross-entropy."""
    return _opsnn.binary_crossentropy(target, output, from_logits=from_logits)


def categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """The cross-entropy of one-hot `target` and `output` over `axis`."""
    return _opsnn.categorical_crossentropy(target, output, from_logits=from_logits, axis=axis)


def sparse_categorical_crossentropy(target, output, from_logits=False, axis=-1,
                                    ignore_class=None):
    """The cross-entropy of integer `target` and `output`; entries whose target is
    `ignore_class` give 0."""
    loss = _opsnn.sparse_categorical_crossentropy(
        _am.where(_am.equal(_t(target), ignore_class), _am.zeros_like(_t(target)), _t(target))
        if ignore_class is not None else target, output, from_logits=from_logits, axis=axis)
    if ignore_class is None:
        return loss
    labels = _t(target)
    if labels.shape.rank == loss.shape.rank + 1:
        labels = _rt.squeeze(labels, axis=-1)
    return _am.where(_am.equal(labels, _am.cast(ignore_class, labels.dtype)),
                     _am.zeros_like(loss), loss)


def binary_focal_crossentropy(target, output, apply_class_balancing=False, alpha=0.25,
                              gamma=2.0, from_logits=False):
    """The binary cross-entropy down-weighted by (1 - p_t) ** gamma for well classified
    entries (and by alpha / 1 - alpha with `apply_class_balancing`)."""
    y, p = _opsnn._pair(target, output)
    probs = _am.sigmoid(p) if from_logits else p
    p_t = _am.add(_am.multiply(y, probs), _am.multiply(_am.subtract(1.0, y),
                                                       _am.subtract(1.0, probs)))
    focal = _am.pow(_am.subtract(1.0, p_t), _am.cast(gamma, p.dtype))
    out = _am.multiply(focal, binary_crossentropy(y, p, from_logits=from_logits))
    if apply_class_balancing:
        weight = _am.add(_am.multiply(y, alpha), _am.multiply(_am.subtract(1.0, y), 1.0 - alpha))
        out = _am.multiply(weight, out)
    return out


def categorical_focal_crossentropy(target, output, alpha=0.25, gamma=2.0, from_logits=False,
                                   axis=-1):
    """The categorical cross-entropy of each class weighted by alpha * (1 - p) ** gamma."""
    y, p = _opsnn._pair(target, output)
    if from_logits:
        p = _math.softmax(p, axis=axis)
    p = _am.divide(p, _am.reduce_sum(p, axis=axis, keepdims=True))
    p = _am.clip_by_value(p, epsilon(), 1.0 - epsilon())
    cce = _am.negative(_am.multiply(y, _am.log(p)))
    weight = _am.multiply(_am.pow(_am.subtract(1.0, p), _am.cast(gamma, p.dtype)), alpha)
    return _am.reduce_sum(_am.multiply(weight, cce), axis=axis)


def _conv(x, kernel, strides, padding, data_format, dilation_rate, rank, what):
    t = _t(x)
    if t.shape.rank != rank + 2:
        raise ValueError(f"keras.backend.{what} takes {rank + 2}-D inputs, got {t.shape}.")
    return _opsnn.conv(t, kernel, strides, padding, data_format, dilation_rate)


def conv1d(x, kernel, strides=1, padding="valid", data_format=None, dilation_rate=1):
    """The 1-D convolution of [batch, steps, channels] `x` (padding "causal" pads the start)."""
    if padding == "causal":
        k = _t(kernel)
        left = (int(k.shape[0]) - 1) * int(dilation_rate)
        x = _rt.pad(_t(x), [[0, 0], [left, 0], [0, 0]])
        padding = "valid"
    return _conv(x, kernel, strides, padding, data_format, dilation_rate, 1, "conv1d")


def conv2d(x, kernel, strides=(1, 1), padding="valid", data_format=None, dilation_rate=(1, 1)):
    """The 2-D convolution of [batch, rows, cols, channels] `x`."""
    return _conv(x, kernel, strides, padding, data_format, dilation_rate, 2, "conv2d")


def conv2d_transpose(x, kernel, output_shape, strides=(1, 1), padding="valid",
                     data_format=None, dilation_rate=(1, 1)):
    """The transposed 2-D convolution of `x` into `output_shape`."""
    _opsnn._channels_last(data_format, "conv2d_transpose")
    t = _float(x)
    return _nn.conv2d_transpose(t, _am.cast(_t(kernel), t.dtype), list(output_shape),
                                [1, *strides, 1] if np.ndim(strides) else strides,
                                padding=_opsnn._padding(padding, "conv2d_transpose"),
                                dilations=list(dilation_rate) if np.ndim(dilation_rate)
                                else dilation_rate)


def depthwise_conv2d(x, depthwise_kernel, strides=(1, 1), padding="valid", data_format=None,
                     dilation_rate=(1, 1)):
    """Each channel of `x` convolved with its own filters."""
    return _opsnn.depthwise_conv(x, depthwise_kernel, strides, padding, data_format,
                                 dilation_rate)


def separable_conv2d(x, depthwise_kernel, pointwise_kernel, strides=(1, 1), padding="valid",
                     data_format=None, dilation_rate=(1, 1)):
    """depthwise_conv2d, then a 1x1 convolution with `pointwise_kernel`."""
    return _opsnn.separable_conv(x, depthwise_kernel, pointwise_kernel, strides, padding,
                                 data_format, dilation_rate)


def pool2d(x, pool_size, strides=(1, 1), padding="valid", data_format=None, pool_mode="max"):
    """Max ("max") or average ("avg") pooling of [batch, rows, cols, channels] `x`."""
    if pool_mode not in ("max", "avg"):
        raise ValueError(f"keras.backend.pool2d(pool_mode={pool_mode!r}): expected 'max' or "
                         "'avg'.")
    op = _opsnn.max_pool if pool_mode == "max" else _opsnn.average_pool
    return op(x, pool_size, strides, padding, data_format)


def temporal_padding(x, padding=(1, 1)):
    """[batch, steps, features] `x` padded with zeros along the steps."""
    return _rt.pad(_t(x), [[0, 0], list(padding), [0, 0]])


def spatial_2d_padding(x, padding=((1, 1), (1, 1)), data_format=None):
    """[batch, rows, cols, channels] `x` padded with zeros along rows and columns."""
    _opsnn._channels_last(data_format, "spatial_2d_padding")
    return _rt.pad(_t(x), [[0, 0], list(padding[0]), list(padding[1]), [0, 0]])


def spatial_3d_padding(x, padding=((1, 1), (1, 1), (1, 1)), data_format=None):
    """[batch, d1, d2, d3, channels] `x` padded with zeros along the three spatial axes."""
    _opsnn._channels_last(data_format, "spatial_3d_padding")
    return _rt.pad(_t(x), [[0, 0], *[list(p) for p in padding], [0, 0]])


def resize_images(x, height_factor, width_factor, data_format, interpolation="nearest"):
    """[batch, rows, cols, channels] `x` scaled by the integer factors ("nearest" repeats
    pixels; "bilinear" interpolates)."""
    _opsnn._channels_last(data_format, "resize_images")
    t = _t(x)
    if interpolation == "nearest":
        return _rt.repeat(_rt.repeat(t, int(height_factor), axis=1), int(width_factor), axis=2)
    rows, cols = t.shape[1], t.shape[2]
    return _Space("image").resize(t, [rows * int(height_factor), cols * int(width_factor)],
                                  method=interpolation)


def resize_volumes(x, depth_factor, height_factor, width_factor, data_format):
    """[batch, d1, d2, d3, channels] `x` with each voxel repeated by the factors."""
    _opsnn._channels_last(data_format, "resize_volumes")
    t = _t(x)
    for axis, factor in ((1, depth_factor), (2, height_factor), (3, width_factor)):
        t = _rt.repeat(t, int(factor), axis=axis)
    return t


def rnn(step_function, inputs, initial_states, go_backwards=False, mask=None, constants=None,
        unroll=False, input_length=None, time_major=False, zero_output_for_mask=False,
        return_all_outputs=True):
    """Keras 2's recurrence: `output, states = step_function(x_t, states (+ constants))`
    over the time axis of `inputs`; returns (last output, outputs, last states). Where
    `mask` is False a step keeps the previous states (and output, or zeros with
    `zero_output_for_mask`). The steps are unrolled (the length must be known)."""
    x = _t(inputs)
    if not time_major:
        x = _rt.transpose(x, [1, 0] + list(range(2, x.shape.rank)))
    steps = x.shape[0]
    if steps is None:
        raise ValueError("keras.backend.rnn needs the number of time steps known.")
    xs = list(_rt.unstack(x, num=steps, axis=0))
    masks = None
    if mask is not None:
        m = _am.cast(_t(mask), _dtypes.bool_)
        m = m if time_major else _rt.transpose(m, [1, 0] + list(range(2, m.shape.rank)))
        masks = list(_rt.unstack(m, num=steps, axis=0))
    order = list(range(steps))[::-1] if go_backwards else list(range(steps))
    states = list(initial_states)
    outputs, last = [], None
    for t in order:
        output, new_states = step_function(xs[t], states + list(constants or []))
        new_states = list(new_states)
        if masks is not None:
            keep = masks[t]

            def choose(new, old, keep=keep):
                k = keep
                while k.shape.rank < new.shape.rank:
                    k = _am.expand_dims(k, -1)
                return _am.where(_am.logical_or(k, _am.zeros_like(new, dtype=_dtypes.bool_)),
                                 new, old)
            previous = last if last is not None else _am.zeros_like(output)
            output = choose(output, _am.zeros_like(output) if zero_output_for_mask
                            else previous)
            new_states = [choose(n, o) for n, o in zip(new_states, states)]
        outputs.append(output)
        last, states = output, new_states
    stacked = _rt.stack(outputs if return_all_outputs else [last], axis=0)
    if not time_major:
        stacked = _rt.transpose(stacked, [1, 0] + list(range(2, stacked.shape.rank)))
    return last, stacked, states



def ctc_label_dense_to_sparse(labels, label_lengths) -> SparseTensor:
    """The first `label_lengths[b]` labels of each row of `labels` [batch, max_length] as a
    SparseTensor of shape [batch, max_length] (Keras 2's helper)."""
    labels = _t(labels)
    lengths = _am.cast(_t(label_lengths), _dtypes.int32)
    mask = _rt.sequence_mask(lengths, _am.shape(labels)[1])
    indices = _am.where(mask)
    return SparseTensor(indices, _rt.gather_nd(labels, indices),
                        _am.cast(_am.shape(labels), _dtypes.int64))


def ctc_batch_cost(y_true, y_pred, input_length, label_length):
    """Keras 2's CTC loss of softmax outputs `y_pred` [batch, max_time, classes] (the blank
    the last class) over `input_length` [batch, 1] frames, for labels `y_true` of
    `label_length` [batch, 1]: [batch, 1]."""
    label_length = _am.cast(_am.squeeze(_t(label_length), axis=-1), _dtypes.int32)
    input_length = _am.cast(_am.squeeze(_t(input_length), axis=-1), _dtypes.int32)
    sparse = ctc_label_dense_to_sparse(y_true, label_length)
    sparse = SparseTensor(sparse.indices, _am.cast(sparse.values, _dtypes.int32),
                          sparse.dense_shape)
    y_pred = _t(y_pred)
    logits = _math.log(_am.transpose(y_pred, [1, 0, 2]) + epsilon())
    loss = _Space("nn").ctc_loss(sparse, logits, None, input_length, blank_index=-1)
    return _am.expand_dims(loss, 1)


def ctc_decode(y_pred, input_length, greedy=True, beam_width=100, top_paths=1):
    """Keras 2's decoding of softmax outputs `y_pred` [batch, max_time, classes] (the blank
    the last class): greedy, or beam search keeping `beam_width` prefixes (repeated labels of
    a result merged). Returns ([top_paths decoded [batch, max_time] int64 padded with -1],
    log probabilities: [batch, 1] minus the summed best log probabilities for greedy, [batch,
    top_paths] for beam search)."""
    y_pred = _t(y_pred)
    logp = _math.log(_am.transpose(y_pred, [1, 0, 2]) + epsilon())
    lengths = _am.cast(_t(input_length), _dtypes.int32)
    shape = _am.cast(_am.shape(y_pred)[:2], _dtypes.int64)
    if greedy:
        decoded, log_prob = _Space("nn").ctc_greedy_decoder(logp, lengths)
    else:
        from ..ops import ctc as _ctc
        dense, count, log_prob = _ctc.beam_search_decoder(logp, lengths, beam_width, top_paths,
                                                           True)
        decoded = [_ctc.dense_to_sparse(dense[p], count[p]) for p in range(int(top_paths))]
    return ([_Space("sparse").to_dense(SparseTensor(d.indices, d.values, shape),
                                       default_value=-1) for d in decoded], log_prob)

__all__ = sorted(name for name in dir() if not name.startswith("_") and name not in (
    "annotations", "itertools", "threading", "np", "KerasTensor", "SparseTensor", "Variable"))
