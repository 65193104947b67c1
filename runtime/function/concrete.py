"""`ConcreteFunction`: one traced graph of a Function, for one input signature."""

from __future__ import annotations

import threading
from typing import Any, Callable

import numpy as np

from .. import backends, context, html_repr, nest
from ..backends import runtime_error
from ..shapes import TensorSpec
from ..tensor import EagerTensor
from ..tracing import OutputSlot, fill_outputs
from . import logs, recorded_call
from .signature import describe, match


class ConcreteFunction:
    """One traced graph of a Function, for one input signature; callable with tensors."""

    def __init__(self, graph, function=None, attributes=None, name=None, arg_names=None,
                 trace_reason: str = "traced directly", backend: backends.Backend = backends.NUMPY):
        self.graph = graph
        self.backend = backend  # the tier that renders the graph (and its gradient graphs)
        self.trace_reason = trace_reason  # why the Function traced it (shown by reports)
        self._function = function
        self.arg_names: list[str] = list(arg_names or [])
        self.attributes = dict(attributes or {})
        self.name = name or graph.name
        self.structured_input_signature = graph.structured_input_signature
        self.structured_outputs = _public_outputs(graph.structured_outputs)
        self._compiled = None
        self._lock = threading.Lock()
        self.variables = tuple(graph.variables)
        # the function traced again with its staged loop gradients saving on stacks (set by
        # the Function for a graph holding a loop's saves in a list: recorded_call.py)
        self.stacked_form: Callable[[], ConcreteFunction] | None = None

    # -- lowering ----------------------------------------------------------------------
    @property
    def compiled(self):
        """The graph compiled by the function's backend (`.source` is the generated code)."""
        if self._compiled is None:
            with self._lock:
                if self._compiled is None:
                    self._compiled = backends.compile(self.graph, self.backend, self.name,
                                                      logs.log_event)
        return self._compiled

    @property
    def uses_compiler(self) -> bool:
        """True when a compiler tier (Numba or XLA, not the NumPy source tier) renders this
        function; `backend.name` says which. (TensorFlow's ConcreteFunction has no
        `jit_compile`; the option's value lives on the Function.)"""
        return self.backend is not backends.NUMPY

    @property
    def generated_source(self) -> str:
        """The source the backend generated for this graph."""
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

    @property
    def inference_fn(self) -> "InferenceFunction":
        """The traced graph as a function of its flat input tensors (TensorFlow's
        `inference_fn`): `cf.inference_fn(*flat_tensors)` returns the output tensor of a
        single-output graph, else the flat output list, as TensorFlow's does."""
        return InferenceFunction(self)

    @property
    def function_def(self):
        """The graph as plain data: `self.graph.as_graph_def()`."""
        return self.graph.as_graph_def()

    # -- running -----------------------------------------------------------------------
    def run(self, values: list):
        """Runs the graph on NumPy input values, one per placeholder; returns the packed outputs."""
        compiled = self.compiled
        tensor_fn = getattr(compiled, "tensor_fn", None)
        try:
            result = (tensor_fn or compiled.fn)(*values)
        except Exception as exc:
            translated = runtime_error(compiled, exc)
            if translated is None:
                raise
            raise translated from None
        return self.pack(result) if tensor_fn is None else self.pack_tensors(result)

    def pack(self, result):
        """The executor's raw result as eager tensors in the traced output structure."""
        structured = self.graph.structured_outputs
        if isinstance(structured, OutputSlot):
            return EagerTensor(result)
        flat = [EagerTensor(result)] if len(self.graph.outputs) == 1 else [EagerTensor(r) for r in result]
        return fill_outputs(structured, flat)

    def pack_tensors(self, result):
        """The result of a compiled `tensor_fn` (tensors already: a compiler tier's results
        that stay on its device) in the traced output structure."""
        structured = self.graph.structured_outputs
        if isinstance(structured, OutputSlot):
            return result
        return fill_outputs(structured, [result] if len(self.graph.outputs) == 1 else list(result))

    def __call__(self, *args, **kwargs):
        values = self.bind_values(args, kwargs)
        if context.state.tapes:
            return recorded_call.call_recorded(self, args, kwargs, values)
        return self.run(values)

    def bind_values(self, args: tuple, kwargs: dict) -> list:
        """The NumPy values of the tensor arguments, checked against the traced signature (a
        DeviceTensor's buffer as it is for a compiled tier that takes it, outside tapes)."""
        compiled = self._compiled
        lazy = (compiled is not None and getattr(compiled, "tensor_fn", None) is not None
                and not context.state.tapes)
        kwargs = dict(kwargs)
        sig_args, sig_kwargs = self.structured_input_signature
        if len(args) > len(sig_args) and not sig_kwargs:
            raise TypeError(f"{self.name}() takes {len(sig_args)} positional arguments but "
                            f"{len(args)} were given.")
        values: list = []
        given = _tensor_slots_only(sig_args, args) if not kwargs else list(args)
        # keyword arguments fill the remaining positional slots by placeholder name
        names = self.arg_names
        for i in range(len(given), len(sig_args)):
            name = names[i] if i < len(names) else None
            if name is not None and name in kwargs:
                given.append(kwargs.pop(name))
            else:
                spec = sig_args[i]
                if isinstance(spec, TensorSpec) or nest.is_nested(spec):
                    raise TypeError(f"{self.name}() is missing the argument {name or i!r} ({spec!r}).")
                given.append(spec)
        for i, (spec, value) in enumerate(zip(sig_args, given)):
            match(spec, value, f"{self.name}(): argument {i}", values, lazy=lazy)
        for key, spec in sig_kwargs.items():
            if key not in kwargs:
                if isinstance(spec, TensorSpec):
                    raise TypeError(f"{self.name}() is missing the keyword argument {key!r}.")
                continue
            match(spec, kwargs.pop(key), f"{self.name}(): argument {key!r}", values, lazy=lazy)
        if kwargs:
            raise TypeError(f"{self.name}() got unexpected keyword arguments {sorted(kwargs)}.")
        return values

    # -- describing ---------------------------------------------------------------------
    def pretty_printed_signature(self, verbose: bool = True) -> str:
        names = self.arg_names
        sig_args, sig_kwargs = self.structured_input_signature
        labels = [names[i] if i < len(names) else f"arg{i}" for i in range(len(sig_args))]
        labels += list(sig_kwargs)
        values = list(sig_args) + list(sig_kwargs.values())
        fname = self._function.__name__ if self._function is not None else self.name
        lines = [f"{fname}({', '.join(labels)})"]
        if values:
            lines.append("  Args:")
            lines += [f"    {label}: {describe(v)}" for label, v in zip(labels, values)]
        lines.append("  Returns:")
        lines.append(f"    {describe(self.structured_outputs)}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<ConcreteFunction {self.pretty_printed_signature().splitlines()[0]} at 0x{id(self):X}>"

    def __str__(self) -> str:
        return f"ConcreteFunction {self.pretty_printed_signature()}"

    def _repr_html_(self) -> str:
        """Jupyter's view: signature, why it was traced, tier and a summary of the graph."""
        return html_repr.concrete_function_html(self)


class InferenceFunction:
    """A ConcreteFunction's graph called on flat tensors, one per placeholder, giving the
    flat list of output tensors (no argument structure, no tape recording)."""

    def __init__(self, concrete: ConcreteFunction):
        self._concrete = concrete
        self.graph = concrete.graph
        self.name = concrete.name

    @property
    def cached_definition(self):
        return self.graph.as_graph_def()

    def __call__(self, *flat_inputs) -> Any:
        if len(flat_inputs) != len(self.graph.inputs):
            raise TypeError(f"{self.name}: inference_fn takes {len(self.graph.inputs)} flat "
                            f"tensors, got {len(flat_inputs)}.")
        values = [np.asarray(v) for v in flat_inputs]
        result = self._concrete.compiled.fn(*values)
        if len(self.graph.outputs) == 1:
            return EagerTensor(np.asarray(result))
        return [EagerTensor(np.asarray(r)) for r in result]

    def __repr__(self) -> str:
        return f"<InferenceFunction {self.name}: {len(self.graph.inputs)} inputs, " \
               f"{len(self.graph.outputs)} outputs>"


def _public_outputs(structured):
    """structured_outputs with each OutputSlot shown as the TensorSpec of its tensor."""
    def leaf(x):
        if isinstance(x, OutputSlot):
            return TensorSpec(x.tensor.shape, x.tensor.dtype)
        return x
    if nest.is_nested(structured):
        return nest.map_structure(leaf, structured)
    return leaf(structured)


def _takes_tensors(spec) -> bool:
    return isinstance(spec, TensorSpec) or (
        nest.is_nested(spec) and any(isinstance(leaf, TensorSpec) for leaf in nest.flatten(spec)))


def _tensor_slots_only(sig_args: tuple, args: tuple) -> list:
    """The positional values of a call: `args` as given, or, when they are exactly the
    tensor arguments of a trace whose other arguments were Python values (a model, a flag),
    those values with `args` in the tensor slots, as TensorFlow's concrete functions take
    (the Python values were bound when tracing)."""
    if len(args) >= len(sig_args):      # the usual call: nothing to look at
        return list(args)
    slots = [i for i, spec in enumerate(sig_args) if _takes_tensors(spec)]
    if len(slots) == len(sig_args) or len(args) != len(slots):
        return list(args)
    given = list(sig_args)
    for slot, value in zip(slots, args):
        given[slot] = value
    return given
