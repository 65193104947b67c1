"""`GradientTape`: records the ops that depend on watched values, then runs them backwards."""

from __future__ import annotations

import contextlib
import enum
from typing import Any, overload

import numpy as np

from .. import context, nest
from ..ops import array_math, core
from ..ops.variables import READ, Variable, bound_variable
from ..tensor import EagerTensor, Tensor
from .engine import backprop
from .node import Node, differentiable, node_inputs, node_outputs


def record_node(node: Node, tapes=None) -> None:
    """Records an already-built node (a compiled-function call, ...) on `tapes`."""
    for tape in context.state.tapes if tapes is None else tapes:
        tape._record_node(node)


class UnconnectedGradients(enum.Enum):
    """What `gradient` returns for a source that the target does not depend on."""

    NONE = "none"
    ZERO = "zero"


@contextlib.contextmanager
def paused():
    """No tape records inside the block."""
    saved = context.state.tapes
    context.state.tapes = []
    try:
        yield
    finally:
        context.state.tapes = saved


class GradientTape:
    """Records operations for reverse-mode differentiation.

        with rt.GradientTape() as tape:
            y = x * x            # trainable variables read here are watched automatically
        dy_dx = tape.gradient(y, x)

    Only ops that depend on a watched tensor or variable are recorded. A tape used while a
    function traces records symbolic ops, and `gradient` then stages the backward pass into
    the same graph. Nested tapes record each other's gradient computations, which gives
    higher-order gradients.
    """

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True):
        self._persistent = bool(persistent)
        self._watch_accessed_variables = bool(watch_accessed_variables)
        self._graph = None
        self._recording = False
        self._used = False
        self._reset_state()

    def _reset_state(self) -> None:
        self._nodes: list[Node] = []
        self._tracked: set[int] = set()
        self._watched: list = []          # keeps watched values alive (ids stay unique)
        self._watched_variables: list = []

    # -- context management -------------------------------------------------------------
    def __enter__(self) -> "GradientTape":
        if self._recording:
            raise ValueError("This GradientTape is already recording; a tape cannot be "
                             "entered twice at once.")
        self._graph = context.current_graph()
        self._push()
        return self

    def __exit__(self, *exc_info) -> None:
        if self._recording:
            self._pop()

    def _push(self) -> None:
        context.state.tapes = context.state.tapes + [self]
        self._recording = True

    def _pop(self) -> None:
        context.state.tapes = [t for t in context.state.tapes if t is not self]
        self._recording = False

    @contextlib.contextmanager
    def stop_recording(self):
        """Ops run inside the block are not recorded by this tape."""
        if not self._recording:
            raise ValueError("stop_recording() needs a tape that is recording (inside its "
                             "`with` block).")
        self._pop()
        try:
            yield
        finally:
            self._push()

    def reset(self) -> None:
        """Forgets everything recorded so far (the tape keeps recording if it was)."""
        self._reset_state()
        self._used = False

    # -- watching -------------------------------------------------------------------------
    def watch(self, tensor) -> None:
        """Records ops on `tensor` (a tensor, a variable, or a nest of them) from now on."""
        for value in nest.flatten(tensor):
            if isinstance(value, Variable):
                self._watch_variable(value)
            elif isinstance(value, Tensor):
                if not differentiable(value):
                    continue  # integer and bool tensors get no gradient, as in TensorFlow
                graph = context.current_graph()
                if graph is not None and isinstance(value, EagerTensor):
                    # a tensor from outside the function being traced: its captured stand-in
                    value = graph.capture_by_identity(value)
                self._tracked.add(id(value))
                self._watched.append(value)
            else:
                raise ValueError(f"GradientTape.watch needs tensors or variables, got "
                                 f"{type(value).__name__} {value!r:.60}.")

    def _watch_variable(self, var: Variable) -> None:
        if id(var) not in self._tracked:
            self._tracked.add(id(var))
            self._watched.append(var)
            self._watched_variables.append(var)

    def watched_variables(self) -> tuple:
        """The variables this tape watched, explicitly or by reading them."""
        return tuple(self._watched_variables)

    # -- recording --------------------------------------------------------------------------
    def _record_operation(self, opdef, inputs, outputs, attrs, operation) -> None:
        """Records one op if it reads a watched value (ops tell tapes through `context`)."""
        if not opdef.differentiable:
            return
        graph = None if operation is None else operation.graph
        if graph is not self._graph and (graph is None or self._graph is None
                                         or not self._graph.is_ancestor_of(graph)):
            return  # ops of another graph (a function traced while an eager tape records)
        if opdef is READ:
            # run eagerly (a graph interpreted op by op), a stand-in reads the variable it is bound to
            var = attrs["var"] if operation is not None else bound_variable(attrs["var"])
            if id(var) not in self._tracked:
                if not (self._watch_accessed_variables and var.trainable):
                    return
                self._watch_variable(var)
            node_in = [var]
        else:
            node_in = node_inputs(opdef, inputs, attrs, operation)
        self._record_node(Node(opdef, node_in, node_outputs(outputs, operation), attrs, operation))

    def _record_node(self, node: Node) -> None:
        tracked = self._tracked
        if node.opdef is not READ:
            for t in node.inputs:
                if id(t) in tracked:
                    break
                if isinstance(t, Variable) and self._watch_accessed_variables and t.trainable:
                    self._watch_variable(t)
                    break
            else:
                return
        hit = False
        for o in node.outputs:
            if differentiable(o):
                tracked.add(id(o))
                hit = True
        if hit:
            self._nodes.append(node)

    def _wants(self, values) -> bool:
        """Whether this tape would record an op reading `values` (tensors and variables)."""
        for v in values:
            if id(v) in self._tracked:
                return True
            if isinstance(v, Variable) and self._watch_accessed_variables and v.trainable:
                return True
        return False

    # -- differentiation ----------------------------------------------------------------------
    @overload
    def gradient(self, target: Any, sources: Tensor, output_gradients: Any = None,
                 unconnected_gradients: Any = UnconnectedGradients.NONE) -> Tensor: ...

    @overload
    def gradient(self, target: Any, sources: list[Any], output_gradients: Any = None,
                 unconnected_gradients: Any = UnconnectedGradients.NONE) -> list[Tensor]: ...

    @overload
    def gradient(self, target: Any, sources: tuple[Any, ...], output_gradients: Any = None,
                 unconnected_gradients: Any = UnconnectedGradients.NONE
                 ) -> tuple[Tensor, ...]: ...

    @overload
    def gradient(self, target: Any, sources: dict[str, Any], output_gradients: Any = None,
                 unconnected_gradients: Any = UnconnectedGradients.NONE
                 ) -> dict[str, Tensor]: ...

    @overload
    def gradient(self, target: Any, sources: Any, output_gradients: Any = None,
                 unconnected_gradients: Any = UnconnectedGradients.NONE) -> Any: ...

    def gradient(self, target: Any, sources: Any, output_gradients: Any = None,
                 unconnected_gradients: Any = UnconnectedGradients.NONE) -> Any:
        """d(target)/d(sources): a nest shaped like `sources`.

        `target` may be a nest (its gradients are added). `output_gradients` weights each
        target (default: ones). A source the target does not depend on gets None, or zeros
        with `unconnected_gradients="zero"`.
        """
        self._check_usable()
        flat_sources = _in_graph(_check_sources(sources))
        result = self._compute(nest.flatten(target), flat_sources, output_gradients,
                               _unconnected_mode(unconnected_gradients))
        self._release()
        return nest.pack_sequence_as(sources, result) if nest.is_nested(sources) else result[0]

    def jacobian(self, target, sources, unconnected_gradients=UnconnectedGradients.NONE,
                 parallel_iterations=None, experimental_use_pfor=True):
        """d(target)/d(sources) for every element of `target`, one reverse pass per element.

        The result for each source has shape target.shape + source.shape. While tracing,
        the target's shape must be fully known (one backward pass is staged per element).
        `parallel_iterations` and `experimental_use_pfor` are accepted and change nothing.
        """
        self._check_usable()
        flat_sources = _check_sources(sources)
        target = core.convert_to_tensor(target)
        dims = _static_dims(target, "jacobian")
        size = int(np.prod(dims))
        zero = _unconnected_mode(unconnected_gradients)
        rows = [[] for _ in flat_sources]
        for i in range(size):
            seed = np.zeros(size, target.dtype._np)
            seed[i] = 1
            grads = self._compute([target], flat_sources, [seed.reshape(dims)], zero)
            for row, g in zip(rows, grads):
                row.append(g)
        self._release()
        result = []
        with self._quiet():
            for s, row in zip(flat_sources, rows):
                if size and any(g is None for g in row):
                    result.append(None)
                    continue
                src = s.shape.as_list()
                if not size:
                    result.append(array_math.zeros(dims + src, dtype=s.dtype))
                    continue
                stacked = array_math.stack(row)
                result.append(array_math.reshape(stacked, dims + _dims_or_shape(s, src)))
        return nest.pack_sequence_as(sources, result) if nest.is_nested(sources) else result[0]

    def batch_jacobian(self, target, source, unconnected_gradients=UnconnectedGradients.NONE,
                       parallel_iterations=None, experimental_use_pfor=True):
        """Per example b of the first (batch) axis: d(target[b])/d(source[b]).

        `target` has shape [batch, *t] and `source` [batch, *s]; the result has shape
        [batch, *t, *s]. It assumes, as TensorFlow does, that target[b] depends on
        source[b'] only for b' == b. One reverse pass per element of target[0]; while
        tracing, target's shape must be fully known.
        """
        self._check_usable()
        [source_t] = _check_sources([source])
        target = core.convert_to_tensor(target)
        dims = _static_dims(target, "batch_jacobian")
        if len(dims) < 1 or source_t.shape.rank in (0,):
            raise ValueError("batch_jacobian: target and source need a batch (first) axis; got "
                             f"target of shape {target.shape} and source of shape "
                             f"{source_t.shape}.")
        src_batch = source_t.shape.as_list()[0] if source_t.shape.rank is not None else None
        if src_batch is not None and src_batch != dims[0]:
            raise ValueError(f"batch_jacobian: target and source must have the same batch size, "
                             f"got {dims[0]} and {src_batch}.")
        batch, inner = dims[0], dims[1:]
        size = int(np.prod(inner))
        zero = _unconnected_mode(unconnected_gradients)
        row = []
        for j in range(size):
            seed = np.zeros((batch, size), target.dtype._np)
            seed[:, j] = 1
            row.append(self._compute([target], [source_t], [seed.reshape(dims)], zero)[0])
        self._release()
        src = source_t.shape.as_list()
        if size and any(g is None for g in row):
            return None
        with self._quiet():
            if not size:
                return array_math.zeros([batch] + inner + src[1:], dtype=source_t.dtype)
            stacked = array_math.stack(row, axis=1)  # [batch, size, *s]
            return array_math.reshape(stacked, [batch] + inner + _dims_or_shape(source_t, src)[1:])

    @contextlib.contextmanager
    def _quiet(self):
        """Assembling a Jacobian from gradients is not recorded by this tape."""
        with self._paused_self():
            yield

    def _check_usable(self) -> None:
        if self._used and not self._persistent:
            raise RuntimeError(
                "A non-persistent GradientTape can only be used to compute one set of "
                "gradients; create it with rt.GradientTape(persistent=True) to call "
                "gradient() more than once.")
        self._used = True

    def _release(self) -> None:
        if not self._persistent:
            self._nodes, self._tracked, self._watched = [], set(), []  # free the recording

    def _compute(self, flat_targets, flat_sources, output_gradients, zero) -> list:
        """The gradient (or None) of the targets for each source, in order."""
        seeds = _seeds(flat_targets, output_gradients)
        current = context.current_graph()
        nodes = [n for n in self._nodes if _reachable_from(n.graph, current)]
        pause = contextlib.nullcontext() if self._persistent else self._paused_self()
        with pause, _backward_scope():
            wanted = [s for s in flat_sources if differentiable(s)]
            grads = backprop(nodes, seeds, wanted)
            result = []
            for s in flat_sources:
                g = grads.get(id(s)) if differentiable(s) else None
                if g is None and zero:
                    g = array_math.zeros_like(s)
                result.append(g)
        return result

    @contextlib.contextmanager
    def _paused_self(self):
        """This tape does not record its own backward pass (it cannot be used again)."""
        saved = context.state.tapes
        context.state.tapes = [t for t in saved if t is not self]
        try:
            yield
        finally:
            context.state.tapes = saved

    def __repr__(self) -> str:
        state = "recording" if self._recording else "stopped"
        return f"<rt.GradientTape {state}, {len(self._nodes)} ops recorded>"


