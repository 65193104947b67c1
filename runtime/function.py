"""Compiled functions: `rt.function` / `rt.defun`, their cache of concrete functions, callbacks.

A `Function` wraps a Python function. Each call computes a key from its arguments (tensors
by shape and dtype, Python values by value); a new key traces the function into a graph,
which the executor lowers to Python once. Repeated keys skip straight to a generated caller.
"""

from __future__ import annotations

import functools
import inspect
import logging
import threading
import warnings
import weakref

import numpy as np

from . import context, jit, nest
from .executor.codegen import lower, runtime_error
from .shapes import TensorShape, TensorSpec
from .tensor import EagerTensor, SymbolicTensor, Tensor
from .tracing import OutputSlot, spec_of, trace

logger = logging.getLogger("runtime")

_SCALARS = (int, float, bool, str, bytes, type(None), complex)
_FAST_CACHE_LIMIT = 4096
_RETRACE_WARNING_AFTER = 5
_callbacks: list = []
_log_listeners: list = []  # fn(level, message): autograph's verbosity-controlled logging


def _log_event(level: int, message: str) -> None:
    """Logs a cache event: level 1 for traces (INFO), 2 for cache hits off the fast path (DEBUG)."""
    logger.log(logging.INFO if level <= 1 else logging.DEBUG, message)
    for listener in _log_listeners:
        listener(level, message)


# -- cache keys ------------------------------------------------------------------------------

def _key_eager(x):
    v = x._value
    return (v.shape, v.dtype)


def _key_array(x):
    if x.dtype.kind in "OUS":
        return (np.ndarray, id(x))
    # distinct from an eager tensor's key: fast callers read `._value` from eager tensors only
    return ("nd", x.shape, x.dtype)


def _key_scalar(x):
    return (type(x), x)


def _key_seq(x):
    return (type(x), tuple([_leaf_key(v) for v in x]))


def _key_dict(x):
    return (type(x), tuple(sorted(((k, _leaf_key(v)) for k, v in x.items()), key=lambda kv: repr(kv[0]))))


def _key_spec(x):
    return ("spec", x.shape.as_tuple(), x.dtype.name)


_KEYERS = {EagerTensor: _key_eager, np.ndarray: _key_array, list: _key_seq, tuple: _key_seq,
           dict: _key_dict, TensorSpec: _key_spec}
for _t in _SCALARS:
    _KEYERS[_t] = _key_scalar


class UnhashableArgument(TypeError):
    pass


def _leaf_key(x):
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
    if isinstance(x, SymbolicTensor):
        return ("sym", x.shape.as_tuple(), x.dtype.name)
    if hasattr(x, "_as_tensor"):  # variables and other stateful objects: by identity
        return ("obj", id(x))
    try:
        hash(x)
    except TypeError:
        raise UnhashableArgument(x) from None
    return (type(x), x)


def _leaf_key_or_none(x):
    try:
        return _leaf_key(x)
    except UnhashableArgument:
        return None


def _call_key(args, kwargs):
    if kwargs:
        return (tuple([_leaf_key(a) for a in args]),
                tuple([(k, _leaf_key(v)) for k, v in kwargs.items()]))
    return tuple([_leaf_key(a) for a in args])


# -- concrete functions -------------------------------------------------------------------------

