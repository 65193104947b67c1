"""TensorArrays, accumulators and a loop's save stacks in a kernel: the writers of
their ops (registered on the ops' OpDefs).

In a kernel a TensorArray is a tuple (buffer, written, size): a buffer of shape (capacity, *element)
that grows by doubling. Its element rank must be known when the array is created, so the
handle tensors of one array (through writes, loops and branches) are grouped
(`backends.shared.TensorArrays`, which the XLA tier uses too) and the rank is taken from
whichever op of the group knows it.
"""

from __future__ import annotations

from ...gradients.while_grad import (
    ACC_GRAD_PUSH,
    ACC_GRAD_READ,
    ACC_GRAD_ZEROS,
    ACC_LAST,
    ACC_NEW,
    ACC_PUSH,
    ACC_READ,
    STACK_POP,
    STACK_PUSH,
)
from ...graph import graphs_within
from ...ops import tensor_array as ta
from ...ops.control_flow import WHILE
from ...passes import live_operations
from ..shared import GRADIENTS, ArrayInfo, TensorArrays, loop_invariant  # noqa: F401 - the tier's names
from .rules import lowers

# -- TensorArray ops: (buffer, written, size) -----------------------------------------------

def _array_of(w, op, handle) -> ArrayInfo:
    info = w.arrays.info(handle)
    if info is None or info.rank is None:
        w.unsupported(op, "a TensorArray whose element rank is unknown")
    return info


@lowers(ta.TA_NEW, numpy_fallback=False)
def _new(w, op):
    info = _array_of(w, op, op.outputs[0])
    new = info.new_op
    shape = new.attrs.get("element_shape")
    dims = [d or 0 for d in shape] if shape is not None else [0] * info.rank
    size = f"np.int64({w.ins(op)[0]})"
    w.assign(op, f"(np.zeros(({size}, {''.join(f'{d}, ' for d in dims)}), "
                 f"{w.dt(new.attrs['dtype'])}), np.zeros({size}, np.bool_), {size})")


@lowers(ta.TA_WRITE, numpy_fallback=False)
def _write(w, op):
    info = _array_of(w, op, op.inputs[0])
    h, i, v = w.ins(op)
    fn = "write" if info.rank else "write_scalar"
    w.assign(op, f"_h.{fn}(*{h}, np.int64({i}), {v}, {bool(info.new_op.attrs.get('dynamic_size'))})")


@lowers(ta.TA_READ, numpy_fallback=False)
def _read(w, op):
    info = _array_of(w, op, op.inputs[0])
    h, i = w.ins(op)
    item = f"{h}[0][_h.check_index({h}[1], {h}[2], np.int64({i}))]"
    w.assign(op, f"{item}.copy()" if info.rank else item)


def _handle_call(template: str):
    """A writer of `template` over the op's input names (after checking the array's rank)."""
    def write(w, op):
        _array_of(w, op, op.inputs[0])
        w.assign(op, template.format(*w.ins(op)))
    return write


lowers(ta.TA_STACK, numpy_fallback=False)(_handle_call("_h.stack(*{0})"))
lowers(ta.TA_SIZE, numpy_fallback=False)(_handle_call("np.int32({0}[2])"))
lowers(ta.TA_GATHER, numpy_fallback=False)(_handle_call("_h.gather(*{0}, {1})"))
lowers(ta.TA_CONCAT, numpy_fallback=False)(_handle_call("_h.concat(*{0})"))
lowers(ta.TA_UNSTACK, numpy_fallback=False)(_handle_call(
    "(np.ascontiguousarray({1}).copy(), np.ones({1}.shape[0], np.bool_), np.int64({1}.shape[0]))"))


# -- TensorArray gradients: a map {index: element gradient} as (buffer, present, size) -------

