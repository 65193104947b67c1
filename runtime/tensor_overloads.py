"""Python operators and iteration on Tensor (and so on Variable), installed when this module
is imported (by runtime/__init__.py, and first by numpy_api, which makes `@` NumPy-like)."""

from __future__ import annotations

import numpy as np

from . import context
from .ops import array_math, bitwise, linalg
from .ops.extension_type import CompositeTensor
from .tensor import EagerTensor, SymbolicTensor, Tensor


def _binary(fn):
    def forward(self, other):
        if isinstance(other, CompositeTensor):  # its own __radd__ ... applies, as in TensorFlow
            return NotImplemented
        return fn(self, other)

    def backward(self, other):
        return fn(other, self)
    return forward, backward


def _equality(fn):
    def compare(self, other):
        if other is None:
            return NotImplemented
        try:
            return fn(self, other)
        except (TypeError, ValueError):
            return NotImplemented
    return compare


def _logic(logical, bitwise_op):
    """`&`, `|`, `^`: logic on bool tensors, the bitwise op on integer ones (as TensorFlow)."""
    def fn(x, y):
        t = x if isinstance(x, Tensor) else y
        return (bitwise_op if t.dtype.is_integer else logical)(x, y)
    return fn


def _invert(self):
    return bitwise.invert(self) if self.dtype.is_integer else array_math.logical_not(self)


def _iter_eager(self):
    if np.ndim(self._value) == 0:
        raise TypeError("Cannot iterate over a scalar tensor.")
    if context.state.tapes:  # an op, so that gradient tapes see the rows
        return iter(array_math.unstack(self))
    return (EagerTensor(v) for v in np.asarray(self._value))


def _iter_symbolic(self):
    dims = self._shape.as_tuple()
    if dims is None or not dims:
        raise TypeError(f"Cannot iterate over the symbolic tensor {self.name} of shape "
                        f"{self._shape}.")
    if dims[0] is None:
        self._not_allowed("Iterating over a tensor whose first dimension is unknown")
    return iter(array_math.unstack(self, num=dims[0]))


def install() -> None:
    for name, fn in [("add", array_math.add), ("sub", array_math.subtract), ("mul", array_math.multiply),
                     ("truediv", array_math.divide), ("floordiv", array_math.floordiv),
                     ("mod", array_math.mod), ("pow", array_math.pow), ("matmul", linalg.matmul),
                     ("and", _logic(array_math.logical_and, bitwise.bitwise_and)),
                     ("or", _logic(array_math.logical_or, bitwise.bitwise_or)),
                     ("xor", _logic(array_math.logical_xor, bitwise.bitwise_xor))]:
        forward, backward = _binary(fn)
        setattr(Tensor, f"__{name}__", forward)
        setattr(Tensor, f"__r{name}__", backward)
    for name, fn in [("lt", array_math.less), ("le", array_math.less_equal), ("gt", array_math.greater),
                     ("ge", array_math.greater_equal)]:
        setattr(Tensor, f"__{name}__", _binary(fn)[0])
    Tensor.__eq__ = _equality(array_math.equal)
    Tensor.__ne__ = _equality(array_math.not_equal)
    Tensor.__neg__ = lambda self: array_math.negative(self)
    Tensor.__pos__ = lambda self: self
    Tensor.__abs__ = lambda self: array_math.abs(self)
    Tensor.__invert__ = _invert
    Tensor.__getitem__ = lambda self, key: array_math.getitem(self, key)
    Tensor.__hash__ = None
    EagerTensor.__iter__ = _iter_eager
    SymbolicTensor.__iter__ = _iter_symbolic


install()
