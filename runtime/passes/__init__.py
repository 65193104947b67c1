"""The compiler's passes: graph -> graph functions run once, for every backend.

`run_passes(graph)` drops dead ops (those needed neither for an output nor for an effect),
folds constant expressions, merges common subexpressions, drops the ops that made dead, and
works out buffer lifetimes. Every pass reaches into branches and loop bodies. Its result, a
`Program`, is what every backend renders (`runtime.backends.compile`); a backend reaches the
rewritten bodies through `op.subgraphs` of the Program's ops. The traced graph itself is never
changed: reports and gradients read it as it was traced.
"""

from __future__ import annotations

from ..graph import Graph, Operation
from ..tensor import SymbolicTensor
from .cse import eliminate_common_subexpressions
from .folding import fold_constants
from .lifetimes import Lifetimes
from .liveness import eliminate_dead_code, external_inputs, live_operations
from .rewrite import GraphLike, Rewritten

__all__ = ["GraphLike", "Lifetimes", "Program", "Rewritten", "eliminate_common_subexpressions",
           "eliminate_dead_code", "external_inputs", "fold_constants", "live_operations",
           "run_passes"]


class Program:
    """A graph after the passes: what a backend renders.

    `graph` has the traced graph's inputs and outputs and the optimised op list (its ops'
    `subgraphs` are the optimised bodies); `traced` is the graph as traced; `live` the
    top-level ops to run, in program order; `lifetimes` where each temporary dies and which
    buffers elementwise ops may reuse.
    """

    __slots__ = ("traced", "graph", "live", "_lifetimes")

    def __init__(self, traced: Graph, graph: GraphLike, pruned: bool = False) -> None:
        self.traced: Graph = traced
        self.graph: GraphLike = graph
        # `pruned`: `graph` holds live ops only (run_passes's last pass made it so)
        self.live: list[Operation] = (list(graph.operations) if pruned
                                      else live_operations(graph, graph.outputs))
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
    """`graph` without dead code, folded, with common subexpressions merged, as a Program
    to render. Dead ops go first (in a graph with bodies) so that folding skips them and a
    body reuses only ops that run (see cse.py), and again last, for the ops folding and
    merging left unread."""
    nested = any(op.subgraphs for op in graph.operations)
    start = eliminate_dead_code(graph) if nested else graph
    passed = eliminate_common_subexpressions(fold_constants(start))
    if passed is start and nested:  # nothing folded or merged: nothing more to drop
        return Program(graph, start, pruned=True)
    return Program(graph, eliminate_dead_code(passed), pruned=True)
