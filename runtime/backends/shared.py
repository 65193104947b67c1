"""What the two compiler tiers (Numba, XLA) share: the groups of TensorArray and accumulator
handles of a graph (`TensorArrays`), whether a loop's saved value is the same in every
iteration (`loop_invariant`), the NumPy tier's function a compiled call runs again on failure
(`numpy_fallback`) and the locks of the variables a call stores (`HeldLocks`).
"""

from __future__ import annotations

from ..gradients.while_grad import ACC_GRAD_PUSH, ACC_GRAD_ZEROS, ACC_NEW, ACC_PUSH
from ..graph import graphs_within
from ..ops import tensor_array as ta
from ..ops.control_flow import COND, WHILE
from ..ops.variables import READ
from .base import runtime_error
from .numpy_source import render as render_numpy

_HANDLE_IN = frozenset({ta.TA_WRITE, ta.TA_UNSTACK, ACC_PUSH})  # pass a handle on
_NEW = frozenset({ta.TA_NEW, ACC_NEW})
_RANK_OF = {  # op -> rank of the elements, from that op's tensors
    ta.TA_WRITE: lambda op: op.inputs[2].shape.rank,
    ta.TA_UNSTACK: lambda op: _minus_one(op.inputs[1].shape.rank),
    ta.TA_READ: lambda op: op.outputs[0].shape.rank,
    ta.TA_STACK: lambda op: _minus_one(op.outputs[0].shape.rank),
    ta.TA_GATHER: lambda op: _minus_one(op.outputs[0].shape.rank),
}


# TensorArray gradients (maps {index: element gradient}): the ops that pass a map on (each of
# its inputs, for an add; the first for the others), and the (rank, dtype) of its elements
# from each op that knows them
_GRAD_THROUGH = {ta.TA_GRAD_ADD: None, ta.TA_GRAD_WRITE: 1, ta.TA_GRAD_SCATTER: 1}
_GRAD_ELEMENT = {
    ta.TA_GRAD_STACK: lambda op: (_minus_one(op.inputs[0].shape.rank), op.inputs[0].dtype),
    ta.TA_GRAD_READ: lambda op: (op.inputs[0].shape.rank, op.inputs[0].dtype),
    ta.TA_GRAD_GATHER: lambda op: (_minus_one(op.inputs[0].shape.rank), op.inputs[0].dtype),
    ta.TA_GRAD_CONCAT: lambda op: (op.inputs[0].shape.rank, op.inputs[0].dtype),
    ta.TA_GRAD_WRITE: lambda op: (op.outputs[1].shape.rank, op.outputs[1].dtype),
    ta.TA_GRAD_SCATTER: lambda op: (_minus_one(op.outputs[1].shape.rank), op.outputs[1].dtype),
}
# ... and from each op that takes element gradients out of a map (a higher-order gradient)
_GRAD_TAKEN = {
    ta.TA_GRAD_GET: lambda op: (op.outputs[0].shape.rank, op.outputs[0].dtype),
    ta.TA_GRAD_GET_STACKED: lambda op: (_minus_one(op.outputs[0].shape.rank), op.outputs[0].dtype),
    ta.TA_GRAD_GET_GATHERED: lambda op: (_minus_one(op.outputs[0].shape.rank), op.outputs[0].dtype),
    ta.TA_GRAD_GET_CONCAT: lambda op: (op.outputs[0].shape.rank, op.outputs[0].dtype),
}
# the TensorArray gradient ops
GRADIENTS = frozenset(_GRAD_THROUGH) | frozenset(_GRAD_ELEMENT) | frozenset(_GRAD_TAKEN)


def _minus_one(rank):
    return None if rank is None else rank - 1


class ArrayInfo:
    """One TensorArray (or while-loop gradient accumulator): the op that creates it, its
    element rank (None while unknown) and, for an accumulator, the op that pushes to it."""

    def __init__(self, new_op):
        self.new_op = new_op
        shape = new_op.attrs.get("element_shape")  # a tuple (None for unknown dims) or None
        self.rank = None if shape is None else len(shape)
        self.push = None