@lowers(ta.TA_GRAD_ADD, numpy_fallback=False)
def _grad_add(w, op):
    if w.arrays.saves_push(op.outputs[0]) is not None or any(
            _saves_entries(w, t) is not None for t in op.inputs):
        _saves_grad_add(w, op)
        return
    names = w.ins(op)
    if not names:
        element = w.arrays.grad_element(op.outputs[0])
        if element is None:
            w.unsupported(op, "a TensorArray gradient whose element rank is unknown")
        rank, dtype = element
        w.assign(op, f"(np.zeros((0, {'0, ' * rank}), {w.dt(dtype)}), "
                     f"np.zeros(0, np.bool_), np.int64(0))")
        return
    total = names[0]
    for name in names[1:]:
        total = f"_h.grad_add(*{total}, *{name})"
    w.assign(op, total)


@lowers(ta.TA_GRAD_STACK, numpy_fallback=False)
def _grad_from_stack(w, op):
    w.assign(op, f"_h.grad_from_stack({w.ins(op)[0]})")


@lowers(ta.TA_GRAD_READ, numpy_fallback=False)
def _grad_from_read(w, op):
    g, i = w.ins(op)
    fn = "grad_from_read" if op.inputs[0].shape.rank else "grad_from_read_scalar"
    w.assign(op, f"_h.{fn}({g}, np.int64({i}))")


@lowers(ta.TA_GRAD_GATHER, numpy_fallback=False)
def _grad_from_gather(w, op):
    g, i = w.ins(op)
    indices = i if op.inputs[1].shape.rank else f"np.array([{i}])"
    w.assign(op, f"_h.grad_from_gather({g}, {indices})")


@lowers(ta.TA_GRAD_CONCAT, numpy_fallback=False)
def _grad_from_concat(w, op):
    g, h = w.ins(op)
    w.assign(op, f"_h.grad_from_concat({g}, {h}[2])")


def _split_grad(w, op, call: str) -> None:
    """A write's or scatter's gradient: the map without the written elements, and their value."""
    rest, value = w.fresh("m"), w.fresh("t")
    w.line(f"{rest}, {value} = {call}")
    w.alias(op.outputs[0], rest)
    w.alias(op.outputs[1], value)


@lowers(ta.TA_GRAD_WRITE, numpy_fallback=False)
def _write_grad(w, op):
    names = w.ins(op)
    index = f"np.int64({names[1]})"
    if op.outputs[1].shape.rank == 0:
        call = f"_h.write_grad_scalar(*{names[0]}, {index})"
    else:
        shape = op.attrs.get("shape")
        dims = repr(tuple(shape)) if shape is not None else f"{names[2]}.shape"
        call = f"_h.write_grad(*{names[0]}, {index}, {dims})"
    _split_grad(w, op, call)


@lowers(ta.TA_GRAD_SCATTER, numpy_fallback=False)
def _scatter_grad(w, op):
    names = w.ins(op)
    shape, count = op.attrs.get("shape"), op.attrs.get("count")
    if shape is None or count is None:
        like = names[1]
        count, dims = f"{like}.shape[0]", f"{like}.shape[1:]"
    else:
        dims = repr(tuple(shape))
    _split_grad(w, op, f"_h.scatter_grad(*{names[0]}, np.int64({count}), {dims})")


@lowers(ta.TA_GRAD_GET, numpy_fallback=False)
def _grad_get(w, op):
    g, i, like = w.ins(op)
    if op.outputs[0].shape.rank == 0:
        w.assign(op, f"_h.grad_get_scalar(*{g}, np.int64({i}))")
    else:
        w.assign(op, f"_h.grad_get(*{g}, np.int64({i}), {like})")


@lowers(ta.TA_GRAD_GET_STACKED, numpy_fallback=False)
def _grad_get_stacked(w, op):
    g, like = w.ins(op)
    w.assign(op, f"_h.grad_get_stacked(*{g}, {like})")


@lowers(ta.TA_GRAD_GET_GATHERED, numpy_fallback=False)
def _grad_get_gathered(w, op):
    g, indices, like = w.ins(op)
    if op.inputs[1].shape.rank != 1:
        w.unsupported(op, "element gradients gathered at indices that are not a vector")
    w.assign(op, f"_h.grad_get_gathered(*{g}, {indices}, {like})")


