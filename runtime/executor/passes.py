"""Graph passes: plain functions over graphs."""

from __future__ import annotations


def live_operations(graph, outputs) -> list:
    """The ops of `graph` needed for `outputs` or for their side effects, in program order.

    Stateful ops are always live; an op with subgraphs (cond, while) is live when one of its
    outputs is used or a subgraph holds a stateful op. A while loop is always live: whether
    it ends, or fails, is an effect (the Python loop it stands for would run too).
    """
    used = {id(t) for t in outputs}
    live = []
    for op in reversed(graph.operations):
        if (op.opdef.stateful or any(id(t) in used for t in op.outputs) or op.type == "While"
                or _has_effects(op)):
            live.append(op)
            for t in op.inputs:
                used.add(id(t))
            for t in external_inputs(op):
                used.add(id(t))
    live.reverse()
    return live


def _has_effects(op) -> bool:
    cached = getattr(op, "_effects", None)
    if cached is None:
        cached = any(inner.opdef.stateful or _has_effects(inner)
                     for sub in op.subgraphs for inner in sub.operations)
        try:
            op._effects = cached
        except AttributeError:
            pass
    return cached


def external_inputs(op) -> list:
    """Tensors from enclosing graphs that the subgraphs of `op` read."""
    result = []
    for sub in op.subgraphs:
        for inner in sub.all_operations():
            # a nested branch may return an enclosing graph's tensor as it is
            nested_outputs = [t for s in getattr(inner, "subgraphs", None) or () for t in s.outputs]
            for t in list(inner.inputs) + nested_outputs:
                g = t.op.graph
                if not sub.is_ancestor_of(g):
                    result.append(t)
        for t in sub.outputs:
            if not sub.is_ancestor_of(t.op.graph):
                result.append(t)
    return result
