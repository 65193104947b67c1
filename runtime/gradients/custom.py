"""`stop_gradient` and `custom_gradient`: ops that change how gradients flow.

Both are graph ops, so they survive tracing: a compiled function's backward pass, built
from its graph, sees them like any other op.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable

from .. import nest
from ..opdef import define
from ..ops import array_math, core
from ..ops.core import apply
from ..tensor import Tensor
from .tape import GradientTape, paused


def _emit_alias(em, op):
    names = em.ins(op)
    offset = len(names) - len(op.outputs)
    for i, out in enumerate(op.outputs):
        em.alias(out, names[offset + i])


STOP_GRADIENT = define("StopGradient", lambda x: (x.shape, x.dtype), lambda x: x,
                       emit=_emit_alias, differentiable=False)


def stop_gradient(input, name=None) -> Tensor:  # noqa: A002 - TensorFlow's name
    """`input` unchanged, but gradients do not flow through it."""
    return apply(STOP_GRADIENT, [core.convert_to_tensor(input)], name=name)


def _custom_infer(*tensors, n_inputs, grad_fn, variables):
    return [(t.shape, t.dtype) for t in tensors[n_inputs:]]


def _custom_kernel(*values, n_inputs, grad_fn, variables):
    return tuple(values[n_inputs:])


CUSTOM = define("CustomGradient", _custom_infer, _custom_kernel, emit=_emit_alias,
                num_outputs=None, savable=False)  # holds grad_fn


@CUSTOM.def_grad
def _custom_grad(op, *grads):
    """Calls the user's gradient function; the wrapped computation gets no gradient itself."""
    n_inputs = op.attrs["n_inputs"]
    variables = op.attrs["variables"]
    outs = op.forward_outputs
    dys = [g if g is not None else _zeros(outs[i]) for i, g in enumerate(grads)]
    fn = op.attrs["grad_fn"]
    if variables:
        result = fn(*dys, variables=list(variables))
        if not (isinstance(result, (list, tuple)) and len(result) == 2):
            raise TypeError("A custom gradient function called with variables must return "
                            "(input_gradients, variable_gradients).")
        input_grads, var_grads = result
        input_grads = _as_list(input_grads)
        var_grads = _as_list(var_grads)
        if len(var_grads) != len(variables):
            raise ValueError(f"The custom gradient function returned {len(var_grads)} variable "
                             f"gradients for {len(variables)} variables.")
    else:
        input_grads, var_grads = _as_list(fn(*dys)), []
    if len(input_grads) != n_inputs:
        raise ValueError(f"The custom gradient function returned {len(input_grads)} gradients "
                         f"for {n_inputs} tensor inputs.")
    n_outputs = len(op.forward_inputs) - n_inputs - len(variables)
    converted = [None if g is None else core.convert_to_tensor(g) for g in input_grads]
    return converted + [None] * n_outputs + [None if g is None else core.convert_to_tensor(g)
                                             for g in var_grads]


def _as_list(value):
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


def _zeros(t):
    return array_math.zeros_like(t)


def custom_gradient(f=None) -> Callable[..., Any]:
    """Decorator: `f(*args)` returns `(y, grad_fn)`; gradients of `y` come from `grad_fn`.

    `grad_fn(*dys)` returns one gradient per tensor argument. When `f` reads variables,
    `grad_fn(*dys, variables=...)` returns `(input_gradients, variable_gradients)`.
    Works eagerly and in compiled functions.
    """
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def wrapped(*args, **kwargs):
        flat_args = nest.flatten((args, kwargs))
        # a Variable argument is an input like a tensor (its value, read here, as TensorFlow
        # does); `variables` are those `f` reads that are not arguments
        inputs = [core.convert_to_tensor(a) for a in flat_args if isinstance(a, Tensor)]
        watcher = GradientTape(watch_accessed_variables=True)
        with paused():
            with watcher:
                result, grad_fn = f(*args, **kwargs)
        variables = [v for v in watcher.watched_variables() if not any(v is a for a in flat_args)]
        if variables and "variables" not in _parameters(grad_fn):
            raise TypeError("The function decorated with custom_gradient reads variables "
                            f"({', '.join(v.name for v in variables)}), so its gradient function "
                            "must accept a `variables` keyword argument.")
        flat_out = [core.convert_to_tensor(y) for y in nest.flatten(result)]
        outs = apply(CUSTOM, inputs + flat_out, {"n_inputs": len(inputs), "grad_fn": grad_fn,
                                                 "variables": tuple(variables)})
        return nest.pack_sequence_as(result, list(outs)) if nest.is_nested(result) else outs[0]
    return wrapped


def _parameters(fn):
    try:
        return inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return {}
