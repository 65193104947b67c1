"""Constant folding at lowering time: an op whose inputs are all constants becomes a Const.

Tracing folds only small constants (their values and shapes are then known while tracing);
this pass folds any size, with the same rule (`ops.core.folded_value`), so a large constant
expression is computed once when the graph is compiled instead of on every call. The pass
reaches into branches and loop bodies: a constant expression there is computed once too, and
its Const is defined in the outermost graph, where every traced constant lives (a loop body
reads it as it reads any value from outside). A branch op whose predicate is constant is
replaced by the branch it takes (its ops, then an Identity per result). Ops with effects, ops
without a kernel, and ops whose kernel raises are left alone (the error then surfaces when the
graph runs, where it belongs).
"""

from __future__ import annotations

import numpy as np

from ..graph import Graph, Operation
from ..opdef import CONST
from ..ops.array_math import IDENTITY
from ..ops.core import folded_value
from ..shapes import TensorShape
from ..tensor import SymbolicTensor
from .rewrite import GraphLike, Rewritten, Substitutions, replacement, with_bodies, with_operations


def fold_constants(graph: GraphLike) -> GraphLike:
    """`graph` with every foldable op, nested bodies included, replaced by a Const."""
    return _Folder(graph).fold(graph)


class _Folder:
    """One folding of a graph: the values known so far and the Consts made for bodies."""

    def __init__(self, graph: GraphLike) -> None:
        self.root: Graph = graph.traced if isinstance(graph, Rewritten) else graph
        self.values: dict[int, np.ndarray] = {}  # id(tensor) -> its constant value
        self.subs = Substitutions()               # body results replaced by outer Consts
        self.hoisted: list[Operation] = []        # those Consts, defined first in the root

    def fold(self, graph: GraphLike) -> GraphLike:
        operations: list[Operation] = []
        changed = self.extend(graph.operations, operations, True)
        if self.hoisted:
            operations[:0] = self.hoisted
        return with_operations(graph, operations, changed=changed or bool(self.hoisted))

    def body(self, graph: GraphLike) -> GraphLike:
        operations: list[Operation] = []
        changed = self.extend(graph.operations, operations, False)
        outputs = self.subs.outputs(graph)
        return with_operations(graph, operations, outputs, changed or outputs is not None)

    def extend(self, source: list[Operation], out: list[Operation], top: bool) -> bool:
        """Appends the folded form of the ops `source` to `out` (`top`: the root graph's);
        whether any op changed."""
        values = self.values
        changed = False
        for op in source:
            inputs = self.subs.inputs(op)
            if op.opdef.is_constant:
                values[id(op.outputs[0])] = op.attrs["value"]
            elif op.subgraphs:
                branch = self.taken_branch(op, inputs or op.inputs)
                if branch is not None:
                    self.extend(branch.operations, out, top)
                    out.extend(self.identities(op, branch, top))
                    changed = True
                    continue
                new = with_bodies(op, [self.body(sub) for sub in op.subgraphs], inputs)
                changed = changed or new is not op
                op = new
            else:
                if inputs is not None:
                    op = replacement(op, op.opdef, inputs, op.attrs)
                    changed = True
                if _foldable(op, values):
                    folded = _evaluate(op, values)
                    if folded is not None and top:
                        values[id(op.outputs[0])] = folded
                        op = replacement(op, CONST, [], {"value": folded})
                        changed = True
                    elif folded is not None:
                        self.subs.add(op.outputs[0], self.hoist(op, folded))
                        changed = True
                        continue
            out.append(op)
        return changed

    def hoist(self, op: Operation, value: np.ndarray) -> SymbolicTensor:
        """A Const in the root graph holding `value`, the result of the body op `op`."""
        const = Operation(self.root, CONST, f"{op.name}/folded", [], {"value": value},
                          op.device)
        out = op.outputs[0]
        const.outputs = [SymbolicTensor(const, 0, TensorShape(value.shape), out.dtype)]
        self.hoisted.append(const)
        self.values[id(const.outputs[0])] = value
        return const.outputs[0]

    def taken_branch(self, op: Operation, inputs: list) -> GraphLike | None:
        """The subgraph a branch op runs, when its predicate is constant and its results
        are arrays (an Identity passes each on); else None."""
        choose = op.opdef.taken_branch
        if choose is None or not inputs:
            return None
        value = self.values.get(id(inputs[0]))
        if value is None or np.size(value) != 1:
            return None
        branch = op.subgraphs[choose(value)]
        if not all(isinstance(t, SymbolicTensor) and _is_array(t)
                   for t in list(op.outputs) + list(branch.outputs)):
            return None
        return branch

    def identities(self, op: Operation, branch: GraphLike, top: bool) -> list[Operation]:
        """Ops giving the results of the branch op `op` from `branch`'s: an Identity each,
        or a Const where the value is known (in a body: the outer Const is read instead)."""
        found = []
        for result, out in zip(branch.outputs, op.outputs):
            source = self.subs.get(result)
            value = self.values.get(id(source))
            if value is not None and not top:
                self.subs.add(out, source)
                continue
            if value is not None:
                made = replacement(op, CONST, [], {"value": value})
                self.values[id(out)] = value
            else:
                made = replacement(op, IDENTITY, [source], {})
            made.outputs = [out]
            found.append(made)
        return found


def _is_array(tensor: SymbolicTensor) -> bool:
    return tensor.dtype.is_numeric or tensor.dtype.is_bool


def _foldable(op: Operation, values: dict[int, np.ndarray]) -> bool:
    for t in op.inputs:
        if id(t) not in values:
            return False
    return (len(op.outputs) == 1 and op.opdef.carrier is None and _is_array(op.outputs[0]))


def _evaluate(op: Operation, values: dict[int, np.ndarray]) -> np.ndarray | None:
    """The value of a single-output op from constant inputs (folded as tracing folds small
    ones: `folded_value`), or None when it cannot fold."""
    out = op.outputs[0]
    value = folded_value(op.opdef, [values[id(t)] for t in op.inputs], op.attrs, out.dtype)
    if value is None or not out.shape.is_compatible_with(value.shape):
        return None
    return value
