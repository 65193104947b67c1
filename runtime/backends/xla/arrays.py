"""TensorArrays and while-loop gradient accumulators on the XLA tier: preallocated buffers.

XLA needs every shape fixed when it compiles, so a list that grows is a buffer of its final
capacity and a count of the elements written:

- a TensorArray of static size is a buffer of that size;
- a TensorArray that grows (`dynamic_size=True`, a Python list appended in a staged loop)
  gets, when a loop that writes to it starts, room for the loop's bound: the trip count XLA
  can see in the graph (`maximum_iterations`, or a condition `i < N` with `i` counting up by
  one from a value known while compiling; `for` over `rt.range` is such a loop). Stacked,
  it is cut to the length reached: by the caller when the stack is a result of the function.
  A loop without a visible bound, or a stack of run-time length used by another op, is
  refused with JitCompileError;
- the per-iteration saves of a while loop for its gradient (AccumulatorNew/Push/Read) are
  one buffer per saved value with the loop's bound as leading dimension (a value that is the
  same in every iteration is kept once).

The buffers are JAX pytrees, so they travel through `lax.while_loop` and `lax.cond` carries.
Ops are recognised by their OpDef (the object, or its `carrier`/`region` traits), never by name.
"""

from __future__ import annotations

import math
from typing import Any, Optional

import jax
import jax.numpy as jnp
import numpy as np

from ...gradients import while_grad
from ...ops import array_math, control_flow, tensor_array


@jax.tree_util.register_pytree_node_class
class Buffer:
    """A TensorArray: `data` of shape (capacity, *element), `count` elements written
    (int32; a NumPy value while known at compile time), `dynamic` whether it may grow."""

    def __init__(self, data, count, dynamic: bool):
        self.data, self.count, self.dynamic = data, count, dynamic

    def tree_flatten(self):
        return (self.data, self.count), self.dynamic

    @classmethod
    def tree_unflatten(cls, dynamic, children):
        return cls(children[0], children[1], dynamic)


@jax.tree_util.register_pytree_node_class
class Saved:
    """A while loop's saves for its gradient: `count` iterations and per value either a
    buffer (bound, *shape) or, for a value the same in every iteration, the value; `bound`
    the most iterations the loop runs."""

    def __init__(self, count, slots, once: tuple, bound: int = 1):
        self.count, self.slots, self.once, self.bound = count, tuple(slots), once, bound

    def tree_flatten(self):
        return (self.count, self.slots), (self.once, self.bound)

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(children[0], children[1], *aux)


@jax.tree_util.register_pytree_node_class
class SavesGrad:
    """The gradient of a loop's saves (a higher order): per saved value a stack
    (bound, *shape) whose row i is the gradient of the value saved at iteration i."""

    def __init__(self, stacks):
        self.stacks = tuple(stacks)

    def tree_flatten(self):
        return (self.stacks,), None

    @classmethod
    def tree_unflatten(cls, _aux, children):
        return cls(children[0])


class SavesEntries:
    """Gradients of saved values not yet in stacks: (slot, iteration, gradient) triples, added
    into the stacks by the sum that takes them."""

    def __init__(self, entries):
        self.entries = tuple(entries)


class PendingSaves:
    """AccumulatorNew's value until its loop starts (the loop's bound sizes the buffers)."""

    def __init__(self, op):
        self.op = op


class Ragged:
    """A stacked growing TensorArray whose length is known only at run time: the buffer and
    the length. Only a function result may hold it (the caller cuts it)."""

    def __init__(self, data, count):
        self.data, self.count = data, count


def is_container(value) -> bool:
    return isinstance(value, (Buffer, Saved, PendingSaves, Ragged, SavesGrad, SavesEntries))


def _known(value) -> bool:
    return isinstance(value, (np.ndarray, np.generic, int, float))


# -- the bound of a loop ----------------------------------------------------------------------

def _static_value(t, env, cond, body, inits) -> Optional[np.ndarray]:
    if t.op.opdef.is_constant:
        return np.asarray(t.op.attrs["value"])
    if t.op.opdef in (array_math.IDENTITY, array_math.CAST) and t.op.inputs:
        return _static_value(t.op.inputs[0], env, cond, body, inits)
    for k, p in enumerate(cond.inputs):  # a loop variable the body passes through
        if p is t:
            if k < len(body.outputs) and body.outputs[k] is body.inputs[k] and _known(inits[k]):
                return np.asarray(inits[k])
            return None
    value = env.get(id(t))
    return np.asarray(value) if _known(value) else None


