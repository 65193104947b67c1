"""The compiler's passes: graph -> graph functions run once, for every backend.

`run_passes(graph)` folds constant expressions, merges common subexpressions, keeps the ops
that are live (needed for an output or for an effect) and works out buffer lifetimes. Its
result, a `Program`, is what every backend renders (`runtime.backends.compile`). The traced
graph itself is never changed: reports and gradients read it as it was traced.
"""

from __future__ import annotations

from ..graph import Graph, Operation
from ..tensor import SymbolicTensor
from .cse import eliminate_common_subexpressions
from .folding import fold_constants
from .lifetimes import Lifetimes
from .liveness import external_inputs, live_operations
from .rewrite import GraphLike, Rewritten

__all__ = ["GraphLike", "Lifetimes", "Program", "Rewritten", "eliminate_common_subexpressions",
           "external_inputs", "fold_constants", "live_operations", "run_passes"]


class Program:
    """A graph after the passes: what a backend renders.

    `graph` has the traced graph's inputs and outputs and the optimised top-level op list;
    `traced` is the graph as traced; `live` the top-level ops to run, in program order;
    `lifetimes` where each temporary dies and which buffers elementwise ops may reuse.
    """

    __slots__ = ("traced", "graph", "live", "_lifetimes")

    def __init__(self, traced: Graph, graph: GraphLike) -> None:
        self.traced: Graph = traced
        self.graph: GraphLike = graph
        self.live: list[Operation] = live_operations(graph, graph.outputs)
        self._lifetimes: Lifetimes | None = None

    @property
    def inputs(self) -> list[SymbolicTensor]:
        return self.graph.inputs

    @property
    def outputs(self) -> list[SymbolicTensor]:
        return self.graph.outputs

    @property
    def operations(self) -> list[Operation]:
        return self.graph.operations

    @property
    def lifetimes(self) -> Lifetimes:
        if self._lifetimes is None:
            self._lifetimes = Lifetimes(self.live, self.graph.outputs)
        return self._lifetimes


def run_passes(graph: Graph) -> Program:
    """`graph` folded, with common subexpressions merged, as a Program to render."""
    return Program(graph, eliminate_common_subexpressions(fold_constants(graph)))
