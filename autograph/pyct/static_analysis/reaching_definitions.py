"""Reaching definitions: which assignments of a variable may reach each point, and which
variables are certainly defined there.

Control-flow conversion uses "certainly defined" to know which variables an `if` or loop
may leave undefined, which decides the errors staged code reports for them.
"""

from __future__ import annotations

from typing import Iterable

import gast

from ..cfg import Graph, Node
from . import dataflow
from .node_activity import uses_and_defs


class ReachingDefinitions:
    """For each CFG node: the (name, defining node) pairs that may reach it, and the set of
    names defined on every path to it."""

    def __init__(self, graph: Graph, params: Iterable[str] = ()):
        self.graph = graph
        ud = uses_and_defs(graph)
        params = frozenset(params)
        entry_defs = frozenset((p, graph.entry.index) for p in params)

        def transfer(node: Node, reaching):
            _, defs = ud[node.index]
            if not defs:
                return reaching
            kept = frozenset(d for d in reaching if d[0] not in defs)
            return kept | frozenset((name, node.index) for name in defs)

        def union(values):
            out: frozenset = frozenset()
            for v in values:
                out = out | v
            return out

        self.ins, self.outs = dataflow.solve_forward(graph, transfer, union, entry_defs)

        universe = frozenset(n for _, d in ud.items() for n in d[1]) | params

        def must_transfer(node: Node, defined):
            _, defs = ud[node.index]
            if isinstance(node.ast_node, gast.Delete) and node.kind == "stmt":
                return defined - defs
            return defined | defs

        def intersect(values):
            if not values:
                return universe
            out = values[0]
            for v in values[1:]:
                out = out & v
            return out

        self.defined_ins, self.defined_outs = dataflow.solve_forward(
            graph, must_transfer, intersect, params)

    def reaching(self, stmt: gast.AST) -> frozenset:
        """(name, node index) definitions that may reach the start of `stmt`."""
        return self.ins.get(self.graph.node_of(stmt).index, frozenset())

    def may_be_defined(self, stmt: gast.AST) -> frozenset:
        """Names with at least one definition reaching the start of `stmt`."""
        return frozenset(name for name, _ in self.reaching(stmt))

    def defined_before(self, stmt: gast.AST) -> frozenset:
        """Names defined on every path to the start of `stmt`."""
        return self.defined_ins.get(self.graph.node_of(stmt).index, frozenset())

    def defined_after(self, stmt: gast.AST) -> frozenset:
        """Names defined on every path that completes `stmt`."""
        join = self.graph.joins.get(id(stmt))
        if join is not None:
            return self.defined_ins.get(join.index, frozenset())
        return self.defined_outs.get(self.graph.stmts[id(stmt)].index, frozenset())


def analyze(graph: Graph, params: Iterable[str] = ()) -> ReachingDefinitions:
    """Runs reaching definitions over `graph`."""
    return ReachingDefinitions(graph, params)
