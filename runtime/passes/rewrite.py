"""Rewriting a graph's top level without touching it: the tool of the optimising passes.

A pass replaces an operation by another that produces the *same* output tensors (a Const
holding their value, an Identity of an equal tensor), so no consumer, nested body or graph
output needs rewiring; the result is a `Rewritten` graph: the same inputs and outputs with the
new op list. The traced graph itself is left as it is: gradients and reports read it.
"""

from __future__ import annotations

from typing import Any, Union

from ..graph import Graph, Operation
from ..opdef import OpDef
from ..tensor import SymbolicTensor


class Rewritten:
    """A graph's inputs and outputs with a rewritten top-level program (what lowering reads)."""

    def __init__(self, graph: GraphLike, operations: list[Operation]) -> None:
        self.name: str = graph.name
        self.inputs: list[SymbolicTensor] = graph.inputs
        self.outputs: list[SymbolicTensor] = graph.outputs
        self.operations: list[Operation] = operations


GraphLike = Union[Graph, Rewritten]  # what the passes read: a traced graph, or a rewritten one


def replacement(op: Operation, opdef: OpDef, inputs: list[Any],
                attrs: dict[str, Any]) -> Operation:
    """A new operation of `opdef` in place of `op`, producing `op`'s output tensors."""
    new = Operation(op.graph, opdef, op.name, inputs, attrs, op.device)
    new.outputs = op.outputs
    new.location = op.location
    return new


def with_operations(graph: GraphLike, operations: list[Operation]) -> GraphLike:
    """`graph` with `operations` as its top-level program (the graph itself when unchanged)."""
    if len(operations) == len(graph.operations) and all(
            a is b for a, b in zip(operations, graph.operations)):
        return graph
    return Rewritten(graph, operations)
