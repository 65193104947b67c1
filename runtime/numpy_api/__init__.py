"""NumPy code on tensors: `np.*` functions, ufuncs and ndarray methods record runtime ops.

Importing this package installs `__array_ufunc__`, `__array_function__` and ndarray's
methods and properties on `Tensor` (so on eager and symbolic tensors and on variables).
`supported()` lists the NumPy calls that work; docs/numpy.md is generated from it.
"""

from __future__ import annotations

from ..tensor import Tensor
from . import arrays, linalg, methods, protocols, reductions, ufuncs  # noqa: F401 - registers
from .registry import supported


def install() -> None:
    """Makes tensors speak NumPy's protocols and carry ndarray's methods."""
    Tensor.__array_ufunc__ = protocols.array_ufunc
    Tensor.__array_function__ = protocols.array_function
    methods.install(Tensor)


install()

__all__ = ["install", "supported"]
