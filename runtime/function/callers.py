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
from ..backends import runtime_error
from ..ops.variables import VariableArgument
from ..shapes import TensorSpec
from ..tensor import DeviceTensor, EagerTensor
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
    shape = _read_call(concrete, args, kwargs, bound, guarded=False)
    if shape is None:
        return None
    factory = _caller_factory(f"run({', '.join(shape.reads)})", _result_source(concrete))
    caller = factory(_run_of(concrete), EagerTensor, concrete, runtime_error, shape.defaults)
    caller.guarded = None  # the guarded caller of the same call shape, once the Function made it
    return caller


def make_guarded_caller(concrete: ConcreteFunction, args: tuple, kwargs: dict,
                        bound: tuple | None = None) -> Callable | None:
    """A caller that first checks, in generated code, that a call has this call's structure,
    leaf types, shapes, dtypes and Python values (what its cache key holds) and returns
    `MISS` when it does not. It saves computing and hashing the key of a call (for a call of
    a few tensors, that is most of the runtime's own cost per call). None for calls with
    leaves it cannot check (variables, composite values, NumPy scalars)."""
    shape = _read_call(concrete, args, kwargs, bound, guarded=True)
    if shape is None:
        return None
    checks = [f"len(args) == {len(args)}", "not kwargs" if not kwargs else
              f"len(kwargs) == {len(kwargs)}", *shape.checks]
    unpack = f"    {', '.join(f'k{i}' for i in range(len(shape.consts)))}, = K\n" if shape.consts else ""
    run, result = _run_of(concrete), _result_source(concrete)
    inline = getattr(run, "inline", None)
    if inline is not None and result == "r":
        factory = _inlined_factory(" and ".join(checks), shape.reads, unpack, *inline)
    else:
        factory = _guarded_factory(" and ".join(checks), f"run({', '.join(shape.reads)})",
                                   result, unpack)
    caller = factory(run, EagerTensor, concrete, runtime_error, shape.defaults,
                     MISS, tuple(shape.consts))
    caller.concrete = concrete  # the Function drops the caller when its cache drops this
    return caller


MISS = object()  # a guarded caller's answer for a call of another shape


def _run_of(concrete: ConcreteFunction):
    """The compiled function a caller calls: one giving tensors when the tier has it."""
    compiled = concrete.compiled
    return getattr(compiled, "tensor_fn", None) or compiled.fn


def _takes_buffers(concrete: ConcreteFunction) -> bool:
    """Whether the compiled function takes a DeviceTensor's buffer as it is (`_lazy_value`)."""
    return getattr(concrete.compiled, "tensor_fn", None) is not None


def _result_source(concrete: ConcreteFunction) -> str:
    single = isinstance(concrete.graph.structured_outputs, OutputSlot)
    if _takes_buffers(concrete):
        return "r" if single else "concrete.pack_tensors(r)"
    return "ET(r)" if single else "concrete.pack(r)"


class _CallShape:
    """What generated callers read from a call: source expressions of the tensor leaves in
    graph-input order, defaults they read from, and (guarded callers) the checks and
    constants that recognise the call's shape."""

    def __init__(self, guarded: bool, lazy: bool = False):
        self.lazy = lazy  # eager tensors are read by `_lazy_value` (a DeviceTensor's buffer)
        self.reads: list[str] = []
        self.checks: list[str] | None = [] if guarded else None
        self.consts: list = []
        self._defaults: list = []

    @property
    def defaults(self) -> tuple:
        return tuple(self._defaults)

    def const(self, value) -> str:
        for i, c in enumerate(self.consts):
            if c is value:
                return f"k{i}"
        self.consts.append(value)
        return f"k{len(self.consts) - 1}"

    def default(self, value) -> str:
        if isinstance(value, (list, dict)) and _has_tensor_spec(value):
            raise _NoCaller  # a mutable default may change between calls
        self._defaults.append(value)
        return f"defaults[{len(self._defaults) - 1}]"


def _read_call(concrete, args, kwargs, bound, guarded: bool) -> _CallShape | None:
    """The _CallShape of a call of `concrete`, or None when no generated caller serves it."""
    sig_args, sig_kwargs = concrete.structured_input_signature
    names = concrete.arg_names
    bound_args, bound_kwargs = bound if bound is not None else ((), {})
    shape = _CallShape(guarded, _takes_buffers(concrete))
    used_kwargs = set()
    try:
        for i, spec in enumerate(sig_args):
            if i < len(args):
                leaf_reads(spec, args[i], f"args[{i}]", shape)
            elif i < len(names) and names[i] in kwargs:
                used_kwargs.add(names[i])
                leaf_reads(spec, kwargs[names[i]], f"kwargs[{names[i]!r}]", shape)
            elif _has_tensor_spec(spec):
                if i >= len(bound_args):
                    return None
                leaf_reads(spec, bound_args[i], shape.default(bound_args[i]), shape, checked=False)
        for key, spec in sig_kwargs.items():
            if key in kwargs:
                used_kwargs.add(key)
                leaf_reads(spec, kwargs[key], f"kwargs[{key!r}]", shape)
            elif _has_tensor_spec(spec):
                if key not in bound_kwargs:
                    return None
                leaf_reads(spec, bound_kwargs[key], shape.default(bound_kwargs[key]), shape,
                           checked=False)
    except _NoCaller:
        return None
    if len(args) > len(sig_args) or set(kwargs) - used_kwargs:
        return None
    return shape


