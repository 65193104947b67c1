"""`Function`: a Python function compiled into graphs, one per input signature.

Each call computes a key from its arguments (tensors by shape and dtype, Python values by
value); a new key traces the function into a graph, which the executor lowers to Python
once. Repeated keys skip straight to a generated caller.
"""

from __future__ import annotations

import functools
import inspect
import sys
import types
import weakref
from typing import Any, Callable, Concatenate, Generic, ParamSpec, TypeVar, overload

from .. import backends, context, html_repr, nest
from ..context import _run_eagerly, functions_run_eagerly
from ..context import state as _state
from ..gradients.while_grad import saving_stacks
from ..ops.extension_type import as_templates, trace_templates
from ..shapes import TensorSpec
from ..traceback_utils import filtered
from ..tracing import spec_of, trace
from . import callbacks, logs, recorded_call, reporting
from .backward import holds_loop_saves
from .cache import TraceCache
from .callers import MISS, make_guarded_caller
from .concrete import ConcreteFunction
from .conversion import convert
from .keys import UnhashableArgument, call_key
from .signature import apply_input_signature, bind_arguments, validate_input_signature

_RETRACE_WARNING_AFTER = 5
_ALLOWED_ATTRIBUTES = {"func_name": str, "noinline": bool, "implements": str}


_PY310 = sys.version_info < (3, 11)

P = ParamSpec("P")
R = TypeVar("R")
P2 = ParamSpec("P2")
S = TypeVar("S")


