"""`Tensor.__array_ufunc__` and `Tensor.__array_function__`: NumPy calls on tensors record ops.

A NumPy call with a tensor argument runs the runtime ops registered for it, so it is staged
into the graph being traced, or runs eagerly (and on any active gradient tape). A call with
no runtime equivalent is refused while tracing or under a tape; on plain eager tensors it
runs in NumPy on their values and returns NumPy values, as before tensors spoke the protocol.
"""

from __future__ import annotations

import numpy as np

from .. import context
from ..tensor import SymbolicTensor, Tensor
from . import promotion, registry, ufuncs
from .arguments import no_out

_UFUNC_OPTIONS = {"casting", "order", "subok"}  # accepted and ignored: results are new tensors


def array_ufunc(self, ufunc: np.ufunc, method: str, *inputs, **kwargs):
    """NumPy's hook for ufuncs (np.exp(t), ndarray + t, np.add.reduce(t), ...)."""
    name = f"np.{ufunc.__name__}" + ("" if method == "__call__" else f".{method}")
    no_out(name, kwargs.pop("out", None))
    if "where" in kwargs:
        raise TypeError(f"{name}(..., where=...) is not supported on tensors; use "
                        "np.where(mask, result, fallback) instead.")
    if method == "__call__" and ufunc in registry.UFUNCS:
        return _call(ufunc, inputs, kwargs)
    if method == "reduce" and ufunc.__name__ in ufuncs.REDUCERS:
        return _reduce(ufunc, inputs[0], **kwargs)
    if method == "accumulate" and ufunc.__name__ in ufuncs.ACCUMULATORS:
        return _accumulate(ufunc, inputs[0], **kwargs)
    return _unsupported(name, inputs, lambda arrays: getattr(ufunc, method)(*arrays, **kwargs))


# fn(x, y) -> (x, y) cast to one dtype, or None: set by rt.experimental.numpy's "all" and
# "safe" modes, where `ndarray + tensor` promotes by TensorFlow's rule (TensorFlow's tensors
# take NumPy's binary operators over, as their __array_priority__ asks)
binary_promotion = None


def _call(ufunc, inputs, kwargs):
    _only_options(f"np.{ufunc.__name__}", {k: v for k, v in kwargs.items() if k != "dtype"})
    if binary_promotion is not None and ufunc.nin == 2 and kwargs.get("dtype") is None and \
            sum(isinstance(v, Tensor) for v in inputs) == 1 and \
            any(isinstance(v, (np.ndarray, np.generic)) for v in inputs):
        inputs = binary_promotion(*inputs) or inputs
    loop = promotion.resolve_ufunc(ufunc, inputs, kwargs.get("dtype"))
    tensors = [promotion.as_tensor(v, d) for v, d in zip(inputs, loop)]
    return promotion.cast_to(registry.UFUNCS[ufunc](*tensors), loop[ufunc.nin])


def _reduce(ufunc, a, axis=0, dtype=None, keepdims=False, initial=None, **options):
    _only_options(f"np.{ufunc.__name__}.reduce", options, initial=initial)
    x = _operand(ufunc, a, dtype)
    return ufuncs.REDUCERS[ufunc.__name__](x, axis=axis, keepdims=keepdims)


def _accumulate(ufunc, a, axis=0, dtype=None, **options):
    _only_options(f"np.{ufunc.__name__}.accumulate", options)
    return ufuncs.ACCUMULATORS[ufunc.__name__](_operand(ufunc, a, dtype), axis=axis)


def _operand(ufunc, a, dtype):
    """The operand of a reduction as a tensor of the dtype NumPy reduces in."""
    if ufunc.__name__.startswith("logical"):
        dtype = np.bool_
    elif dtype is None:
        dtype = np.asarray(ufunc.reduce(np.ones(1, promotion.result_dtype(a)))).dtype
    return promotion.as_tensor(a, promotion.to_numpy_dtype(dtype))


def _only_options(name, options, **refused):
    unknown = sorted(set(options) - _UFUNC_OPTIONS) + [k for k, v in refused.items() if v is not None]
    if unknown:
        raise TypeError(f"{name}(..., {unknown[0]}=...) is not supported on tensors.")


def array_function(self, func, types, args, kwargs):
    """NumPy's hook for its other functions (np.sum(t), np.concatenate([t, u]), ...)."""
    if not all(issubclass(t, (Tensor, np.ndarray)) for t in types):
        return NotImplemented
    impl = registry.FUNCTIONS.get(func)
    if impl is None:
        name = registry.NAMES.get(func) or f"np.{getattr(func, '__name__', func)}"
        return _unsupported(name, (args, kwargs), lambda converted: func(*converted[0],
                                                                         **converted[1]))
    return impl(*args, **kwargs)


def _unsupported(name: str, arguments, run_in_numpy):
    """Refuses a NumPy call with no runtime op where a silent conversion would lose something."""
    tensors = list(_tensors_in(arguments))
    if context.current_graph() is not None or any(isinstance(t, SymbolicTensor) for t in tensors):
        raise TypeError(
            f"{name} has no runtime op, so it cannot be staged: while tracing, a tensor has no "
            f"value to give NumPy (turning it into a constant would freeze it). Instead: "
            f"{registry.hint(name)}.")
    if context.state.tapes:
        raise TypeError(
            f"{name} has no runtime op, so a GradientTape cannot record it and the gradient "
            f"would silently stop here. Instead: {registry.hint(name)}; or call it outside the "
            "tape (or on t.numpy()).")
    return run_in_numpy(_to_numpy(arguments))


def _tensors_in(value):
    if isinstance(value, Tensor):
        yield value
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _tensors_in(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _tensors_in(v)


def _to_numpy(value):
    if isinstance(value, Tensor):
        return np.asarray(value)
    if isinstance(value, list):
        return [_to_numpy(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_to_numpy(v) for v in value)
    if isinstance(value, dict):
        return {k: _to_numpy(v) for k, v in value.items()}
    return value