class ConcreteFunction:
    """One traced graph of a Function, for one input signature; callable with tensors."""

    def __init__(self, graph, function=None, attributes=None, name=None, arg_names=None):
        self.graph = graph
        self._function = function
        self._arg_names = list(arg_names or [])
        self.attributes = dict(attributes or {})
        self.name = name or graph.name
        self.structured_input_signature = graph.structured_input_signature
        self.structured_outputs = _public_outputs(graph.structured_outputs)
        self._compiled = None
        self._lock = threading.Lock()
        self.variables = tuple(graph.variables)
        self._jit_compile = False

    # -- lowering ----------------------------------------------------------------------
    @property
    def compiled(self):
        """The executor's lowered graph (its `.source` is the generated Python)."""
        if self._compiled is None:
            with self._lock:
                if self._compiled is None:
                    self._compiled = (jit.compile_graph(self.graph, self.name, _log_event)
                                      if self._jit_compile else lower(self.graph, self.name))
        return self._compiled

    @property
    def generated_source(self) -> str:
        """The Python source the executor generated for this graph."""
        return self.compiled.source

    @property
    def inputs(self):
        return self.graph.inputs

    @property
    def outputs(self):
        return self.graph.outputs

    @property
    def function_type(self):
        return self.structured_input_signature

    # -- running -----------------------------------------------------------------------
    def _run(self, values):
        """Runs the graph on NumPy input values; returns the packed outputs."""
        fn = self.compiled.fn
        try:
            result = fn(*values)
        except Exception as exc:
            translated = runtime_error(self.compiled, exc)
            if translated is None:
                raise
            raise translated from None
        return self._pack(result)

    def _pack(self, result):
        n = len(self.graph.outputs)
        structured = self.graph.structured_outputs
        if isinstance(structured, OutputSlot):
            return EagerTensor(result)
        flat = [EagerTensor(result)] if n == 1 else [EagerTensor(r) for r in result]
        return _fill_outputs(structured, flat)

    def __call__(self, *args, **kwargs):
        values = self._bind_values(args, kwargs)
        if context.state.tapes:
            from .gradients import function_call
            return function_call.call_recorded(self, args, kwargs, values)
        return self._run(values)

    def _bind_values(self, args, kwargs):
        sig_args, sig_kwargs = self.structured_input_signature
        if len(args) > len(sig_args) and not sig_kwargs:
            raise TypeError(f"{self.name}() takes {len(sig_args)} positional arguments but "
                            f"{len(args)} were given.")
        values = []
        expected = list(sig_args)
        given = list(args)
        # keyword arguments fill the remaining positional slots by placeholder name
        if len(given) < len(expected):
            names = self._arg_names
            for i in range(len(given), len(expected)):
                name = names[i] if names and i < len(names) else None
                if name is not None and name in kwargs:
                    given.append(kwargs.pop(name))
                else:
                    spec = expected[i]
                    if isinstance(spec, TensorSpec) or nest.is_nested(spec):
                        raise TypeError(f"{self.name}() is missing the argument {name or i!r} "
                                        f"({spec!r}).")
                    given.append(spec)
        for label, spec, value in zip(range(len(expected)), expected, given):
            _collect(spec, value, values, f"argument {label}", self.name)
        for key, spec in sig_kwargs.items():
            if key not in kwargs:
                if isinstance(spec, TensorSpec):
                    raise TypeError(f"{self.name}() is missing the keyword argument {key!r}.")
                continue
            _collect(spec, kwargs.pop(key), values, f"argument {key!r}", self.name)
        if kwargs:
            raise TypeError(f"{self.name}() got unexpected keyword arguments {sorted(kwargs)}.")
        return values

    # -- describing ---------------------------------------------------------------------
    def pretty_printed_signature(self, verbose: bool = True) -> str:
        names = self._arg_names
        sig_args, sig_kwargs = self.structured_input_signature
        labels = [names[i] if i < len(names) else f"arg{i}" for i in range(len(sig_args))]
        labels += list(sig_kwargs)
        values = list(sig_args) + list(sig_kwargs.values())
        fname = self._function.__name__ if self._function is not None else self.name
        lines = [f"{fname}({', '.join(labels)})"]
        if values:
            lines.append("  Args:")
            lines += [f"    {label}: {_describe(v)}" for label, v in zip(labels, values)]
        lines.append("  Returns:")
        lines.append(f"    {_describe(self.structured_outputs)}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<ConcreteFunction {self.pretty_printed_signature().splitlines()[0]} at 0x{id(self):X}>"

    def __str__(self) -> str:
        return f"ConcreteFunction {self.pretty_printed_signature()}"


def _public_outputs(structured):
    def leaf(x):
        if isinstance(x, OutputSlot):
            return TensorSpec(x.tensor.shape, x.tensor.dtype)
        return x
    if nest.is_nested(structured):
        return nest.map_structure(leaf, structured)
    return leaf(structured)


def _fill_outputs(structured, flat):
    if isinstance(structured, OutputSlot):
        return flat[structured.index]
    if not nest.is_nested(structured):
        return structured
    leaves = [flat[x.index] if isinstance(x, OutputSlot) else x for x in nest.flatten(structured)]
    return nest.pack_sequence_as(structured, leaves)


def _describe(value) -> str:
    if isinstance(value, TensorSpec):
        return f"{value.dtype.name} Tensor, shape={value.shape}"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_describe(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        inner = ", ".join(_describe(v) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner}{',' if len(value) == 1 else ''})"
    return f"Python {type(value).__name__} {value!r}"


def _collect(spec, value, values, label, fname):
    """Appends the NumPy values of the tensor leaves of `value` that `spec` describes."""
    if isinstance(spec, TensorSpec):
        array = _as_array(value, spec, label, fname)
        values.append(array)
        return
    if nest.is_nested(spec):
        if not nest.is_nested(value) or nest.structure_signature(spec) != nest.structure_signature(value):
            raise TypeError(f"{fname}(): {label} has structure {_structure_text(value)} but the "
                            f"function was traced for {_structure_text(spec)}.")
        for s, v in zip(nest.flatten(spec), nest.flatten(value)):
            _collect(s, v, values, label, fname)
        return
    if value is spec:
        return
    try:
        same = bool(value == spec) and type(value) is type(spec)
    except Exception:
        same = False
    if not same:
        raise TypeError(f"{fname}(): {label} is {value!r}, but this concrete function was traced "
                        f"with the Python value {spec!r}. Call the Function to trace a new one.")


def _structure_text(value) -> str:
    sig = nest.structure_signature(value)
    return str(sig).replace("'*'", "*")


def _as_array(value, spec: TensorSpec, label: str, fname: str):
    if hasattr(value, "_as_tensor") and not isinstance(value, Tensor):
        value = value._as_tensor()
    if isinstance(value, Tensor) and hasattr(value, "_as_tensor"):
        value = value._as_tensor()
    if type(value) is EagerTensor:
        array = value._value
    elif isinstance(value, (np.ndarray, np.generic)):
        array = value
    elif isinstance(value, SymbolicTensor):
        raise TypeError(f"{fname}(): {label} is a symbolic tensor of another graph.")
    else:
        from .tensor import to_numpy_value
        try:
            array = to_numpy_value(value, spec.dtype)
        except TypeError as exc:
            raise TypeError(f"{fname}(): {label}: expected {spec!r}, received {value!r}: {exc}") from None
    if array.dtype != spec.dtype._np:
        raise ValueError(f"{fname}(): {label}: expected {spec!r}, received a tensor of dtype "
                         f"{np.dtype(array.dtype).name} and shape {TensorShape(array.shape)}.")
    if not spec.shape.is_compatible_with(array.shape):
        raise ValueError(f"{fname}(): {label}: expected {spec!r}, received a tensor of shape "
                         f"{TensorShape(array.shape)} (dtype {np.dtype(array.dtype).name}).")
    return array


@functools.lru_cache(maxsize=None)
def _param_names_of(fn):
    try:
        return [p.name for p in inspect.signature(fn).parameters.values()
                if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        return []


def _param_names(fn):
    if fn is None:
        return []
    try:
        return _param_names_of(fn)
    except TypeError:  # unhashable callables
        return []


# -- Function ----------------------------------------------------------------------------------

_ALLOWED_ATTRIBUTES = {"func_name": str, "noinline": bool, "implements": str}


class Function:
    """A Python function compiled into graphs, one per input signature (see `rt.function`)."""

    def __init__(self, python_function, name=None, input_signature=None, autograph=True,
                 experimental_autograph_options=None, reduce_retracing=False, jit_compile=None,
                 attributes=None):
        if not callable(python_function):
            raise TypeError(f"rt.function needs a callable, got {python_function!r}.")
        if jit_compile:
            jit.require_numba()
        self._python_function = python_function
        self._name = name or getattr(python_function, "__name__", "function")
        self._autograph = autograph
        self._autograph_options = experimental_autograph_options
        self._reduce_retracing = reduce_retracing
        self._jit_compile = jit_compile
        self._attributes = _validate_attributes(attributes)
        self._signature = _signature_of(python_function)
        self._input_signature = None
        if input_signature is not None:
            self._input_signature = _validate_input_signature(input_signature, self._signature,
                                                              self._name)
        self._fast: dict = {}
        self._concrete: list = []  # (canonical key, ConcreteFunction)
        self._canonical: dict = {}
        self._lock = threading.RLock()
        self._tracing_count = 0
        self._traces_in_a_row = 0
        self._converted = None
        self._instances = weakref.WeakKeyDictionary()
        self._instances_by_id: dict = {}
        functools.update_wrapper(self, python_function, updated=())

    # -- public properties ------------------------------------------------------------------
    @property
    def python_function(self):
        return self._python_function

    @property
    def input_signature(self):
        return self._input_signature

    @property
    def function_spec(self):
        return self._signature

    def experimental_get_tracing_count(self) -> int:
        return self._tracing_count

    # -- methods ---------------------------------------------------------------------------------
    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        try:
            bound = self._instances.get(instance)
        except TypeError:
            bound = self._instances_by_id.get(id(instance))
        if bound is None:
            bound = self._bind_to(instance)
        return bound

    def _bind_to(self, instance):
        ref = weakref.ref(instance) if _weakrefable(instance) else (lambda: instance)
        original = self._python_function

        @functools.wraps(original)
        def method(*args, **kwargs):
            obj = ref()
            if obj is None:
                raise ReferenceError("The instance of this compiled method no longer exists.")
            return original(obj, *args, **kwargs)
        method._rt_unbound = original
        sig = self._input_signature
        if sig is not None:
            sig = sig[1:] if len(sig) == len(self._signature_positional()) else sig
        bound = Function(method, name=self._name, input_signature=None, autograph=self._autograph,
                         experimental_autograph_options=self._autograph_options,
                         reduce_retracing=self._reduce_retracing, attributes=self._attributes)
        bound._signature = _drop_first(self._signature)
        bound._owner = (self, ref)
        if sig is not None:
            bound._input_signature = tuple(sig)
        try:
            self._instances[instance] = bound
        except TypeError:
            key = id(instance)
            self._instances_by_id[key] = bound
            if _weakrefable(instance):
                weakref.finalize(instance, self._instances_by_id.pop, key, None)
        return bound

    def _arg_names(self):
        return [p.name for p in self._signature_positional()]

    def _signature_positional(self):
        return [p for p in self._signature.parameters.values()
                if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)] if self._signature else []

    # -- calling ---------------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        if context._run_eagerly[0]:
            return self._python_function(*args, **kwargs)
        if context.state.graphs and context.state.graphs[-1] is not None:
            return self._call_inline(args, kwargs)
        try:
            key = _call_key(args, kwargs)
            entry = self._fast.get(key)
        except UnhashableArgument:
            key, entry = None, None
        if entry is not None and not context.state.tapes:
            self._traces_in_a_row = 0
            return entry(args, kwargs)
        return self._call_slow(args, kwargs, key)

    def _call_inline(self, args, kwargs):
        """Called while another function traces: trace this body into the same graph."""
        fn = self._traceable()
        if self._input_signature is not None:
            self._canonicalize(args, kwargs)  # validates against the signature
        with context.name_scope(self._name):
            return fn(*args, **kwargs)

    def _call_slow(self, args, kwargs, fast_key):
        concrete, bound_args, bound_kwargs = self._concrete_for(args, kwargs)
        values = concrete._bind_values(bound_args, dict(bound_kwargs))
        if fast_key is not None and len(self._fast) < _FAST_CACHE_LIMIT:
            caller = _make_caller(concrete, args, kwargs, bound_args, bound_kwargs)
            if caller is not None:
                self._fast[fast_key] = caller
        if context.state.tapes:
            from .gradients import function_call
            return function_call.call_recorded(concrete, bound_args, bound_kwargs, values)
        return concrete._run(values)

    def get_concrete_function(self, *args, **kwargs) -> ConcreteFunction:
        """The concrete function for these arguments (values or TensorSpecs), tracing if needed."""
        if not args and not kwargs and self._input_signature is not None:
            args = tuple(self._input_signature)
        return self._concrete_for(args, kwargs)[0]

    def pretty_printed_concrete_signatures(self, verbose: bool = True) -> str:
        return "\n\n".join(c.pretty_printed_signature(verbose) for _, c in self._concrete)

    def list_concrete_functions(self):
        return [c for _, c in self._concrete]

    # -- tracing ---------------------------------------------------------------------------------
    def _traceable(self):
        """The function that tracing runs: autograph-converted unless autograph=False."""
        if not self._autograph:
            return self._python_function
        if self._converted is None:
            owner = getattr(self, "_owner", None)
            if owner is not None:
                parent, ref = owner
                converted = parent._traceable()

                def method(*args, **kwargs):
                    return converted(ref(), *args, **kwargs)
                self._converted = method
            else:
                self._converted = _convert(self._python_function, self._autograph_options)
        return self._converted

    def _canonicalize(self, args, kwargs):
        """Binds arguments to parameters (defaults applied): (args tuple, kwargs dict)."""
        sig = self._signature
        if sig is None:
            return args, kwargs
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError as exc:
            raise TypeError(f"{self._name}(): {exc}") from None
        bound.apply_defaults()
        pos, kw = [], {}
        for name, value in bound.arguments.items():
            kind = sig.parameters[name].kind
            if kind == inspect.Parameter.VAR_POSITIONAL:
                pos.extend(value)
            elif kind == inspect.Parameter.VAR_KEYWORD:
                kw.update(value)
            elif kind == inspect.Parameter.KEYWORD_ONLY:
                kw[name] = value
            else:
                pos.append(value)
        if self._input_signature is not None:
            pos = self._apply_input_signature(pos, kw)
        return tuple(pos), kw

    def _apply_input_signature(self, pos, kw):
        sig = self._input_signature
        names = self._arg_names()
        if kw:
            raise TypeError(f"{self._name}() has an input_signature; pass its arguments "
                            f"positionally, got keyword arguments {sorted(kw)}.")
        if len(pos) != len(sig):
            raise TypeError(f"{self._name}() has an input_signature of {len(sig)} arguments "
                            f"but was called with {len(pos)}.")
        checked = []
        for i, (spec, value) in enumerate(zip(sig, pos)):
            label = f"argument {names[i]!r}" if i < len(names) else f"argument {i}"
            _check_against_spec(spec, value, label, self._name)
            checked.append(spec)
        return checked

    def _concrete_for(self, args, kwargs):
        bound_args, bound_kwargs = self._canonicalize(args, kwargs)
        if self._input_signature is not None:
            real_args, real_kwargs = self._canonicalize_values(args, kwargs)
        else:
            real_args, real_kwargs = bound_args, bound_kwargs
        try:
            ckey = _call_key(bound_args, bound_kwargs)
        except UnhashableArgument as exc:
            raise TypeError(self._unhashable_message(exc.args[0], bound_args, bound_kwargs)) from None
        concrete = self._canonical.get(ckey)
        if concrete is None:
            with self._lock:
                concrete = self._canonical.get(ckey)
                if concrete is None:
                    concrete = self._lookup_general(bound_args, bound_kwargs)
                    if concrete is not None and (_log_listeners or logger.isEnabledFor(logging.DEBUG)):
                        _log_event(2, f"Cache hit for {self._name}: the graph traced for "
                                      f"{_describe(concrete.structured_input_signature[0])} fits")
                    if concrete is None:
                        concrete = self._trace(bound_args, bound_kwargs)
                        self._concrete.append((ckey, concrete))
                    self._canonical[ckey] = concrete
        return concrete, real_args, real_kwargs

    def _canonicalize_values(self, args, kwargs):
        sig = self._signature
        bound = sig.bind(*args, **kwargs)
        bound.apply_defaults()
        return tuple(bound.arguments.values()), {}

    def _unhashable_message(self, value, args, kwargs):
        names = self._arg_names()
        label = "an argument"
        for i, a in enumerate(args):
            if a is value or (nest.is_nested(a) and any(v is value for v in nest.flatten(a))):
                label = f"argument {names[i]!r}" if i < len(names) else f"argument {i}"
        for k, a in kwargs.items():
            if a is value:
                label = f"argument {k!r}"
        return (f"{self._name}(): {label} is an unhashable {type(value).__name__} ({value!r:.60}); "
                "compiled functions key their cache on Python arguments, so pass a hashable value, "
                "a tensor, or a list/tuple/dict of them.")

    def _lookup_general(self, args, kwargs):
        """An existing concrete function whose specs are supertypes of these arguments."""
        specs = _specs_of(args, kwargs)
        if specs is None:
            return None
        for _, concrete in self._concrete:
            if _fits(specs, concrete.structured_input_signature):
                return concrete
        return None

    def _trace(self, args, kwargs):
        relax = self._relaxed_shapes(args, kwargs) if self._reduce_retracing else None
        count = [0]

        def specs_for(leaf):
            spec = spec_of(leaf)
            if spec is None:
                return None
            if relax is not None:
                shape = relax[count[0]]
                count[0] += 1
                return TensorSpec(shape, spec.dtype, spec.name)
            return spec

        name = self._attributes.get("func_name") or self._name
        self._tracing_count += 1
        self._traces_in_a_row += 1
        if self._traces_in_a_row == _RETRACE_WARNING_AFTER:
            logger.warning(
                "%s has been traced %d times in a row. Tracing is expensive; pass tensors instead "
                "of Python numbers, use input_signature or reduce_retracing=True to avoid it.",
                self._name, self._traces_in_a_row)
        traceable = self._traceable()  # converts (and loads autograph's logging) first
        if _log_listeners or logger.isEnabledFor(logging.INFO):
            _log_event(1, f"Tracing {self._name}: {self._retrace_reason(args, kwargs)}")
        names = self._arg_names()
        graph = trace(traceable, args, kwargs, specs_for, name, names)
        concrete = ConcreteFunction(graph, self._python_function, self._attributes, name, names)
        concrete._jit_compile = bool(self._jit_compile)
        for cb in list(_callbacks):
            cb(concrete, concrete.name, graph, graph.inputs, graph.outputs)
        return concrete

    def _retrace_reason(self, args, kwargs) -> str:
        """Why this call needs a new trace, in words (for the logs)."""
        if not self._concrete:
            return "first call"
        names = self._arg_names()
        _, latest = self._concrete[-1]
        old_args, old_kwargs = latest.structured_input_signature
        pairs = [(names[i] if i < len(names) else f"argument {i}", new, old)
                 for i, (new, old) in enumerate(zip(args, old_args))]
        pairs += [(k, kwargs[k], old_kwargs.get(k)) for k in kwargs]
        for name, new, old in pairs:
            new_spec = spec_of(new) or (new if isinstance(new, TensorSpec) else None)
            if isinstance(old, TensorSpec) and new_spec is not None:
                if new_spec.dtype is not old.dtype or not new_spec.shape.is_subtype_of(old.shape):
                    return (f"argument {name!r} changed from {_describe(old)} to "
                            f"{_describe(TensorSpec(new_spec.shape, new_spec.dtype))}")
            elif _leaf_key_or_none(new) != _leaf_key_or_none(old):
                return f"argument {name!r} changed from {old!r:.60} to {new!r:.60}"
        return "a new combination of arguments"

    def _relaxed_shapes(self, args, kwargs):
        """Shapes for reduce_retracing: dims that differ from earlier traces become None."""
        specs = [spec_of(leaf) for leaf in nest.flatten((args, kwargs))]
        specs = [s for s in specs if s is not None]
        shapes = [s.shape for s in specs]
        for _, concrete in self._concrete:
            old = [s for s in nest.flatten(concrete.structured_input_signature)
                   if isinstance(s, TensorSpec)]
            if len(old) == len(specs) and all(o.dtype is s.dtype for o, s in zip(old, specs)):
                shapes = [s.most_specific_common_supertype([o.shape]) for s, o in zip(shapes, old)]
        return shapes

    def __repr__(self) -> str:
        return f"<rt.Function {self._name}>"


def _weakrefable(obj) -> bool:
    try:
        weakref.ref(obj)
        return True
    except TypeError:
        return False


def _drop_first(sig):
    if sig is None:
        return None
    params = list(sig.parameters.values())[1:]
    return sig.replace(parameters=params)


def _signature_of(fn):
    try:
        return inspect.signature(fn)
    except (TypeError, ValueError):
        return None


def _validate_attributes(attributes):
    attributes = dict(attributes or {})
    for name, value in attributes.items():
        if name not in _ALLOWED_ATTRIBUTES:
            raise ValueError(f"Function attribute {name!r} is not allowed; allowed attributes are "
                             f"{sorted(_ALLOWED_ATTRIBUTES)}.")
        if not isinstance(value, (str, int, float, bool)):
            raise ValueError(f"Function attribute {name!r} must be a str, int, float or bool, got "
                             f"{type(value).__name__} {value!r}.")
    return attributes


def _validate_input_signature(input_signature, sig, name):
    if not isinstance(input_signature, (list, tuple)):
        raise TypeError(f"{name}: input_signature must be a list or tuple of TensorSpecs, got "
                        f"{input_signature!r}.")
    for spec in nest.flatten(list(input_signature)):
        if not isinstance(spec, TensorSpec):
            raise TypeError(f"{name}: input_signature must contain only TensorSpecs, got {spec!r}.")
    if sig is not None:
        for p in sig.parameters.values():
            if p.kind == p.VAR_KEYWORD:
                raise TypeError(f"{name}: a function with **{p.name} cannot have an "
                                "input_signature; name its arguments instead.")
    return tuple(input_signature)


def _check_against_spec(spec, value, label, fname):
    if isinstance(spec, TensorSpec):
        if isinstance(value, TensorSpec):
            if not (value.dtype is spec.dtype and value.shape.is_subtype_of(spec.shape)):
                raise ValueError(f"{fname}(): {label}: expected {spec!r}, received {value!r}.")
            return
        if isinstance(value, SymbolicTensor):
            if value.dtype is not spec.dtype or not spec.shape.is_compatible_with(value.shape):
                raise ValueError(f"{fname}(): {label}: expected {spec!r}, received a tensor of "
                                 f"shape {value.shape} and dtype {value.dtype.name}.")
            return
        _as_array(value, spec, label, fname)
        return
    if not nest.is_nested(value) or len(nest.flatten(value)) != len(nest.flatten(spec)):
        raise TypeError(f"{fname}(): {label}: expected a structure like {spec!r}, received {value!r}.")
    for s, v in zip(nest.flatten(spec), nest.flatten(value)):
        _check_against_spec(s, v, label, fname)


def _specs_of(args, kwargs):
    leaves = nest.flatten((list(args), kwargs))
    if not any(spec_of(leaf) is not None for leaf in leaves):
        return None
    return (args, kwargs)


def _fits(specs, signature) -> bool:
    """True when the call (args, kwargs) fits an existing signature (supertype shapes)."""
    args, kwargs = specs
    sig_args, sig_kwargs = signature
    if len(args) != len(sig_args) or set(kwargs) != set(sig_kwargs):
        return False
    pairs = list(zip(args, sig_args)) + [(kwargs[k], sig_kwargs[k]) for k in kwargs]
    for value, expected in pairs:
        if nest.structure_signature(value) != nest.structure_signature(expected):
            return False
        for v, e in zip(nest.flatten(value), nest.flatten(expected)):
            spec = spec_of(v)
            if isinstance(e, TensorSpec):
                if spec is None or spec.dtype is not e.dtype or not spec.shape.is_subtype_of(e.shape):
                    return False
            elif spec is not None:
                return False
            else:
                try:
                    if type(v) is not type(e) or not bool(v == e):
                        return False
                except Exception:
                    return False
    return True


# -- fast callers -----------------------------------------------------------------------------

def _make_caller(concrete, args, kwargs, bound_args, bound_kwargs):
    """A generated function (args, kwargs) -> outputs for one call shape, or None.

    Built when every tensor argument was passed at the top level (positionally or by
    keyword), so the caller reads `args[i]._value` directly without binding or flattening.
    Python-valued arguments are part of the fast key, so they need no checks here.
    """
    sig_args, sig_kwargs = concrete.structured_input_signature
    names = concrete._arg_names
    parts = []
    used_kwargs = set()

    def source_of(spec, value, src):
        if isinstance(spec, TensorSpec):
            if type(value) is EagerTensor and value._value.dtype == spec.dtype._np:
                parts.append(f"{src}._value")
            elif isinstance(value, np.ndarray) and value.dtype == spec.dtype._np:
                parts.append(src)
            else:
                return False
        elif nest.is_nested(spec) and any(isinstance(s, TensorSpec) for s in nest.flatten(spec)):
            return False
        return True

    for i, spec in enumerate(sig_args):
        if i < len(args):
            ok = source_of(spec, args[i], f"args[{i}]")
        elif i < len(names) and names[i] in kwargs:
            used_kwargs.add(names[i])
            ok = source_of(spec, kwargs[names[i]], f"kwargs[{names[i]!r}]")
        else:
            ok = not isinstance(spec, TensorSpec) and not (
                nest.is_nested(spec) and any(isinstance(s, TensorSpec) for s in nest.flatten(spec)))
        if not ok:
            return None
    for key, spec in sig_kwargs.items():
        if key in kwargs:
            used_kwargs.add(key)
            if not source_of(spec, kwargs[key], f"kwargs[{key!r}]"):
                return None
        elif isinstance(spec, TensorSpec):
            return None
    if len(args) > len(sig_args) or set(kwargs) - used_kwargs:
        return None
    single = isinstance(concrete.graph.structured_outputs, OutputSlot)
    factory = _caller_factory(f"run({', '.join(parts)})", "ET(r)" if single else "concrete._pack(r)")
    return factory(concrete.compiled.fn, EagerTensor, concrete, runtime_error)


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


# -- autograph ------------------------------------------------------------------------------------

def _convert(python_function, options):
    """The autograph-converted function (the one place the runtime uses autograph)."""
    try:
        from . import autograph_backend
    except ImportError:  # pragma: no cover - the converter is part of this distribution
        warnings.warn("autograph is unavailable; tracing the function as written.", stacklevel=3)
        return python_function
    return autograph_backend.convert(python_function, options)


# -- public entry points -----------------------------------------------------------------------

def function(func=None, *, input_signature=None, autograph=True, experimental_autograph_options=None,
             reduce_retracing=False, jit_compile=None, name=None, experimental_relax_shapes=None,
             **_ignored):
    """Compiles `func` into traced graphs; usable as `@rt.function` or `@rt.function(...)`."""
    if experimental_relax_shapes is not None:
        reduce_retracing = reduce_retracing or bool(experimental_relax_shapes)

    def decorate(fn):
        return Function(fn, name=name, input_signature=input_signature, autograph=autograph,
                        experimental_autograph_options=experimental_autograph_options,
                        reduce_retracing=reduce_retracing, jit_compile=jit_compile)
    return decorate if func is None else decorate(func)


def defun(func=None, input_signature=None, autograph=True, experimental_autograph_options=None,
          reduce_retracing=False, experimental_relax_shapes=None):
    """The seed's name for `rt.function`."""
    return function(func, input_signature=input_signature, autograph=autograph,
                    experimental_autograph_options=experimental_autograph_options,
                    reduce_retracing=reduce_retracing,
                    experimental_relax_shapes=experimental_relax_shapes)


def defun_with_attributes(func=None, input_signature=None, attributes=None, autograph=True,
                          experimental_autograph_options=None, jit_compile=None,
                          reduce_retracing=False, experimental_relax_shapes=None):
    """`defun` with function attributes: `func_name` (str), `noinline` (bool), `implements` (str)."""
    attributes = _validate_attributes(attributes)
    if experimental_relax_shapes:
        reduce_retracing = True

    def decorate(fn):
        return Function(fn, name=attributes.get("func_name"), input_signature=input_signature,
                        autograph=autograph, experimental_autograph_options=experimental_autograph_options,
                        reduce_retracing=reduce_retracing, jit_compile=jit_compile,
                        attributes=attributes)
    return decorate if func is None else decorate(func)


def register(func, *args, **kwargs) -> ConcreteFunction:
    """Traces `func` (a compiled Function) for these arguments without running it."""
    if not isinstance(func, Function):
        raise ValueError(f"register() needs a function made by rt.function or rt.defun, got "
                         f"{func!r}.")
    return func.get_concrete_function(*args, **kwargs)


def add_function_callback(callback) -> None:
    """Calls `callback(function, name, graph, inputs, outputs)` for each new concrete function."""
    if callback not in _callbacks:
        _callbacks.append(callback)


def remove_function_callback(callback) -> None:
    """Stops calling a callback added with add_function_callback (KeyError if it was not added)."""
    try:
        _callbacks.remove(callback)
    except ValueError:
        raise KeyError(f"{callback!r} is not a registered function callback.") from None


def clear_function_callbacks() -> None:
    """Removes every function callback."""
    _callbacks.clear()


def run_functions_eagerly(run_eagerly: bool) -> None:
    """When True, compiled functions run their Python code on every call."""
    context.run_functions_eagerly(run_eagerly)


def functions_run_eagerly() -> bool:
    """True when compiled functions currently run their Python code eagerly."""
    return context.functions_run_eagerly()


def experimental_run_functions_eagerly(run_eagerly: bool) -> None:
    """Deprecated name of run_functions_eagerly (warns with DeprecationWarning)."""
    warnings.warn("experimental_run_functions_eagerly is deprecated; use run_functions_eagerly.",
                  DeprecationWarning, stacklevel=2)
    run_functions_eagerly(run_eagerly)


def experimental_functions_run_eagerly() -> bool:
    """Deprecated name of functions_run_eagerly (warns with DeprecationWarning)."""
    warnings.warn("experimental_functions_run_eagerly is deprecated; use functions_run_eagerly.",
                  DeprecationWarning, stacklevel=2)
    return functions_run_eagerly()
