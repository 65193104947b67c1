"""Tracing: running a Python callable on placeholders to build a FuncGraph."""

from __future__ import annotations

import types

import numpy as np

from . import context, nest
from .graph import FuncGraph
from .ops.array_math import identity
from .ops.core import convert_to_tensor
from .ops.variables import Variable, VariableArgument, bound_variable
from .shapes import TensorSpec
from .tensor import DeviceTensor, EagerTensor, SymbolicTensor, Tensor


def spec_of(value) -> TensorSpec | None:
    """The TensorSpec of a tensor-like argument leaf, or None for a Python value."""
    if isinstance(value, TensorSpec):
        return value
    if type(value) is EagerTensor:
        return TensorSpec(value._value.shape, value.dtype)
    if type(value) is DeviceTensor:  # its shape without reading it
        return TensorSpec(value.shape, value.dtype)
    if isinstance(value, (np.ndarray, np.generic)):
        if value.dtype.kind in "OUS":
            return None
        return TensorSpec(value.shape, value.dtype)
    return None


def trace(python_fn, args, kwargs, specs_for, name: str, arg_names,
          autograph: bool = False) -> FuncGraph:
    """Traces `python_fn(*args, **kwargs)`; tensor leaves become placeholders, and variable
    leaves `VariableArgument`s (each call binds them to the variables it passes).

    `specs_for(leaf)` returns the TensorSpec for a leaf that becomes a placeholder
    (it may relax dims), or None for a leaf passed through as a Python value. `autograph`
    marks the graph as traced with autograph on (error messages read it). The graph
    returned is frozen.
    """
    graph = FuncGraph(name)
    graph.autograph = autograph
    with context.graph_scope(graph):
        placeholder_args = []
        for i, arg in enumerate(args):
            label = arg_names[i] if i < len(arg_names) else f"args_{i}"
            placeholder_args.append(_placeholders(graph, arg, label, specs_for))
        placeholder_kwargs = {k: _placeholders(graph, v, k, specs_for) for k, v in kwargs.items()}
        graph.structured_input_signature = (
            tuple(_signature(a) for a in placeholder_args),
            {k: _signature(v) for k, v in placeholder_kwargs.items()})
        outputs = python_fn(*placeholder_args, **placeholder_kwargs)
        graph.structured_outputs = _capture_outputs(graph, outputs, name)
    graph.freeze()  # traced: passes and gradients build new graphs from here on
    return graph


def _placeholders(graph, value, label, specs_for):
    leaves = nest.flatten(value)
    new = []
    for i, leaf in enumerate(leaves):
        if isinstance(leaf, Variable):
            new.append(VariableArgument(bound_variable(leaf)))
            continue
        stand_in = getattr(type(leaf), "_stand_in", None)
        if stand_in is not None:  # a dataset or iterator: bound to the one each call passes
            new.append(stand_in(leaf))
            continue
        spec = specs_for(leaf)
        if spec is None:
            new.append(leaf)
            continue
        tag = spec.name or (label if len(leaves) == 1 else f"{label}_{i}")
        new.append(graph.placeholder(spec.shape, spec.dtype, name=tag))
    return nest.pack_sequence_as(value, new) if nest.is_nested(value) else new[0]


def _signature(value):
    def leaf(x):
        if type(x) is SymbolicTensor:
            return TensorSpec(x.shape, x.dtype, x.op.name)
        return x
    return nest.map_structure(leaf, value) if nest.is_nested(value) else leaf(value)


class OutputSlot:
    """Marks a graph output inside structured_outputs."""

    __slots__ = ("index", "tensor")

    def __init__(self, index, tensor):
        self.index = index
        self.tensor = tensor


def fill_outputs(structured, flat: list):
    """`structured` (a graph's structured_outputs) with each OutputSlot replaced by its value."""
    if isinstance(structured, OutputSlot):
        return flat[structured.index]
    if not nest.is_nested(structured):
        return structured
    leaves = [flat[x.index] if isinstance(x, OutputSlot) else x for x in nest.flatten(structured)]
    return nest.pack_sequence_as(structured, leaves)


def _symbolic_attribute(obj) -> str | None:
    """The name of an attribute of a plain object that holds a symbolic tensor, if any."""
    if isinstance(obj, (type, types.ModuleType, types.FunctionType, types.MethodType)):
        return None
    attributes = getattr(obj, "__dict__", None)
    if not isinstance(attributes, dict):
        return None
    for name, value in attributes.items():
        if any(isinstance(leaf, SymbolicTensor) for leaf in nest.flatten(value)):
            return name
    return None


def _capture_outputs(graph, outputs, function_name: str = "the function"):
    """Records tensor leaves of `outputs` as graph outputs; Python leaves stay as they are
    (a staged TensorArray, such as a list a staged loop appended to, is returned stacked).
    Dataclasses and namedtuples are nests; another object holding a symbolic tensor would
    outlive the trace, so it is an error."""
    flat = nest.flatten(outputs)
    structured = []
    for leaf in flat:
        as_output = getattr(leaf, "_as_function_output", None)
        if as_output is not None:
            leaf = as_output()
        is_tensor = hasattr(leaf, "_as_tensor") or isinstance(leaf, Tensor)
        attribute = None if is_tensor else _symbolic_attribute(leaf)
        if attribute is not None:
            raise TypeError(
                f"{function_name} returns an object of type {type(leaf).__name__} whose attribute "
                f"'{attribute}' holds a symbolic tensor; it would keep that trace-time tensor on "
                "every call. Return tensors in a tuple, list, dict, namedtuple or dataclass "
                "instead.")
        if is_tensor:
            tensor = convert_to_tensor(leaf)
            if isinstance(tensor, EagerTensor):
                tensor = graph.capture(tensor)
            if any(tensor is t for t in graph.outputs) or any(tensor is t for t in graph.inputs):
                tensor = identity(tensor)
            graph.outputs.append(tensor)
            structured.append(OutputSlot(len(graph.outputs) - 1, tensor))
        else:
            structured.append(leaf)
    return nest.pack_sequence_as(outputs, structured) if nest.is_nested(outputs) else structured[0]
