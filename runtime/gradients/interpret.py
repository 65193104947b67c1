"""Running a traced graph op by op, eagerly, so that active tapes record every primitive.

What remains of a second differentiation path, for one case: a call of a compiled function
recorded by two or more tapes (or a persistent one) whose traced graph itself holds a loop
gradient (a tape inside the function), whose saves are a Python list per loop (an
accumulator) that does not pass between a traced backward function and the tapes; run here,
the loop runs as Python and any number of tapes gives the eager answer. Every other recorded
call, a `while_loop` in it included, gets a traced backward function (loop saves on stacks).

Ops run through `apply`; what `apply` cannot run is dispatched on the OpDef object (identity
or trait), never on a type name: constants, `If` and `While` (their bodies run here), a
variable's first initialisation, TensorArray ops (on an eager `TensorArray`, whose reads and
stacks tapes record as they do eagerly) and the saves of a gradient staged in the graph (a
list of the saved tensors themselves, so tapes see through them). A graph holding anything
that only runs staged (custom gradients, higher-order gradient maps) is not `interpretable`.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..ops import tensor_array as ta
from ..ops.control_flow import COND, run_loop, select
from ..ops.core import apply
from ..ops.variables import INIT
from ..tensor import EagerTensor
from . import while_grad as acc
from .cond_grad import UNDEFINED
from .custom import CUSTOM


def _new_array(values, attrs):
    return ta.TensorArray(attrs["dtype"], size=int(values[0]), dynamic_size=attrs["dynamic_size"],
                          element_shape=attrs["element_shape"])


# ops on Python lists of eager tensors (the variant values here), keyed by OpDef object
_ARRAYS = {
    ta.TA_NEW: _new_array,
    ta.TA_WRITE: lambda v, attrs: v[0].write(int(v[1]), v[2]),
    ta.TA_READ: lambda v, attrs: v[0].read(int(v[1])),
    ta.TA_STACK: lambda v, attrs: v[0].stack(),
    ta.TA_SIZE: lambda v, attrs: v[0].size(),
    ta.TA_GATHER: lambda v, attrs: v[0].gather(np.asarray(v[1])),
    ta.TA_CONCAT: lambda v, attrs: v[0].concat(),
    ta.TA_UNSTACK: lambda v, attrs: v[0].unstack(v[1]),
    # a loop's saves for a gradient staged in the graph: the tensors themselves
    acc.ACC_NEW: lambda v, attrs: [],
    acc.ACC_PUSH: lambda v, attrs: v[0].append(tuple(v[1:])) or v[0],
    acc.ACC_READ: lambda v, attrs: v[0][int(v[1])][attrs["index"]],
    acc.ACC_LAST: lambda v, attrs: EagerTensor(np.int32(len(v[0]) - 1)),
    UNDEFINED: lambda v, attrs: None,  # an untaken branch's filler: nothing reads it
}


def interpretable(graph) -> bool:
    """Whether `interpret` can run every op of `graph` (nested bodies included)."""
    return all(_runs_here(op) for op in graph.all_operations())


def _runs_here(op) -> bool:
    opdef = op.opdef
    if opdef.is_constant or opdef is COND or opdef.is_loop or opdef is INIT or opdef in _ARRAYS:
        return True
    if opdef is CUSTOM or opdef.kernel is None:
        return False
    # `apply` holds arrays: other ops on variant values (gradient maps) only run staged
    return not any(t.dtype is dtypes.variant for t in (*op.inputs, *op.outputs))


def interpret(graph, inputs) -> list:
    """The outputs of `graph` for eager `inputs` (one per graph input)."""
    env: dict = {}

    def run_graph(sub, values) -> list:
        """Runs `sub` (the graph, or a branch or loop body of one of its ops) on `values`."""
        for p, v in zip(sub.inputs, values):
            env[id(p)] = v
        for op in sub.operations:
            outs = _run(op, [env.get(id(t)) for t in op.inputs], run_graph)
            for t, value in zip(op.outputs, outs):
                env[id(t)] = value
        return [env[id(t)] for t in sub.outputs]

    return run_graph(graph, inputs)


def _run(op, values: list, run_graph) -> list:
    opdef = op.opdef
    if opdef.is_constant:
        return [EagerTensor(op.attrs["value"])]
    if opdef is COND:
        true_graph, false_graph = op.subgraphs
        return select(values[0], lambda: run_graph(true_graph, []),
                      lambda: run_graph(false_graph, []))
    if opdef.is_loop:
        cond_graph, body_graph = op.subgraphs
        n = len(op.outputs)
        return run_loop(lambda v: run_graph(cond_graph, v)[0], lambda v: run_graph(body_graph, v),
                        values[:n], values[n] if len(values) > n else None)
    if opdef in _ARRAYS:
        return [_ARRAYS[opdef](values, op.attrs)]
    if opdef is INIT:
        var = op.attrs["var"]
        if var._value is None:
            var._value = values[0]._value
        return []
    outs = apply(opdef, values, op.attrs)
    return [outs] if opdef.num_outputs == 1 else outs
