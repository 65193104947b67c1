"""The reads and writes of each CFG node (plain variable names only)."""

from __future__ import annotations

from typing import Optional

import gast

from ..cfg import Graph, Node
from ..transformer import iter_nodes
from . import activity as activity_lib


def node_activity(graph: Graph, node: Node, cache: Optional[dict] = None) -> activity_lib.Activity:
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
    if cache is not None:
        return activity_lib.cached_activity(cache, ast_node)
    return activity_lib.activity(ast_node)


def _walrus_targets(node: Node) -> frozenset:
    part = node.ast_node
    if node.kind == "iter":
        part = part.iter
    elif node.kind == "header" and isinstance(part, (gast.If, gast.While)):
        part = part.test
    elif isinstance(part, gast.stmt) and node.kind == "header":
        return frozenset()
    targets = frozenset(n.target.id for n in iter_nodes(part)
                        if isinstance(n, gast.NamedExpr) and isinstance(n.target, gast.Name))
    if isinstance(part, gast.AugAssign) and isinstance(part.target, gast.Name):
        targets -= {part.target.id}
    return targets


def uses_and_defs(graph: Graph, cache: Optional[dict] = None) -> dict[int, tuple[frozenset, frozenset]]:
    """For each node index: (plain names read, plain names written). `cache`: see
    `activity.cached_activity`."""
    out = {}
    for node in graph.nodes:
        act = node_activity(graph, node, cache)
        reads = frozenset(str(q.root) for q in act.reads)
        writes = frozenset(activity_lib.names(act.writes))
        if act.named_exprs and reads & writes and node.ast_node is not None and node.kind != "join":
            # `(n := f(x)) > 0 and n < 9` reads `n` after assigning it: not a use of the old n
            reads = reads - _walrus_targets(node)
        if isinstance(node.ast_node, gast.Delete) and node.kind == "stmt":
            reads = reads | writes     # `del x` needs x
        out[node.index] = (reads, writes)
    return out
