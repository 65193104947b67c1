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

import contextlib
import itertools

from .. import backends, context, dtypes
from ..backends import JitCompileError, runtime_error
from ..gradients.engine import backprop
from ..gradients.node import differentiable, node_of, variables_read
from ..gradients.tape import paused
from ..gradients.while_grad import saving_stacks
from ..graph import FuncGraph, copy_function_graph, copy_into
from .logs import logger, warn


def _compile_on(backend, shells: list, what: str) -> tuple:
    """(the backend used, `shells` compiled by it): `backend`, or the NumPy tier for all of
    them, with a logged warning naming `what`, when `backend` refuses any (a refusal on the
    NumPy tier is raised)."""
    try:
        return backend, [backends.compile(shell, backend, shell.name) for shell in shells]
    except JitCompileError as exc:
        if backend is backends.NUMPY:
            raise
        warn(logger, "%s runs on the NumPy tier: %s", what, exc)
        return backends.NUMPY, [backends.compile(shell, backends.NUMPY, shell.name)
                                for shell in shells]


class Shell:
    """A unit to lower: inputs, the ops of one or more op lists, and outputs (a top-level
    graph: no outer graph)."""

    outer_graph = None

    def __init__(self, name: str, inputs, op_lists, outputs):
        self.name = name
        self.inputs = list(inputs)
        self._op_lists = op_lists
        self.outputs = list(outputs)

    @property
    def operations(self) -> list:
        return list(itertools.chain.from_iterable(self._op_lists))


class _BackwardGraph(FuncGraph):
    """A backward graph built over a copy of the traced graph: a tensor of the traced graph
    itself (one that a custom gradient function closes over) is read from the copy."""

    def __init__(self, name: str, copy: FuncGraph, mapping: dict):
        super().__init__(name, outer_graph=copy)
        self._copies = mapping

    def capture(self, tensor):
        return super().capture(self._copies.get(id(tensor), tensor))


class _Backward:
    """The reverse sweep over `copy` (a copy of a traced graph, `mapping` from the traced
    tensors to their copies), seeded at its differentiable outputs and at the tensors `extra`
    of the copy, staged into a child graph of the copy.

    The backward pass saves forward values (and adds outputs to the forward's cond and while
    ops for them): it works on a copy, and the traced graph stays as traced."""

    def __init__(self, copy: FuncGraph, mapping: dict, name: str, extra=()):
        self.graph = copy
        self.mapping = mapping
        self.output_indices = [i for i, t in enumerate(copy.outputs) if differentiable(t)]
        self.input_indices = [i for i, t in enumerate(copy.inputs) if differentiable(t)]
        self.variables = variables_read([copy])
        backward = _BackwardGraph(f"{name}_grad", copy, self.mapping)
        existing = {id(op) for op in copy.root().operations}
        seeded = [copy.outputs[i] for i in self.output_indices] + list(extra)
        with paused(), context.graph_scope(backward):
            self.grad_inputs = []
            seeds: dict = {}
            for k, out in enumerate(seeded):
                ph = backward.placeholder(out.shape, out.dtype, name=f"grad_{k}")
                self.grad_inputs.append(ph)
                seeds.setdefault(id(out), []).append(ph)
            sources = [copy.inputs[i] for i in self.input_indices] + self.variables
            with context.name_scope("gradients"):
                found = backprop([node_of(op) for op in copy.operations], seeds, sources)
            grads = [found.get(id(s)) for s in sources]
            _refuse_variant_gradients(sources, grads, name)
            backward.outputs = [backward.capture(g) for g in grads if g is not None]
        _adopt_constants(backward, existing)
        self.has_grad = [g is not None for g in grads]
        self.saved, self.consts = _reads_from_outside(backward)
        self.backward = backward


def _refuse_variant_gradients(sources, grads, name: str) -> None:
    """A gradient reaching a `variant` input (values a loop or a TensorArray saved, passed to
    a backward function) has no tensor form to pass on: refused, naming the function."""
    for s, g in zip(sources, grads):
        if g is not None and s.dtype is dtypes.variant:
            raise NotImplementedError(
                f"The gradient of {name} flows into {s.op.name}, values a while_loop or a "
                "TensorArray saved for a backward pass; this higher-order gradient is not "
                "supported staged. Compute it eagerly (rt.run_functions_eagerly(True)).")


