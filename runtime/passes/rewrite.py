"""Rewriting a graph's top level without touching it: the tool of the optimising passes.

A pass replaces an operation by another that produces the *same* output tensors (a Const
holding their value, an Identity of an equal tensor), so no consumer, nested body or graph
output needs rewiring; the result is a `Rewritten` graph: the same inputs and outputs with the
new op list. The traced graph itself is left as it is: gradients and reports read it.
"""

from __future__ import annotations

from ..graph import Operation


class Rewritten:
    """A graph's inputs and outputs with a rewritten top-level program (what lowering reads)."""

    def __init__(self, graph, operations: list):
        self.name = graph.name
        self.inputs = graph.inputs
        self.outputs = graph.outputs
        self.operations = operations


def replacement(op, opdef, inputs: list, attrs: dict) -> Operation:
    """A new operation of `opdef` in place of `op`, producing `op`'s output tensors."""
    new = Operation(op.graph, opdef, op.name, inputs, attrs, op.device)
    new.outputs = op.outputs
    new.location = op.location
    return new


def with_operations(graph, operations: list):
    """`graph` with `operations` as its top-level program (the graph itself when unchanged)."""
    if len(operations) == len(graph.operations) and all(
            a is b for a, b in zip(operations, graph.operations)):
        return graph
    return Rewritten(graph, operations)
