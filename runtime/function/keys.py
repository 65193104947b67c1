"""Cache keys of calls: tensors and variables by shape and dtype, Python values by value,
objects defining `__tf_tracing_type__(context)` by the TraceType it returns, other objects
by identity."""

from __future__ import annotations

import dataclasses

import numpy as np

from ..ops.variables import Variable
from ..shapes import TensorSpec
from ..tensor import DeviceTensor, EagerTensor, SymbolicTensor

_SCALARS = (int, float, bool, str, bytes, type(None), complex)


class UnhashableArgument(TypeError):
    """An argument leaf that can be neither a tensor nor a dictionary key."""


def _key_eager(x):
    v = x._value
    return (v.shape, v.dtype)


def _key_device(x):
    box = x._box  # the eager key, without reading the value
    return (box.shape, box.dtype)


def _key_array(x):
    if x.dtype.kind in "OUS":
        return (np.ndarray, id(x))
    # distinct from an eager tensor's key: fast callers read `._value` from eager tensors only
    return ("nd", x.shape, x.dtype)


def _key_scalar(x):
    return (type(x), x)


def _key_float(x):
    # nan != nan would retrace on every call, and 0.0 == -0.0 would share one graph
    return (float, x) if x == x and x != 0.0 else (float, repr(x))


def _key_seq(x):
    return (type(x), tuple([leaf_key(v) for v in x]))


def _key_dict(x):
    return (type(x), tuple(sorted(((k, leaf_key(v)) for k, v in x.items()), key=lambda kv: repr(kv[0]))))


def _key_dataclass(x):
    fields = [f.name for f in dataclasses.fields(x) if f.init]
    key = (type(x), tuple([(name, leaf_key(getattr(x, name))) for name in fields]))
    extra = getattr(x, "_trace_key_extra", None)   # a composite's static part (a SparseTensor's shape)
    return key if extra is None else key + (extra(),)


def _key_spec(x):
    return ("spec", x.shape.as_tuple(), x.dtype.name)


_KEYERS = {EagerTensor: _key_eager, DeviceTensor: _key_device, np.ndarray: _key_array, list: _key_seq, tuple: _key_seq,
           dict: _key_dict, TensorSpec: _key_spec}
for _t in _SCALARS:
    _KEYERS[_t] = _key_scalar
_KEYERS[float] = _key_float


class TracingContext:
    """What `__tf_tracing_type__(context)` receives (it carries nothing here)."""


_TRACING_CONTEXT = TracingContext()


def _key_trace_type(x, tracing_type):
    trace_type = tracing_type(x, _TRACING_CONTEXT)
    try:
        hash(trace_type)
    except TypeError:
        raise TypeError(f"{type(x).__name__}.__tf_tracing_type__ returned an unhashable "
                        f"{type(trace_type).__name__}; a TraceType must define __hash__ and "
                        "__eq__.") from None
    return ("trace_type", trace_type)


def leaf_key(x):
    """The key of one argument (nests are walked); raises UnhashableArgument."""
    keyer = _KEYERS.get(type(x))
    if keyer is not None:
        return keyer(x)
    if isinstance(x, np.generic):
        return ("nd", (), x.dtype)
    if isinstance(x, tuple):  # namedtuple
        return _key_seq(x)
    if isinstance(x, dict):
        return _key_dict(x)
    if isinstance(x, list):
        return _key_seq(x)
    tracing_type = getattr(type(x), "__tf_tracing_type__", None)
    if tracing_type is not None:   # the custom-type protocol: equal TraceTypes share a trace
        return _key_trace_type(x, tracing_type)
    if hasattr(type(x), "__dataclass_fields__"):   # a dataclass instance is a nest
        return _key_dataclass(x)
    if isinstance(x, SymbolicTensor):
        return ("sym", x.shape.as_tuple(), x.dtype.name)
    if isinstance(x, Variable):  # traced like a tensor: each call binds the variable passed
        return ("var", x._shape.as_tuple(), x._dtype.name)
    trace_key = getattr(type(x), "_trace_key", None)
    if trace_key is not None:  # datasets and iterators: by element spec (runtime/data/staged.py)
        return trace_key(x)
    if hasattr(x, "_as_tensor"):  # other stateful objects: by identity
        return ("obj", id(x))
    try:
        hash(x)
    except TypeError:
        raise UnhashableArgument(x) from None
    return (type(x), x)


def leaf_key_or_none(x):
    """`leaf_key(x)`, or None when `x` is unhashable."""
    try:
        return leaf_key(x)
    except UnhashableArgument:
        return None


def call_key(args: tuple, kwargs: dict):
    """The key of a whole call; raises UnhashableArgument."""
    if kwargs:
        return (tuple([leaf_key(a) for a in args]),
                tuple([(k, leaf_key(v)) for k, v in kwargs.items()]))
    return tuple([leaf_key(a) for a in args])
