"""Dtype promotion for `np.*` calls on tensors.

Tensors promote among themselves as NumPy arrays do. Every other operand (a Python number,
a NumPy scalar or array, a list) is *weak*, as Python numbers are in NumPy 2 (NEP 50): it
takes the tensors' dtype unless it is of a higher kind (bool < integer < float < complex),
and then the result is NumPy's for a Python number of that kind. This keeps `ndarray + tensor`
(which NumPy hands to the tensor's `__array_ufunc__`) the same as `tensor + ndarray`.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes as _dtypes
from ..ops import array_math, core
from ..tensor import Tensor

_PYTHON = (int, float, complex)
_WEAK_BY_KIND = {"i": int, "u": int, "f": float, "c": complex}


def is_tensor_like(value) -> bool:
    """A tensor, or a list/tuple holding one (NumPy would stack it)."""
    if isinstance(value, Tensor):
        return True
    return isinstance(value, (list, tuple)) and any(is_tensor_like(v) for v in value)


def promotion_key(value):
    """How NumPy should see `value` when promoting: a dtype (strong) or a Python type (weak)."""
    if isinstance(value, Tensor):
        return value.dtype._np
    if is_tensor_like(value):
        return core.convert_to_tensor(value).dtype._np
    if type(value) in _PYTHON:
        return type(value)
    kind = np.asarray(value).dtype
    return _WEAK_BY_KIND.get(kind.kind, kind)


def result_dtype(*values) -> np.dtype:
    """The dtype NumPy gives an operation on `values` under the rule above."""
    keys = [promotion_key(v) for v in values if v is not None]
    return np.result_type(*[k(0) if isinstance(k, type) else k for k in keys])


def resolve_ufunc(ufunc: np.ufunc, inputs, dtype=None) -> tuple:
    """The (input..., output) dtypes of NumPy's loop for `ufunc` on `inputs`."""
    keys = tuple(promotion_key(v) for v in inputs)
    if dtype is None:
        return ufunc.resolve_dtypes(keys + (None,) * ufunc.nout)
    signature = (None,) * ufunc.nin + (to_numpy_dtype(dtype),)
    return ufunc.resolve_dtypes(keys + (None,) * ufunc.nout, signature=signature)


def to_numpy_dtype(dtype) -> np.dtype:
    """NumPy's reading of a dtype argument (`float` is float64), accepting rt.DType too."""
    if isinstance(dtype, _dtypes.DType):
        return dtype._np
    return np.dtype(dtype)


def as_tensor(value, dtype) -> Tensor:
    """`value` as a tensor of the NumPy dtype `dtype` (tensors are cast by a recorded op)."""
    rt_dtype = _dtypes.from_numpy(np.dtype(dtype))
    if is_tensor_like(value):
        tensor = core.convert_to_tensor(value)
        return tensor if tensor.dtype is rt_dtype else array_math.cast(tensor, rt_dtype)
    if type(value) in _PYTHON or type(value) is bool:
        return core.convert_to_tensor(value, dtype=rt_dtype)
    return core.convert_to_tensor(np.asarray(value).astype(rt_dtype.as_numpy_dtype))


def as_tensors(values, dtype=None) -> list[Tensor]:
    """`values` as tensors of one dtype: `dtype`, or their promoted dtype."""
    dtype = result_dtype(*values) if dtype is None else to_numpy_dtype(dtype)
    return [as_tensor(v, dtype) for v in values]


def cast_to(tensor: Tensor, dtype) -> Tensor:
    """`tensor` cast to the NumPy dtype `dtype` when it is not of it already."""
    rt_dtype = _dtypes.from_numpy(np.dtype(dtype))
    return tensor if tensor.dtype is rt_dtype else array_math.cast(tensor, rt_dtype)
