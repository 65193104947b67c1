"""The gradient of `cond`: a backward `If` on the same predicate.

Each backward branch differentiates the matching forward branch. Forward values that a
backward branch needs become extra outputs of a rewritten forward `If` op (the branch that
did not compute them outputs a filler), which takes the traced op's place in the graph
being built; the traced op and its branches are never changed. Only the branch that ran
contributes and nothing is recomputed. The extra outputs are ordinary outputs: a
higher-order gradient flows back through them.
"""

from __future__ import annotations

import numpy as np

from .. import context
from .. import dtypes as _dtypes
from ..attr_kinds import DTYPE, SHAPE
from ..opdef import define
from ..ops import array_math
from ..ops.control_flow import COND
from ..ops.core import apply
from ..ops.tensor_array import add_grads
from ..ops.variables import Variable
from ..tensor import SymbolicTensor
from .engine import backprop
from .node import Node, node_inputs, node_of
from .resolve import BackwardBody, Context, copy_body, entered, record_on_tapes, resolve


def _filler(shape, dtype):
    """What the branch that did not compute a saved value returns in its place: it is never
    read, but a scalar must still be a number (a graph unboxes its scalar inputs on entry)."""
    if shape.rank == 0 and dtype.is_numeric:
        return np.zeros((), dtype.as_numpy_dtype)
    return None


def _emit_filler(em, op):
    value = _filler(op.attrs["shape"], op.attrs["dtype"])
    em.line(f"{em.outs(op)[0]} = {'None' if value is None else em.bind(value)}")


UNDEFINED = define("Undefined", lambda shape, dtype: (shape, dtype), _filler, emit=_emit_filler,
                   differentiable=False,
                   attrs={"dtype": DTYPE, "shape": SHAPE})

class RewrittenIf:
    """The `If` op that takes the place of a traced one while its gradient is built.

    Its branches are copies of the traced op's branches (a nested gradient rewrites the copies,
    never the traced ones); its outputs are the traced op's output tensors, then one per
    forward value a backward branch reads (`expose`; the branch that did not compute it
    returns a filler). The traced op is never changed: the graph being built puts this op in
    its place (`Graph.supersede`).
    """

    def __init__(self, recorded):
        parent = recorded.graph
        forward = parent.current_version(recorded)
        copied = [copy_body(sub, parent) for sub in forward.subgraphs]
        self.branches = [branch for branch, _ in copied]
        self.copies = [copies for _, copies in copied]
        op = parent.create_op(COND, list(forward.inputs), dict(forward.attrs), [],
                              name=forward.name, subgraphs=self.branches)
        op.name, op.location = forward.name, forward.location
        op.outputs = list(forward.outputs)
        parent.supersede(recorded, [op])
        self.op = op
        self.new_outputs: list = []
        self._found: dict = {}

    def index_of(self, tensors) -> list:
        """The output index of this op for each of `tensors` (outputs of the traced op)."""
        where = {id(t): i for i, t in enumerate(self.op.outputs)}
        return [where[id(t)] for t in tensors]

    def expose(self, index: int, tensor) -> SymbolicTensor:
        """An output of this op carrying `tensor` of its branch `index`."""
        found = self._found.get(id(tensor))
        if found is not None:
            return found
        op = self.op
        for i, out in enumerate(self.branches[index].outputs):
            if out is tensor and i < len(op.outputs):
                self._found[id(tensor)] = op.outputs[i]
                return op.outputs[i]
        for j, graph in enumerate(self.branches):
            if j == index:
                graph.outputs.append(tensor)
            else:
                filler = graph.create_op(UNDEFINED, [], {"shape": tensor.shape, "dtype": tensor.dtype},
                                         [(tensor.shape, tensor.dtype)], name="undefined")
                graph.outputs.append(filler.outputs[0])
        out = SymbolicTensor(op, len(op.outputs), tensor.shape, tensor.dtype)
        op.outputs.append(out)
        self.new_outputs.append(out)
        self._found[id(tensor)] = out
        return out

    def finish(self) -> None:
        """Records the new outputs on the tapes recording now (a higher-order gradient reaches
        the saved values through them); the branches are complete from here on."""
        if self.new_outputs:
            op = self.op
            record_on_tapes(Node(COND, node_inputs(COND, op.inputs, op.attrs, op),
                                 list(self.new_outputs), op.attrs, op))
        for branch in self.branches:
            branch.freeze()


class BranchContext(Context):
    """Brings tensors of one forward branch (a copy) to its backward branch."""

    def __init__(self, rewrite: RewrittenIf, index: int, home):
        self.rewrite = rewrite
        self.index = index
        self.forward_graph = rewrite.branches[index]
        self.copies = rewrite.copies[index]
        self.home = home

    def resolve_local(self, tensor):
        out = self.rewrite.expose(self.index, tensor)
        with context.graph_scope(self.home):
            return resolve(out)


def zeros_for_value(value):
    """Fresh zeros shaped like a tensor or variable readable from the current graph."""
    if value.dtype is _dtypes.variant:
        return add_grads([])
    dims = value.shape.as_tuple()
    if dims is not None and None not in dims:
        return apply(array_math.ZEROS, [], {"shape": dims, "dtype": value.dtype._np})
    return array_math.zeros_like(value if isinstance(value, Variable) else resolve(value))


@COND.def_grad
def _if_grad(op, *grads):
    rewrite = RewrittenIf(op.operation)
    home = context.current_graph()
    inputs = op.forward_inputs
    wanted = [inputs[i] for i in range(1, len(inputs)) if op.needs[i]]
    positions = rewrite.index_of(op.forward_outputs)
    graphs, found = [], []
    for index, branch in enumerate(rewrite.branches):
        name = f"{rewrite.op.name}_grad_{'true' if index == 0 else 'false'}"
        graph = BackwardBody(name, outer_graph=home)
        seeds: dict = {}
        for i, g in zip(positions, grads):
            if g is not None:
                seeds.setdefault(id(branch.outputs[i]), []).append(g)
        with context.graph_scope(graph), entered(BranchContext(rewrite, index, home)):
            found.append(backprop([node_of(o) for o in branch.operations], seeds, wanted))
        graphs.append(graph)
    rewrite.finish()
    connected = [v for v in wanted if any(id(v) in f for f in found)]
    if not connected:
        return [None] * len(inputs)
    for graph, grads_here in zip(graphs, found):
        with context.graph_scope(graph):
            outs = []
            for v in connected:
                g = grads_here.get(id(v))
                outs.append(zeros_for_value(v) if g is None else graph.capture(g))
            graph.outputs = outs
    pred = op.inputs[0]
    outs = apply(COND, [pred], name=f"{rewrite.op.name}_grad", subgraphs=tuple(graphs))
    by_value = {id(v): out for v, out in zip(connected, outs)}
    return [by_value.get(id(v)) if i else None for i, v in enumerate(inputs)]
