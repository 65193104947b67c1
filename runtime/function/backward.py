"""The forward and backward functions of a traced graph: two new graphs, derived once.

The traced graph is copied first; the copy becomes the forward graph. The backward graph is
built by running the reverse sweep over the copy's ops inside a child graph, so it reads
forward values directly. Every forward value it reads becomes an extra output of the
forward graph (the values "saved" for the backward pass) and an input of the backward
graph. Nothing is recomputed, and the traced graph is never changed. Both graphs go through
the one pipeline (`runtime.backends.compile`) on the function's own backend; when the Numba
tier refuses either of them (a JitCompileError), both run on the NumPy backend instead, with
a logged warning naming the op.
"""

from __future__ import annotations

import itertools

from .. import backends, context
from ..backends import JitCompileError, runtime_error
from ..gradients.engine import backprop
from ..gradients.node import differentiable, node_of, variables_read
from ..gradients.tape import paused
from ..graph import FuncGraph, copy_function_graph
from .logs import logger, warn


class Shell:
    """A unit to lower: inputs, the ops of one or more op lists, and outputs."""

    def __init__(self, name: str, inputs, op_lists, outputs):
        self.name = name
        self.inputs = list(inputs)
        self._op_lists = op_lists
        self.outputs = list(outputs)

    @property
    def operations(self) -> list:
        return list(itertools.chain.from_iterable(self._op_lists))


class GraphGradient:
    """`forward(*inputs) -> outputs + saved` and `backward(*output_grads, *saved) -> grads`.

    Gradients are taken for the floating-point inputs (`input_indices`) and for every
    variable the graph reads (`variables`); `backward` returns them in that order, with
    `has_grad[k]` False for those the outputs do not depend on (they are left out).
    """

    def __init__(self, graph, name: str, backend: backends.Backend = backends.NUMPY):
        # the backward pass saves forward values (and adds outputs to the forward's cond and
        # while ops for them): it works on a copy, and the traced graph stays as traced
        graph, _ = copy_function_graph(graph)
        self.graph = graph
        self.output_indices = [i for i, t in enumerate(graph.outputs) if differentiable(t)]
        self.input_indices = [i for i, t in enumerate(graph.inputs) if differentiable(t)]
        self.variables = variables_read([graph])
        backward = FuncGraph(f"{name}_grad", outer_graph=graph)
        existing = {id(op) for op in graph.root().operations}
        with paused(), context.graph_scope(backward):
            grad_inputs = []
            seeds: dict = {}
            for i in self.output_indices:
                out = graph.outputs[i]
                ph = backward.placeholder(out.shape, out.dtype, name=f"grad_{i}")
                grad_inputs.append(ph)
                seeds.setdefault(id(out), []).append(ph)
            sources = [graph.inputs[i] for i in self.input_indices] + self.variables
            with context.name_scope("gradients"):
                found = backprop([node_of(op) for op in graph.operations], seeds, sources)
            grads = [found.get(id(s)) for s in sources]
            backward.outputs = [backward.capture(g) for g in grads if g is not None]
        _adopt_constants(backward, existing)
        self.has_grad = [g is not None for g in grads]
        saved, consts = _reads_from_outside(backward)
        self.n_saved = len(saved)
        self.n_outputs = len(graph.outputs)
        forward = Shell(f"{name}_forward", graph.inputs, [graph.operations], graph.outputs + saved)
        back = Shell(f"{name}_backward", grad_inputs + saved, [consts, backward.operations],
                     backward.outputs)
        self.backward_graph = backward
        try:
            self.forward_compiled = backends.compile(forward, backend, forward.name)
            self.backward_compiled = backends.compile(back, backend, back.name)
        except JitCompileError as exc:
            if backend is backends.NUMPY:
                raise
            # the pair falls back together: the forward's saved values are the backward's inputs
            warn(logger, "The gradient of %s runs on the NumPy tier: %s", name, exc)
            self.forward_compiled = backends.compile(forward, backends.NUMPY, forward.name)
            self.backward_compiled = backends.compile(back, backends.NUMPY, back.name)

    def forward(self, values):
        """(outputs, saved) for NumPy input values."""
        result = _run(self.forward_compiled, values)
        if self.n_outputs + self.n_saved == 1:
            result = (result,)
        return list(result[:self.n_outputs]), list(result[self.n_outputs:])

    def backward(self, output_grads, saved):
        """The gradients (NumPy values, None where there is none) for inputs, then variables."""
        result = _run(self.backward_compiled, [*output_grads, *saved])
        n = sum(self.has_grad)
        if n == 1:
            result = (result,)
        it = iter(result if n else ())
        return [next(it) if has else None for has in self.has_grad]


def _adopt_constants(backward, existing) -> None:
    """Moves the constants made while building `backward` from the forward graph into it.

    Constants always go to the outermost graph, which here is the forward graph; they belong
    to the backward pass, and the forward graph stays as it was traced.
    """
    root = backward.root()
    moved = [op for op in root.operations if id(op) not in existing and op.opdef.is_constant]
    if not moved:
        return
    root.remove_operations(moved)
    for op in moved:
        op.graph = backward
    backward.operations[:0] = moved


def _run(compiled, values):
    """Runs lowered code; errors name the graph op that raised them, as for plain calls."""
    try:
        return compiled.fn(*values)
    except Exception as exc:
        translated = runtime_error(compiled, exc)
        if translated is None:
            raise
        raise translated from None


def _reads_from_outside(backward):
    """Forward values the backward graph reads: (tensors to save, Const ops to repeat)."""
    saved, consts, seen = [], [], set()

    def visit(t):
        if id(t) in seen or backward.is_ancestor_of(t.op.graph):
            return
        seen.add(id(t))
        if t.op.opdef.is_constant:
            consts.append(t.op)
        else:
            saved.append(t)

    for op in backward.all_operations():
        for t in op.inputs:
            visit(t)
        for sub in op.subgraphs:
            for t in sub.outputs:
                visit(t)
    for t in backward.outputs:
        visit(t)
    return saved, consts