@lowers(ta.TA_GRAD_GET_CONCAT, numpy_fallback=False)
def _grad_get_concat(w, op):
    g, h, like = w.ins(op)
    w.assign(op, f"_h.grad_get_concat(*{g}, {h}[2], {like})")


# -- accumulators: a while loop's saves for its gradient, (count, one buffer per value) -------
# One buffer a value, nothing else: the tuple is carried by the loop, and each array in it
# costs Numba increfs and decrefs (compile time) wherever the tuple is assigned.

@lowers(ACC_NEW, numpy_fallback=False)
def _accumulator_new(w, op):
    info = w.arrays.info(op.outputs[0])
    if info is None or info.push is None:
        w.unsupported(op, "an accumulator without its loop")
    slots = [f"np.zeros((0, {'0, ' * t.shape.rank}), {w.dt(t.dtype)}), "
             for t in info.push.inputs[1:]]
    w.assign(op, f"(np.int64(0), {''.join(slots)})")


@lowers(ACC_PUSH, numpy_fallback=False)
def _accumulator_push(w, op):
    """Inline: a row store per value, the buffer grown (by doubling) only when full; a value
    that cannot change during the loop is stored once, in a one-row buffer."""
    names = w.ins(op)
    acc, count = names[0], w.fresh("n")
    w.line(f"{count} = {acc}[0]")
    slots = []
    for i, (t, name) in enumerate(zip(op.inputs[1:], names[1:])):
        buf = w.fresh("b")
        w.line(f"{buf} = {acc}[{i + 1}]")
        if t.shape.rank and loop_invariant(t, op.graph):
            w.line(f"if {count} == 0:")
            with w.indented():
                w.line(f"{buf} = np.empty((1,) + {name}.shape, {buf}.dtype)")
                w.line(f"_h.set_row({buf}, 0, {name})")
        else:
            w.line(f"if {count} >= {buf}.shape[0]:")
            with w.indented():
                grow = (f"_h.grown_rows({buf}, {count}, {name})" if t.shape.rank
                        else f"_h.grown_scalars({buf}, {count})")
                w.line(f"{buf} = {grow}")
            w.line(f"_h.set_row({buf}, {count}, {name})" if t.shape.rank
                   else f"{buf}[{count}] = {name}")
        slots.append(f"{buf}, ")
    w.assign(op, f"({count} + 1, {''.join(slots)})")


@lowers(ACC_READ, numpy_fallback=False)
def _accumulator_read(w, op):
    # a view of the saved row (saved rows are never written again); a one-row buffer holds a
    # value saved once for every step
    acc, step = w.ins(op)
    buf = f"{acc}[{op.attrs['index'] + 1}]"
    w.assign(op, f"{buf}[min({step}, {buf}.shape[0] - 1)]")


@lowers(ACC_LAST, numpy_fallback=False)
def _accumulator_last_index(w, op):
    w.assign(op, f"np.int32({w.ins(op)[0]}[0] - 1)")


# -- the gradient of a loop's saves (a higher order): one stack [count, *shape] per value ----
# Reading a saved value gives an entry (iteration, value gradient) that the sum adds into the
# stacks in place; the gradient of the push takes this iteration's row of each stack.

SAVES_GRADIENTS = frozenset({ACC_GRAD_ZEROS, ACC_GRAD_READ, ACC_GRAD_PUSH})


def _saves_entries(w, tensor) -> list | None:
    """The (slot, entry name) pairs a sum of read gradients stands for; None for stacks."""
    op = tensor.op
    if op.opdef is ACC_GRAD_READ:
        return [(op.attrs["index"], w.name(tensor))]
    if op.opdef is ta.TA_GRAD_ADD and op.inputs:
        parts = [_saves_entries(w, t) for t in op.inputs]
        if all(p is not None for p in parts):
            return [e for p in parts for e in p]
    return None


