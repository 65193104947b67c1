"""ndarray's methods and properties on tensors: `.T`, `.reshape(2, 3)`, `.astype`, `.sum(axis)`.

They take NumPy's argument names and give NumPy's results (through the same implementations
as the `np.*` functions), so code written for ndarrays runs on tensors unchanged. `.shape`
stays a TensorShape and `.dtype` an rt.DType (both index and compare as NumPy code expects).
"""

from __future__ import annotations

import inspect

import numpy as np

from ..tensor import SymbolicTensor
from . import arrays, linalg, promotion, reductions


def _shape_arguments(shape: tuple):
    """NumPy's `reshape(2, 3)` and `reshape((2, 3))` forms."""
    return shape[0] if len(shape) == 1 and not isinstance(shape[0], int) else shape


def reshape(self, *shape, order="C", copy=None):
    """`x.reshape(2, 3)` or `x.reshape((2, 3))`; one dimension may be -1."""
    return arrays.reshape(self, _shape_arguments(shape), order)


def transpose(self, *axes):
    """`x.transpose()`, `x.transpose(1, 0)` or `x.transpose((1, 0))`."""
    return arrays.transpose(self, _shape_arguments(axes) if axes else None)


def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
    """The tensor cast to `dtype`, read as NumPy reads it (`float` is float64)."""
    return promotion.cast_to(promotion.as_tensor(self, promotion.result_dtype(self)),
                             promotion.to_numpy_dtype(dtype))


def _value(self, what: str):
    try:
        if isinstance(self, SymbolicTensor):
            raise NotImplementedError
        return np.asarray(self.numpy())
    except NotImplementedError:
        raise TypeError(f"{what} needs the tensor's value, which is unknown while tracing "
                        f"({self!r}). Keep it a tensor inside the compiled function, or call "
                        "it on the function's result.") from None


def item(self, *args):
    """The element as a Python number (eager tensors only)."""
    return _value(self, "item()").item(*args)


def tolist(self):
    """The value as nested Python lists (eager tensors only)."""
    return _value(self, "tolist()").tolist()


def _method(fn, name):
    def method(self, *args, **kwargs):
        return fn(self, *args, **kwargs)
    signature = inspect.signature(fn)
    self_parameter = inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)
    method.__signature__ = signature.replace(
        parameters=[self_parameter, *list(signature.parameters.values())[1:]])
    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"As np.{fn.__name__.rstrip('_')}(x, ...)."
    return method


METHODS = {
    "reshape": reshape, "transpose": transpose, "astype": astype, "item": item, "tolist": tolist,
    "sum": reductions.sum_, "mean": reductions.mean, "max": reductions.max_,
    "min": reductions.min_, "prod": reductions.prod, "std": reductions.std,
    "var": reductions.var, "argmax": reductions.argmax, "argmin": reductions.argmin,
    "cumsum": reductions.cumsum, "any": reductions.any_, "all": reductions.all_,
    "dot": linalg.dot, "clip": arrays.clip, "squeeze": arrays.squeeze, "ravel": arrays.ravel,
    "flatten": arrays.ravel, "copy": arrays.copy, "swapaxes": arrays.swapaxes,
    "take": arrays.take, "round": arrays.round_, "trace": linalg.trace,
}
PROPERTIES = {
    "T": property(lambda self: arrays.transpose(self), doc="The tensor with its axes reversed."),
    "size": property(lambda self: arrays.size(self),
                     doc="The number of elements (an int; a scalar tensor when unknown)."),
}


def install(cls) -> None:
    """Adds the methods and properties to `cls` (Tensor), leaving names it already has."""
    for name, fn in METHODS.items():
        if name not in vars(cls):
            setattr(cls, name, fn if fn.__module__ == __name__ else _method(fn, name))
    for name, prop in PROPERTIES.items():
        if name not in vars(cls):
            setattr(cls, name, prop)
