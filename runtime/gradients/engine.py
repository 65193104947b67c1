"""The reverse sweep: from output gradients back to the sources, over a list of nodes.

The same sweep serves a tape (its recorded nodes), a compiled function (the ops of its
graph) and a branch or loop body (the ops of a subgraph). Gradient ops are created by the
rules with ordinary runtime ops, so they run eagerly or are staged into the graph being
built, wherever the sweep runs.
"""

from __future__ import annotations

from .. import dtypes as _dtypes
from ..ops import array_math
from ..ops.tensor_array import add_grads
from .node import GradOp, differentiable


def _refuse_complex(node, out_grads) -> None:
    for o, g in zip(node.outputs, out_grads):
        if g is not None and o.dtype.is_complex:
            name = node.operation.name if node.operation is not None else node.opdef.name
            raise NotImplementedError(
                f"Gradients through complex values are not supported: op '{name}' "
                f"({node.opdef.name}) has a {o.dtype.name} output on the path to the sources.")


def backprop(nodes, seeds: dict, sources) -> dict:
    """Gradients of the seeded values with respect to `sources`.

    `nodes` are in program order; `seeds` maps id(value) to its gradient (a tensor or a list
    of tensors to add); `sources` are the values (tensors or variables) whose gradients are
    wanted. Returns {id(source): gradient} for the sources that receive one.
    """
    source_keys = {id(s) for s in sources}
    reachable = set(source_keys)
    relevant = []
    for node in nodes:
        for t in node.inputs:
            if id(t) in reachable:
                relevant.append(node)
                for o in node.outputs:
                    reachable.add(id(o))
                break
    grads: dict = {}
    for key, g in seeds.items():
        if g is not None:
            grads[key] = list(g) if isinstance(g, list) else [g]
    for node in reversed(relevant):
        out_grads = []
        found = False
        for o in node.outputs:
            key = id(o)
            parts = grads.get(key) if key in source_keys else grads.pop(key, None)
            if parts:
                found = True
                out_grads.append(aggregate(parts, o))
            else:
                out_grads.append(None)
        if not found:
            continue
        needs = tuple(id(t) in reachable and differentiable(t) for t in node.inputs)
        if not any(needs):
            continue
        _refuse_complex(node, out_grads)
        rule = node.grad_fn or node.opdef.grad
        if rule is None:
            if not node.opdef.differentiable:
                continue
            name = node.operation.name if node.operation is not None else node.opdef.name
            raise LookupError(f"No gradient defined for operation '{name}' (op type: "
                              f"{node.opdef.name}).")
        in_grads = rule(GradOp(node, needs), *out_grads)
        if len(in_grads) != len(node.inputs):
            raise ValueError(f"The gradient rule of {node.opdef.name} returned "
                             f"{len(in_grads)} gradients for {len(node.inputs)} inputs.")
        for t, g, need in zip(node.inputs, in_grads, needs):
            if need and g is not None:
                grads.setdefault(id(t), []).append(g)
    return {key: aggregate(grads[key], None) for key in source_keys if grads.get(key)}


def aggregate(parts: list, like):
    """The sum of the gradients in `parts` (kept as one tensor in the list afterwards)."""
    if len(parts) == 1:
        return parts[0]
    total = parts[0]
    for p in parts[1:]:
        total = add(total, p)
    parts[:] = [total]
    return total


def add(a, b):
    """a + b for two gradients (TensorArray gradients are merged)."""
    if a.dtype is _dtypes.variant:
        return add_grads([a, b])
    return array_math.add(a, b)
