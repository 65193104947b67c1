"""Running a traced graph op by op, eagerly, so that active tapes record every primitive."""

from __future__ import annotations

from ..ops.core import apply
from ..ops.variable_ops import INIT
from ..tensor import EagerTensor

_UNSUPPORTED = ("CustomGradient",)
_PLACEHOLDERS = ("AccumulatorNew", "AccumulatorPush", "Undefined")


def interpret(graph, inputs) -> list:
    """The outputs of `graph` for eager `inputs` (one per graph input)."""
    env = {id(p): t for p, t in zip(graph.inputs, inputs)}
    _run(graph.operations, env)
    return [_lookup(env, t) for t in graph.outputs]


def _lookup(env, tensor):
    return env[id(tensor)]


def _run(operations, env) -> None:
    for op in operations:
        kind = op.type
        if kind == "Const":
            env[id(op.outputs[0])] = EagerTensor(op.attrs["value"])
        elif kind == "If":
            _run_if(op, env)
        elif kind == "While":
            _run_while(op, env)
        elif kind in _PLACEHOLDERS:
            # saves for a backward pass built earlier: not needed when running op by op
            env[id(op.outputs[0])] = env.get(id(op.inputs[0])) if op.inputs else None
        elif op.opdef is INIT:
            var = op.attrs["var"]
            if var._value is None:
                var._value = _lookup(env, op.inputs[0])._value
        elif kind in _UNSUPPORTED or kind.startswith("TensorArray"):
            raise NotImplementedError(
                f"Higher-order gradients through a compiled function containing {kind} ops are "
                "not supported; run the function eagerly (rt.run_functions_eagerly(True)).")
        else:
            outs = apply(op.opdef, [_lookup(env, t) for t in op.inputs], op.attrs)
            if op.opdef.num_outputs == 1:
                outs = [outs]
            for t, value in zip(op.outputs, outs):
                env[id(t)] = value


def _run_if(op, env) -> None:
    branch = op.subgraphs[0 if bool(_lookup(env, op.inputs[0])) else 1]
    _run(branch.operations, env)
    for t, out in zip(op.outputs, branch.outputs):
        env[id(t)] = _lookup(env, out)


def _run_while(op, env) -> None:
    cond, body = op.subgraphs
    n = len(op.outputs)
    values = [_lookup(env, t) for t in op.inputs[:n]]
    limit = int(_lookup(env, op.inputs[n])) if len(op.inputs) > n else None
    count = 0
    while limit is None or count < limit:
        for p, v in zip(cond.inputs, values):
            env[id(p)] = v
        _run(cond.operations, env)
        if not bool(_lookup(env, cond.outputs[0])):
            break
        for p, v in zip(body.inputs, values):
            env[id(p)] = v
        _run(body.operations, env)
        values = [_lookup(env, t) for t in body.outputs]
        count += 1
    for t, v in zip(op.outputs, values):
        env[id(t)] = v