class TensorArrays:
    """Handle tensor -> ArrayInfo, for every TensorArray of a graph and its subgraphs."""

    def __init__(self, graph):
        self._parent: dict[int, int] = {}
        self._info: dict[int, ArrayInfo] = {}
        self._ranks: list[tuple[int, int]] = []
        self._pushes: list = []
        self._grad_elements: list[tuple[int, tuple]] = []
        self._grads: dict[int, tuple] = {}  # root -> (rank, dtype) of a gradient map's elements
        self._saves_grads: list = []  # (gradient tensor, the accumulator it is the gradient of)
        self._walk(graph)
        self._pushes_of_grads = {self._find(id(g)): acc for g, acc in self._saves_grads}
        for key, element in self._grad_elements:
            root = self._find(key)
            if element[0] is not None and root not in self._grads:
                self._grads[root] = element
        for push in self._pushes:
            info = self.info(push.inputs[0])
            if info is not None:
                info.push = push
        for key, rank in self._ranks:
            info = self._info.get(self._find(key))
            if info is not None and info.rank is None and rank is not None:
                info.rank = rank

    def info(self, handle) -> ArrayInfo | None:
        return self._info.get(self._find(id(handle)))

    def saves_push(self, grad):
        """For the gradient of a loop's saves (held as one stack per saved value), the
        AccumulatorPush op whose values they are; None for any other tensor."""
        acc = self._pushes_of_grads.get(self._find(id(grad)))
        info = None if acc is None else self.info(acc)
        return None if info is None else info.push

    def grad_element(self, handle) -> tuple | None:
        """(rank, dtype) of the elements of the TensorArray gradient `handle`, if known."""
        return self._grads.get(self._find(id(handle)))

    def _find(self, key: int) -> int:
        while self._parent.get(key, key) != key:
            key = self._parent[key]
        return key

    def _union(self, a, b) -> None:
        ra, rb = self._find(id(a)), self._find(id(b))
        if ra != rb:
            self._parent[rb] = ra
            if rb in self._info and ra not in self._info:
                self._info[ra] = self._info.pop(rb)

    def _walk(self, graph) -> None:
        for op in graph.operations:
            opdef = op.opdef
            if opdef in _NEW:
                self._info[self._find(id(op.outputs[0]))] = ArrayInfo(op)
            if opdef in _HANDLE_IN:
                self._union(op.inputs[0], op.outputs[0])
            if opdef in _GRAD_THROUGH:
                for t in op.inputs[:_GRAD_THROUGH[opdef]]:
                    self._union(op.outputs[0], t)
            if opdef in _GRAD_ELEMENT:
                self._grad_elements.append((id(op.outputs[0]), _GRAD_ELEMENT[opdef](op)))
            if opdef in _GRAD_TAKEN:
                self._grad_elements.append((id(op.inputs[0]), _GRAD_TAKEN[opdef](op)))
            if opdef is ACC_PUSH:
                self._pushes.append(op)
            if opdef is ACC_GRAD_ZEROS:
                self._saves_grads.append((op.outputs[0], op.inputs[0]))
            if opdef is ACC_GRAD_PUSH:
                self._union(op.inputs[0], op.outputs[0])
            if opdef in _RANK_OF:
                self._ranks.append((id(op.inputs[0]), _RANK_OF[opdef](op)))
            for sub in op.subgraphs:
                self._walk(sub)
            if opdef is WHILE:
                cond, body = op.subgraphs
                for i, out in enumerate(op.outputs):
                    for t in (op.inputs[i], cond.inputs[i], body.inputs[i], body.outputs[i]):
                        self._union(out, t)
            elif opdef is COND:
                for branch in op.subgraphs:
                    for out, t in zip(op.outputs, branch.outputs):
                        self._union(out, t)


def loop_invariant(tensor, body) -> bool:
    """Whether `tensor`, saved by the loop whose body is `body`, has one value in every
    iteration: made outside the body, passed through it unchanged, or read from a variable
    that nothing in the loop writes."""
    if not body.is_ancestor_of(tensor.op.graph):
        return True
    for i, t in enumerate(body.inputs):
        if t is tensor:
            return i < len(body.outputs) and body.outputs[i] is tensor
    if tensor.op.opdef is not READ:
        return False
    var = tensor.op.attrs["var"]
    outer = getattr(body, "outer_graph", None)
    loops = [op for op in (outer.operations if outer is not None else ())
             if any(sub is body for sub in op.subgraphs)]
    if len(loops) != 1:
        return False
    graphs = [g for sub in loops[0].subgraphs for g in graphs_within(sub)]
    return not any(op.attrs.get("var") is var and op.opdef is not READ
                   for g in graphs for op in g.operations)


class HeldLocks:
    """Holds several locks, taken in the given order and released in reverse."""

    __slots__ = ("locks",)

    def __init__(self, locks: list):
        self.locks = locks

    def __enter__(self) -> None:
        taken = []
        try:
            for lock in self.locks:
                lock.acquire()
                taken.append(lock)
        except BaseException:
            for lock in reversed(taken):
                lock.release()
            raise

    def __exit__(self, *exc_info) -> bool:
        for lock in reversed(self.locks):
            lock.release()
        return False


def numpy_fallback(program, name: str):
    """The NumPy backend's function for `program`, rendered on first use; its errors name the
    op and the user's line, as the NumPy tier's do (the Numba tier's caller has no frames to
    map them by)."""
    found = []

    def get():
        if not found:
            compiled = render_numpy(program, name)

            def run(*args):
                try:
                    return compiled.fn(*args)
                except Exception as exc:
                    error = runtime_error(compiled, exc)
                    if error is None:
                        raise
                    raise error from None
            found.append(run)
        return found[0]
    return get