class Function(Generic[P, R]):
    """A Python function compiled into graphs, one per input signature (see `rt.function`).

    Generic in the parameters `P` and result `R` of the Python function, so that type
    checkers check calls of `@rt.function`-decorated functions as calls of the function."""

    def __init__(self, python_function: Callable[P, R], name: str | None = None,
                 input_signature: Any = None, autograph: bool = True,
                 experimental_autograph_options: Any = None, reduce_retracing: bool = False,
                 jit_compile: bool | str | None = None,
                 attributes: Any = None,
                 experimental_wait_for_compile: bool | None = None) -> None:
        if not callable(python_function):
            raise TypeError(f"rt.function needs a callable, got {python_function!r}.")
        if experimental_wait_for_compile is not None and not isinstance(
                experimental_wait_for_compile, bool):
            raise TypeError("rt.function: experimental_wait_for_compile must be True, False or "
                            f"None, got {experimental_wait_for_compile!r}.")
        self._wait_for_compile = experimental_wait_for_compile
        self._backend = backends.resolve(jit_compile).with_options(
            wait_for_compile=experimental_wait_for_compile)  # ValueError for an unknown tier
        self._backend.require()  # ImportError naming the extra to install
        self._jit_compile = jit_compile
        self._python_function = python_function
        self._name = name or _name_of(python_function)
        self._autograph = autograph
        self._autograph_options = experimental_autograph_options
        self._reduce_retracing = reduce_retracing
        self._attributes = validate_attributes(attributes)
        self._signature = _signature_of(python_function)
        self._input_signature = None
        self._given_signature = None  # as given: TypeSpecs of composite values kept for display
        if input_signature is not None:
            self._given_signature = tuple(input_signature)
            self._input_signature = validate_input_signature(as_templates(input_signature),
                                                             self._signature, self._name)
        self._cache = TraceCache(self._name)
        self._fast = self._cache.fast  # read on every call
        self._guarded = None  # the guarded caller of the last call shape seen twice, if any
        self._tracing_count = 0
        self._traces_in_a_row = 0
        self._next_retrace_warning = _RETRACE_WARNING_AFTER
        self._converted = None
        self._owner = None  # (Function, weak reference to the instance) of a bound method
        self._instances: weakref.WeakKeyDictionary[Any, Function[Any, R]] = (
            weakref.WeakKeyDictionary())
        self._instances_by_id: dict = {}
        functools.update_wrapper(self, python_function, updated=())

    # -- public properties ------------------------------------------------------------------
    @property
    def python_function(self) -> Callable[P, R]:
        """The Python function this compiles."""
        return self._python_function

    @property
    def __ag_python_function__(self):
        """What `ag.to_code` and `ag.to_graph` convert: the Python function, bound for a method."""
        if self._owner is None:
            return self._python_function
        parent, ref = self._owner
        return types.MethodType(parent._python_function, ref())

    @property
    def input_signature(self) -> tuple[TensorSpec, ...] | None:
        """The `input_signature` given to `rt.function` (a tuple of TensorSpecs and TypeSpecs),
        or None."""
        given = self._given_signature
        if given is not None and self._input_signature is not None \
                and len(given) == len(self._input_signature):
            return given
        return self._input_signature

    @property
    def function_spec(self) -> inspect.Signature | None:
        """The `inspect.Signature` of the Python function."""
        return self._signature

    @property
    def autograph(self) -> bool:
        """Whether the function is converted by autograph before tracing."""
        return self._autograph

    @property
    def autograph_options(self) -> Any:
        """The `experimental_autograph_options` given to `rt.function`."""
        return self._autograph_options

    @property
    def jit_compile(self) -> bool | str | None:
        """The `jit_compile` given to `rt.function` (None, False, True or a tier's name)."""
        return self._jit_compile

    @property
    def reduce_retracing(self) -> bool:
        """The `reduce_retracing` given to `rt.function`."""
        return self._reduce_retracing

    def experimental_get_tracing_count(self) -> int:
        """How many times this function has been traced (one per concrete function)."""
        return self._tracing_count

    # -- methods ---------------------------------------------------------------------------------
    @overload
    def __get__(self, instance: None, owner: type | None = None) -> Function[P, R]: ...

    @overload
    def __get__(self: Function[Concatenate[S, P2], R], instance: S,
                owner: type | None = None) -> Function[P2, R]: ...

    def __get__(self, instance: Any, owner: type | None = None) -> Function[Any, R]:
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
        """The Function of the method bound to `instance` (it holds the instance weakly)."""
        ref = weakref.ref(instance) if _weakrefable(instance) else (lambda: instance)
        original = self._python_function

        @functools.wraps(original)
        def method(*args, **kwargs):
            obj = ref()
            if obj is None:
                raise ReferenceError("The instance of this compiled method no longer exists.")
            return original(obj, *args, **kwargs)
        sig = self._input_signature
        if sig is not None:
            sig = sig[1:] if len(sig) == len(self._signature_positional()) else sig
        bound = Function(method, name=self._name, input_signature=None, autograph=self._autograph,
                         experimental_autograph_options=self._autograph_options,
                         reduce_retracing=self._reduce_retracing, jit_compile=self._jit_compile,
                         attributes=self._attributes,
                         experimental_wait_for_compile=self._wait_for_compile)
        bound._signature = _drop_first(self._signature)
        bound._owner = (self, ref)
        if sig is not None:
            bound._input_signature = tuple(sig)
            if self._given_signature is not None:
                bound._given_signature = self._given_signature[len(self._given_signature) - len(sig):]
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
    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        try:
            guarded = self._guarded
            if guarded is not None:
                # the last call's shape again, eagerly, with no tape recording: its guarded
                # caller checks the arguments in generated code and runs the graph
                state = _state
                if not (state.graphs or state.tapes or _run_eagerly[0]):
                    result = guarded(args, kwargs)
                    if result is not MISS:
                        if self._traces_in_a_row:
                            self._traces_in_a_row = 0
                            self._next_retrace_warning = _RETRACE_WARNING_AFTER
                        return result
            if functions_run_eagerly():
                return self._python_function(*args, **kwargs)
            if context.state.graphs and context.state.graphs[-1] is not None:
                return self._call_inline(args, kwargs)
            try:
                key = call_key(args, kwargs)
                entry = self._fast.get(key)
            except UnhashableArgument:
                key, entry = None, None
            if entry is not None and not context.state.tapes:
                if self._traces_in_a_row:
                    self._traces_in_a_row = 0
                    self._next_retrace_warning = _RETRACE_WARNING_AFTER
                if entry.guarded is not None:  # this call's shape is now the one checked first
                    self._guarded = entry.guarded
                return entry(args, kwargs)
            return self._call_slow(args, kwargs, key)
        except Exception as e:
            filtered(e)  # the traceback ends in the user's code
            if _PY310:
                raise e  # a bare `raise` would restore the whole traceback; this frame stays
            raise

    def _call_inline(self, args, kwargs):
        """Called while another function traces: trace this body into the same graph."""
        fn = self._traceable()
        if self._input_signature is not None:
            self._bind(args, kwargs)  # validates against the signature
        with context.name_scope(self._name):
            return fn(*args, **kwargs)

    def _call_slow(self, args, kwargs, fast_key):
        traces_before = self._tracing_count
        concrete, bound_args, bound_kwargs = self._concrete_for(args, kwargs)
        values = concrete.bind_values(bound_args, bound_kwargs)
        # the fast caller of a call shape is generated when the shape comes again: a function
        # called once (scripts, one-off traces) never pays for it
        guarded = self._guarded
        if guarded is not None and not self._cache.holds(guarded.concrete):
            self._guarded = None  # its graph was dropped from the cache: traced again if needed
        if fast_key is not None and self._tracing_count == traces_before:
            self._cache.add_caller(fast_key, concrete, args, kwargs, (bound_args, bound_kwargs))
            entry = self._fast.get(fast_key)
            if entry is not None and entry.guarded is None:
                guarded = make_guarded_caller(concrete, args, kwargs, (bound_args, bound_kwargs))
                if guarded is not None:
                    entry.guarded = self._guarded = guarded
        if context.state.tapes:
            return recorded_call.call_recorded(concrete, bound_args, bound_kwargs, values)
        return concrete.run(values)

    def get_concrete_function(self, *args: Any, **kwargs: Any) -> ConcreteFunction:
        """The concrete function for these arguments (values or TensorSpecs), tracing if needed."""
        if not args and not kwargs and self._input_signature is not None:
            args = tuple(self._input_signature)
        args, kwargs = as_templates(args), as_templates(kwargs)  # TypeSpecs of composite values
        try:
            return self._concrete_for(args, kwargs)[0]
        except Exception as e:
            filtered(e)
            if _PY310:
                raise e
            raise

    def pretty_printed_concrete_signatures(self, verbose: bool = True) -> str:
        """The signatures of the concrete functions traced so far, one paragraph each."""
        return "\n\n".join(c.pretty_printed_signature(verbose) for c in self._cache.traced)

    def list_concrete_functions(self) -> list[ConcreteFunction]:
        """The concrete functions traced so far, in tracing order."""
        return list(self._cache.traced)

    # -- tracing ---------------------------------------------------------------------------------
    def _traceable(self):
        """The function that tracing runs: autograph-converted unless autograph=False."""
        if not self._autograph:
            return self._python_function
        if self._converted is None:
            if self._owner is not None:
                parent, ref = self._owner
                converted = parent._traceable()

                def method(*args, **kwargs):
                    return converted(ref(), *args, **kwargs)
                self._converted = method
            else:
                self._converted = convert(self._python_function, self._autograph_options)
        return self._converted

    def _bind(self, args, kwargs):
        """The arguments bound to the parameters (defaults applied), and the arguments to
        trace with: the input_signature, when there is one, after checking the call matches it."""
        pos, kw = bind_arguments(self._signature, args, kwargs, self._name)
        if self._input_signature is None:
            return pos, kw, pos
        return pos, kw, apply_input_signature(self._input_signature, pos, kw, self._arg_names(), self._name)

    def _concrete_for(self, args, kwargs):
        real_args, real_kwargs, bound_args = self._bind(args, kwargs)
        # ragged and sparse tensors are traced by their TypeSpec (any number of values)
        bound_args, bound_kwargs = trace_templates(bound_args), trace_templates(real_kwargs)
        try:
            ckey = call_key(bound_args, bound_kwargs)
        except UnhashableArgument as exc:
            raise TypeError(self._unhashable_message(exc.args[0], bound_args, bound_kwargs)) from None
        concrete = self._cache.lookup(ckey, bound_args, bound_kwargs,
                                      lambda: self._trace(bound_args, bound_kwargs))
        return concrete, real_args, real_kwargs

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

    def _trace(self, args, kwargs):
        relax = self._cache.relaxed_shapes(args, kwargs) if self._reduce_retracing else None
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
        names = self._arg_names()
        if self._traces_in_a_row == self._next_retrace_warning:
            self._next_retrace_warning *= 2
            self._warn_retracing(args, kwargs, names)
        traceable = self._traceable()  # converts (and loads autograph's logging) first
        reason = self._cache.retrace_reason(args, kwargs, names)
        if logs.wanted(1):
            logs.log_event(1, f"Tracing {self._name}: {reason}")
        produced: list = []

        def recording(leaf):
            spec = specs_for(leaf)
            produced.append(spec)
            return spec
        graph = trace(traceable, args, kwargs, recording, name, names,
                      autograph=bool(self._autograph))
        concrete = ConcreteFunction(graph, self._python_function, self._attributes, name, names,
                                    trace_reason=reason, backend=self._backend)
        loop_saves = holds_loop_saves(graph)
        if self._input_signature is None or loop_saves:
            again = _TraceAgain(self, args, kwargs, produced, name, names)
            if self._input_signature is None:  # saving traces it once more, as TensorFlow does
                concrete._trace_again = again
            if loop_saves:  # a tape in the function around a loop: see recorded_call.py
                concrete.stacked_form = again.stacked_form
        callbacks.notify(concrete)
        if self._tracing_count == 1 and self._owner is None:
            logs.note_new_function_traced(self._python_function, self._name)
        return concrete

    def report(self, *args: Any, path: str | None = None, **kwargs: Any) -> str:
        """One HTML page of this function's pipeline (see `runtime.report`, which registers the
        builder: see `function/reporting.py`); `path` writes it."""
        return reporting.build_report(self, *args, path=path, **kwargs)

    def _warn_retracing(self, args, kwargs, names) -> None:
        """Warns after 5 traces in a row, then after 10, 20, ...; names the changing argument."""
        changed = self._cache.changed_argument(args, kwargs, names)
        culprit = "" if changed is None else (
            f" Argument {changed[0]!r} keeps changing (last {changed[1]}, now {changed[2]}).")
        logs.warn(
            logs.logger,
            "%s has been traced %d times in a row.%s Tracing is expensive; pass tensors instead "
            "of Python numbers (each new Python value is a new trace, even with "
            "reduce_retracing=True), or fix the shapes with input_signature.",
            self._name, self._traces_in_a_row, culprit)

    def __repr__(self) -> str:
        return f"<rt.Function {self._name}>"

    def _repr_html_(self) -> str:
        """Jupyter's view: signature, options and one row per trace."""
        return html_repr.function_html(self)


