"""Reverse-mode automatic differentiation: `GradientTape`, `stop_gradient`, `custom_gradient`.

Gradient rules of the primitive ops live beside the ops (runtime/ops/*); this package holds
the tape, the reverse sweep, and the rules that need the graph machinery: `cond`,
`while_loop`, `TensorArray` and calls of compiled functions.
"""

import sys as _sys
import types as _types

from . import cond_grad, while_grad  # noqa: F401 - they register rules
from .custom import custom_gradient, stop_gradient
from .symbolic import (
    AggregationMethod,
    RegisterGradient,
    grad_pass_through,
    gradients,
    hessians,
    no_gradient,
)
from .tape import GradientTape, UnconnectedGradients

__all__ = ["AggregationMethod", "GradientTape", "RegisterGradient", "UnconnectedGradients",
           "custom_gradient", "grad_pass_through", "gradients", "hessians", "no_gradient",
           "stop_gradient"]


class _CallableModule(_types.ModuleType):
    """`rt.gradients` is this package (`import runtime.gradients` works) and, called,
    `tf.gradients`."""

    def __call__(self, ys, xs, *args, **kwargs):
        return gradients(ys, xs, *args, **kwargs)


_sys.modules[__name__].__class__ = _CallableModule
