"""Graphs to file entries and back: the one module that reads and builds runtime graphs.

A graph entry lists its placeholders, its ops in program order, and its outputs. Tensors are
numbered in the order they are defined (placeholders, then each op's subgraphs, then its
outputs, depth first), and an op refers to its inputs by number. Loading accepts a number
only when that tensor is already defined in the same graph or an enclosing one, so a file
cannot describe a cycle, a dangling input or a tensor out of its scope.
"""

from __future__ import annotations

import numpy as np

from .. import context, gradients, nest
from ..function import ConcreteFunction, Function
from ..graph import FuncGraph
from ..layers import Layer
from ..module import Module
from ..opdef import CONST
from ..ops.array_math import IndexSlot
from ..ops.control_flow import COND, WHILE
from ..ops.summary import WRITE_SUMMARY
from ..ops.summary import saved_attrs as saved_summary_attrs
from ..ops.variables import READ, Variable
from ..shapes import TensorShape, TensorSpec
from ..tracing import OutputSlot
from . import schema
from .codec import Decoder, Encoder, Output, check_index, check_name, dtype_named, safe_name, shape_from

_ = gradients  # registers the gradient graphs' ops (accumulators, ...) that saved graphs may use
MAX_GRAPH_DEPTH = 32
MAX_TENSORS = 2 ** 22
_CONTROL_FLOW = (COND, WHILE)  # the ops with subgraphs a file may hold: two each

SLOT_TYPE = IndexSlot
OUTPUT_TYPE = OutputSlot


def is_variable(value) -> bool:
    return isinstance(value, Variable)


def is_layer(value) -> bool:
    return isinstance(value, Layer)


def is_module(value) -> bool:
    return isinstance(value, Module)


def is_function(value) -> bool:
    return isinstance(value, Function)


def is_concrete(value) -> bool:
    return isinstance(value, ConcreteFunction)


def variable_state(var) -> dict:
    """The saved description of a variable; ValueError when it has no value yet."""
    value = var._value
    if value is None:
        raise ValueError(f"Variable {var.name} has no value yet (it is created by a function that "
                         "has not run); call the function once before saving.")
    # a Keras weight is saved under its path, the name TensorFlow gives its tf.Variable
    name = var.name if getattr(var, "_path", None) is None else var.path + ":0"
    return {"value": np.asarray(value), "name": safe_name(name), "dtype": var.dtype.name,
            "shape": list(np.shape(value)), "trainable": bool(var.trainable)}


def new_variable(value: np.ndarray, name: str, trainable: bool) -> Variable:
    base = name[:-2] if name.endswith(":0") else name
    with context.init_scope():
        return Variable(value, trainable=trainable, name=base)


def variables_read(concrete) -> list:
    """The variables a concrete function's graph refers to, in first-use order."""
    found: dict[int, object] = {}
    for op in concrete.graph.all_operations():
        for value in op.attrs.values():
            if isinstance(value, Variable):
                found.setdefault(id(value), value)
    return list(found.values())


# -- writing ------------------------------------------------------------------------------------

class _Numbering:
    def __init__(self):
        self.ids: dict[int, int] = {}
        self.keep: list = []

    def define(self, tensor) -> None:
        self.ids[id(tensor)] = len(self.ids)
        self.keep.append(tensor)

    def ref(self, tensor, where: str) -> int:
        found = self.ids.get(id(tensor))
        if found is None:
            raise ValueError(f"{where} reads tensor {tensor.name}, which is defined later or "
                             "outside this function; such a graph cannot be saved.")
        return found


def encode_function(concrete, name: str, encoder: Encoder, lifted: list | None = None) -> dict:
    """The file entry of a concrete function.

    With `lifted` (a list of variables), the function reads those variables from extra inputs
    appended after its own (`variables_as_inputs`): the saved function is then pure.
    """
    graph = concrete.graph
    numbering = _Numbering()
    lifted_refs = {}
    inputs = list(graph.inputs)
    entry_inputs = [_placeholder_entry(t) for t in inputs]
    for t in inputs:
        numbering.define(t)
    for i, var in enumerate(lifted or ()):
        lifted_refs[id(var)] = len(numbering.ids)
        numbering.define(var)
        entry_inputs.append({"name": f"variable_{i}", "shape": list(var.shape.as_tuple()),
                             "dtype": var.dtype.name})
    body = _encode_graph(graph, numbering, encoder, lifted_refs if lifted is not None else None,
                         f"function {name!r}")
    body["inputs"] = entry_inputs
    args, kwargs = concrete.structured_input_signature
    if lifted is not None:
        if kwargs:
            raise ValueError(f"function {name!r}: keyword arguments cannot be combined with "
                             "variables passed as inputs.")
        args = (*args, tuple(TensorSpec(v.shape, v.dtype, f"variable_{i}")
                             for i, v in enumerate(lifted)))
    where = f"function {name!r} signature"
    return {
        "name": name,
        "graph": body,
        "input_signature": encoder.encode((tuple(args), dict(kwargs)), where),
        "outputs": encoder.encode(graph.structured_outputs, where),
        "arg_names": [safe_name(n) for n in concrete.arg_names]
        + (["variables"] if lifted is not None else []),
        "attributes": dict(concrete.attributes),
    }


