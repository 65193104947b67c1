"""The gradient of `cond`: a backward `If` on the same predicate.

Each backward branch differentiates the matching forward branch. Forward values that a
backward branch needs become extra outputs of the forward `If` op (the branch that did not
compute them outputs None), so only the branch that ran contributes and nothing is
recomputed.
"""

from __future__ import annotations

import weakref

import numpy as np

from .. import context
from .. import dtypes as _dtypes
from ..attr_kinds import DTYPE, SHAPE
from ..graph import FuncGraph
from ..opdef import define, pass_through
from ..ops import array_ops, gradient_ops
from ..ops.control_flow import COND
from ..ops.core import apply
from ..ops.tensor_array import add_grads
from ..ops.variable_ops import Variable
from ..tensor import SymbolicTensor
from .engine import backprop
from .node import node_of
from .resolve import Context, entered, resolve


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
                   differentiable=False, interpret=pass_through,
                   attrs={"dtype": DTYPE, "shape": SHAPE})

_EXPOSED: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def expose(op, index: int, tensor) -> SymbolicTensor:
    """An output of the `If` op `op` carrying `tensor` of its branch `index`."""
    cache = _EXPOSED.setdefault(op, {})
    found = cache.get(id(tensor))
    if found is not None:
        return found
    branch = op.subgraphs[index]
    for i, out in enumerate(branch.outputs):
        if out is tensor and i < len(op.outputs):
            cache[id(tensor)] = op.outputs[i]
            return op.outputs[i]
    for j, graph in enumerate(op.subgraphs):
        if j == index:
            graph.outputs.append(tensor)
        else:
            filler = graph.create_op(UNDEFINED, [], {"shape": tensor.shape, "dtype": tensor.dtype},
                                     [(tensor.shape, tensor.dtype)], name="undefined")
            graph.outputs.append(filler.outputs[0])
    out = SymbolicTensor(op, len(op.outputs), tensor.shape, tensor.dtype)
    op.outputs.append(out)
    cache[id(tensor)] = out
    return out


class BranchContext(Context):
    """Brings tensors of one forward branch to its backward branch."""

    def __init__(self, op, index: int, home):
        self.op = op
        self.index = index
        self.forward_graph = op.subgraphs[index]
        self.home = home

    def resolve_local(self, tensor):
        out = expose(self.op, self.index, tensor)
        with context.graph_scope(self.home):
            return resolve(out)


def zeros_for_value(value):
    """Fresh zeros shaped like a tensor or variable readable from the current graph."""
    if value.dtype is _dtypes.variant:
        return add_grads([])
    dims = value.shape.as_tuple()
    if dims is not None and None not in dims:
        return apply(gradient_ops.ZEROS, [], {"shape": dims, "dtype": value.dtype._np})
    return array_ops.zeros_like(value if isinstance(value, Variable) else resolve(value))


@COND.def_grad
def _if_grad(op, *grads):
    forward = op.operation
    home = context.current_graph()
    inputs = op.forward_inputs
    wanted = [inputs[i] for i in range(1, len(inputs)) if op.needs[i]]
    graphs, found = [], []
    for index, branch in enumerate(forward.subgraphs):
        graph = FuncGraph(f"{forward.name}_grad_{'true' if index == 0 else 'false'}", outer_graph=home)
        seeds: dict = {}
        for i, g in enumerate(grads):
            if g is not None:
                seeds.setdefault(id(branch.outputs[i]), []).append(g)
        with context.graph_scope(graph), entered(BranchContext(forward, index, home)):
            found.append(backprop([node_of(o) for o in branch.operations], seeds, wanted))
        graphs.append(graph)
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
    outs = apply(COND, [pred], name=f"{forward.name}_grad", subgraphs=tuple(graphs))
    by_value = {id(v): out for v, out in zip(connected, outs)}
    return [by_value.get(id(v)) if i else None for i, v in enumerate(inputs)]
