"""The gradient of `while_loop`: a backward loop that runs the body's gradient N times.

The gradient rewrites the forward loop: a new `While` op over copies of the traced condition
and body, with one extra loop variable, an accumulator (a Python list) to which the body
appends a tuple of the values the backward body reads, once per iteration. The new op takes
the traced op's place in the graph being built (the traced op is never changed). The
backward loop walks the accumulator from the last iteration to the first, so memory grows
with the trip count, not with the graph, and nothing is recomputed.

The accumulator is an ordinary output of the rewritten loop, and reading a saved value is
differentiable: its gradient is a map {(iteration, slot): gradient}, which the gradient of
the rewritten loop takes back to the values its body saved. So the gradient of a loop can
be differentiated again (a second-order gradient through a staged loop). That map starts
from AccumulatorGradZeros of the accumulator, so a compiler tier can hold it densely: one
stack [iterations, *shape] per saved value (runtime/backends/*: SavesGrad, stacks).
"""

from __future__ import annotations

import numpy as np

from .. import context
from .. import dtypes as _dtypes
from ..attr_kinds import DTYPE, INT, SHAPE
from ..graph import FuncGraph
from ..opdef import define
from ..ops import array_math
from ..ops.control_flow import WHILE
from ..ops.core import apply
from ..shapes import TensorShape
from ..tensor import SymbolicTensor
from .cond_grad import zeros_for_value
from .engine import add, backprop
from .node import Node, differentiable, node_inputs, node_of
from .resolve import Context, context_of, copy_body, entered, record_on_tapes, resolve

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
                 emit=_emit_new, stateful=True, differentiable=False,
                 carrier="accumulator")


ACC_PUSH = define("AccumulatorPush", lambda acc, *values: (_SCALAR, _dtypes.variant),
                  lambda acc, *values: acc.append(values) or acc, emit=_emit_push, stateful=True,
                  differentiable=False, carrier="accumulator")


ACC_READ = define("AccumulatorRead", lambda acc, step, index, shape, dtype: (shape, dtype),
                  lambda acc, step, index, shape, dtype: acc[int(step)][index], emit=_emit_read,
                  carrier="accumulator", attrs={"dtype": DTYPE, "index": INT, "shape": SHAPE})


def _read_grad_kernel(g, step, index):
    return {(int(step), index): g}


def _push_grad_kernel(grad, step, *likes, count):
    grad = grad if grad is not None else {}
    step = int(step)
    values = [grad.pop((step, k), None) for k in range(count)]
    return (grad, *[np.zeros(np.shape(like), np.asarray(like).dtype) if g is None else g
                    for g, like in zip(values, likes)])


def _push_grad_infer(grad, step, *likes, count):
    return [(_SCALAR, _dtypes.variant)] + [(t.shape, t.dtype) for t in likes]


# The gradient of an accumulator is a map {(iteration, slot): gradient of that saved value}:
# reading a saved value sends its gradient there; the rewritten forward loop's gradient
# takes each iteration's entries back to the values its body saved.
ACC_GRAD_READ = define("AccumulatorGradFromRead", lambda g, step, index: (_SCALAR, _dtypes.variant),
                       _read_grad_kernel, attrs={"index": INT})
ACC_GRAD_PUSH = define("AccumulatorPushGrad", _push_grad_infer, _push_grad_kernel,
                       num_outputs=None, attrs={"count": INT})
# The zero gradient of an accumulator. It reads the accumulator, so a compiler tier can hold
# the gradient densely (one stack [iterations, *shape] per saved value, as the accumulator's
# own buffers); the NumPy tier's map starts empty.
ACC_GRAD_ZEROS = define("AccumulatorGradZeros", lambda acc: (_SCALAR, _dtypes.variant),
                        lambda acc: {}, differentiable=False)


def _third_order(op, *grads):
    raise NotImplementedError(
        "Differentiating a staged while_loop three times or more is not supported. Compute "
        "it eagerly, where loops run as Python, or with rt.run_functions_eagerly(True).")


ACC_GRAD_READ.def_grad(_third_order)
ACC_GRAD_PUSH.def_grad(_third_order)


@ACC_READ.def_grad
def _read_grad(op, g):
    return [apply(ACC_GRAD_READ, [g, op.inputs[1]], {"index": op.get_attr("index")}), None]