def _placeholder_entry(t) -> dict:
    return {"name": safe_name(t.op.name), "shape": _dims(t.shape), "dtype": t.dtype.name}


def _dims(shape):
    dims = shape.as_tuple()
    return None if dims is None else list(dims)


def _encode_graph(graph, numbering, encoder, lifted_refs, where) -> dict:
    ops = []
    for op in graph.operations:
        ops.append(_encode_op(op, numbering, encoder, lifted_refs, where))
    return {"name": safe_name(graph.name),
            "inputs": [_placeholder_entry(t) for t in graph.inputs],
            "ops": ops,
            "outputs": [numbering.ref(t, f"{where}: output") for t in graph.outputs]}


def _encode_op(op, numbering, encoder, lifted_refs, where) -> dict:
    here = f"{where}: op {op.name!r} ({op.type})"
    if schema.savable_op(op.type) is not op.opdef:
        raise ValueError(f"{here} cannot be saved: it is not a registered op with plain attributes.")
    kind = op.type
    inputs = [numbering.ref(t, here) for t in op.inputs]
    attrs = op.attrs
    if lifted_refs is not None and op.opdef.variable:
        var = attrs["var"]
        if op.opdef is not READ or id(var) not in lifted_refs:
            raise ValueError(f"{here}: with variables passed as inputs, a function may only read "
                             "the variables it was given.")
        kind, inputs, attrs = "Identity", [lifted_refs[id(var)]], {}
    if op.opdef is WRITE_SUMMARY:
        attrs = saved_summary_attrs(attrs, here)
    ctx = schema.AttrContext(len(inputs), Variable, IndexSlot)
    problems = schema.attr_errors(kind, attrs, ctx)
    if problems:
        raise ValueError(f"{here} cannot be saved: {'; '.join(problems)}.")
    subgraphs = []
    for sub in op.subgraphs:
        for t in sub.inputs:
            numbering.define(t)
        subgraphs.append(_encode_graph(sub, numbering, encoder, lifted_refs, here))
    for t in op.outputs:
        numbering.define(t)
    return {
        "name": safe_name(op.name),
        "type": kind,
        "inputs": inputs,
        "attrs": {k: encoder.encode(v, f"{here} attribute {k!r}") for k, v in attrs.items()},
        "outputs": [[_dims(t.shape), t.dtype.name] for t in op.outputs],
        "subgraphs": subgraphs,
        "device": safe_name(op.device) if op.device else "",
        "location": None if op.location is None else list(op.location),
    }


# -- reading ------------------------------------------------------------------------------------

_GRAPH_KEYS = {"name", "inputs", "ops", "outputs"}
_OP_KEYS = {"name", "type", "inputs", "attrs", "outputs", "subgraphs", "device", "location"}
_FUNCTION_KEYS = {"name", "graph", "input_signature", "outputs", "arg_names", "attributes"}


def _need(entry, keys, where):
    if type(entry) is not dict or set(entry) != keys:
        found = sorted(entry) if type(entry) is dict else type(entry).__name__
        raise ValueError(f"{where}: expected the keys {sorted(keys)}, found {found}.")


def _list(value, where, what, limit=MAX_TENSORS):
    if type(value) is not list or len(value) > limit:
        raise ValueError(f"{where}: {what} must be a list (of at most {limit} items).")
    return value


