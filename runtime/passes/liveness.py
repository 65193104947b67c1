"""Dead code: the ops a graph needs for its outputs or for their effects."""

from __future__ import annotations

from collections.abc import Iterable

from ..graph import Operation, external_inputs
from ..opdef import Effect
from ..tensor import SymbolicTensor
from .rewrite import GraphLike, Rewritten, with_bodies, with_operations

NO_EFFECT = Effect.NONE  # `effects is not NO_EFFECT`: what `opdef.stateful` says, without a call


def live_operations(graph: GraphLike, outputs: Iterable[SymbolicTensor]) -> list[Operation]:
    """The ops of `graph` needed for `outputs` or for their side effects, in program order.

    An op with an effect is always live; an op with subgraphs (cond, while) is live when one
    of its outputs is used or a subgraph holds an op with an effect. A loop that is neither
    is not run, as TensorFlow prunes it: whether it would end is not an effect. A body the
    passes pruned is returned as it is.
    """
    if outputs is graph.outputs and getattr(graph, "pruned", False):
        return list(graph.operations)
    used = {id(t) for t in outputs}
    live: list[Operation] = []
    for op in reversed(graph.operations):
        if (op.opdef.stateful or any(id(t) in used for t in op.outputs)
                or (op.subgraphs and _has_effects(op))):
            live.append(op)
            used.update(id(t) for t in op.inputs)
            if op.subgraphs:
                used.update(id(t) for t in external_inputs(op))
    live.reverse()
    return live


def eliminate_dead_code(graph: GraphLike) -> GraphLike:
    """`graph` with only its live ops, and the ops of each branch and loop body it keeps
    pruned the same way (a body keeps what its results and effects need)."""
    return _eliminate(graph)[0]


def _eliminate(graph: GraphLike) -> tuple[GraphLike, set[int], bool]:
    """`graph` pruned, the ids of the tensors of enclosing graphs its live ops read, and
    whether it holds an op with an effect. Bodies first: what they read and do is then known
    without walking them again."""
    operations: list[Operation] = []
    reads: dict[int, set[int]] = {}   # id(op with bodies) -> outer tensors its bodies read
    effects: set[int] = set()         # ids of ops with bodies that hold an effect
    changed = False
    for op in graph.operations:
        if op.subgraphs:
            bodies, outer, effect = [], set(), False
            for sub in op.subgraphs:
                body, body_reads, body_effect = _eliminate(sub)
                bodies.append(body)
                outer |= body_reads
                effect = effect or body_effect
            new = with_bodies(op, bodies)
            changed = changed or new is not op
            op = new
            reads[id(op)] = outer
            if effect:
                effects.add(id(op))
        operations.append(op)
    used = set(map(id, graph.outputs))
    produced = set(map(id, graph.inputs))
    live: list[Operation] = []
    effect = bool(effects)
    for op in reversed(operations):
        outputs = op.outputs
        if op.opdef.effects is not NO_EFFECT:
            effect = True
        elif not (id(op) in effects or (id(outputs[0]) in used if len(outputs) == 1
                                        else not used.isdisjoint(map(id, outputs)))):
            continue
        live.append(op)
        used.update(map(id, op.inputs))
        produced.update(map(id, outputs))
        if op.subgraphs:
            used |= reads[id(op)]
    live.reverse()
    pruned = with_operations(graph, live, changed=changed or len(live) != len(operations))
    if isinstance(pruned, Rewritten):
        pruned.pruned = True
    elif getattr(pruned, "frozen", False) and not pruned.pruned:
        # a traced graph whose every op is live: a derived fact, kept on it (it never changes)
        object.__setattr__(pruned, "pruned", True)
    return pruned, used - produced, effect


def _has_effects(op: Operation) -> bool:
    """Whether an op with subgraphs holds an op with an effect (cached on the op: a
    derived fact, kept in its `_effects` slot even when its graph is frozen)."""
    cached = op._effects
    if cached is None:
        cached = any(inner.opdef.stateful or bool(inner.subgraphs and _has_effects(inner))
                     for sub in op.subgraphs for inner in sub.operations)
        object.__setattr__(op, "_effects", cached)
    return cached

