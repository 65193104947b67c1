"""Op definitions: everything about one primitive op, in one object, and the registry.

An op is defined once: its name, a shape/dtype rule (`infer`), a NumPy kernel, how the
executor writes it as Python (`template` or `emit`), its gradient rule (`def_grad`, on the
lines after the definition), and, for ops that run subgraphs, how to run it on values
(`interpret`). Tensors, graphs and every op module build on this module; a tape learns of
applied ops through `runtime.context`, so nothing here knows about gradients' machinery.
"""

from __future__ import annotations

from typing import Callable

REGISTRY: dict[str, "OpDef"] = {}


class OpDef:
    """The definition of one primitive op.

    infer(*inputs, **attrs) -> (shape, dtype) or, for `num_outputs != 1`, a list of them;
        an op staged with subgraphs gets them first: infer(subgraphs, *inputs, **attrs).
    kernel(*arrays, **attrs) -> array (or tuple of arrays).
    template: Python expression for the executor, e.g. "{0} + {1}" or "np.sum({0}, axis={axis})".
    emit(ctx, op): writes the op's lines itself (control flow, variables, ...).
    grad(op, *output_grads) -> list of input grads (None where there is none).
    interpret(operation, values, run_graph) -> output values: runs a graph operation on
        eager values when the generic path (apply the op to its inputs) does not fit
        (subgraphs, saved state); `run_graph(graph, values)` runs a subgraph.
    """

    __slots__ = ("name", "infer", "kernel", "template", "emit", "grad", "stateful",
                 "num_outputs", "differentiable", "interpret")

    def __init__(self, name, infer, kernel, template=None, emit=None, grad=None,
                 stateful=False, num_outputs=1, differentiable=True, interpret=None):
        self.name = name
        self.infer = infer
        self.kernel = kernel
        self.template = template
        self.emit = emit
        self.grad = grad
        self.stateful = stateful
        self.num_outputs = num_outputs
        self.differentiable = differentiable
        self.interpret = interpret

    def def_grad(self, rule: Callable) -> Callable:
        """Decorator: `rule(op, *output_grads)` becomes this op's gradient rule."""
        self.grad = rule
        return rule

    def def_interpret(self, hook: Callable) -> Callable:
        """Decorator: `hook(operation, values, run_graph)` runs an operation of this op."""
        self.interpret = hook
        return hook

    def __repr__(self) -> str:
        return f"<OpDef {self.name}>"


def define(name: str, infer: Callable, kernel: Callable | None = None, **kwargs) -> OpDef:
    """Registers an op; names are unique."""
    if name in REGISTRY:
        raise ValueError(f"op {name!r} is defined twice")
    op = OpDef(name, infer, kernel, **kwargs)
    REGISTRY[name] = op
    return op


def pass_through(operation, inputs, run_graph) -> list:
    """An `interpret` hook for ops that only save values for a backward pass built earlier:
    run op by op, the value is at hand, so the op passes its first input on."""
    return [inputs[0] if inputs else None]


def not_interpretable(operation, inputs, run_graph):
    """An `interpret` hook for ops that running a graph op by op does not support."""
    raise NotImplementedError(
        f"Higher-order gradients through a compiled function containing {operation.type} ops "
        "are not supported; run the function eagerly (rt.run_functions_eagerly(True)).")


def _no_infer(*_args, **_kwargs):
    raise AssertionError("this op is not applied through apply()")


def _emit_const(em, op):
    value = op.attrs["value"]
    if value.ndim == 0:
        value = value[()]  # NumPy scalars take NumPy's fast scalar arithmetic
    em.alias(op.outputs[0], em.bind(value, "c"))


CONST = define("Const", _no_infer, emit=_emit_const, differentiable=False)
PLACEHOLDER = define("Placeholder", _no_infer, differentiable=False)
