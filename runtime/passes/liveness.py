"""Graph passes: plain functions over graphs."""

from __future__ import annotations

from collections.abc import Iterable

from ..graph import Operation, external_inputs
from ..tensor import SymbolicTensor
from .rewrite import GraphLike


def live_operations(graph: GraphLike, outputs: Iterable[SymbolicTensor]) -> list[Operation]:
    """The ops of `graph` needed for `outputs` or for their side effects, in program order.

    Stateful ops are always live; an op with subgraphs (cond, while) is live when one of its
    outputs is used or a subgraph holds a stateful op. A while loop is always live: whether
    it ends, or fails, is an effect (the Python loop it stands for would run too).
    """
    used = {id(t) for t in outputs}
    live: list[Operation] = []
    for op in reversed(graph.operations):
        if (op.opdef.stateful or any(id(t) in used for t in op.outputs) or op.opdef.is_loop
                or _has_effects(op)):
            live.append(op)
            for t in op.inputs:
                used.add(id(t))
            for t in external_inputs(op):
                used.add(id(t))
    live.reverse()
    return live


def _has_effects(op: Operation) -> bool:
    cached = getattr(op, "_effects", None)
    if cached is None:
        cached = any(inner.opdef.stateful or _has_effects(inner)
                     for sub in op.subgraphs for inner in sub.operations)
        try:
            op._effects = cached
        except AttributeError:
            pass
    return cached
