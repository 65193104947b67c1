"""Fast callers: generated functions that run a concrete function for one call shape.

A caller reads `args[i]._value` straight into the compiled graph, without binding or
flattening; the Function keeps one per cache key of a call.
"""

from __future__ import annotations

import functools
from typing import Callable

import numpy as np

from .. import nest
from ..executor.codegen import runtime_error
from ..shapes import TensorSpec
from ..tensor import EagerTensor
from ..tracing import OutputSlot
from .concrete import ConcreteFunction


def make_caller(concrete: ConcreteFunction, args: tuple, kwargs: dict) -> Callable | None:
    """A generated function (args, kwargs) -> outputs for calls shaped like this one, or None.

    Built when every tensor argument was passed at the top level (positionally or by
    keyword), so the caller reads `args[i]._value` directly without binding or flattening.
    Python-valued arguments are part of the fast key, so they need no checks here.
    """
    sig_args, sig_kwargs = concrete.structured_input_signature
    names = concrete.arg_names
    parts = []
    used_kwargs = set()

    def read(spec, value, src) -> bool:
        if isinstance(spec, TensorSpec):
            if type(value) is EagerTensor and value._value.dtype == spec.dtype._np:
                parts.append(f"{src}._value")
            elif isinstance(value, np.ndarray) and value.dtype == spec.dtype._np:
                parts.append(src)
            else:
                return False
        return not _nested_tensors(spec)

    for i, spec in enumerate(sig_args):
        if i < len(args):
            ok = read(spec, args[i], f"args[{i}]")
        elif i < len(names) and names[i] in kwargs:
            used_kwargs.add(names[i])
            ok = read(spec, kwargs[names[i]], f"kwargs[{names[i]!r}]")
        else:
            ok = not isinstance(spec, TensorSpec) and not _nested_tensors(spec)
        if not ok:
            return None
    for key, spec in sig_kwargs.items():
        if key in kwargs:
            used_kwargs.add(key)
            if not read(spec, kwargs[key], f"kwargs[{key!r}]"):
                return None
        elif isinstance(spec, TensorSpec):
            return None
    if len(args) > len(sig_args) or set(kwargs) - used_kwargs:
        return None
    single = isinstance(concrete.graph.structured_outputs, OutputSlot)
    factory = _caller_factory(f"run({', '.join(parts)})", "ET(r)" if single else "concrete.pack(r)")
    return factory(concrete.compiled.fn, EagerTensor, concrete, runtime_error)


def _nested_tensors(spec) -> bool:
    """True for a nest with a TensorSpec leaf (its values need flattening: no fast caller)."""
    return nest.is_nested(spec) and any(isinstance(s, TensorSpec) for s in nest.flatten(spec))


@functools.lru_cache(maxsize=512)
def _caller_factory(call: str, result: str):
    """Compiles, once per distinct call shape, a factory that binds a caller to a graph."""
    source = (
        "def make(run, ET, concrete, translate):\n"
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
