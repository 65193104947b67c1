"""The gradient of `while_loop`: a backward loop that runs the body's gradient N times.

The forward loop gets one extra loop variable, an accumulator (a Python list), and its body
appends a tuple of the values the backward body reads, once per iteration. The backward
loop walks the accumulator from the last iteration to the first, so memory grows with the
trip count, not with the graph, and nothing is recomputed.
"""

from __future__ import annotations

import weakref

from .. import context
from .. import dtypes as _dtypes
from ..attr_kinds import DTYPE, INT, SHAPE
from ..graph import FuncGraph
from ..opdef import define, pass_through
from ..ops import math_ops
from ..ops.control_flow import WHILE
from ..ops.core import apply
from ..shapes import TensorShape
from ..tensor import SymbolicTensor
from .cond_grad import zeros_for_value
from .engine import add, backprop
from .node import Node, captured, differentiable, node_inputs, node_of
from .resolve import Context, entered, resolve

_SCALAR = TensorShape([])


def _emit_new(em, op):
    em.line(f"{em.outs(op)[0]} = []")


def _emit_push(em, op):
    names = em.ins(op)
    values = ", ".join(names[1:])
    em.line(f"{names[0]}.append(({values}{',' if len(names) == 2 else ''}))")
    em.alias(op.outputs[0], names[0])


def _emit_read(em, op):
    acc, step = em.ins(op)
    em.line(f"{em.outs(op)[0]} = {acc}[{step}][{op.attrs['index']}]")


ACC_NEW = define("AccumulatorNew", lambda: (_SCALAR, _dtypes.variant), lambda: [],
                 emit=_emit_new, stateful=True, differentiable=False, interpret=pass_through,
                 carrier="accumulator")


ACC_PUSH = define("AccumulatorPush", lambda acc, *values: (_SCALAR, _dtypes.variant),
                  lambda acc, *values: acc.append(values) or acc, emit=_emit_push, stateful=True,
                  differentiable=False, interpret=pass_through, carrier="accumulator")


ACC_READ = define("AccumulatorRead", lambda acc, step, index, shape, dtype: (shape, dtype),
                  lambda acc, step, index, shape, dtype: acc[int(step)][index], emit=_emit_read,
                  carrier="accumulator", attrs={"dtype": DTYPE, "index": INT, "shape": SHAPE})


@ACC_READ.def_grad
def _read_grad(op, *g):
    raise NotImplementedError(
        "Differentiating the gradient of a staged while_loop again (a higher-order gradient "
        "through a loop inside a compiled function) is not supported. Compute it eagerly, "
        "where loops run as Python, or with rt.run_functions_eagerly(True).")


# Stands, on tapes recording a loop's gradient, for "the saved values come from the loop's
# inputs": a second derivative that only flows through saved values then raises, not None.
ACC_SOURCE = define("AccumulatorSource", lambda *inputs: (_SCALAR, _dtypes.variant))
ACC_SOURCE.def_grad(_read_grad)


def _connect_saved(node_inputs_of_loop: list, saved) -> None:
    for tape in context.state.tapes:
        record = getattr(tape, "_record_node", None)
        if record is not None:
            record(Node(ACC_SOURCE, list(node_inputs_of_loop), [saved], {}))


ACC_LAST = define("AccumulatorLastIndex", lambda acc: (_SCALAR, _dtypes.int32),
                  lambda acc: len(acc) - 1, template="len({0}) - 1", differentiable=False,
                  carrier="accumulator")


class Accumulator:
    """The per-iteration saves of one forward While op (added to it on first use)."""

    def __init__(self, op):
        parent = op.graph
        cond_graph, body_graph = op.subgraphs
        n = len(op.outputs)
        new = parent.create_op(ACC_NEW, [], {}, [(_SCALAR, _dtypes.variant)], name="accumulator")
        parent.operations.remove(new)
        parent.operations.insert(parent.operations.index(op), new)
        op.inputs.insert(n, new.outputs[0])
        for graph in (cond_graph, body_graph):
            graph.placeholder(_SCALAR, _dtypes.variant, name="accumulator")
        self.push = body_graph.create_op(ACC_PUSH, [body_graph.inputs[n]], {},
                                         [(_SCALAR, _dtypes.variant)], name="accumulate")
        body_graph.outputs.append(self.push.outputs[0])
        self.final = SymbolicTensor(op, n, _SCALAR, _dtypes.variant)
        op.outputs.append(self.final)
        self._slots: dict = {}

    def slot(self, tensor) -> int:
        """The position of `tensor` in each iteration's saved tuple (saving it from now on)."""
        index = self._slots.get(id(tensor))
        if index is None:
            index = len(self.push.inputs) - 1
            self.push.inputs.append(tensor)
            self._slots[id(tensor)] = index
        return index


_ACCUMULATORS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def accumulator(op) -> Accumulator:
    acc = _ACCUMULATORS.get(op)
    if acc is None:
        acc = _ACCUMULATORS[op] = Accumulator(op)
    return acc