context.hooks.gradient_tape = GradientTape  # ops below (py_function's gradient) reach it here


def _static_dims(target, what: str) -> list:
    dims = target.shape.as_list() if target.shape.rank is not None else None
    if dims is None or None in dims:
        raise ValueError(f"GradientTape.{what} needs a target of known shape, got "
                         f"{target.shape}; run it eagerly or trace with a fully known shape.")
    return dims


def _dims_or_shape(source, dims: list):
    """The source's dims for a reshape: its static dims, or its run-time shape."""
    if None not in dims:
        return dims
    return [array_math.shape(source)[i] if d is None else d for i, d in enumerate(dims)]


def _check_sources(sources) -> list:
    flat = nest.flatten(sources)
    for s in flat:
        if not isinstance(s, Tensor):
            raise ValueError(f"GradientTape.gradient: sources must be tensors or variables, "
                             f"got {type(s).__name__} {s!r:.60}.")
    return flat


def _in_graph(flat: list) -> list:
    """Sources as the function being traced reads them: an eager tensor from outside it is
    its captured stand-in (the one `watch` tracked)."""
    graph = context.current_graph()
    if graph is None:
        return flat
    captured = graph.root()._identity_captures
    if not captured:
        return flat
    return [captured.get(id(s), (s, s))[1] if isinstance(s, EagerTensor) else s for s in flat]