@ACC_PUSH.def_grad
def _push_grad(op, grad):
    """A forward loop's save, differentiated inside the gradient of that loop (a higher
    order): each saved value gets its entry of this iteration in the accumulator's gradient."""
    ctx = context_of(op.operation.graph)
    if not isinstance(ctx, LoopContext):
        raise NotImplementedError("An accumulator's values can only be differentiated inside "
                                  "the gradient of the loop that saved them.")
    likes = list(op.inputs[1:])
    outs = apply(ACC_GRAD_PUSH, [grad, ctx.step, *likes], {"count": len(likes)})
    return list(outs)


ACC_LAST = define("AccumulatorLastIndex", lambda acc: (_SCALAR, _dtypes.int32),
                  lambda acc: len(acc) - 1, template="len({0}) - 1", differentiable=False,
                  carrier="accumulator")


class RewrittenWhile:
    """The `While` op that takes the place of a traced one while its gradient is built.

    Its condition and body are copies of the traced op's (a nested gradient rewrites the
    copies, never the traced ones), with one more loop variable: an accumulator that the body
    pushes the values the backward body reads to, once per iteration (`slot`). Its outputs
    are the traced op's output tensors, then the accumulator (`final`), an ordinary output: a
    higher-order gradient flows back through it to the values saved. The traced op is never
    changed: the graph being built puts this op in its place (`Graph.supersede`).
    """

    def __init__(self, recorded):
        parent = recorded.graph
        forward = parent.current_version(recorded)
        n = len(forward.outputs)
        self.cond = copy_body(forward.subgraphs[0], parent)[0]
        self.body = copy_body(forward.subgraphs[1], parent)[0]
        for graph in (self.cond, self.body):
            graph.placeholder(_SCALAR, _dtypes.variant, name="accumulator")
        new = parent.create_op(ACC_NEW, [], {}, [(_SCALAR, _dtypes.variant)], name="accumulator")
        self.push = self.body.create_op(ACC_PUSH, [self.body.inputs[n]], {},
                                        [(_SCALAR, _dtypes.variant)], name="accumulate")
        self.body.outputs.append(self.push.outputs[0])
        inputs = list(forward.inputs[:n]) + [new.outputs[0]] + list(forward.inputs[n:])
        op = parent.create_op(WHILE, inputs, dict(forward.attrs), [], name=forward.name,
                              subgraphs=(self.cond, self.body))
        op.name, op.location = forward.name, forward.location
        self.final = SymbolicTensor(op, n, _SCALAR, _dtypes.variant)
        op.outputs = list(forward.outputs) + [self.final]
        parent.supersede(recorded, [new, op])
        self.op = op
        self.n = n
        self._slots: dict = {}

    def slot(self, tensor) -> int:
        """The position of `tensor` in each iteration's saved tuple (saving it from now on)."""
        index = self._slots.get(id(tensor))
        if index is None:
            index = len(self.push.inputs) - 1
            self.push.inputs.append(tensor)
            self._slots[id(tensor)] = index
        return index

    def finish(self) -> None:
        """Records the accumulator on the tapes recording now; the copies are complete."""
        op = self.op
        record_on_tapes(Node(WHILE, node_inputs(WHILE, op.inputs, op.attrs, op), [self.final],
                             op.attrs, op))
        self.cond.freeze()
        self.body.freeze()


class LoopContext(Context):
    """Brings tensors of a forward loop body (a copy) to the backward body: saved, then read
    back."""

    def __init__(self, rewrite: RewrittenWhile, saved, body, step):
        self.forward_graph = rewrite.body
        self.rewrite = rewrite
        self.saved = saved
        self.body = body
        self.step = step
        self._reads: dict = {}

    def resolve_local(self, tensor):
        found = self._reads.get(id(tensor))
        if found is None:
            index = self.rewrite.slot(tensor)
            with context.graph_scope(self.body):
                found = self.body.create_op(
                    ACC_READ, [self.saved, self.step],
                    {"index": index, "shape": tensor.shape, "dtype": tensor.dtype},
                    [(tensor.shape, tensor.dtype)], name="saved").outputs[0]
            self._reads[id(tensor)] = found
        return found