class _Builder:
    """Builds validated graphs; tensors are numbered as the writer numbered them."""

    def __init__(self, decoder: Decoder, variables: list):
        self.decoder = decoder
        self.variables = variables
        self.tensors: list = []

    def tensor(self, ref, graph, where):
        check_index(ref, len(self.tensors), where, "tensor reference")
        tensor = self.tensors[ref]
        if not tensor.op.graph.is_ancestor_of(graph):
            raise ValueError(f"{where}: tensor reference {ref} is not visible here (it belongs to "
                             "another branch or loop body).")
        return tensor

    def define(self, tensors, where):
        if len(self.tensors) + len(tensors) > MAX_TENSORS:
            raise ValueError(f"{where}: more than {MAX_TENSORS} tensors.")
        self.tensors.extend(tensors)

    def placeholders(self, graph, entries, where):
        out = []
        for i, entry in enumerate(_list(entries, where, "inputs")):
            here = f"{where} input {i}"
            _need(entry, {"name", "shape", "dtype"}, here)
            name = check_name(entry["name"], here, False)
            tensor = graph.placeholder(shape_from(entry["shape"], here),
                                       dtype_named(entry["dtype"], here), name=name)
            tensor.op.name = name
            out.append(tensor)
        self.define(out, where)
        return out

    def graph(self, entry, graph, where, depth):
        if depth > MAX_GRAPH_DEPTH:
            raise ValueError(f"{where}: subgraphs nested more than {MAX_GRAPH_DEPTH} deep.")
        _need(entry, _GRAPH_KEYS, where)
        graph.name = check_name(entry["name"], where, False)
        for i, op_entry in enumerate(_list(entry["ops"], where, "ops")):
            self.op(op_entry, graph, f"{where} op {i}", depth)
        graph.outputs = [self.tensor(r, graph, f"{where} outputs")
                         for r in _list(entry["outputs"], where, "outputs")]
        return graph

    def op(self, entry, graph, where, depth):
        _need(entry, _OP_KEYS, where)
        name = check_name(entry["name"], where, False)
        where = f"{where} ({name!r})"
        kind = entry["type"]
        opdef = schema.savable_op(kind)
        if opdef is None:
            raise ValueError(f"{where}: unknown op type {str(kind)[:60]!r}.")
        where = f"{where}, a {kind}"
        ins = [self.tensor(r, graph, where) for r in _list(entry["inputs"], where, "inputs")]
        attrs_entry = entry["attrs"]
        if type(attrs_entry) is not dict:
            raise ValueError(f"{where}: attrs must be an object.")
        attrs = {check_name(k, where, False): self.decoder.decode(v, f"{where} attribute {k!r}")
                 for k, v in attrs_entry.items()}
        problems = schema.attr_errors(kind, attrs, schema.AttrContext(len(ins), Variable, IndexSlot))
        if problems:
            raise ValueError(f"{where}: {'; '.join(problems)}.")
        stored = [self.spec(s, where) for s in _list(entry["outputs"], where, "outputs", 4096)]
        subgraphs = self.subgraphs(entry["subgraphs"], opdef, ins, stored, graph, where, depth)
        specs = self.out_specs(opdef, ins, attrs, stored, where)
        op = graph.create_op(opdef, ins, attrs, specs, name=name, subgraphs=subgraphs)
        op.name = name
        op.device = self.device(entry["device"], where)
        op.location = self.location(entry["location"], where)
        self.define(op.outputs, where)

    def spec(self, entry, where):
        if type(entry) is not list or len(entry) != 2:
            raise ValueError(f"{where}: an output is [shape, dtype].")
        return shape_from(entry[0], where), dtype_named(entry[1], where)

    def subgraphs(self, entries, opdef, ins, stored, graph, where, depth):
        entries = _list(entries, where, "subgraphs", 2)
        expected = 2 if opdef in _CONTROL_FLOW else 0
        if len(entries) != expected:
            raise ValueError(f"{where}: expected {expected} subgraphs, found {len(entries)}.")
        out = []
        for i, sub_entry in enumerate(entries):
            here = f"{where} subgraph {i}"
            if type(sub_entry) is not dict:
                raise ValueError(f"{here}: a subgraph must be an object.")
            sub = FuncGraph("subgraph", outer_graph=graph)
            self.placeholders(sub, sub_entry.get("inputs"), here)
            out.append(self.graph(sub_entry, sub, here, depth + 1))
        if opdef is COND:
            _check_if(ins, stored, out, where)
        elif opdef is WHILE:
            _check_while(ins, stored, out, where)
        return tuple(out)

    def out_specs(self, opdef, ins, attrs, stored, where):
        if opdef in _CONTROL_FLOW:
            return stored
        if opdef is CONST:
            if ins:
                raise ValueError(f"{where}: a Const has no inputs.")
            value = attrs["value"]
            name = "string" if value.dtype == object else value.dtype.name  # ARRAY: bytes items
            return [(TensorShape(value.shape), dtype_named(name, where))]
        try:
            specs = opdef.infer(*ins, **attrs)
        except Exception as exc:  # a shape rule's error on inputs the file combined wrongly
            raise ValueError(f"{where}: its inputs and attributes do not fit together: "
                             f"{type(exc).__name__}: {str(exc)[:200]}") from None
        specs = [specs] if opdef.num_outputs == 1 else list(specs)
        if len(specs) != len(stored) or any(s[1] is not d for s, (_, d) in zip(specs, stored)):
            raise ValueError(f"{where}: the file declares outputs {_describe(stored)} but the op "
                             f"makes {_describe(specs)}.")
        return specs

    def device(self, value, where):
        if value == "":
            return ""
        return check_name(value, f"{where} device", False)

    def location(self, value, where):
        if value is None:
            return None
        if (type(value) is not list or len(value) != 3 or type(value[0]) is not str
                or len(value[0]) > 4096 or type(value[1]) is not int or type(value[2]) is not str
                or len(value[2]) > 256 or not value[0].isprintable() or not value[2].isprintable()):
            raise ValueError(f"{where}: a location is [file name, line, function name].")
        return (value[0], value[1], value[2])


