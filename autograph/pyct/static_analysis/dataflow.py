"""A small worklist solver for data-flow problems over `pyct.cfg` graphs."""

from __future__ import annotations

from typing import Callable, TypeVar

from ..cfg import Graph, Node

T = TypeVar("T")


def solve_backward(graph: Graph, transfer: Callable[[Node, T], T], meet: Callable[[list[T]], T],
                   at_exit: T) -> tuple[dict[int, T], dict[int, T]]:
    """Values before (`in`) and after (`out`) each node, flowing from successors to predecessors."""
    # the exit first, then the nodes from last to first: most nodes are then reached after
    # their successors (the fixpoint does not depend on the order)
    order = [n for n in graph.nodes if n is not graph.exit] + [graph.exit]
    outs, ins = _solve(order, graph.exit, transfer, meet, at_exit, upstream="next", downstream="prev")
    return ins, outs


def _solve(order: list[Node], boundary: Node, transfer, meet, at_boundary, upstream: str,
           downstream: str) -> tuple[dict[int, T], dict[int, T]]:
    """The worklist fixpoint in one direction: (values entering, values leaving) each node.

    A node's entering value is `meet` of the leaving values of its `upstream` neighbours (or
    `at_boundary` for the boundary node); a change re-queues its `downstream` neighbours.
    `order` is popped from the end.
    """
    entering: dict[int, T] = {}
    leaving: dict[int, T] = {}
    work = list(order)
    queued = {n.index for n in work}
    while work:
        node = work.pop()
        queued.discard(node.index)
        if node is boundary:
            value = at_boundary
        else:
            value = meet([leaving[u.index] for u in getattr(node, upstream) if u.index in leaving])
        entering[node.index] = value
        new = transfer(node, value)
        if leaving.get(node.index) != new:
            leaving[node.index] = new
            for d in getattr(node, downstream):
                if d.index not in queued:
                    queued.add(d.index)
                    work.append(d)
    return entering, leaving
