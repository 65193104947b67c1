"""`keras.backend`: Keras's global settings here, and the functions of Keras 2's backend that
`tf.keras.backend` keeps (runtime/keras/backend_ops.py)."""

from __future__ import annotations

import numpy as _np

from .. import module as _module
from ..arguments import with_keyword_hints as _with_keyword_hints
from ..ops import random as _random
from . import backend_ops as _backend_ops
from .backend_ops import *  # noqa: F401,F403 - Keras 2's backend functions
from .backend_ops import epsilon, set_epsilon, set_floatx, set_image_data_format  # noqa: F401


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


globals().update({name: _with_keyword_hints(getattr(_backend_ops, name),
                                            f"keras.backend.{name}")
                  for name in _backend_ops.__all__ if callable(getattr(_backend_ops, name))})

__all__ = sorted({"floatx", "clear_session", "image_data_format", "get_value", "set_value",
                  "random_normal", "random_uniform", *_backend_ops.__all__})