def _describe(specs) -> str:
    return "[" + ", ".join(f"{d.name}{s}" for s, d in specs) + "]"


def _check_if(ins, stored, branches, where):
    if len(ins) != 1 or not ins[0].dtype.is_bool:
        raise ValueError(f"{where}: an If takes one bool predicate.")
    for branch in branches:
        _check_results(branch, branch.outputs, stored, where)
        if branch.inputs:
            raise ValueError(f"{where}: If branches take no inputs.")


def _check_while(ins, stored, graphs, where):
    cond, body = graphs
    n = len(stored)
    if len(ins) not in (n, n + 1) or len(cond.outputs) != 1 or not cond.outputs[0].dtype.is_bool:
        raise ValueError(f"{where}: a While takes its {n} loop variables (and an optional maximum "
                         "iteration count) and a condition returning one bool.")
    for graph in graphs:
        _check_results(graph, graph.inputs, stored, where)
    _check_results(body, body.outputs, stored, where)
    _check_results(body, ins[:n], stored, where)
    if len(ins) == n + 1 and not ins[n].dtype.is_integer:
        raise ValueError(f"{where}: the maximum iteration count must be an integer.")


def _check_results(graph, tensors, stored, where):
    if len(tensors) != len(stored) or any(
            t.dtype is not d or not t.shape.is_compatible_with(s)
            for t, (s, d) in zip(tensors, stored)):
        raise ValueError(f"{where}: subgraph {graph.name!r} has values "
                         f"{_describe([(t.shape, t.dtype) for t in tensors])} where the op "
                         f"declares {_describe(stored)}.")


def decode_function(entry, decoder: Decoder, variables: list, where: str) -> ConcreteFunction:
    """A ConcreteFunction for a validated function entry (ValueError naming what is wrong)."""
    _need(entry, _FUNCTION_KEYS, where)
    name = check_name(entry["name"], where, False)
    builder = _Builder(decoder, variables)
    graph_entry = entry["graph"]
    if type(graph_entry) is not dict:
        raise ValueError(f"{where}: graph must be an object.")
    graph = FuncGraph(name)
    builder.placeholders(graph, graph_entry.get("inputs"), f"{where} graph")
    builder.graph(graph_entry, graph, f"{where} graph", 0)
    graph.structured_input_signature = _input_signature(
        decoder.decode(entry["input_signature"], f"{where} input_signature"), graph, where)
    graph.structured_outputs = _outputs(decoder.decode(entry["outputs"], f"{where} outputs"),
                                        graph, where)
    names = [check_name(n, f"{where} arg_names", False)
             for n in _list(entry["arg_names"], where, "arg_names", 4096)]
    attributes = entry["attributes"]
    if type(attributes) is not dict or not all(
            type(k) is str and type(v) in (str, int, float, bool) for k, v in attributes.items()):
        raise ValueError(f"{where}: attributes must map names to str, int, float or bool.")
    return ConcreteFunction(graph, None, attributes, name, names)


def _input_signature(signature, graph, where):
    if (type(signature) is not tuple or len(signature) != 2 or type(signature[0]) is not tuple
            or type(signature[1]) is not dict):
        raise ValueError(f"{where}: input_signature must be [positional tuple, keyword dict].")
    specs = [s for s in nest.flatten(signature) if isinstance(s, TensorSpec)]
    if len(specs) != len(graph.inputs) or any(
            s.dtype is not t.dtype or s.shape.as_tuple() != t.shape.as_tuple()
            for s, t in zip(specs, graph.inputs)):
        raise ValueError(f"{where}: input_signature does not match the graph's "
                         f"{len(graph.inputs)} inputs.")
    if any(isinstance(leaf, Output) for leaf in nest.flatten(signature)):
        raise ValueError(f"{where}: input_signature cannot hold outputs.")
    return signature


def _outputs(structure, graph, where):
    def leaf(x):
        if isinstance(x, Output):
            if x.index >= len(graph.outputs):
                raise ValueError(f"{where}: output {x.index} does not exist (the graph has "
                                 f"{len(graph.outputs)}).")
            return OutputSlot(x.index, graph.outputs[x.index])
        if isinstance(x, (TensorSpec, np.generic, np.ndarray)):
            raise ValueError(f"{where}: outputs hold output references and Python values only.")
        return x
    if nest.is_nested(structure):
        return nest.map_structure(leaf, structure)
    return leaf(structure)
