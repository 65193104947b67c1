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

A gradient that will itself be differentiated by other tapes (`saving_stacks`: the backward
function of a call recorded by nested or persistent tapes) is built in another form, over
tensors only: the rewritten forward loop carries its iteration count and one stack (a tensor
[iterations, *shape]) per saved value, pushing a row each iteration (StackPush), and the
backward loop carries those stacks on, popping a row each iteration (StackPop). Push and pop
are each other's gradient, so the backward loop is an ordinary loop over tensors that this
same rule differentiates again, to any order, and the stacks pass between orders as tensors.
"""

from __future__ import annotations

import contextlib
import threading
import weakref

import numpy as np
from numpy.lib.mixins import NDArrayOperatorsMixin

from .. import context, errors
from .. import dtypes as _dtypes
from ..attr_kinds import DTYPE, INT, SHAPE
from ..graph import FuncGraph
from ..opdef import define
from ..ops import array_math
from ..ops.control_flow import WHILE
from ..ops.core import apply
from ..ops.variables import READ
from ..shapes import TensorShape
from ..tensor import SymbolicTensor
from .cond_grad import zeros_for_value
from .engine import add, backprop
from .node import Node, differentiable, node_inputs, node_of
from .resolve import BackwardBody, Context, context_of, copy_body, entered, record_on_tapes, resolve

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
        self.body, self.copies = copy_body(forward.subgraphs[1], parent)
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
        self.parent = parent
        self.reads: dict = {}  # id(variable) -> its read before the loop
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


def _outside_value(rewrite, tensor):
    """The value outside the loop that `tensor` (of the rewritten body) equals at every
    iteration, or None: a loop variable the body passes on unchanged (the loop's input), or a
    read of a variable that nothing in the loop writes (read once, just before the loop). Such
    a value is read by the backward body directly, never saved per iteration."""
    body, op = rewrite.body, tensor.op
    if op.opdef.is_placeholder:
        index = next((i for i, t in enumerate(body.inputs) if t is tensor), None)
        if index is not None and index < len(body.outputs) and body.outputs[index] is tensor:
            return rewrite.op.inputs[index]
        return None
    if op.opdef is not READ:
        return None
    var = op.attrs["var"]
    hoisted = rewrite.reads.get(id(var))
    if hoisted is None:
        hoisted = _read_before(rewrite, var)
    if hoisted is None:
        if any(o.opdef.variable and o.opdef is not READ and o.attrs.get("var") is var
               for o in body.all_operations()):
            return None
        parent = rewrite.parent
        read = parent.create_op(READ, [], dict(op.attrs), [(tensor.shape, tensor.dtype)],
                                name=f"{op.name.rsplit('/', 1)[-1]}_before_loop")
        _first_op_before(parent, read, rewrite.op)
        hoisted = rewrite.reads[id(var)] = read.outputs[0]
        # tapes recording now see the read, so a higher order reaches the variable
        record_on_tapes(Node(READ, node_inputs(READ, [], read.attrs, read), [hoisted],
                             read.attrs, read))
    return hoisted


def _read_before(rewrite, var):
    """The read of `var` a gradient built before over the same graph put just before the loop
    (among the ops placed there: reads, the initial stacks or lists), or None."""
    ops = rewrite.parent.operations
    k = next(i for i, o in enumerate(ops) if o is rewrite.op)
    while k > 0 and ops[k - 1].opdef in (READ, array_math.ZEROS, ACC_NEW):
        k -= 1
        if ops[k].opdef is READ and ops[k].attrs["var"] is var:
            rewrite.reads[id(var)] = ops[k].outputs[0]
            return ops[k].outputs[0]
    return None


class LoopContext(Context):
    """Brings tensors of a forward loop body (a copy) to the backward body: saved, then read
    back."""

    def __init__(self, rewrite: RewrittenWhile, saved, body, step):
        self.forward_graph = rewrite.body
        self.copies = rewrite.copies
        self.rewrite = rewrite
        self.saved = saved
        self.body = body
        self.step = step
        self._reads: dict = {}

    def resolve_local(self, tensor):
        found = self._reads.get(id(tensor))
        if found is None:
            outside = _outside_value(self.rewrite, tensor)
            if outside is not None:
                found = self._reads[id(tensor)] = resolve(outside)
                return found
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


# -- the differentiable-again form: saves on stacks, ordinary tensors -------------------------
# A stack is a tensor [n, *shape] of the values saved so far, one row per iteration. The
# forward loop carries one per saved value and pushes a row every iteration; the backward
# loop carries it on and pops the rows from the last one. Push and pop are each other's
# gradient, so the gradient of a loop is again a loop over tensors: differentiable by this
# same rule, to any order, and its saves pass between orders (recorded calls) as tensors.

_GROWING: dict = {}  # id(buffer) -> (weak reference to it, rows in use) for in-place pushes
_CLAIM = threading.Lock()


def _forget(key: int) -> None:
    _GROWING.pop(key, None)


def _owned_rows(buf) -> np.ndarray | None:
    """The buffer `buf` is the prefix of, when a push may write the next row in place: no
    array holds a row beyond `buf`'s (a push from a shorter prefix copies instead)."""
    base = buf.base
    if base is None or buf.ndim == 0:
        return None
    found = _GROWING.get(id(base))
    if found is None or found[0]() is not base or found[1] != len(buf):
        return None
    if buf.strides != base.strides or \
            buf.__array_interface__["data"][0] != base.__array_interface__["data"][0]:
        return None
    return base


def _stack_push_kernel(buf, value):
    """`concat([buf, value[None]])`, writing in place into spare rows (amortised O(1))."""
    buf, value = np.asarray(buf), np.asarray(value)
    n = len(buf)
    if n and buf.shape[1:] != value.shape:
        raise errors.InvalidArgumentError(
            f"StackPush: a value a while_loop saves for its gradient changed shape between "
            f"iterations ({buf.shape[1:]} then {value.shape}); a gradient that is "
            "differentiable again needs one shape. Compute it eagerly "
            "(rt.run_functions_eagerly(True)).")
    with _CLAIM:  # the row is claimed (and the next push from `buf` copies) before writing
        base = _owned_rows(buf) if n else None
        if base is None or n == len(base):
            base = np.empty((max(4, 2 * n),) + value.shape, buf.dtype)
            if n:
                base[:n] = buf
            weakref.finalize(base, _forget, id(base))
        _GROWING[id(base)] = (weakref.ref(base), n + 1)
    base[n] = value
    return base[:n + 1]


def _stack_pop_kernel(buf):
    buf = np.asarray(buf)
    if not len(buf):
        raise errors.InvalidArgumentError("StackPop: the stack of a loop's saves is empty.")
    return buf[:-1], buf[-1].copy()


def _push_infer(buf, value):
    return TensorShape([None]).concatenate(value.shape), value.dtype


def _pop_infer(buf):
    return [(TensorShape([None]).concatenate(buf.shape[1:]), buf.dtype),
            (buf.shape[1:], buf.dtype)]


class Rows(NDArrayOperatorsMixin):
    """The NumPy tier's stack: the rows pushed so far, each the value itself (no copy, as a
    list holds it), over the array the stack started from (`below` is that array or another
    `Rows`). Push and pop are O(1) and never copy (a push stores two references, nothing
    else: a loop pushes every saved value each iteration); the stack becomes an array
    [rows, *shape] only where something other than a push or a pop reads it (`__array__`:
    the values a function returns, a higher order's arithmetic on a stack's gradient)."""

    __slots__ = ("below", "top")

    def __init__(self, below, top):
        self.below = below
        self.top = top

    def __len__(self) -> int:
        n, stack = 0, self
        while type(stack) is Rows:
            n += 1
            stack = stack.below
        return n + len(stack)

    @property
    def shape(self) -> tuple:
        return (len(self),) + np.shape(self.top)

    @property
    def dtype(self):
        return np.asarray(self.top).dtype

    @property
    def ndim(self) -> int:
        return 1 + np.ndim(self.top)

    def __array__(self, dtype=None, copy=None):
        rows = []
        stack = self
        while type(stack) is Rows:
            rows.append(stack.top)
            stack = stack.below
        base = np.asarray(stack)
        row_shape = np.shape(self.top)
        if any(np.shape(r) != row_shape for r in rows) or (len(base) and base.shape[1:] != row_shape):
            raise errors.InvalidArgumentError(
                "StackPush: a value a while_loop saves for its gradient changed shape between "
                "iterations; a gradient that is differentiable again needs one shape. Compute "
                "it eagerly (rt.run_functions_eagerly(True)).")
        out = np.empty((len(base) + len(rows),) + row_shape,
                       dtype or np.result_type(base.dtype, self.dtype))
        if len(base):
            out[:len(base)] = base
        for k, row in enumerate(reversed(rows)):
            out[len(base) + k] = row
        return out

    def __getattr__(self, name: str):
        if name.startswith("__"):  # what NumPy probes for (`__array_interface__`, ...)
            raise AttributeError(name)
        return getattr(np.asarray(self), name)  # an array's other methods (`copy`, `T`, ...)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        inputs = [np.asarray(x) if type(x) is Rows else x for x in inputs]
        return getattr(ufunc, method)(*inputs, **kwargs)


def _emit_stack_push(em, op):
    """StackPush on the NumPy tier: the value on top of the stack, neither copied."""
    em.line(f"{em.outs(op)[0]} = {em.bind(Rows)}({', '.join(em.ins(op))})")


def _emit_stack_pop(em, op):
    """StackPop on the NumPy tier: (the rows below the top, the top); a stack that is an
    array (one a function returned) pops as the kernel pops it."""
    buf, rows = em.ins(op)[0], em.bind(Rows)
    em.line(f"{', '.join(em.outs(op))} = ({buf}.below, {buf}.top) if type({buf}) is {rows} "
            f"else {em.bind(_stack_pop_kernel)}({buf})")


# The kernels (eager runs, a Numba kernel's objmode blocks) work on arrays; the NumPy tier's
# source keeps the rows unstacked (`Rows`).
STACK_PUSH = define("StackPush", _push_infer, _stack_push_kernel, emit=_emit_stack_push)
STACK_POP = define("StackPop", _pop_infer, _stack_pop_kernel, emit=_emit_stack_pop, num_outputs=2)



@STACK_PUSH.def_grad
def _stack_push_grad(op, g):
    rest, top = apply(STACK_POP, [g])
    return [rest, top]


@STACK_POP.def_grad
def _stack_pop_grad(op, g_rest, g_top):
    if g_rest is None:
        g_rest = array_math.zeros_like(op.outputs[0])
    if g_top is None:
        g_top = array_math.zeros_for(op, 1, output=True)
    return [apply(STACK_PUSH, [g_rest, g_top])]


class _Form(threading.local):
    stacks = False


_FORM = _Form()


@contextlib.contextmanager
def saving_stacks():
    """While the block runs, loop gradients are built in the differentiable-again form (saves
    on stacks): for a gradient that will itself be differentiated."""
    before = _FORM.stacks
    _FORM.stacks = True
    try:
        yield
    finally:
        _FORM.stacks = before


def _first_op_before(parent, new, op) -> None:
    """Moves `new` (just created in `parent`) before `op`."""
    parent.operations.remove(new)
    parent.operations.insert(parent.operations.index(op), new)


class StackedWhile:
    """The `While` op that takes the place of a traced one while its differentiable-again
    gradient is built: copies of the traced condition and body, with more loop variables,
    the iteration count and one stack per value the backward body reads (`stack_of`). Its
    outputs are the traced op's, then the count and the stacks. A loop already rewritten
    this way (a gradient built again over the same graph) keeps its count and stacks, and a
    value it already pushes is read from its stack."""

    def __init__(self, recorded):
        parent = recorded.graph
        forward = parent.current_version(recorded)
        self.parent = parent
        self.cond = copy_body(forward.subgraphs[0], parent)[0]
        self.body, self.copies = copy_body(forward.subgraphs[1], parent)
        op = parent.create_op(WHILE, list(forward.inputs), dict(forward.attrs), [],
                              name=forward.name, subgraphs=(self.cond, self.body))
        op.name, op.location = forward.name, forward.location
        op.outputs = list(forward.outputs)
        parent.supersede(recorded, [op])
        self.op = op
        self.reads: dict = {}  # id(variable) -> its read before the loop
        self.new_outputs: list = []
        self._stacks = {id(out.op.inputs[1]): op.outputs[j]
                        for j, out in enumerate(self.body.outputs[:len(op.outputs)])
                        if out.op.opdef is STACK_PUSH and out.op.inputs[0] is self.body.inputs[j]}
        self.count = self._counter()

    def _counter(self):
        """The output counting the iterations (added when the loop has none)."""
        body, op = self.body, self.op
        for j, out in enumerate(body.outputs[:len(op.outputs)]):
            init = op.inputs[j]
            step = out.op.inputs[1] if out.op.opdef is array_math.ADD else None
            if out.dtype is _dtypes.int32 and step is not None and \
                    out.op.inputs[0] is body.inputs[j] and _is_value(init, 0) and \
                    (step.op.opdef is array_math.ONES_LIKE or _is_value(step, 1)):
                return op.outputs[j]
        zero = self.parent.create_op(array_math.ZEROS, [], {"shape": (), "dtype": np.dtype(np.int32)},
                                     [(_SCALAR, _dtypes.int32)], name="iterations")
        _first_op_before(self.parent, zero, op)

        def step(count):
            # no Const: a graph's new constants go to its root, here a graph being
            # differentiated, and leave it with the gradient
            one = body.create_op(array_math.ONES_LIKE, [count], {"dtype": None},
                                 [(_SCALAR, _dtypes.int32)], name="one").outputs[0]
            return body.create_op(array_math.ADD, [count, one], {}, [(_SCALAR, _dtypes.int32)],
                                  name="count").outputs[0]
        return self._add_loop_var(zero.outputs[0], _SCALAR, _dtypes.int32, "iterations", step)

    def _add_loop_var(self, init, shape, dtype, name: str, step):
        """A new loop variable from `init`, `step(value)` after each iteration; its output."""
        k = len(self.op.outputs)
        self.cond.placeholder(shape, dtype, name=name)
        value = self.body.placeholder(shape, dtype, name=name)
        self.body.outputs.append(step(value))
        self.op.inputs.insert(k, init)
        final = SymbolicTensor(self.op, k, shape, dtype)
        self.op.outputs.append(final)
        self.new_outputs.append(final)
        return final

    def stack_of(self, tensor):
        """The output holding `tensor` of every iteration (a stack [iterations, *shape])."""
        found = self._stacks.get(id(tensor))
        if found is not None:
            return found
        if tensor.shape.rank is None:
            raise NotImplementedError(
                f"The gradient of the while_loop {self.op.name} saves {tensor.name}, whose rank "
                "is not known; a gradient that is differentiable again needs it. Compute it "
                "eagerly (rt.run_functions_eagerly(True)).")
        shape = TensorShape([None]).concatenate(tensor.shape)
        empty = (0,) + tuple(d or 0 for d in tensor.shape.as_tuple())
        init = self.parent.create_op(array_math.ZEROS, [], {"shape": empty,
                                                            "dtype": np.dtype(tensor.dtype.as_numpy_dtype)},
                                     [(shape, tensor.dtype)], name="saves")
        _first_op_before(self.parent, init, self.op)

        def step(stack):
            return self.body.create_op(STACK_PUSH, [stack, tensor], {}, [(shape, tensor.dtype)],
                                       name="save").outputs[0]
        found = self._stacks[id(tensor)] = self._add_loop_var(init.outputs[0], shape,
                                                              tensor.dtype, "saves", step)
        return found

    def finish(self) -> None:
        """Records the new outputs on the tapes recording now; the copies are complete."""
        if self.new_outputs:
            op = self.op
            record_on_tapes(Node(WHILE, node_inputs(WHILE, op.inputs, op.attrs, op),
                                 list(self.new_outputs), op.attrs, op))
        self.cond.freeze()
        self.body.freeze()


def _is_value(tensor, value) -> bool:
    """Whether `tensor` is a constant (a Const or a Zeros op) equal to `value`."""
    op = tensor.op
    if op.opdef is array_math.ZEROS:
        return value == 0
    return op.opdef.is_constant and np.shape(op.attrs["value"]) == () and \
        op.attrs["value"] == value


class StackContext(Context):
    """Brings tensors of a forward loop body (a copy) to the backward body: each is pushed
    on a stack by the forward loop and popped by the backward loop, which carries the stack."""

    def __init__(self, rewrite: StackedWhile, body):
        self.forward_graph = rewrite.body
        self.copies = rewrite.copies
        self.rewrite = rewrite
        self.body = body
        self.stacks: list = []  # (the forward loop's stack output, its backward loop variable, rest)
        self._reads: dict = {}

    def resolve_local(self, tensor):
        found = self._reads.get(id(tensor))
        if found is None:
            outside = _outside_value(self.rewrite, tensor)
            if outside is not None:
                found = self._reads[id(tensor)] = resolve(outside)
                return found
            final = self.rewrite.stack_of(tensor)
            stack = self.body.placeholder(final.shape, final.dtype, name="saves")
            rest, found = self.body.create_op(
                STACK_POP, [stack], {}, [(final.shape, final.dtype), (tensor.shape, tensor.dtype)],
                name="saved").outputs
            self.stacks.append((final, stack, rest))
            self._reads[id(tensor)] = found
        return found


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
    if _FORM.stacks:
        return _stacked_grad(op, current, active, loop_grads, wanted_caps)
    rewrite = RewrittenWhile(recorded)
    forward, body_graph = rewrite.op, rewrite.body

    home = context.current_graph()
    saved = resolve(rewrite.final)
    body = BackwardBody(f"{forward.name}_grad_body", outer_graph=home)
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


def _stacked_grad(op, current, active, loop_grads, wanted_caps) -> list:
    """The gradient of a While op in the differentiable-again form: a backward While over
    tensors, the iteration count, the loop variables' gradients, the stacks of the saved
    values (popped, one row an iteration) and the captured values' gradient totals."""
    recorded = op.operation
    rewrite = StackedWhile(recorded)
    body_graph, outs = rewrite.body, list(current.outputs)
    home = context.current_graph()
    name = rewrite.op.name
    body = BackwardBody(f"{name}_grad_body", outer_graph=home)
    with context.graph_scope(body):
        count = body.placeholder(_SCALAR, _dtypes.int32, name="iterations")
        grad_in = {i: body.placeholder(outs[i].shape, outs[i].dtype, name=f"grad_{i}")
                   for i in active}
    ctx = StackContext(rewrite, body)
    with context.graph_scope(body), entered(ctx):
        seeds: dict = {}
        for i in active:
            seeds.setdefault(id(body_graph.outputs[i]), []).append(grad_in[i])
        sources = [body_graph.inputs[i] for i in active] + wanted_caps
        found = backprop([node_of(o) for o in body_graph.operations], seeds, sources)
        next_grads = []
        for i in active:
            g = found.get(id(body_graph.inputs[i]))
            next_grads.append(zeros_for_value(body_graph.inputs[i]) if g is None else body.capture(g))
        cap_grads = [(c, found[id(c)]) for c in wanted_caps if id(c) in found]
        totals = [body.placeholder(c.shape, c.dtype, name="grad_capture") for c, _ in cap_grads]
        body_out = {id(count): array_math.subtract(count, 1)}
        body_out.update((id(grad_in[i]), g) for i, g in zip(active, next_grads))
        body_out.update((id(t), add(t, g)) for t, (_, g) in zip(totals, cap_grads))
    body_out.update((id(stack), rest) for _, stack, rest in ctx.stacks)
    body.outputs = [body_out[id(t)] for t in body.inputs]
    rewrite.finish()

    inits = {id(count): resolve(rewrite.count)}
    inits.update((id(grad_in[i]), loop_grads[i] if loop_grads[i] is not None
                  else _gradient_zeros(outs[i])) for i in active)
    inits.update((id(stack), resolve(final)) for final, stack, _ in ctx.stacks)
    inits.update((id(t), zeros_for_value(c)) for t, (c, _) in zip(totals, cap_grads))
    cond = FuncGraph(f"{name}_grad_cond", outer_graph=home)
    with context.graph_scope(cond):
        for t in body.inputs:
            cond.placeholder(t.shape, t.dtype, name="loop_var")
        cond.outputs = [array_math.greater(cond.inputs[0], 0)]
    grad_outs = apply(WHILE, [inits[id(t)] for t in body.inputs], name=f"{name}_grad",
                      subgraphs=(cond, body))
    position = {id(t): k for k, t in enumerate(body.inputs)}
    inputs = op.forward_inputs
    n_recorded = len(recorded.outputs)
    results = [None] * len(inputs)
    for i in active:
        if i < n_recorded:
            results[i] = grad_outs[position[id(grad_in[i])]]
    by_cap = {id(c): grad_outs[position[id(t)]] for t, (c, _) in zip(totals, cap_grads)}
    cap_offset = len(recorded.inputs)
    for j, c in enumerate(inputs[cap_offset:]):
        results[cap_offset + j] = by_cap.get(id(c))
    return results
