"""Recorded ops (`Node`) and the view of one that a gradient rule receives (`GradOp`).

A node's inputs are what gradients flow to. For most ops they are the op's input tensors;
a variable read has the variable itself as its one input; a `cond` or `while_loop` op also
has the outer tensors and the variables its branches or body read.
"""

from __future__ import annotations

from collections.abc import Sequence

from .. import dtypes as _dtypes
from ..graph import external_inputs
from ..ops.variables import READ, bound_variable
from .resolve import any_active, resolve


def differentiable(value) -> bool:
    """True when gradients can flow to `value` (float, complex, TensorArray or a variable)."""
    dtype = value.dtype
    kind = dtype._np.kind
    # "V": ml_dtypes' bfloat16 and float8 formats
    return kind in "fc" or dtype is _dtypes.variant or kind == "V" and dtype.is_floating


class Node:
    """One op as the gradient engine sees it."""

    __slots__ = ("opdef", "inputs", "outputs", "attrs", "operation", "grad_fn")

    def __init__(self, opdef, inputs, outputs, attrs, operation=None, grad_fn=None):
        self.opdef = opdef
        self.inputs = inputs
        self.outputs = outputs
        self.attrs = attrs
        self.operation = operation
        self.grad_fn = grad_fn

    @property
    def graph(self):
        return None if self.operation is None else self.operation.graph

    def __repr__(self) -> str:
        return f"<Node {self.opdef.name}>"


def node_inputs(opdef, inputs, attrs, operation) -> list:
    """The values gradients flow to for one op (see the module docstring)."""
    if opdef is READ:  # run eagerly (operation None), a stand-in reads the variable it is bound to
        return [attrs["var"] if operation is not None else bound_variable(attrs["var"])]
    extra = attrs.get("variables") if opdef.name == "CustomGradient" else None
    if extra:
        return list(inputs) + list(extra)
    if operation is not None and operation.subgraphs:
        return list(inputs) + captured(operation)
    return list(inputs)


def captured(operation) -> list:
    """Outer tensors and variables that the subgraphs of a cond/while op read."""
    seen = set()
    out = []
    for t in external_inputs(operation):
        if id(t) not in seen:
            seen.add(id(t))
            out.append(t)
    for var in variables_read(operation.subgraphs):
        if id(var) not in seen:
            seen.add(id(var))
            out.append(var)
    return out


def variables_read(graphs) -> list:
    """The variables read by ReadVariableOp anywhere in `graphs` (nested ones included)."""
    seen = set()
    out = []
    for graph in graphs:
        for op in graph.all_operations():
            if op.opdef is READ:
                var = op.attrs["var"]
                if id(var) not in seen:
                    seen.add(id(var))
                    out.append(var)
    return out


def node_of(operation) -> Node:
    """The node for an operation of a graph being differentiated as a whole."""
    return Node(operation.opdef, node_inputs(operation.opdef, operation.inputs, operation.attrs, operation),
                node_outputs(operation.outputs, operation), operation.attrs, operation)


def node_outputs(outputs, operation) -> list:
    """The outputs gradients arrive at. A recorded op's outputs never change: the values a
    cond/while gradient saves are outputs of the rewritten op that takes its place, which is
    recorded on the tapes with them (so higher orders reach them)."""
    return list(outputs)


class _Resolved(Sequence):
    """A list of forward tensors, each brought into reach of the backward graph on access."""

    __slots__ = ("_items",)

    def __init__(self, items):
        self._items = items

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [resolve(t) for t in self._items[index]]
        return resolve(self._items[index])

    def __len__(self) -> int:
        return len(self._items)


class GradOp:
    """What a gradient rule sees: `inputs`, `outputs`, `attrs`, and which inputs need grads.

    `inputs`/`outputs` are readable from where the gradient is built; `forward_inputs` and
    `forward_outputs` are the tensors as recorded (use them for static shapes and dtypes
    only). `needs[i]` is False when no gradient is wanted for input `i`: a rule may then
    return None for it without computing anything.
    """

    __slots__ = ("node", "needs")

    def __init__(self, node: Node, needs):
        self.node = node
        self.needs = needs

    @property
    def type(self) -> str:
        return self.node.opdef.name

    @property
    def attrs(self) -> dict:
        return self.node.attrs

    def get_attr(self, name):
        return self.node.attrs[name]

    @property
    def operation(self):
        return self.node.operation

    @property
    def forward_inputs(self) -> list:
        return self.node.inputs

    @property
    def forward_outputs(self) -> list:
        return self.node.outputs

    @property
    def inputs(self):
        return _Resolved(self.node.inputs) if any_active() else self.node.inputs

    @property
    def outputs(self):
        return _Resolved(self.node.outputs) if any_active() else self.node.outputs

    def __repr__(self) -> str:
        return f"<GradOp {self.type}>"
