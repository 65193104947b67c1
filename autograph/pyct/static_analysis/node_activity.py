"""The reads and writes of each CFG node (plain variable names only)."""

from __future__ import annotations

import gast

from ..cfg import Graph, Node
from . import activity as activity_lib


def node_activity(graph: Graph, node: Node) -> activity_lib.Activity:
    """What `node` itself reads and writes: a statement, or the header part of a compound one."""
    ast_node = node.ast_node
    if ast_node is None or node.kind in ("join", "finally"):
        return activity_lib.Activity()
    if node.kind == "iter":
        return activity_lib.activity(ast_node.iter)
    if node.kind == "header" and isinstance(ast_node, (gast.For, gast.AsyncFor)):
        return activity_lib.activity(ast_node.target)
    if node.kind == "header":
        return activity_lib.header_activity(ast_node)
    return activity_lib.activity(ast_node)


def uses_and_defs(graph: Graph) -> dict[int, tuple[frozenset, frozenset]]:
    """For each node index: (plain names read, plain names written)."""
    out = {}
    for node in graph.nodes:
        act = node_activity(graph, node)
        reads = frozenset(str(q.root) for q in act.reads)
        writes = frozenset(activity_lib.names(act.writes))
        if isinstance(node.ast_node, gast.Delete) and node.kind == "stmt":
            reads = reads | writes     # `del x` needs x
        out[node.index] = (reads, writes)
    return out