class LoopContext(Context):
    """Brings tensors of a forward loop body to the backward body: saved, then read back."""

    def __init__(self, op, acc: Accumulator, saved, body, step):
        self.forward_graph = op.subgraphs[1]
        self.acc = acc
        self.saved = saved
        self.body = body
        self.step = step
        self._reads: dict = {}

    def resolve_local(self, tensor):
        found = self._reads.get(id(tensor))
        if found is None:
            index = self.acc.slot(tensor)
            with context.graph_scope(self.body):
                found = self.body.create_op(
                    ACC_READ, [self.saved, self.step],
                    {"index": index, "shape": tensor.shape, "dtype": tensor.dtype},
                    [(tensor.shape, tensor.dtype)], name="saved").outputs[0]
            self._reads[id(tensor)] = found
        return found


def _dependencies(body_graph, n: int) -> list:
    """For each body output, the bitmask of loop variables (body inputs) it depends on."""
    reach = {id(t): 1 << i for i, t in enumerate(body_graph.inputs[:n])}
    for op in body_graph.operations:
        mask = 0
        for t in node_inputs(op.opdef, op.inputs, op.attrs, op):
            mask |= reach.get(id(t), 0)
        if mask:
            for o in op.outputs:
                reach[id(o)] = mask
    return [reach.get(id(t), 0) for t in body_graph.outputs[:n]]


@WHILE.def_grad
def _while_grad(op, *grads):
    forward = op.operation
    cond_graph, body_graph = forward.subgraphs
    acc = accumulator(forward)
    outs = [o for o in op.forward_outputs if o is not acc.final]
    n = len(outs)
    inputs = op.forward_inputs
    caps = captured(forward)
    cap_offset = len(inputs) - len(caps)
    wanted_caps = [c for j, c in enumerate(caps) if op.needs[cap_offset + j]]

    deps = _dependencies(body_graph, n)
    active = {i for i in range(n) if grads[i] is not None and differentiable(outs[i])}
    changed = True
    while changed:
        changed = False
        for j in list(active):
            for i in range(n):
                if deps[j] >> i & 1 and i not in active and differentiable(outs[i]):
                    active.add(i)
                    changed = True
    active = sorted(active)
    if not active:
        return [None] * len(inputs)

    home = context.current_graph()
    saved = resolve(acc.final)
    _connect_saved(inputs, saved)
    body = FuncGraph(f"{forward.name}_grad_body", outer_graph=home)
    with context.graph_scope(body):
        step = body.placeholder(_SCALAR, _dtypes.int32, name="iteration")
        grad_in = {i: body.placeholder(outs[i].shape, outs[i].dtype, name=f"grad_{i}") for i in active}
    ctx = LoopContext(forward, acc, saved, body, step)
    with context.graph_scope(body), entered(ctx):
        seeds: dict = {}
        for i in active:
            seeds.setdefault(id(body_graph.outputs[i]), []).append(grad_in[i])
        sources = [body_graph.inputs[i] for i in active] + wanted_caps
        nodes = [node_of(o) for o in body_graph.operations if o is not acc.push]
        found = backprop(nodes, seeds, sources)
        next_grads = []
        for i in active:
            g = found.get(id(body_graph.inputs[i]))
            next_grads.append(zeros_for_value(body_graph.inputs[i]) if g is None else body.capture(g))
        cap_grads = [(c, found[id(c)]) for c in wanted_caps if id(c) in found]
        totals = [body.placeholder(c.shape, c.dtype, name="grad_capture") for c, _ in cap_grads]
        body.outputs = [math_ops.subtract(step, 1)] + next_grads + [
            add(total, g) for total, (_, g) in zip(totals, cap_grads)]

    cond = FuncGraph(f"{forward.name}_grad_cond", outer_graph=home)
    with context.graph_scope(cond):
        for t in body.inputs:
            cond.placeholder(t.shape, t.dtype, name="loop_var")
        cond.outputs = [math_ops.greater_equal(cond.inputs[0], 0)]
    start = home.create_op(ACC_LAST, [saved], {}, [(_SCALAR, _dtypes.int32)],
                           name="last_iteration").outputs[0]
    inits = [start]
    for i in active:
        inits.append(grads[i] if grads[i] is not None else zeros_for_value(outs[i]))
    inits += [zeros_for_value(c) for c, _ in cap_grads]
    grad_outs = apply(WHILE, inits, name=f"{forward.name}_grad", subgraphs=(cond, body))
    results = [None] * len(inputs)
    for k, i in enumerate(active):
        results[i] = grad_outs[1 + k]
    by_cap = {id(c): grad_outs[1 + len(active) + k] for k, (c, _) in enumerate(cap_grads)}
    for j, c in enumerate(caps):
        results[cap_offset + j] = by_cap.get(id(c))
    return results