def _unconnected_mode(value) -> bool:
    if isinstance(value, UnconnectedGradients):
        value = value.value
    if isinstance(value, str) and value.lower() in ("none", "zero"):
        return value.lower() == "zero"
    raise ValueError(f"unconnected_gradients must be 'none' or 'zero', got {value!r}.")


def _seeds(flat_targets, output_gradients) -> dict:
    if output_gradients is not None:
        flat_grads = nest.flatten(output_gradients)
        if len(flat_grads) != len(flat_targets):
            raise ValueError(f"output_gradients has {len(flat_grads)} entries for "
                             f"{len(flat_targets)} targets.")
    else:
        flat_grads = [None] * len(flat_targets)
    seeds: dict = {}
    for t, g in zip(flat_targets, flat_grads):
        if not isinstance(t, Tensor):
            raise ValueError(f"GradientTape.gradient: the target must be a tensor, got "
                             f"{type(t).__name__} {t!r:.60}.")
        if not differentiable(t):
            continue
        if g is None:
            g = _ones_like(t)
        else:
            g = core.convert_to_tensor(g, dtype=t.dtype) if not isinstance(g, Tensor) \
                else core.convert_to_tensor(g)
            if not g.shape.is_compatible_with(t.shape):
                raise ValueError(f"output_gradients: a gradient of shape {g.shape} was given "
                                 f"for a target of shape {t.shape}.")
        seeds.setdefault(id(t), []).append(g)
    return seeds


def _ones_like(t):
    dims = t.shape.as_tuple()
    if dims is not None and None not in dims and int(np.prod(dims)) <= 16:
        return core.constant(np.ones(dims, t.dtype._np))
    return array_math.ones_like(t)


def _reachable_from(graph, current) -> bool:
    """Whether ops of `graph` (None: eager) can feed a gradient computed in `current`."""
    if graph is None or current is None:
        return graph is current
    return graph.is_ancestor_of(current)


@contextlib.contextmanager
def _backward_scope():
    if context.current_graph() is None:
        yield
        return
    with context.name_scope("gradients"):
        yield
