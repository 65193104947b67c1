"""Installs Python operators and iteration on Tensor (and so on Variable)."""

from __future__ import annotations

import numpy as np

from .. import context
from ..tensor import EagerTensor, SymbolicTensor, Tensor
from . import array_ops, linalg_ops, math_ops


def _binary(fn):
    def forward(self, other):
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


def _iter_eager(self):
    if np.ndim(self._value) == 0:
        raise TypeError("Cannot iterate over a scalar tensor.")
    if context.state.tapes:  # an op, so that gradient tapes see the rows
        return iter(array_ops.unstack(self))
    return (EagerTensor(v) for v in np.asarray(self._value))


def _iter_symbolic(self):
    dims = self._shape.as_tuple()
    if dims is None or not dims:
        raise TypeError(f"Cannot iterate over the symbolic tensor {self.name} of shape "
                        f"{self._shape}.")
    if dims[0] is None:
        self._not_allowed("Iterating over a tensor whose first dimension is unknown")
    return iter(array_ops.unstack(self, num=dims[0]))


def install() -> None:
    for name, fn in [("add", math_ops.add), ("sub", math_ops.subtract), ("mul", math_ops.multiply),
                     ("truediv", math_ops.divide), ("floordiv", math_ops.floordiv),
                     ("mod", math_ops.mod), ("pow", math_ops.pow), ("matmul", linalg_ops.matmul),
                     ("and", math_ops.logical_and), ("or", math_ops.logical_or),
                     ("xor", math_ops.logical_xor)]:
        forward, backward = _binary(fn)
        setattr(Tensor, f"__{name}__", forward)
        setattr(Tensor, f"__r{name}__", backward)
    for name, fn in [("lt", math_ops.less), ("le", math_ops.less_equal), ("gt", math_ops.greater),
                     ("ge", math_ops.greater_equal)]:
        setattr(Tensor, f"__{name}__", _binary(fn)[0])
    Tensor.__eq__ = _equality(math_ops.equal)
    Tensor.__ne__ = _equality(math_ops.not_equal)
    Tensor.__neg__ = lambda self: math_ops.negative(self)
    Tensor.__pos__ = lambda self: self
    Tensor.__abs__ = lambda self: math_ops.abs(self)
    Tensor.__invert__ = lambda self: math_ops.logical_not(self)
    Tensor.__getitem__ = lambda self, key: array_ops.getitem(self, key)
    Tensor.__hash__ = None
    EagerTensor.__iter__ = _iter_eager
    SymbolicTensor.__iter__ = _iter_symbolic
