"""Calls of compiled functions while a gradient tape records.

A call that a tape watches is recorded as one op. Its forward runs a lowering of the
function's graph that also returns the values the backward pass needs; its gradient runs
the backward lowering. Both are derived from the graph once per concrete function.

When the gradient may itself be differentiated (two or more tapes record the call, or a
persistent one), the gradient is a call of a traced backward function (`GraphFunction`),
recorded like any other call on the tapes that watch its inputs: differentiable again, to
any order, on the function's own backend. A gradient that cannot be built (an op without a
gradient rule, an order a rule refuses) is raised when a gradient flows through the call.
A `while_loop` in the function gets a gradient over tensors (its saves on stacks), which is
differentiable again like the rest. A function whose graph holds a loop gradient staged
inside it (a tape in the function) saves that loop's values in a list, which does not pass
between the orders as tensors: such a call is recorded with the function traced again in the
differentiable-again form (`ConcreteFunction.stacked_form`), its loop's saves on stacks too.
"""

from __future__ import annotations

import weakref

import numpy as np

from .. import context, dtypes, nest
from ..backends import JitCompileError
from ..gradients.node import Node, differentiable, variables_read
from ..gradients.tape import paused, record_node
from ..ops.core import define
from ..ops.variables import bound_variable
from ..shapes import TensorShape
from ..tensor import DeviceTensor, EagerTensor
from ..tracing import fill_outputs
from .backward import GraphFunction, GraphGradient, HigherOrderGradient, run_compiled

CALL = define("PartitionedCall", lambda *a, **k: None, None, savable=False)  # lives on tapes
_variables_read: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # function -> variables
_gradients: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # concrete -> GraphGradient
_higher: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # -> HigherOrderGradient


def _variables(concrete) -> list:
    found = _variables_read.get(concrete)
    if found is None:
        found = _variables_read[concrete] = variables_read([concrete.graph])
    return found


def gradient_of(concrete) -> GraphGradient:
    """The forward/backward pair of a concrete function (built on first use, then cached).
    Raises NotImplementedError or LookupError (also cached) for a graph with no gradient."""
    return _cached(_gradients, concrete, GraphGradient)


def higher_gradient_of(concrete) -> HigherOrderGradient:
    """The differentiable-again gradient of a concrete function (built on first use, then
    cached)."""
    return _cached(_higher, concrete, HigherOrderGradient)


def _cached(cache, function, build):
    found = cache.get(function)
    if found is None:
        try:
            found = build(function.graph, function.name, function.backend)
        except JitCompileError:
            raise  # the tier refuses the function itself: the call raises it
        except (NotImplementedError, LookupError) as exc:
            found = (type(exc), exc.args)  # not the exception: its traceback holds `function`
        cache[function] = found
    if type(found) is tuple:
        kind, args = found
        raise kind(*args)
    return found


def call_recorded(concrete, args, kwargs, values):
    """Runs `concrete` on `values`, recording the call on the tapes that watch its inputs.

    `concrete` is any object with `.graph`, `.name`, `.backend`, `.compiled` and
    `.run(values)`: a ConcreteFunction of `runtime.function`, which imports this module,
    never the reverse.
    """
    tensors = _tensors_for(values, nest.flatten((list(args), kwargs)))
    flat = _record(concrete, tensors, values, (args, kwargs))
    if flat is None:
        return concrete.run(values)
    return fill_outputs(concrete.graph.structured_outputs, flat)


def call_graph_function(function: GraphFunction, tensors: list) -> list:
    """The flat outputs of `function` on eager `tensors`, recorded on the tapes that watch
    them (variant inputs are `Opaque` tensors)."""
    values = [t._value for t in tensors]
    flat = _record(function, tensors, values)
    if flat is None:
        flat = [EagerTensor(np.asarray(v)) for v in function.run(values)]
    return flat


def _record(function, tensors, values, arguments=None) -> list | None:
    """The flat output tensors of a recorded call, or None when no tape watches it.
    `arguments` (args, kwargs) bind the variable arguments of a function's `stacked_form`."""
    variables = [bound_variable(v) for v in _variables(function)]  # what this call binds
    candidates = [t for t in tensors if t is not None] + variables
    tapes = [tape for tape in context.state.tapes if tape._graph is None and tape._wants(candidates)]
    if not tapes:
        return None
    try:
        if len(tapes) > 1 or any(tape._persistent for tape in tapes):
            stacked_form = getattr(function, "stacked_form", None)
            if stacked_form is not None and arguments is not None:
                function = stacked_form()  # its staged loop gradients saving on stacks
                function.bind_values(*arguments)  # its own variable arguments: this call's
            grad = higher_gradient_of(function)
            return _record_differentiable(function, grad, tensors, values, tapes)
        return _record_first_order(function, gradient_of(function), tensors, values, tapes)
    except JitCompileError:
        raise
    except (NotImplementedError, LookupError) as exc:
        return _record_refused(function, tensors, values, tapes, exc)