def _conjuncts(t) -> list:
    op = t.op
    if op.opdef is array_math.LOGICAL_AND:
        return _conjuncts(op.inputs[0]) + _conjuncts(op.inputs[1])
    if op.opdef is array_math.IDENTITY:
        return _conjuncts(op.inputs[0])
    if op.opdef is control_flow.COND and len(op.subgraphs) == 2:
        # autograph's `a and b`: If(a, then: b, else: a), or else: False (a loop's `break`
        # flag tested before its condition)
        k = next(i for i, o in enumerate(op.outputs) if o is t)
        then, other = op.subgraphs
        if other.outputs[k] is op.inputs[0] or _is_false(other.outputs[k]):
            return _conjuncts(op.inputs[0]) + _conjuncts(then.outputs[k])
    return [t]


def _is_false(t) -> bool:
    """Whether `t` is a constant False."""
    return bool(t.op.opdef.is_constant and not np.any(t.op.attrs.get("value", True)))


# comparisons that bound a counter: (the counter's operand, the limit's, whether inclusive)
_BOUNDS = {array_math.LESS: (0, 1, False), array_math.LESS_EQUAL: (0, 1, True),
           array_math.GREATER: (1, 0, False), array_math.GREATER_EQUAL: (1, 0, True)}


def _counter_bound(t, env, cond, body, inits) -> Optional[int]:
    op = t.op
    if op.opdef not in _BOUNDS:
        return None
    ci, li, inclusive = _BOUNDS[op.opdef]
    counter, limit = op.inputs[ci], op.inputs[li]
    k = next((i for i, p in enumerate(cond.inputs) if p is counter), None)
    if k is None or k >= len(body.outputs) or not _known(inits[k]):
        return None
    step = body.outputs[k].op
    if step.opdef is not array_math.ADD or len(step.inputs) != 2:
        return None
    a, b = step.inputs
    other = b if a is body.inputs[k] else a if b is body.inputs[k] else None
    if other is None:
        return None
    one = _static_value(other, env, body, body, inits)
    if one is None or one.size != 1 or float(one) != 1:
        return None
    n = _static_value(limit, env, cond, body, inits)
    if n is None or n.size != 1:
        return None
    span = float(n) - float(np.asarray(inits[k]))
    return max(0, math.floor(span) + 1 if inclusive else math.ceil(span))


def loop_bound(op, env, inits, limit) -> Optional[int]:
    """The most iterations the While `op` can run, when the graph shows it; else None."""
    cond, body = op.subgraphs
    bounds = []
    first = op.inputs[0].op  # a loop's gradient counts down from its loop's last iteration
    if first.opdef is while_grad.ACC_LAST and isinstance(env.get(id(first.inputs[0])), Saved):
        bounds.append(env[id(first.inputs[0])].bound)
    if limit is not None and _known(limit):
        bounds.append(max(0, int(limit)))
    for t in _conjuncts(cond.outputs[0]):
        b = _counter_bound(t, env, cond, body, inits)
        if b is not None:
            bounds.append(b)
    return min(bounds) if bounds else None


# -- element shapes of TensorArrays -----------------------------------------------------------

_SHAPE_OF = {
    tensor_array.TA_WRITE: lambda op: op.inputs[2].shape,
    tensor_array.TA_UNSTACK: lambda op: (op.inputs[1].shape[1:] if op.inputs[1].shape.rank
                                         else None),
    tensor_array.TA_READ: lambda op: op.outputs[0].shape,
    tensor_array.TA_STACK: lambda op: (op.outputs[0].shape[1:] if op.outputs[0].shape.rank
                                       else None),
    tensor_array.TA_GATHER: lambda op: (op.outputs[0].shape[1:] if op.outputs[0].shape.rank
                                        else None),
}


def element_shapes(arrays, ops) -> dict:
    """id(ArrayInfo) -> the element shape of that TensorArray when some op knows it fully."""
    found: dict = {}
    for op in ops:
        if op.opdef is tensor_array.TA_NEW:
            shape = op.attrs.get("element_shape")
            if shape is not None and None not in tuple(shape):
                found.setdefault(id(arrays.info(op.outputs[0])), tuple(shape))
        elif op.opdef in _SHAPE_OF:
            shape = _SHAPE_OF[op.opdef](op)
            if shape is not None and shape.is_fully_defined():
                info = arrays.info(op.inputs[0])
                if info is not None:
                    found.setdefault(id(info), tuple(shape.as_tuple()))
    return found


def writes_in(graph, arrays, info, live) -> tuple[int, bool]:
    """(writes per run of `graph` to the TensorArray `info`, whether a nested loop writes)."""
    count, nested = 0, False
    for op in live(graph, graph.outputs):
        opdef = op.opdef
        if opdef in (tensor_array.TA_WRITE, tensor_array.TA_UNSTACK) and \
                arrays.info(op.inputs[0]) is info:
            count += 1 if opdef is tensor_array.TA_WRITE else 0
            nested = nested or opdef is tensor_array.TA_UNSTACK
        for sub in op.subgraphs:
            c, n = writes_in(sub, arrays, info, live)
            if opdef.is_loop and (c or n):
                nested = True
            count = max(count, c) if opdef is control_flow.COND else count + c
            nested = nested or n
    return count, nested


