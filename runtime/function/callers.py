"""Fast callers: generated functions that run a concrete function for one call shape.

A caller reads each tensor leaf straight into the compiled graph — `args[0]["a"]._value`,
`kwargs["state"].h._value` — without binding or flattening; the Function keeps one per
cache key of a call. The key fixes the call's structure (nest types, dict keys, lengths) and
each leaf's type, dtype and shape, so the caller checks nothing the key already decided.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Callable

import numpy as np

from .. import nest
from ..executor.codegen import runtime_error
from ..shapes import TensorSpec
from ..tensor import EagerTensor
from ..tracing import OutputSlot
from .concrete import ConcreteFunction

_KEY_LITERALS = (str, int, bool, type(None))


class _NoCaller(Exception):
    """The call has a shape no generated caller serves (the slow path handles it)."""


def make_caller(concrete: ConcreteFunction, args: tuple, kwargs: dict,
                bound: tuple | None = None) -> Callable | None:
    """A generated function (args, kwargs) -> outputs for calls shaped like this one, or None.

    Tensor leaves may sit at any depth of dicts, lists, tuples, namedtuples and dataclass
    instances, passed positionally or by keyword. `bound` is the call's (args, kwargs) after
    binding: it supplies defaults for parameters the call left out. Python-valued arguments are
    part of the fast key, so they need no checks here.
    """
    sig_args, sig_kwargs = concrete.structured_input_signature
    names = concrete.arg_names
    bound_args, bound_kwargs = bound if bound is not None else ((), {})
    reads: list[str] = []
    defaults: list = []
    used_kwargs = set()

    def default(value) -> str:
        if isinstance(value, (list, dict)) and _has_tensor_spec(value):
            raise _NoCaller  # a mutable default may change between calls
        defaults.append(value)
        return f"defaults[{len(defaults) - 1}]"

    try:
        for i, spec in enumerate(sig_args):
            if i < len(args):
                leaf_reads(spec, args[i], f"args[{i}]", reads)
            elif i < len(names) and names[i] in kwargs:
                used_kwargs.add(names[i])
                leaf_reads(spec, kwargs[names[i]], f"kwargs[{names[i]!r}]", reads)
            elif _has_tensor_spec(spec):
                if i >= len(bound_args):
                    return None
                leaf_reads(spec, bound_args[i], default(bound_args[i]), reads)
        for key, spec in sig_kwargs.items():
            if key in kwargs:
                used_kwargs.add(key)
                leaf_reads(spec, kwargs[key], f"kwargs[{key!r}]", reads)
            elif _has_tensor_spec(spec):
                if key not in bound_kwargs:
                    return None
                leaf_reads(spec, bound_kwargs[key], default(bound_kwargs[key]), reads)
    except _NoCaller:
        return None
    if len(args) > len(sig_args) or set(kwargs) - used_kwargs:
        return None
    single = isinstance(concrete.graph.structured_outputs, OutputSlot)
    factory = _caller_factory(f"run({', '.join(reads)})", "ET(r)" if single else "concrete.pack(r)")
    return factory(concrete.compiled.fn, EagerTensor, concrete, runtime_error, tuple(defaults))


def leaf_reads(spec, value, src: str, reads: list) -> None:
    """Appends to `reads` the source expressions of the tensor leaves of `value` under `spec`
    (`value` is reached from the caller's arguments by the expression `src`); raises
    _NoCaller when `value` does not have the structure of `spec`."""
    if isinstance(spec, TensorSpec):
        if type(value) is EagerTensor and value._value.dtype == spec.dtype._np:
            reads.append(f"{src}._value")
        elif isinstance(value, np.ndarray) and value.dtype == spec.dtype._np:
            reads.append(src)
        else:
            raise _NoCaller
        return
    if not nest.is_nested(spec):
        return  # a Python value: part of the call key
    if type(value) is not type(spec):
        raise _NoCaller
    if not _has_tensor_spec(spec):
        return
    for accessor, child_spec, child in _children(spec, value):
        leaf_reads(child_spec, child, src + accessor, reads)


def _children(spec, value):
    """(accessor source, spec child, value child) of a nest node, in flattening order."""
    if isinstance(spec, dict):
        if set(spec) != set(value):
            raise _NoCaller
        for k in _dict_order(spec):
            if type(k) not in _KEY_LITERALS:
                raise _NoCaller
            yield f"[{k!r}]", spec[k], value[k]
    elif isinstance(spec, (list, tuple)):
        if len(spec) != len(value):
            raise _NoCaller
        for i, (s, v) in enumerate(zip(spec, value)):
            yield f"[{i}]", s, v
    else:  # a dataclass instance
        for field in dataclasses.fields(spec):
            if field.init:
                if not field.name.isidentifier():
                    raise _NoCaller
                yield f".{field.name}", getattr(spec, field.name), getattr(value, field.name)


def _dict_order(d: dict) -> list:
    """The order in which `nest.flatten` visits a dict's values."""
    try:
        return sorted(d)
    except TypeError:
        return list(d)


def _has_tensor_spec(spec) -> bool:
    """True for a TensorSpec or a nest with a TensorSpec leaf."""
    if isinstance(spec, TensorSpec):
        return True
    return nest.is_nested(spec) and any(isinstance(s, TensorSpec) for s in nest.flatten(spec))


@functools.lru_cache(maxsize=512)
def _caller_factory(call: str, result: str):
    """Compiles, once per distinct call shape, a factory that binds a caller to a graph."""
    source = (
        "def make(run, ET, concrete, translate, defaults):\n"
        "    def caller(args, kwargs):\n"
        "        try:\n"
        f"            r = {call}\n"
        "        except Exception as exc:\n"
        "            t = translate(concrete.compiled, exc)\n"
        "            if t is None:\n"
        "                raise\n"
        "            raise t from None\n"
        f"        return {result}\n"
        "    return caller\n")
    namespace: dict = {}
    exec(compile(source, "<rt-caller>", "exec"), namespace)
    return namespace["make"]