class GraphGradient:
    """`forward(*inputs) -> outputs + saved` and `backward(*output_grads, *saved) -> grads`.

    Gradients are taken for the floating-point inputs (`input_indices`) and for every
    variable the graph reads (`variables`); `backward` returns them in that order, with
    `has_grad[k]` False for those the outputs do not depend on (they are left out).
    """

    def __init__(self, graph, name: str, backend: backends.Backend = backends.NUMPY):
        built = _Backward(*copy_function_graph(graph), name)
        graph = self.graph = built.graph
        self.output_indices = built.output_indices
        self.input_indices = built.input_indices
        self.variables = built.variables
        self.has_grad = built.has_grad
        saved = built.saved
        self.n_saved = len(saved)
        self.n_outputs = len(graph.outputs)
        forward = Shell(f"{name}_forward", graph.inputs, [graph.operations], graph.outputs + saved)
        back = Shell(f"{name}_backward", built.grad_inputs + saved,
                     [built.consts, built.backward.operations], built.backward.outputs)
        self.backward_graph = built.backward
        # the pair falls back together: the forward's saved values are the backward's inputs
        _, (self.forward_compiled, self.backward_compiled) = _compile_on(
            backend, [forward, back], f"The gradient of {name}")

    def forward(self, values):
        """(outputs, saved) for NumPy input values."""
        result = run_compiled(self.forward_compiled, values)
        if self.n_outputs + self.n_saved == 1:
            result = (result,)
        return list(result[:self.n_outputs]), list(result[self.n_outputs:])

    def backward(self, output_grads, saved):
        """The gradients (NumPy values, None where there is none) for inputs, then variables."""
        result = run_compiled(self.backward_compiled, [*output_grads, *saved])
        n = sum(self.has_grad)
        if n == 1:
            result = (result,)
        it = iter(result if n else ())
        return [next(it) if has else None for has in self.has_grad]


class GraphFunction:
    """A graph of its own, compiled on first use by `backend` (the NumPy backend when a
    compiler tier refuses it): the backward of a differentiable-again gradient."""

    def __init__(self, graph: FuncGraph, name: str, backend: backends.Backend):
        self.graph = graph
        self.name = name
        self.backend = backend
        self._compiled = None

    @property
    def compiled(self):
        if self._compiled is None:
            try:
                self._compiled = backends.compile(self.graph, self.backend, self.name)
            except JitCompileError as exc:
                if self.backend is backends.NUMPY:
                    raise
                warn(logger, "%s runs on the NumPy tier: %s", self.name, exc)
                self._compiled = backends.compile(self.graph, backends.NUMPY, self.name)
        return self._compiled

    def run(self, values) -> list:
        """The flat outputs (NumPy values) for NumPy input values."""
        result = run_compiled(self.compiled, values)
        return [result] if len(self.graph.outputs) == 1 else list(result)