def _node_inputs(grad, tensors, values) -> list:
    return [tensors[i] if tensors[i] is not None else EagerTensor(values[i])
            for i in grad.input_indices] + [bound_variable(v) for v in grad.variables]


def _eager(values) -> list:
    return [EagerTensor(np.asarray(v) if not isinstance(v, (np.ndarray, np.generic)) else v)
            for v in values]


class Opaque(EagerTensor):
    """A variant value (a TensorArray's list, a loop's saves) that a recorded call's forward
    keeps for its backward function. Tapes track it like a tensor, so a backward function
    reading it is recorded where it depends on a watched value, and a gradient that would
    flow into it is refused by name (never a silent None)."""

    __slots__ = ()

    @property
    def dtype(self) -> dtypes.DType:
        return dtypes.variant

    @property
    def shape(self) -> TensorShape:
        return TensorShape([])


def _run_flat(function, values) -> list:
    result = run_compiled(function.compiled, values)
    return [result] if len(function.graph.outputs) == 1 else list(result)


def _record_refused(function, tensors, values, tapes, exc: Exception) -> list:
    """Records a call whose gradient cannot be built: the forward runs as usual, and the
    error is raised when a gradient flows through the call (as TensorFlow raises a missing
    gradient when `gradient` is called, not when the op runs)."""
    with paused():
        flat = _eager(_run_flat(function, values))
    graph = function.graph
    inputs = [tensors[i] if tensors[i] is not None else EagerTensor(values[i])
              for i, t in enumerate(graph.inputs) if differentiable(t)]
    inputs += [bound_variable(v) for v in _variables(function)]
    outs = [flat[i] for i, t in enumerate(graph.outputs) if differentiable(t)]
    kind, message = type(exc), (f"{exc}" if function.name in str(exc) else f"{function.name}: {exc}")

    def grad_fn(op, *output_grads):
        raise kind(message)

    record_node(Node(CALL, inputs, outs, {"f": function.name}, None, grad_fn), tapes)
    return flat


def _record_first_order(function, grad: GraphGradient, tensors, values, tapes) -> list:
    """Records a call whose gradient runs the compiled backward on NumPy values."""
    with paused():
        outputs, saved = grad.forward(values)
    flat = _eager(outputs)
    outs = [flat[i] for i in grad.output_indices]

    def grad_fn(op, *output_grads):
        gys = [g._value if g is not None else np.zeros(np.shape(o._value), o._value.dtype)
               for g, o in zip(output_grads, outs)]
        with paused():
            grads = grad.backward(gys, saved)
        return [None if g is None else EagerTensor(np.asarray(g)) for g in grads]

    node = Node(CALL, _node_inputs(grad, tensors, values), outs, {"f": function.name}, None, grad_fn)
    record_node(node, tapes)
    return flat


def _record_differentiable(function, grad: HigherOrderGradient, tensors, values, tapes) -> list:
    """Records a call whose gradient is a recorded call of its traced backward function.

    The call's node outputs are the differentiable outputs, then the kept values (which the
    backward reads): a tape differentiating the backward sends gradients to those too."""
    with paused():
        outputs, kept = grad.forward(values)
    flat = _eager(outputs)
    kept_tensors = [Opaque(v) if k in grad.opaque else _eager([v])[0] for k, v in enumerate(kept)]
    outs = [flat[i] for i in grad.output_indices] + kept_tensors
    n_seeds = len(grad.output_indices) + grad.n_extra

    def grad_fn(op, *output_grads):
        seeds = [g if g is not None else EagerTensor(np.zeros(np.shape(o._value), o._value.dtype))
                 for g, o in zip(output_grads[:n_seeds], outs[:n_seeds])]
        results = iter(call_graph_function(grad.backward_function, seeds + kept_tensors))
        return [next(results) if has else None for has in grad.has_grad]

    node = Node(CALL, _node_inputs(grad, tensors, values), outs, {"f": function.name}, None, grad_fn)
    record_node(node, tapes)
    return flat


def _tensors_for(values, leaves) -> list:
    """The eager tensor each bound input value came from (None for NumPy and Python values)."""
    by_value: dict = {}
    for leaf in leaves:
        if type(leaf) is EagerTensor or type(leaf) is DeviceTensor:
            by_value.setdefault(id(leaf._value), []).append(leaf)
    found = []
    for v in values:
        candidates = by_value.get(id(v))
        found.append(candidates.pop(0) if candidates and len(candidates) > 1 else
                     candidates[0] if candidates else None)
    return found