def grown(buf: Buffer, extra: int) -> Buffer:
    """`buf` with room for `extra` more elements."""
    pad = jnp.zeros((extra,) + tuple(buf.data.shape[1:]), buf.data.dtype)
    return Buffer(jnp.concatenate([jnp.asarray(buf.data), pad]), buf.count, True)


def saves_for(pending: PendingSaves, push, bound: int, body, env, inits, loop_invariant,
              outside=None) -> Saved:
    """The buffers of an accumulator whose loop runs at most `bound` times. `outside(t)` is
    the value before the loop of a tensor the body makes that is the same in every
    iteration (a read of a variable the loop never writes), or None."""
    slots, once = [], []
    for t in push.inputs[1:]:
        if loop_invariant(t, body):
            value = env[id(t)] if not body.is_ancestor_of(t.op.graph) else \
                outside(t) if outside is not None else None
            if value is not None:  # kept once, not once per iteration
                slots.append(value)
                once.append(True)
                continue
        passed = next((i for i, p in enumerate(body.inputs) if p is t and i < len(body.outputs)
                       and body.outputs[i] is t), None)
        if passed is not None:
            slots.append(jnp.asarray(inits[passed], t.dtype.as_numpy_dtype))
            once.append(True)
            continue
        if not t.shape.is_fully_defined():
            raise TypeError(f"the loop's gradient saves {t.name}, whose shape {t.shape} is not "
                            "known when the function is compiled")
        slots.append(jnp.zeros((bound,) + tuple(t.shape.as_tuple()), t.dtype.as_numpy_dtype))
        once.append(False)
    return Saved(np.int32(0), slots, tuple(once), bound)


def push(saved: Saved, values) -> Saved:
    slots = [s if once else s.at[saved.count].set(jnp.asarray(v, s.dtype))
             for s, once, v in zip(saved.slots, saved.once, values)]
    return Saved(saved.count + np.int32(1), slots, saved.once, saved.bound)


# -- the gradient of a loop's saves ----------------------------------------------------------

def saves_grad_zeros(saved) -> SavesGrad:
    if not isinstance(saved, Saved):
        raise TypeError("the gradient of a loop's saves needs the loop's saves")
    stacks = []
    for slot, once in zip(saved.slots, saved.once):
        slot = jnp.asarray(slot)
        shape = slot.shape if once else slot.shape[1:]
        stacks.append(jnp.zeros((saved.bound,) + tuple(shape), slot.dtype))
    return SavesGrad(stacks)


def _entries(value) -> Optional[tuple]:
    """The entries of a sum of read gradients (the NumPy form, a dict, too); None otherwise."""
    if isinstance(value, SavesEntries):
        return value.entries
    if isinstance(value, dict):
        return tuple((index, step, g) for (step, index), g in value.items())
    return None


def saves_grad_add(values) -> Any:
    """The sum of gradients of a loop's saves: stacks added, entries added into their rows."""
    stacks = [v for v in values if isinstance(v, SavesGrad)]
    entries = []
    for v in values:
        found = _entries(v)
        if found is None and not isinstance(v, SavesGrad):
            raise TypeError("the XLA tier holds no TensorArray gradients (a gradient of a "
                            "TensorArray taken inside the function)")
        entries.extend(found or ())
    if not stacks:
        return SavesEntries(entries)
    total = list(stacks[0].stacks)
    for other in stacks[1:]:
        total = [a + b for a, b in zip(total, other.stacks)]
    for index, step, g in entries:
        total[index] = total[index].at[step].add(jnp.asarray(g, total[index].dtype))
    return SavesGrad(total)


def saves_grad_take(grad, step, likes) -> list:
    """[the gradient passed on, then the gradient of each value saved at iteration `step`]."""
    if isinstance(grad, SavesGrad):
        return [grad] + [jnp.asarray(s[step], jnp.asarray(like).dtype)
                         for s, like in zip(grad.stacks, likes)]
    entries = _entries(grad)
    if entries is None:
        raise TypeError("the gradient of a loop's saves is not in a form the XLA tier holds")
    rows = [jnp.zeros_like(jnp.asarray(like)) for like in likes]
    for index, at, g in entries:
        rows[index] = rows[index] + jnp.where(jnp.asarray(at) == step, g, 0)
    return [grad] + rows


def read(saved: Saved, step, index: int):
    slot = saved.slots[index]
    return slot if saved.once[index] else slot[step]


def as_ragged_output(value) -> tuple[Any, Any]:
    """(data, length) of a result the caller cuts."""
    if isinstance(value, Ragged):
        return value.data, jnp.asarray(value.count, np.int32)
    return value, jnp.asarray(np.shape(value)[0], np.int32)
