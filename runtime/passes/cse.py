"""Common-subexpression elimination: a stateless op that repeats an earlier op of the same
type, attributes and inputs becomes an Identity of the earlier op's output.

Stateful ops (variable reads, random numbers, prints) are never merged: two of them may give
different values. Attributes that cannot be hashed are compared by identity.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from ..graph import Operation
from ..ops.array_ops import IDENTITY
from ..tensor import SymbolicTensor
from .rewrite import GraphLike, replacement, with_operations


def eliminate_common_subexpressions(graph: GraphLike) -> GraphLike:
    """`graph` with each repeated stateless single-output top-level op made an Identity."""
    canonical: dict[int, SymbolicTensor] = {}  # id(tensor) -> the equal tensor computed first
    seen: dict[Hashable, SymbolicTensor] = {}
    operations: list[Operation] = []
    for op in graph.operations:
        key = _key(op, canonical)
        if key is not None:
            first = seen.setdefault(key, op.outputs[0])
            if first is not op.outputs[0]:
                canonical[id(op.outputs[0])] = first
                op = replacement(op, IDENTITY, [first], {})
        operations.append(op)
    return with_operations(graph, operations)


def _key(op: Operation, canonical: dict[int, SymbolicTensor]) -> Hashable | None:
    if (op.opdef.stateful or op.subgraphs or len(op.outputs) != 1 or op.opdef.is_constant
            or op.opdef.kernel is None or not _is_array(op.outputs[0])):
        return None
    inputs = tuple(id(canonical.get(id(t), t)) for t in op.inputs)
    return (op.opdef, inputs, tuple(sorted((k, _attr_key(v)) for k, v in op.attrs.items())))


def _attr_key(value: Any) -> tuple[Any, Any]:
    try:
        hash(value)
    except TypeError:
        return ("id", id(value))
    return (type(value), value)


def _is_array(tensor: SymbolicTensor) -> bool:
    """True for a numeric or bool tensor (other values, such as TensorArray handles, are
    mutable Python objects that must stay distinct)."""
    return tensor.dtype.is_numeric or tensor.dtype.is_bool
