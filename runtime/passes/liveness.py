"""Dead code: the ops a graph needs for its outputs or for their effects."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..graph import Operation, external_inputs
from ..tensor import SymbolicTensor
from .rewrite import GraphLike, with_bodies, with_operations


def live_operations(graph: GraphLike, outputs: Iterable[SymbolicTensor]) -> list[Operation]:
    """The ops of `graph` needed for `outputs` or for their side effects, in program order.

    An op with an effect is always live; an op with subgraphs (cond, while) is live when one
    of its outputs is used or a subgraph holds an op with an effect. A loop that is neither
    is not run, as TensorFlow prunes it: whether it would end is not an effect.
    """
    return _live(graph.operations, outputs)


def eliminate_dead_code(graph: GraphLike) -> GraphLike:
    """`graph` with only its live ops, and the ops of each branch and loop body it keeps
    pruned the same way (a body keeps what its results and effects need)."""
    operations = [_pruned(op) for op in graph.operations]
    return with_operations(graph, _live(operations, graph.outputs))


def _pruned(op: Operation) -> Operation:
    if not op.subgraphs:
        return op
    return with_bodies(op, [eliminate_dead_code(sub) for sub in op.subgraphs])


def _live(operations: Sequence[Operation], outputs: Iterable[SymbolicTensor]) -> list[Operation]:
    used = {id(t) for t in outputs}
    live: list[Operation] = []
    for op in reversed(operations):
        if (op.opdef.stateful or any(id(t) in used for t in op.outputs)
                or (op.subgraphs and _has_effects(op))):
            live.append(op)
            for t in op.inputs:
                used.add(id(t))
            if op.subgraphs:
                for t in external_inputs(op):
                    used.add(id(t))
    live.reverse()
    return live


def _has_effects(op: Operation) -> bool:
    """Whether an op with subgraphs holds an op with an effect (cached on the op: a
    derived fact, kept in its `_effects` slot even when its graph is frozen)."""
    cached = op._effects
    if cached is None:
        cached = any(inner.opdef.stateful or bool(inner.subgraphs and _has_effects(inner))
                     for sub in op.subgraphs for inner in sub.operations)
        object.__setattr__(op, "_effects", cached)
    return cached
