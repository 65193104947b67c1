"""NumPy code on tensors: `np.*` functions, ufuncs and ndarray methods record runtime ops.

Importing this package installs `__array_ufunc__`, `__array_function__` and ndarray's
methods and properties on `Tensor` (so on eager and symbolic tensors and on variables).
`supported()` lists the NumPy calls that work; docs/numpy.md is generated from it.
"""

from __future__ import annotations

from .. import tensor_overloads  # noqa: F401 - Python's operators first; `@` is NumPy's below
from ..dtypes import DType
from ..ops.core import binary_operands
from ..tensor import Tensor
from . import arrays, linalg, methods, protocols, reductions, ufuncs  # noqa: F401 - registers
from .registry import supported


def install() -> None:
    """Makes tensors speak NumPy's protocols and carry ndarray's methods."""
    Tensor.__array_ufunc__ = protocols.array_ufunc
    Tensor.__array_function__ = protocols.array_function
    methods.install(Tensor)
    # NumPy reads any object with a `.dtype` as that dtype: np.zeros(3, x.dtype), a.astype(rt.float32)
    DType.dtype = property(lambda self: self._np)
    # `@` with a vector operand, as NumPy's (matrices and batches are rt.matmul as before)
    Tensor.__matmul__ = lambda self, other: ufuncs.matmul(*binary_operands(self, other))
    Tensor.__rmatmul__ = lambda self, other: ufuncs.matmul(*binary_operands(other, self))


install()

__all__ = ["install", "supported"]
