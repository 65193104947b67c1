"""A small worklist solver for data-flow problems over `pyct.cfg` graphs."""

from __future__ import annotations

from typing import Callable, TypeVar

from ..cfg import Graph, Node

T = TypeVar("T")


def solve_backward(graph: Graph, transfer: Callable[[Node, T], T], meet: Callable[[list[T]], T],
                   at_exit: T) -> tuple[dict[int, T], dict[int, T]]:
    """Values before (`in`) and after (`out`) each node, flowing from successors to predecessors."""
    ins: dict[int, T] = {}
    outs: dict[int, T] = {}
    # the exit first, then the nodes from last to first: most nodes are then reached after
    # their successors (the fixpoint does not depend on the order)
    work = [n for n in graph.nodes if n is not graph.exit]
    work.append(graph.exit)
    queued = {n.index for n in work}
    while work:
        node = work.pop()
        queued.discard(node.index)
        if node is graph.exit:
            out = at_exit
        else:
            out = meet([ins[s.index] for s in node.next if s.index in ins])
        outs[node.index] = out
        new_in = transfer(node, out)
        if ins.get(node.index) != new_in:
            ins[node.index] = new_in
            for p in node.prev:
                if p.index not in queued:
                    queued.add(p.index)
                    work.append(p)
    return ins, outs


def solve_forward(graph: Graph, transfer: Callable[[Node, T], T], meet: Callable[[list[T]], T],
                  at_entry: T) -> tuple[dict[int, T], dict[int, T]]:
    """Values before (`in`) and after (`out`) each node, flowing from predecessors to successors."""
    ins: dict[int, T] = {}
    outs: dict[int, T] = {}
    work = list(reversed(graph.nodes))
    queued = {n.index for n in work}
    while work:
        node = work.pop()
        queued.discard(node.index)
        if node is graph.entry:
            value = at_entry
        else:
            value = meet([outs[p.index] for p in node.prev if p.index in outs])
        ins[node.index] = value
        new_out = transfer(node, value)
        if outs.get(node.index) != new_out:
            outs[node.index] = new_out
            for s in node.next:
                if s.index not in queued:
                    queued.add(s.index)
                    work.append(s)
    return ins, outs
