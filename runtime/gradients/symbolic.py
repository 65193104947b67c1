"""`tf.gradients` and `tf.hessians`: symbolic gradients of the tensors of the function being
traced, built into that function's graph by the same reverse sweep the tape uses (each op of
the graph, in program order, is a node). `tf.AggregationMethod` names the ways TensorFlow
sums the gradients arriving at one tensor (here always added pairwise: the result is the
same sum).
"""

from __future__ import annotations

from typing import Callable

from .. import context
from ..opdef import lookup
from ..ops import array_math as _math
from ..tensor import SymbolicTensor, Tensor
from .custom import custom_gradient
from .engine import backprop
from .node import node_of
from .tape import UnconnectedGradients


class AggregationMethod:
    """How gradients arriving at one tensor are summed (`gradients(...,
    aggregation_method=)`): every method gives their sum."""
    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2


def _as_list(value) -> tuple[list, bool]:
    if isinstance(value, (list, tuple)):
        return list(value), True
    return [value], False


def gradients(ys, xs, grad_ys=None, name="gradients", gate_gradients=False,
              aggregation_method=None, stop_gradients=None,
              unconnected_gradients=UnconnectedGradients.NONE) -> list[Tensor | None]:
    """The symbolic gradients of `sum(ys)` with respect to each of `xs` (tensors or variables
    of the function being traced), as a list: None (or zeros with
    `unconnected_gradients='zero'`) for an x that ys do not depend on. `grad_ys` weights
    each y (default ones); gradients stop at `stop_gradients`. Only inside a function: in
    eager code use `rt.GradientTape`."""
    graph = context.current_graph()
    if graph is None:
        raise RuntimeError("tf.gradients is not supported when eager execution is enabled. "
                           "Use tf.GradientTape instead.")
    if aggregation_method not in (None, 0, 1, 2):
        raise ValueError(f"Invalid aggregation_method specified {aggregation_method}.")
    mode = UnconnectedGradients(unconnected_gradients)
    ys, _ = _as_list(ys)
    xs, _ = _as_list(xs)
    for t in ys:
        if not isinstance(t, SymbolicTensor):
            raise TypeError(f"gradients: ys must be tensors of the function being traced, got "
                            f"{t!r:.80}.")
    weights = [None] * len(ys) if grad_ys is None else _as_list(grad_ys)[0]
    if len(weights) != len(ys):
        raise ValueError(f"Passed {len(weights)} grad_ys for {len(ys)} ys")
    seeds: dict = {}
    for y, w in zip(ys, weights):
        seed = _math.ones_like(y) if w is None else _math.cast(
            _math.convert_to_tensor(w), y.dtype) if not isinstance(w, Tensor) else w
        seeds.setdefault(id(y), []).append(seed)
    stops = {id(t) for t in _as_list(stop_gradients)[0]} if stop_gradients is not None else set()
    nodes = []
    for op in list(graph.operations):
        node = node_of(op)
        if stops and any(id(o) in stops for o in node.outputs):
            continue  # nothing flows back through a stopped tensor
        nodes.append(node)
    found = backprop(nodes, seeds, xs)
    out = []
    for x in xs:
        g = found.get(id(x))
        if g is None and mode is UnconnectedGradients.ZERO:
            g = _math.zeros_like(x._as_tensor() if hasattr(x, "_as_tensor") else x)
        out.append(g)
    return out


def hessians(ys, xs, gate_gradients=False, aggregation_method=None,
             name="hessians") -> list[Tensor | None]:
    """For each x of `xs`, the Hessian of `sum(ys)`: shape `x.shape + x.shape` (shapes known
    while tracing). Only inside a function."""
    xs, _ = _as_list(xs)
    out = []
    for x, g in zip(xs, gradients(ys, xs, aggregation_method=aggregation_method)):
        if g is None:
            out.append(None)
            continue
        dims = x.shape.as_list()
        if None in dims:
            raise ValueError(f"hessians needs the shape of {x!r:.60} known while tracing.")
        flat = _math.reshape(g, [-1])
        rows = []
        for i in range(int(flat.shape[0])):
            (row,) = gradients(flat[i], [x], unconnected_gradients="zero")
            rows.append(row)
        out.append(_math.reshape(_math.stack(rows), dims + dims))
    return out


_REGISTERED: set = set()  # op names given a gradient by RegisterGradient


def _opdef(op_type: str, fn: str):
    if not isinstance(op_type, str):
        raise TypeError(f"{fn}: op_type must be a string, got {type(op_type).__name__}.")
    opdef = lookup(op_type)
    if opdef is None:
        raise LookupError(f"{fn}: there is no op named {op_type!r}; define it first "
                          "(runtime.opdef.define).")
    return opdef


class RegisterGradient:
    """Decorator: `@RegisterGradient("MyOp") def _grad(op, *grads)` makes the function the
    gradient rule of the op named `op_type` (it returns one gradient per input, a list or a
    single tensor)."""

    def __init__(self, op_type):
        self._opdef = _opdef(op_type, "RegisterGradient")
        if op_type in _REGISTERED:
            raise KeyError(f"Registering two gradient with name '{op_type}'!")

    def __call__(self, f):
        name = self._opdef.name

        def rule(op, *grads):
            result = f(op, *grads)
            return list(result) if isinstance(result, (list, tuple)) else [result]
        self._opdef.def_grad(rule)
        self._opdef.differentiable = True
        _REGISTERED.add(name)
        return f


def no_gradient(op_type) -> None:
    """Declares that the op named `op_type` has no gradient: gradients stop there (None)
    instead of raising LookupError."""
    op = _opdef(op_type, "no_gradient")
    op.grad = None
    op.differentiable = False


def grad_pass_through(f) -> Callable[..., Tensor]:
    """`f` whose gradient is the identity: the gradient of `f(x)` flows to `x` unchanged
    (`grad_pass_through(v.assign)(z ** 2)` passes the gradient to z)."""
    @custom_gradient
    def passed(*args):
        def grad(*upstream):
            return upstream[0] if len(args) == 1 else list(upstream)
        return f(*args), grad

    def call(*args) -> Tensor:
        return passed(*args)
    call.__name__ = getattr(f, "__name__", "grad_pass_through")
    return call