class _TraceAgain:
    """A trace of a Function made again, for the signature it was traced with (the Python
    function runs again: its prints show).

    Called, it is the trace made when the function is saved (the first time only), as
    TensorFlow's save traces a function without an input_signature once more. `stacked_form`
    is the trace made again with the loop gradients staged inside the function (a tape in it
    around a loop) in their differentiable-again form, saves on stacks: the form a call
    recorded by nested or persistent tapes differentiates (`recorded_call.py`). It is not
    counted as a trace (TensorFlow traces such a function once)."""

    def __init__(self, function: Function, args, kwargs, specs: list, name: str, names):
        self._function, self._args, self._kwargs = function, args, kwargs
        self._specs, self._name, self._names = specs, name, names
        self._saved: ConcreteFunction | None = None
        self._stacked: ConcreteFunction | None = None

    def __call__(self) -> ConcreteFunction:
        if self._saved is None:
            self._function._tracing_count += 1   # counted, as TensorFlow counts it
            self._saved = self._trace("traced again to be saved")
        return self._saved

    def stacked_form(self) -> ConcreteFunction:
        if self._stacked is None:
            with saving_stacks():
                self._stacked = self._trace("traced again with its loop gradients' saves on "
                                            "stacks, for nested tapes")
        return self._stacked

    def _trace(self, reason: str) -> ConcreteFunction:
        fn = self._function
        replay = iter(self._specs)
        graph = trace(fn._traceable(), self._args, self._kwargs, lambda leaf: next(replay),
                      self._name, self._names, autograph=bool(fn._autograph))
        return ConcreteFunction(graph, fn._python_function, fn._attributes, self._name,
                                self._names, trace_reason=reason, backend=fn._backend)


def validate_attributes(attributes) -> dict:
    """`attributes` as a dict, after checking their names and value types."""
    attributes = dict(attributes or {})
    for name, value in attributes.items():
        if name not in _ALLOWED_ATTRIBUTES:
            raise ValueError(f"Function attribute {name!r} is not allowed; allowed attributes are "
                             f"{sorted(_ALLOWED_ATTRIBUTES)}.")
        if not isinstance(value, (str, int, float, bool)):
            raise ValueError(f"Function attribute {name!r} must be a str, int, float or bool, got "
                             f"{type(value).__name__} {value!r}.")
    return attributes


def _name_of(fn) -> str:
    while isinstance(fn, functools.partial):
        fn = fn.func
    return getattr(fn, "__name__", "function")


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
