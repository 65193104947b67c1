"""`keras.ops`: Keras 3's backend-neutral ops over this runtime.

The NumPy API comes from `rt.experimental.numpy` (`keras.ops.matmul`, `mean`, `stack`,
`concatenate`, `where`, ...), the neural-network ops from `rt.nn` (`relu`, `sigmoid`,
`softmax`, `log_softmax`, ...); `cast`, `convert_to_tensor`, `convert_to_numpy` and `shape`
are Keras's own. A name neither offers raises AttributeError naming it.
"""

from __future__ import annotations

import types
from typing import Any

import numpy as np

from ..experimental import numpy as _tnp
from ..ops import array_math as _array_math
from ..ops import nn as _nn
from ..ops.core import convert_to_tensor as _convert_to_tensor


def cast(x, dtype):
    """`x` as `dtype`."""
    return _array_math.cast(x, dtype)


def convert_to_tensor(x, dtype=None, sparse=None, ragged=None):
    """`x` as a tensor (of `dtype` when given)."""
    return _convert_to_tensor(x, dtype=dtype)


def convert_to_numpy(x) -> np.ndarray:
    """`x` as a NumPy array."""
    return np.asarray(x)


def shape(x) -> tuple:
    """The static shape of `x` as a tuple (None for an unknown dimension), as Keras's."""
    return tuple(_convert_to_tensor(x).shape.as_list())


def __getattr__(name: str) -> Any:
    if not name.startswith("_"):
        for source in (_tnp, _nn):
            value = getattr(source, name, None)
            if callable(value):
                return value
    raise AttributeError(f"keras.ops has no {name!r} in this runtime; the NumPy API "
                         f"(rt.experimental.numpy) and rt.nn's ops are offered.")


class _OpsNamespace(types.ModuleType):
    """`keras.ops.numpy` / `keras.ops.nn`: the same functions as `keras.ops`, by family."""

    def __init__(self, name: str, source, what: str):
        super().__init__(name)
        self._source, self._what = source, what

    def __getattr__(self, name: str) -> Any:
        value = None if name.startswith("_") else getattr(self._source, name, None)
        if callable(value):
            return value
        raise AttributeError(f"{self.__name__} has no {name!r} in this runtime (it offers "
                             f"{self._what}).")

    def __dir__(self) -> list[str]:
        return sorted(n for n in dir(self._source)
                      if not n.startswith("_") and callable(getattr(self._source, n, None)))


numpy = _OpsNamespace("keras.ops.numpy", _tnp, "the NumPy API (rt.experimental.numpy)")
nn = _OpsNamespace("keras.ops.nn", _nn, "rt.nn's ops")

__all__ = ["cast", "convert_to_tensor", "convert_to_numpy", "shape", "numpy", "nn"]
