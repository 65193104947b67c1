"""Liveness: which variables may still be read after each point of a function.

The control-flow converter uses it to decide which of the names a staged `if` or loop
writes need to leave it (are live afterwards) or come in (are live on entry).
"""

from __future__ import annotations

from typing import Iterable, Optional

import gast

from ..cfg import Graph
from . import dataflow
from .node_activity import uses_and_defs


class Liveness:
    """Live variables before and after each CFG node."""

    def __init__(self, graph: Graph, live_at_exit: Iterable[str] = (),
                 activity_cache: Optional[dict] = None):
        self.graph = graph
        ud = uses_and_defs(graph, activity_cache)

        def transfer(node, live_out):
            uses, defs = ud[node.index]
            return (live_out - defs) | uses

        def meet(values):
            out: frozenset = frozenset()
            for v in values:
                out = out | v
            return out

        self.ins, self.outs = dataflow.solve_backward(graph, transfer, meet, frozenset(live_at_exit))

    def live_in(self, stmt: gast.AST) -> frozenset:
        """Names live right before `stmt` runs."""
        return self.ins.get(self.graph.node_of(stmt).index, frozenset())

    def live_out(self, stmt: gast.AST) -> frozenset:
        """Names live right after `stmt` completes (for compound statements: after their join)."""
        join = self.graph.joins.get(id(stmt))
        if join is not None:
            return self.ins.get(join.index, frozenset())
        node = self.graph.stmts[id(stmt)]
        return self.outs.get(node.index, frozenset())

    def live_at_exits(self, stmt: gast.AST) -> frozenset:
        """Names live wherever control goes when it leaves `stmt`, normally or by a jump."""
        out: frozenset = frozenset()
        for node in self.graph.exits(stmt):
            out = out | self.ins.get(node.index, frozenset())
        return out

    def live_at_loop_head(self, loop: gast.AST) -> frozenset:
        """Names live at the start of each iteration of a loop (before the test / target)."""
        head = self.graph.loop_heads[id(loop)]
        if isinstance(loop, gast.While):
            return self.ins.get(head.index, frozenset())
        return self.ins.get(head.index, frozenset())


def analyze(graph: Graph, live_at_exit: Iterable[str] = (),
            activity_cache: Optional[dict] = None) -> Liveness:
    """Runs liveness over `graph` (`activity_cache`: see `activity.cached_activity`)."""
    return Liveness(graph, live_at_exit, activity_cache)
