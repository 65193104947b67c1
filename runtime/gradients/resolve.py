"""Reading forward values from a backward graph.

A gradient rule reads the forward op's inputs and outputs. When the forward op sits in a
`cond` branch or a `while_loop` body, those tensors live in a graph that the backward graph
cannot see. Each such subgraph being differentiated pushes a context here that knows how to
bring a tensor of it out: a branch makes it an extra output of the rewritten `If` op, a loop
body saves it on every iteration of the rewritten `While` op and the backward loop reads the
saved value back. The rewritten op is a new op (over copies of the traced branches or body)
that takes the traced op's place in the graph being built; the traced op is never changed.
"""

from __future__ import annotations

import contextlib
import threading

from .. import context, errors
from ..graph import FuncGraph, copy_into
from ..tensor import SymbolicTensor


class _Stack(threading.local):
    def __init__(self):
        self.contexts = []


_STACK = _Stack()


class Context:
    """Base class: brings tensors of `forward_graph` into reach of the backward graph.
    `copies` maps id(tensor of the traced body) to its copy in `forward_graph`."""

    forward_graph = None
    copies: dict = {}

    def resolve_local(self, tensor):  # pragma: no cover - overridden
        raise NotImplementedError


@contextlib.contextmanager
def entered(ctx: Context):
    """Makes `ctx` resolve tensors of its forward graph while the block runs."""
    _STACK.contexts.append(ctx)
    try:
        yield ctx
    finally:
        _STACK.contexts.pop()


def any_active() -> bool:
    return bool(_STACK.contexts)


def context_of(graph) -> Context | None:
    """The innermost context differentiating the forward graph `graph`, if any."""
    for ctx in reversed(_STACK.contexts):
        if ctx.forward_graph is graph:
            return ctx
    return None


def copy_body(body: FuncGraph, outer) -> tuple[FuncGraph, dict]:
    """A new graph in `outer` with copies of `body`'s inputs, operations (nested bodies too)
    and outputs, and the map from id(tensor of `body`) to its copy. A gradient rewrites the
    copy, never the traced body."""
    mapping: dict = {}
    copy = FuncGraph(body.name, outer_graph=outer)
    copy_into(body, copy, mapping)
    return copy, mapping


def record_on_tapes(node) -> None:
    """Records `node` (a rewritten forward op's new outputs) on the tapes recording now, so
    that a higher-order gradient reaches the values it saves."""
    for tape in context.state.tapes:
        tape._record_node(node)


def resolve(tensor):
    """`tensor` itself when the current graph can read it, else a tensor holding its value."""
    if type(tensor) is not SymbolicTensor:
        return tensor
    graph = tensor.op.graph
    current = context.current_graph()
    if current is None or graph.is_ancestor_of(current):
        return tensor
    ctx = context_of(graph)
    if ctx is not None:
        return ctx.resolve_local(tensor)
    raise errors.InaccessibleTensorError(
        f"A gradient needs the value of {tensor.name}, which was computed inside a branch or "
        "loop body that the gradient computation cannot reach. Compute it outside the "
        "cond/while_loop or pass it through the loop variables.")


class BackwardBody(FuncGraph):
    """The graph of a backward branch or loop body. A tensor of the traced forward body that
    it reads directly (one that a custom gradient function closes over) is read as its copy,
    brought into reach like the values gradient rules read (`resolve`)."""

    def capture(self, tensor):
        if type(tensor) is SymbolicTensor and not tensor.op.graph.is_ancestor_of(self):
            tensor = _copy_of(tensor, self)
            if not tensor.op.graph.is_ancestor_of(self):
                with context.graph_scope(self):
                    tensor = resolve(tensor)
        return super().capture(tensor)


def _copy_of(tensor, graph):
    """The copy of `tensor` that the gradients being built read: through the copy of the
    traced function (an enclosing graph's `_copies`), then of each body being differentiated."""
    while graph is not None:
        copies = getattr(graph, "_copies", None)
        if copies is not None and id(tensor) in copies:
            tensor = copies[id(tensor)]
            break
        graph = graph.outer_graph
    for ctx in _STACK.contexts:
        tensor = ctx.copies.get(id(tensor), tensor)
    return tensor