def _saves_slots(w, op, grad):
    push = w.arrays.saves_push(grad)
    if push is None:
        w.unsupported(op, "the gradient of a loop's saves without its loop")
    return push.inputs[1:]


@lowers(ACC_GRAD_ZEROS, numpy_fallback=False)
def _saves_grad_zeros(w, op):
    acc = w.ins(op)[0]
    stacks = []
    for k, t in enumerate(_saves_slots(w, op, op.outputs[0])):
        buf = f"{acc}[{k + 1}]"
        dims = "".join(f"{buf}.shape[{d + 1}], " for d in range(t.shape.rank))
        stacks.append(f"np.zeros(({acc}[0], {dims}), {w.dt(t.dtype)}), ")
    w.assign(op, f"({''.join(stacks)})")


@lowers(ACC_GRAD_READ, numpy_fallback=False)
def _saves_grad_read(w, op):
    g, step = w.ins(op)
    w.assign(op, f"(np.int64({step}), {g})")


def _saves_grad_add(w, op) -> None:
    stacks = [t for t in op.inputs if _saves_entries(w, t) is None]
    entries = [e for t in op.inputs for e in (_saves_entries(w, t) or ())]
    if not stacks:
        w.assign(op, "None")  # only a sum of entries: its readers take the entries
        return
    slots = _saves_slots(w, op, op.outputs[0])
    first = w.name(stacks[0])
    if len(stacks) > 1 or not w.only_reader(stacks[0], op):
        total = " + ".join(w.name(t) + "[{k}]" for t in stacks)
        copied = [f"({total.format(k=k)}).copy(), " if len(stacks) == 1 else
                  f"{total.format(k=k)}, " for k in range(len(slots))]
        first = w.fresh("m")
        w.line(f"{first} = ({''.join(copied)})")
    for k, entry in entries:
        w.line(f"{first}[{k}][{entry}[0]] += {entry}[1]")
    w.alias(op.outputs[0], first)


@lowers(ACC_GRAD_PUSH, numpy_fallback=False)
def _saves_grad_push(w, op):
    names = w.ins(op)
    if _saves_entries(w, op.inputs[0]) is not None:
        w.unsupported(op, "the gradient of a loop's saves outside the loop's gradient")
    grad, step = names[0], names[1]
    _saves_slots(w, op, op.inputs[0])
    w.alias(op.outputs[0], grad)
    for k, t in enumerate(op.outputs[1:]):
        row = f"{grad}[{k}][np.int64({step})]"
        name = w.fresh("t")
        w.line(f"{name} = {row}.copy()" if t.shape.rank else f"{name} = {row}")
        w.alias(t, name)


# -- a loop's saves on stacks: (buffer, count, claim), helpers.stack_push ------------------
# A stack that a push or a pop makes is held as a carrier (buffer, count, claim), named in
# `w.stacks`, beside a view of its rows (`buffer[:count]`) for the ops that read it as an
# array; a while loop carries the carrier of a stack its body pushes onto
# (`lowering._write_while`, `makes_stack`). A stack that comes in as an array (an input, a
# constant, another op's result) becomes a full carrier (`helpers.stack_of`), so the first push
# onto it copies.

def makes_stack(tensor) -> bool:
    """Whether a push lies on `tensor`'s chain of stacks: a push's result, the rest of a pop of
    such a stack, or a loop's variable that its body pushes onto. A loop carries such a
    variable as a carrier; a stack its body only pops (a backward loop) or passes on stays an
    array, popped by views: carrying (buffer, count, claim) there gains nothing at run time
    and costs Numba compile time for every loop and carried stack."""
    op = tensor.op
    if op.opdef is STACK_PUSH:
        return True
    if op.opdef is STACK_POP:
        return tensor is op.outputs[0] and makes_stack(op.inputs[0])
    if op.opdef is WHILE:
        k = next(i for i, t in enumerate(op.outputs) if t is tensor)
        return makes_stack(op.subgraphs[1].outputs[k])
    return False


