"""`keras.backend`: Keras's global settings here, and the functions of Keras 2's backend that
`tf.keras.backend` keeps (runtime/keras/backend_ops.py)."""

from __future__ import annotations

import numpy as _np

from .. import module as _module
from ..arguments import with_keyword_hints as _with_keyword_hints
from ..gradients.symbolic import gradients as _symbolic_gradients
from ..ops import array_math as _array_math
from ..ops import random as _random
from ..ops.core import convert_to_tensor as _convert_to_tensor
from . import backend_ops as _backend_ops
from .backend_ops import *  # noqa: F401,F403 - Keras 2's backend functions
from .backend_ops import epsilon, set_epsilon, set_floatx, set_image_data_format  # noqa: F401
from .ops_numpy import _Space


def floatx() -> str:
    """The float type of layer weights: "float32"."""
    return "float32"


def clear_session() -> None:
    """Resets the automatic layer names (`dense`, `dense_1`, ... start again)."""
    with _module.keras_names_lock:
        _module.keras_names.clear()


def image_data_format() -> str:
    """"channels_last": images are [batch, height, width, channels]."""
    return "channels_last"


def get_value(x):
    """The value of a variable or tensor as a NumPy array (a NumPy value comes back as is)."""
    return x.numpy() if hasattr(x, "numpy") else _np.asarray(x)


def set_value(x, value) -> None:
    """Assigns `value` to the variable `x`."""
    if not hasattr(x, "assign"):
        raise TypeError(f"set_value: x must be a variable (it has `assign`), got "
                        f"{type(x).__name__}; pass the layer's or optimizer's variable.")
    x.assign(value)


def random_normal(shape, mean: float = 0.0, stddev: float = 1.0, dtype=None, seed=None):
    """A tensor of `shape` drawn from the normal distribution (dtype: floatx())."""
    return _random.normal(shape, mean=mean, stddev=stddev, dtype=dtype or floatx(), seed=seed)


def random_uniform(shape, minval: float = 0.0, maxval: float = 1.0, dtype=None, seed=None):
    """A tensor of `shape` drawn uniformly from [minval, maxval) (dtype: floatx())."""
    return _random.uniform(shape, minval=minval, maxval=maxval, dtype=dtype or floatx(),
                           seed=seed)


_nn = _Space("nn")


def _channels_3d(x, data_format, what: str):
    """x as [batch, d1, d2, d3, channels] floats, and whether it came channels first."""
    data_format = data_format or image_data_format()
    if data_format not in ("channels_first", "channels_last"):
        raise ValueError(f"Unknown data_format: {data_format}")
    t = _convert_to_tensor(x)
    if t.shape.rank != 5:
        raise ValueError(f"keras.backend.{what} takes 5-D inputs, got shape {t.shape}.")
    if not (t.dtype.is_floating or t.dtype.is_complex):
        t = _array_math.cast(t, floatx())
    first = data_format == "channels_first"
    return (_array_math.transpose(t, [0, 2, 3, 4, 1]) if first else t), first


def _triple(value, what: str, name: str) -> list:
    values = [int(value)] * 3 if _np.ndim(value) == 0 else [int(v) for v in value]
    if len(values) != 3:
        raise ValueError(f"keras.backend.{what}: {name} must be an int or 3 ints, got "
                         f"{value!r}.")
    return values


def _padding_3d(padding, what: str) -> str:
    if str(padding).lower() not in ("valid", "same"):
        raise ValueError(f"keras.backend.{what}(padding={padding!r}): expected 'valid' or "
                         "'same'.")
    return str(padding).upper()


def conv3d(x, kernel, strides=(1, 1, 1), padding="valid", data_format=None,
           dilation_rate=(1, 1, 1)):
    """The 3-D convolution of `x` ([batch, d1, d2, d3, channels], or channels first) with
    `kernel` [k1, k2, k3, in, out]."""
    t, first = _channels_3d(x, data_format, "conv3d")
    k = _array_math.cast(_convert_to_tensor(kernel), t.dtype)
    out = _nn.conv3d(t, k, [1, *_triple(strides, "conv3d", "strides"), 1],
                     _padding_3d(padding, "conv3d"),
                     dilations=[1, *_triple(dilation_rate, "conv3d", "dilation_rate"), 1])
    return _array_math.transpose(out, [0, 4, 1, 2, 3]) if first else out


def pool3d(x, pool_size, strides=(1, 1, 1), padding="valid", data_format=None,
           pool_mode="max"):
    """Max ("max") or average ("avg") pooling of `x` ([batch, d1, d2, d3, channels], or
    channels first) over `pool_size` windows `strides` apart."""
    if pool_mode not in ("max", "avg"):
        raise ValueError(f"Invalid pooling mode: {pool_mode}")
    t, first = _channels_3d(x, data_format, "pool3d")
    pool = _nn.max_pool3d if pool_mode == "max" else _nn.avg_pool3d
    size = [1, *_triple(pool_size, "pool3d", "pool_size"), 1]
    step = [1, *_triple(strides, "pool3d", "strides"), 1]
    out = pool(t, size, step, _padding_3d(padding, "pool3d"))
    return _array_math.transpose(out, [0, 4, 1, 2, 3]) if first else out


def gradients(loss, variables):
    """The symbolic gradients of `loss` with respect to each of `variables` (a list; None
    where loss does not depend on one), as Keras 2's `K.gradients` (`tf.gradients`): only
    inside a traced function; in eager code use `tf.GradientTape`."""
    return _symbolic_gradients(loss, variables)


globals().update({name: _with_keyword_hints(getattr(_backend_ops, name),
                                            f"keras.backend.{name}")
                  for name in _backend_ops.__all__ if callable(getattr(_backend_ops, name))})

for _name in ("conv3d", "pool3d", "gradients"):
    globals()[_name] = _with_keyword_hints(globals()[_name], f"keras.backend.{_name}")

__all__ = sorted({"floatx", "clear_session", "image_data_format", "get_value", "set_value",
                  "random_normal", "random_uniform", "conv3d", "pool3d", "gradients",
                  *_backend_ops.__all__})
