"""`keras.ops`: Keras 3's backend-neutral ops over this runtime.

The NumPy API comes from `rt.experimental.numpy` (`keras.ops.matmul`, `mean`, `stack`,
`concatenate`, `where`, ...), the neural-network ops from `rt.nn` (`relu`, `sigmoid`,
`softmax`, `log_softmax`, ...); `cast`, `convert_to_tensor`, `convert_to_numpy` and `shape`
are Keras's own, and the functions Keras adds to them, with its signatures, are in
`ops_numpy` (NaN reductions, quantiles, windows, ...), `ops_nn` (pooling, convolutions,
normalisations, attention, ...) and `ops_core` (control flow, scatters, FFTs, linear
algebra). `keras.ops.numpy`, `.nn`, `.linalg` and `.image` hold them by family. A name none
offers raises AttributeError naming it.
"""

from __future__ import annotations

import types
from typing import Any

import numpy as np

from ..arguments import with_keyword_hints as _with_keyword_hints
from ..experimental import numpy as _tnp
from ..ops import array_math as _array_math
from ..ops import nn as _nn
from ..ops.core import convert_to_tensor as _convert_to_tensor
from . import ops_core as _ops_core
from . import ops_image as _ops_image
from . import ops_nn as _ops_nn
from . import ops_numpy as _ops_numpy


def _hinted(module) -> dict:
    """The public functions of `module`, a misspelt keyword answered with "did you mean"."""
    return {name: _with_keyword_hints(getattr(module, name), f"keras.ops.{name}")
            for name in module.__all__}


_NUMPY, _NN, _CORE = _hinted(_ops_numpy), _hinted(_ops_nn), _hinted(_ops_core)
_LINALG = {name: _CORE[name] for name in _ops_core.LINALG}
_IMAGE = _hinted(_ops_image)
globals().update({**_NUMPY, **_NN, **_CORE})


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
    """`keras.ops.numpy` / `.nn` / `.linalg` / `.image`: the same functions as `keras.ops`,
    by family: Keras's own first (`own`), then those of `source` (a module, or None)."""

    def __init__(self, name: str, own: dict, source, what: str):
        super().__init__(name)
        self._own, self._source, self._what = own, source, what

    def __getattr__(self, name: str) -> Any:
        value = self._own.get(name)
        if value is None and self._source is not None and not name.startswith("_"):
            value = getattr(self._source, name, None)
        if callable(value):
            return value
        raise AttributeError(f"{self.__name__} has no {name!r} in this runtime (it offers "
                             f"{self._what}).")

    def __dir__(self) -> list[str]:
        names = set(self._own)
        if self._source is not None:
            names |= {n for n in dir(self._source)
                      if not n.startswith("_") and callable(getattr(self._source, n, None))}
        return sorted(names)


numpy = _OpsNamespace("keras.ops.numpy", {**_NUMPY, "slogdet": _CORE["slogdet"]}, _tnp,
                      "the NumPy API (rt.experimental.numpy) and Keras's additions")
nn = _OpsNamespace("keras.ops.nn", _NN, _nn, "rt.nn's ops and Keras's")
linalg = _OpsNamespace("keras.ops.linalg", _LINALG, None, "Keras's linear algebra")
image = _OpsNamespace("keras.ops.image", _IMAGE, None, "Keras's image ops")

__all__ = sorted({"cast", "convert_to_tensor", "convert_to_numpy", "shape", "numpy", "nn",
                  "linalg", "image", *_NUMPY, *_NN, *_CORE})