def rows_read(graph) -> set[int]:
    """Ids of the tensors (in `graph` and its subgraphs) that some reader takes as an array:
    every input and output but a push's or a pop's stack and a stack a loop carries."""
    found: set[int] = set()
    bodies = set()
    for g in graphs_within(graph):
        for op in live_operations(g, g.outputs):
            if op.opdef is STACK_PUSH or op.opdef is STACK_POP:
                found.update(id(t) for t in op.inputs[1:])
            elif op.opdef is WHILE:
                body = op.subgraphs[1]
                bodies.add(id(body))
                for i, t in enumerate(op.inputs):
                    if i >= len(body.outputs) or not makes_stack(body.outputs[i]):
                        found.add(id(t))
                        if i < len(body.outputs):
                            found.add(id(body.outputs[i]))
            else:
                found.update(id(t) for t in op.inputs)
    for g in graphs_within(graph):  # the kernel's results, a branch's, a loop condition's
        if id(g) not in bodies:
            found.update(id(t) for t in g.outputs)
    return found


def stack_carrier(w, tensor) -> str:
    """The name of `tensor`'s carrier; a stack held as an array becomes one here (not kept:
    this line may be inside a loop or a branch that later readers are not)."""
    name = w.stacks.get(id(tensor))
    if name is None:
        name = w.fresh("st")
        w.line(f"{name} = _h.stack_of({w.name(tensor)})")
    return name


def set_stack(w, tensor, carrier: str) -> None:
    """`tensor` is held as the carrier named `carrier`, and its rows as a view for other readers."""
    w.stacks[id(tensor)] = carrier
    if id(tensor) in w.stack_rows:
        view = w.fresh("t")
        w.line(f"{view} = {carrier}[0][:{carrier}[1]]")
        w.alias(tensor, view)


@lowers(STACK_PUSH, numpy_fallback=False)
def _stack_push(w, op):
    """A row stored in place when the buffer has room and no other stack holds the row
    (`helpers.stack_push`), amortised O(1) per push, natively: each push through the NumPy
    kernel was an objmode block (compiled again at its first call)."""
    stack = stack_carrier(w, op.inputs[0])
    fn = "stack_push" if op.inputs[1].shape.rank else "stack_push_scalar"
    name = w.fresh("st")
    w.line(f"{name} = _h.{fn}(*{stack}, {w.name(op.inputs[1])})")
    set_stack(w, op.outputs[0], name)


@lowers(STACK_POP)
def _stack_pop(w, op):
    """The rows but the last and the last row, natively: a backward loop pops every saved
    value each iteration, and each pop through the NumPy kernel was an objmode block (about
    half a second of compile each; a backward kernel of a third order has dozens). A carrier
    pops by its count (the buffer is shared, the row stays), an array by a view. An empty
    stack raises, and the NumPy tier runs the call again for its error."""
    rank = op.outputs[1].shape.rank
    if rank is None:
        w.unsupported(op, "a stack of rows of unknown rank")
    carrier = w.stacks.get(id(op.inputs[0]))
    top = w.fresh("t")
    copy = ".copy()" if rank else ""
    empty = "raise IndexError(\"StackPop: the stack of a loop's saves is empty.\")"
    if carrier is None:
        buf = w.name(op.inputs[0])
        rest = w.fresh("t")
        w.line(f"if {buf}.shape[0] == 0:")
        with w.indented():
            w.line(empty)
        w.line(f"{rest} = {buf}[:-1]")
        w.line(f"{top} = {buf}[-1]{copy}")
        w.alias(op.outputs[0], rest)
    else:
        w.line(f"if {carrier}[1] == 0:")
        with w.indented():
            w.line(empty)
        rest = w.fresh("st")
        w.line(f"{rest} = ({carrier}[0], {carrier}[1] - 1, {carrier}[2])")
        w.line(f"{top} = {carrier}[0][{rest}[1]]{copy}")
        set_stack(w, op.outputs[0], rest)
    w.alias(op.outputs[1], top)
