"""Calls of compiled functions while a gradient tape records.

A call that a tape watches is recorded as one op. Its forward runs a lowering of the
function's graph that also returns the values the backward pass needs; its gradient runs
the backward lowering. Both are derived from the graph once per concrete function.

With two or more tapes recording (higher-order gradients), the graph is instead run op by
op, eagerly, so that every tape records the primitive ops and their gradients.
"""

from __future__ import annotations

import weakref

import numpy as np

from .. import context, nest
from ..gradients.interpret import interpret
from ..gradients.node import Node, variables_read
from ..gradients.tape import paused, record_node
from ..ops.core import define
from ..ops.variable_ops import bound_variable
from ..tensor import EagerTensor
from ..tracing import fill_outputs
from .backward import GraphGradient

CALL = define("PartitionedCall", lambda *a, **k: None, None)
_variables_read: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # concrete -> variables
_gradients: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # concrete -> GraphGradient


def _variables(concrete) -> list:
    found = _variables_read.get(concrete)
    if found is None:
        found = _variables_read[concrete] = variables_read([concrete.graph])
    return found


def gradient_of(concrete) -> GraphGradient:
    """The forward/backward pair of a concrete function (built on first use, then cached)."""
    found = _gradients.get(concrete)
    if found is None:
        found = _gradients[concrete] = GraphGradient(concrete.graph, concrete.name,
                                                     concrete.backend)
    return found


def call_recorded(concrete, args, kwargs, values):
    """Runs `concrete` on `values`, recording the call on the tapes that watch its inputs.

    `concrete` is any object with `.graph`, `.name`, `.compiled` and `.run(values)`: a
    ConcreteFunction of `runtime.function`, which imports this module, never the reverse.
    """
    tensors = _tensors_for(values, nest.flatten((list(args), kwargs)))
    variables = [bound_variable(v) for v in _variables(concrete)]  # what this call binds
    candidates = [t for t in tensors if t is not None] + variables
    tapes = [tape for tape in context.state.tapes if tape._graph is None and tape._wants(candidates)]
    if not tapes:
        return concrete.run(values)
    if len(tapes) > 1:
        inputs = [t if t is not None else EagerTensor(v) for t, v in zip(tensors, values)]
        flat = interpret(concrete.graph, inputs)
        return fill_outputs(concrete.graph.structured_outputs, flat)
    grad = gradient_of(concrete)
    with paused():
        outputs, saved = grad.forward(values)
    flat = [EagerTensor(np.asarray(v) if not isinstance(v, (np.ndarray, np.generic)) else v)
            for v in outputs]
    node_inputs = [tensors[i] if tensors[i] is not None else EagerTensor(values[i])
                   for i in grad.input_indices] + [bound_variable(v) for v in grad.variables]
    outs = [flat[i] for i in grad.output_indices]

    def grad_fn(op, *output_grads):
        gys = [g._value if g is not None else np.zeros(np.shape(o._value), o._value.dtype)
               for g, o in zip(output_grads, outs)]
        with paused():
            grads = grad.backward(gys, saved)
        return [None if g is None else EagerTensor(np.asarray(g)) for g in grads]

    record_node(Node(CALL, node_inputs, outs, {"f": concrete.name}, None, grad_fn), tapes)
    return fill_outputs(concrete.graph.structured_outputs, flat)


def _tensors_for(values, leaves) -> list:
    """The eager tensor each bound input value came from (None for NumPy and Python values)."""
    by_value: dict = {}
    for leaf in leaves:
        if type(leaf) is EagerTensor:
            by_value.setdefault(id(leaf._value), []).append(leaf)
    found = []
    for v in values:
        candidates = by_value.get(id(v))
        found.append(candidates.pop(0) if candidates and len(candidates) > 1 else
                     candidates[0] if candidates else None)
    return found