def _holds_saves(tensor) -> bool:
    """Whether `tensor` is a loop's accumulator of saves (a rewritten While's extra output)."""
    if tensor.dtype is not _dtypes.variant:
        return False
    op = tensor.op
    if op.opdef is ACC_NEW:
        return True
    if not op.opdef.is_loop:
        return False
    index = next((i for i, t in enumerate(op.outputs) if t is tensor), None)
    body = op.subgraphs[1]
    return index is not None and index < len(body.outputs) and \
        body.outputs[index].op.opdef is ACC_PUSH


def _gradient_zeros(value):
    """Zeros for the gradient of `value`: for an accumulator, the gradient of its saves."""
    if _holds_saves(value):
        return apply(ACC_GRAD_ZEROS, [resolve(value)])
    return zeros_for_value(value)


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
    recorded = op.operation
    current = recorded.graph.current_version(recorded)
    n = len(current.outputs)
    outs = current.outputs
    loop_grads = [None] * n
    where = {id(t): i for i, t in enumerate(outs)}
    for out, g in zip(op.forward_outputs, grads):
        if g is not None:
            loop_grads[where[id(out)]] = g
    inputs = op.forward_inputs
    n_recorded = len(recorded.outputs)
    cap_offset = len(recorded.inputs)
    caps = inputs[cap_offset:]
    wanted_caps = [c for j, c in enumerate(caps) if op.needs[cap_offset + j]]

    deps = _dependencies(current.subgraphs[1], n)
    active = {i for i in range(n) if loop_grads[i] is not None and differentiable(outs[i])}
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
    rewrite = RewrittenWhile(recorded)
    forward, body_graph = rewrite.op, rewrite.body

    home = context.current_graph()
    saved = resolve(rewrite.final)
    body = FuncGraph(f"{forward.name}_grad_body", outer_graph=home)
    with context.graph_scope(body):
        step = body.placeholder(_SCALAR, _dtypes.int32, name="iteration")
        grad_in = {i: body.placeholder(outs[i].shape, outs[i].dtype, name=f"grad_{i}") for i in active}
    ctx = LoopContext(rewrite, saved, body, step)
    with context.graph_scope(body), entered(ctx):
        seeds: dict = {}
        for i in active:
            seeds.setdefault(id(body_graph.outputs[i]), []).append(grad_in[i])
        sources = [body_graph.inputs[i] for i in active] + wanted_caps
        nodes = [node_of(o) for o in body_graph.operations if o is not rewrite.push]
        found = backprop(nodes, seeds, sources)
        next_grads = []
        for i in active:
            g = found.get(id(body_graph.inputs[i]))
            next_grads.append(zeros_for_value(body_graph.inputs[i]) if g is None else body.capture(g))
        cap_grads = [(c, found[id(c)]) for c in wanted_caps if id(c) in found]
        totals = [body.placeholder(c.shape, c.dtype, name="grad_capture") for c, _ in cap_grads]
        body.outputs = [array_math.subtract(step, 1)] + next_grads + [
            add(total, g) for total, (_, g) in zip(totals, cap_grads)]
    rewrite.finish()

    cond = FuncGraph(f"{forward.name}_grad_cond", outer_graph=home)
    with context.graph_scope(cond):
        for t in body.inputs:
            cond.placeholder(t.shape, t.dtype, name="loop_var")
        cond.outputs = [array_math.greater_equal(cond.inputs[0], 0)]
    start = home.create_op(ACC_LAST, [saved], {}, [(_SCALAR, _dtypes.int32)],
                           name="last_iteration").outputs[0]
    inits = [start]
    for i in active:
        inits.append(loop_grads[i] if loop_grads[i] is not None else _gradient_zeros(outs[i]))
    inits += [_gradient_zeros(c) for c, _ in cap_grads]
    grad_outs = apply(WHILE, inits, name=f"{forward.name}_grad", subgraphs=(cond, body))
    results = [None] * len(inputs)
    for k, i in enumerate(active):
        if i < n_recorded:
            results[i] = grad_outs[1 + k]
    by_cap = {id(c): grad_outs[1 + len(active) + k] for k, (c, _) in enumerate(cap_grads)}
    for j, c in enumerate(caps):
        results[cap_offset + j] = by_cap.get(id(c))
    return results
