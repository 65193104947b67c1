"""Common-subexpression elimination: a stateless op that repeats an earlier op of the same
type, attributes and inputs becomes an Identity of the earlier op's output.

It reaches into branches and loop bodies: an op there may repeat an earlier op of the same
body, or of an enclosing graph (run before the body, on every path that reaches it: the
passes drop dead ops first, so every op of a graph runs when the graph does); an op of one
body is never reused by another body or by the graph after it.
Ops with effects (variable reads, random numbers, prints) and ops on TensorArrays or
accumulators (lists that change in place) are never merged: two of them may give different
values. Attributes that cannot be hashed are compared by identity.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, Optional

from ..graph import Operation
from ..ops.array_math import IDENTITY
from ..tensor import SymbolicTensor
from .liveness import NO_EFFECT
from .rewrite import GraphLike, replacement, with_bodies, with_operations


def eliminate_common_subexpressions(graph: GraphLike) -> GraphLike:
    """`graph` with each repeated stateless single-output op, nested bodies included, made
    an Identity of the first."""
    return _merge(graph, {}, _Scope(None))


class _Scope:
    """The ops seen in a graph so far (key -> first output), over those of the graphs
    enclosing it."""

    __slots__ = ("parent", "seen")

    def __init__(self, parent: Optional[_Scope]) -> None:
        self.parent = parent
        self.seen: dict[Hashable, SymbolicTensor] = {}

    def first(self, key: Hashable, tensor: SymbolicTensor) -> SymbolicTensor:
        """The first tensor seen under `key` here or in an enclosing graph; `tensor` (now
        recorded) when none was."""
        scope: Optional[_Scope] = self
        while scope is not None:
            found = scope.seen.get(key)
            if found is not None:
                return found
            scope = scope.parent
        self.seen[key] = tensor
        return tensor


def _merge(graph: GraphLike, canonical: dict[int, SymbolicTensor], scope: _Scope) -> GraphLike:
    """`graph` merged; `canonical` maps id(tensor) -> the equal tensor computed first."""
    operations: list[Operation] = []
    changed = False
    for op in graph.operations:
        if op.subgraphs:
            new = with_bodies(op, [_merge(sub, canonical, _Scope(scope)) for sub in op.subgraphs])
            changed = changed or new is not op
            op = new
        else:
            key = _key(op, canonical)
            if key is not None:
                first = scope.first(key, op.outputs[0])
                if first is not op.outputs[0]:
                    canonical[id(op.outputs[0])] = first
                    op = replacement(op, IDENTITY, [first], {})
                    changed = True
        operations.append(op)
    return with_operations(graph, operations, changed=changed)


def _key(op: Operation, canonical: dict[int, SymbolicTensor]) -> Hashable | None:
    opdef = op.opdef
    eligible = _MERGEABLE.get(opdef)
    if eligible is None:
        eligible = _MERGEABLE[opdef] = (opdef.effects is NO_EFFECT and not opdef.is_constant
                                        and opdef.kernel is not None and opdef.carrier is None)
    if not eligible or len(op.outputs) != 1 or op.outputs[0].dtype._np.kind not in "biufc":
        return None   # (a tensor that is not numeric or bool, such as a TensorArray handle,
        # is a mutable Python object that must stay distinct)
    if canonical:
        get = canonical.get
        inputs = tuple([id(get(id(t), t)) for t in op.inputs])
    else:
        inputs = tuple(map(id, op.inputs))
    attrs = op.attrs
    return (opdef, inputs,
            tuple(sorted([(k, _attr_key(v)) for k, v in attrs.items()])) if attrs else ())


# OpDef -> whether its ops may be merged (no effect, not a constant, a kernel, no carrier):
# fixed when the op is defined, so looked up once per OpDef
_MERGEABLE: dict = {}


def _attr_key(value: Any) -> tuple[Any, Any]:
    try:
        hash(value)
    except TypeError:
        return ("id", id(value))
    return (type(value), value)

