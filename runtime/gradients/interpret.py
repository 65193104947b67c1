"""Running a traced graph op by op, eagerly, so that active tapes record every primitive.

Each operation runs through its OpDef: `interpret(operation, inputs, run_graph)` when the op
defines that hook (control flow, saved state, constants), else `apply` on its input values.
"""

from __future__ import annotations

from ..ops.core import apply


def interpret(graph, inputs) -> list:
    """The outputs of `graph` for eager `inputs` (one per graph input)."""
    env: dict = {}

    def run_graph(sub, values) -> list:
        """Runs `sub` (the graph, or a branch or loop body of one of its ops) on `values`."""
        for p, v in zip(sub.inputs, values):
            env[id(p)] = v
        for op in sub.operations:
            values_in = [env.get(id(t)) for t in op.inputs]
            opdef = op.opdef
            if opdef.interpret is not None:
                outs = opdef.interpret(op, values_in, run_graph)
            else:
                outs = apply(opdef, values_in, op.attrs)
                if opdef.num_outputs == 1:
                    outs = [outs]
            for t, value in zip(op.outputs, outs):
                env[id(t)] = value
        return [env[id(t)] for t in sub.outputs]

    return run_graph(graph, inputs)