class HigherOrderGradient:
    """A gradient that is differentiable again, for calls recorded by nested (or persistent)
    tapes: `forward(values) -> (outputs, kept)` and `backward`, a GraphFunction of
    (output grads, kept grads, kept values) giving the gradients of `has_grad`.

    The forward also returns the values its backward reads (`kept`). A tape differentiating
    the backward sends gradients to those kept values, so the backward is seeded at them too;
    the seeds grow until they cover every floating-point value the backward reads. Loop
    gradients are built over tensors (`saving_stacks`: a loop's saves are stacks, seeded like
    any other kept value), so they are differentiable again to any order. Kept `variant`
    values (a TensorArray; the saves of a loop gradient staged in the traced function in its
    first-order form, in a graph that could not be traced again with stacks: see
    `ConcreteFunction.stacked_form`) pass through unseeded (`opaque`): a gradient that would
    flow into one at the next order is refused (NotImplementedError naming the function and
    the value) when that order's gradient is built. Nothing is
    recomputed: side effects and random draws of the forward happen once. A rule that cannot
    be staged raises NotImplementedError (naming the op) when the gradient is built.
    """

    def __init__(self, graph, name: str, backend: backends.Backend = backends.NUMPY):
        listed = holds_loop_saves(graph)
        copy, mapping = copy_function_graph(graph)
        extra: list = []
        for _ in range(_MAX_ROUNDS):
            # loop gradients over tensors, differentiable again (unless the graph already
            # holds a loop gradient whose saves are a list: its orders are refused by name)
            with saving_stacks() if not listed else contextlib.nullcontext():
                built = _Backward(copy, mapping, name, extra)
            seeded = {id(t) for t in extra}
            new = [t for t in built.saved if _seedable(t) and id(t) not in seeded]
            if not new:
                break
            extra += new
        else:
            raise NotImplementedError(f"The values the gradient of {name} reads did not settle "
                                      f"after {_MAX_ROUNDS} rounds; compute it eagerly "
                                      "(rt.run_functions_eagerly(True)).")
        seeded = {id(t) for t in extra}
        kept_copies = extra + [t for t in built.saved if id(t) not in seeded]
        self.output_indices = built.output_indices
        self.input_indices = built.input_indices
        self.variables = built.variables
        self.has_grad = built.has_grad
        self.n_extra = len(extra)
        self.n_outputs = len(copy.outputs)
        self.n_kept = len(kept_copies)
        self.opaque = frozenset(k for k, t in enumerate(kept_copies) if t.dtype is dtypes.variant)
        forward = Shell(f"{name}_forward", copy.inputs, [copy.operations],
                        copy.outputs + kept_copies)
        if self.opaque and backend is not backends.NUMPY:
            # a tier holds variant values in its own form, and every order of this gradient
            # reads them: all orders run on one tier, the NumPy tier (which has every op)
            warn(logger, "The differentiable-again gradient of %s runs on the NumPy tier: it "
                 "passes TensorArray or loop values between its orders", name)
            backend = backends.NUMPY
        backward = GraphFunction(_standalone(built, kept_copies, f"{name}_backward"),
                                 f"{name}_backward", backend)
        _, (self.forward_compiled,) = _compile_on(backend, [forward], f"The forward of {name}")
        self.backward_function = backward

    def forward(self, values):
        """(outputs, kept) for NumPy input values."""
        result = run_compiled(self.forward_compiled, values)
        if self.n_outputs + self.n_kept == 1:
            result = (result,)
        return list(result[:self.n_outputs]), list(result[self.n_outputs:])


def _seedable(t) -> bool:
    """Whether the backward is seeded at the kept value `t` (floating point, not variant)."""
    return differentiable(t) and t.dtype is not dtypes.variant


def holds_loop_saves(graph) -> bool:
    """Whether `graph` holds a loop's saves in a list (an accumulator: a loop gradient staged
    inside the traced function, built in the first-order form), which do not pass between
    the orders of a differentiable-again gradient as tensors."""
    return any(op.opdef.carrier == "accumulator" for op in graph.all_operations())


_MAX_ROUNDS = 8  # builds of the backward until the values it reads are all seeded


def _standalone(built: _Backward, kept, name: str) -> FuncGraph:
    """The backward graph of `built` as a FuncGraph of its own: its inputs are the gradient
    seeds, then one placeholder per kept forward value (constants are repeated)."""
    graph = FuncGraph(name)
    mapping: dict = {}
    for t in built.grad_inputs:
        mapping[id(t)] = graph.placeholder(t.shape, t.dtype, name=t.op.name.rsplit("/", 1)[-1])
    for k, t in enumerate(kept):
        mapping[id(t)] = graph.placeholder(t.shape, t.dtype, name=f"saved_{k}")
    body = Shell(name, [], [built.consts, built.backward.operations], built.backward.outputs)
    copy_into(body, graph, mapping)
    return graph


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


def run_compiled(compiled, values):
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