def leaf_reads(spec, value, src: str, shape: _CallShape, checked: bool = True) -> None:
    """Adds to `shape` the reads (and checks, when `checked` and guarded) of the tensor leaves
    of `value` under `spec` (`value` is reached from the caller's arguments by the expression
    `src`); raises _NoCaller when `value` does not have the structure of `spec`."""
    checks = shape.checks if checked else None
    if type(spec) is VariableArgument or hasattr(type(spec), "_bind_argument"):
        raise _NoCaller  # the slow path binds the variable each call passes
    if isinstance(spec, TensorSpec):
        if type(value) is EagerTensor and value._value.dtype == spec.dtype._np:
            array = value._value
            read = f"{src}._lazy_value" if shape.lazy else f"{src}._value"
            kind = "ET"
        elif type(value) is DeviceTensor and value._box.dtype == spec.dtype._np:
            array = value._box  # its shape and dtype, without reading it
            read = f"{src}._lazy_value" if shape.lazy else f"{src}._value"
            kind = "ET"
        elif type(value) is np.ndarray and value.dtype == spec.dtype._np \
                and (checks is None or value.dtype.kind not in "OUS"):
            # (a guard never takes an array of strings or objects: its key is its identity)
            array, read, kind = value, src, "np.ndarray"
        else:
            raise _NoCaller
        if checks is None:
            shape.reads.append(read)
            return
        local = f"v{len(shape.reads)}"
        if kind == "ET":  # the key's own types: eager tensors, on the host or a device
            value_of = f"{src}._value" if not shape.lazy else \
                f"{src}._value if t is ET else {src}._lazy_value"
            is_kind = f"((t := type({src})) is ET or t is DT) and ({local} := {value_of}) is not None"
        else:
            is_kind = f"type({local} := {src}) is NDARRAY"
        checks.append(f"{is_kind} and {local}.shape == {tuple(array.shape)!r} "
                      f"and {local}.dtype is {shape.const(array.dtype)}")
        shape.reads.append(local)
        return
    if not nest.is_nested(spec):
        if checks is not None:  # a Python value: part of the call key, so part of the guard
            if type(value) not in _KEY_LITERALS + (float,) or type(value) is not type(spec):
                raise _NoCaller
            if type(value) is float and not (value == value and value != 0.0):
                raise _NoCaller  # the key tells -0.0 from 0.0 (equal) and NaN (unequal to itself)
            checks.append(f"type({src}) is {shape.const(type(value))} and {src} == {shape.const(value)}")
        return
    if type(value) is not type(spec):
        raise _NoCaller
    if checks is not None:
        checks.append(f"type({src}) is {shape.const(type(value))}")
        if isinstance(value, (dict, list, tuple)):
            checks.append(f"len({src}) == {len(value)}")
    for accessor, child_spec, child in _children(spec, value):
        leaf_reads(child_spec, child, src + accessor, shape, checked)


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


def _run_and_translate(call: str, result: str) -> str:
    """Source lines of a caller body: run the graph, translate its errors, return the result."""
    return ("        try:\n"
            f"            r = {call}\n"
            "        except Exception as exc:\n"
            "            t = translate(concrete.compiled, exc)\n"
            "            if t is None:\n"
            "                raise\n"
            "            raise t from None\n"
            f"        return {result}\n")


@functools.lru_cache(maxsize=512)
def _caller_factory(call: str, result: str):
    """Compiles, once per distinct call shape, a factory that binds a caller to a graph."""
    source = ("def make(run, ET, concrete, translate, defaults):\n"
              "    def caller(args, kwargs):\n"
              + _run_and_translate(call, result) +
              "    return caller\n")
    namespace: dict = {}
    exec(compile(source, "<rt-caller>", "exec"), namespace)
    return namespace["make"]


def _guard_source(check: str, unpack: str) -> str:
    """The first lines of a guarded caller's factory: the caller returns MISS unless `check`
    holds for its arguments."""
    return ("def make(run, ET, concrete, translate, defaults, MISS, K):\n"
            f"{unpack}"
            "    def caller(args, kwargs):\n"
            "        try:\n"
            f"            if not ({check}):\n"
            "                return MISS\n"
            "        except (LookupError, AttributeError, TypeError):\n"
            "            return MISS\n")


@functools.lru_cache(maxsize=512)
def _guarded_factory(check: str, call: str, result: str, unpack: str):
    """Compiles, once per distinct call shape, a factory that binds a guarded caller."""
    source = (_guard_source(check, unpack)
              + _run_and_translate(call, result) +
              "    return caller\n")
    namespace: dict = {"np": np, "NDARRAY": np.ndarray, "DT": DeviceTensor}
    exec(compile(source, "<rt-guarded-caller>", "exec"), namespace)
    return namespace["make"]


def _inlined_factory(check: str, reads: list, unpack: str, params: list, body: list,
                     names: dict):
    """A guarded caller's factory whose caller runs the compiled function's own body (its
    `inline` source: `params`, `body` lines and the `names` they read) in its frame."""
    assign = f"        {', '.join(params)}, = {', '.join(reads)},\n" if params else ""
    source = (_guard_source(check, unpack)
              + assign +
              "        try:\n"
              + "".join(f"        {line}\n" for line in body) +
              "        except Exception as exc:\n"
              "            t = translate(concrete.compiled, exc)\n"
              "            if t is None:\n"
              "                raise\n"
              "            raise t from None\n"
              "    return caller\n")
    namespace = dict(names)
    namespace.update({"np": np, "NDARRAY": np.ndarray, "DT": DeviceTensor})
    exec(compile(source, "<rt-guarded-caller>", "exec"), namespace)
    return namespace["make"]
