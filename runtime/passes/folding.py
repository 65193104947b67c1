"""Constant folding at lowering time: an op whose inputs are all constants becomes a Const.

Tracing folds only small constants (and not under a tape); lowering folds any size, so a
large constant expression is computed once when the graph is compiled instead of on every
call. Stateful ops, ops with bodies, and ops without a kernel are left alone, as is any op
whose kernel raises (the error then surfaces when the graph runs, where it belongs).
"""

from __future__ import annotations

import numpy as np

from ..graph import Operation
from ..opdef import CONST
from .rewrite import GraphLike, replacement, with_operations


def fold_constants(graph: GraphLike) -> GraphLike:
    """`graph` with every foldable top-level op replaced by the Const of its value."""
    values: dict[int, np.ndarray] = {}
    operations: list[Operation] = []
    for op in graph.operations:
        if op.opdef.is_constant:
            values[id(op.outputs[0])] = op.attrs["value"]
        elif _foldable(op, values):
            folded = _evaluate(op, values)
            if folded is not None:
                values[id(op.outputs[0])] = folded
                op = replacement(op, CONST, [], {"value": folded})
        operations.append(op)
    return with_operations(graph, operations)


def _foldable(op: Operation, values: dict[int, np.ndarray]) -> bool:
    opdef = op.opdef
    return (not opdef.stateful and not op.subgraphs and opdef.kernel is not None
            and len(op.outputs) == 1 and all(id(t) in values for t in op.inputs)
            and (op.outputs[0].dtype.is_numeric or op.outputs[0].dtype.is_bool))


def _evaluate(op: Operation, values: dict[int, np.ndarray]) -> np.ndarray | None:
    """The value of a single-output op from constant inputs, or None when it cannot fold."""
    out = op.outputs[0]
    kernel = op.opdef.kernel
    if kernel is None:  # not foldable (see _foldable)
        return None
    try:
        with np.errstate(all="ignore"):  # as tracing folds: no warnings at compile time
            value = np.asarray(kernel(*[values[id(t)] for t in op.inputs], **op.attrs),
                               dtype=out.dtype.as_numpy_dtype)
    except Exception:  # noqa: BLE001 - the op raises again, in context, when the graph runs
        return None
    if not out.shape.is_compatible_with(value.shape):
        return None
    return value
